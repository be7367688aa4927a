// BaselineJava.java — what a Java user has without a library: the JDK's own
// SocketChannel round trip over a Unix socket (a thread echoing), with the
// payload of perfclient's --send-and-wait (ECUL: I8 I16 I32 DBL and a
// 32-byte blob, framed).  Prints one line like perfclient:
//   baseline-java ops/s=X count=N sec=S
//
//   java -cp PREFIX/share/mqlink/perfserver.jar BaselineJava [--sec S]
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

public class BaselineJava {
    // frame header (as the link's) plus the items of one ECUL call
    static final int PAYLOAD = 40 + 1 + 1 + 1 + 2 + 1 + 4 + 1 + 8 + 1 + 4 + 32;

    static void readFully(SocketChannel c, ByteBuffer b) throws Exception {
        b.clear();
        while (b.hasRemaining())
            if (c.read(b) < 0)
                throw new java.io.EOFException();
        b.flip();
    }

    public static void main(String[] args) throws Exception {
        double sec = 2.0;
        for (int i = 0; i + 1 < args.length; i++)
            if (args[i].equals("--sec"))
                sec = Double.parseDouble(args[i + 1]);
        Path dir = Files.createTempDirectory("baseline-java");
        Path path = dir.resolve("sock");
        ServerSocketChannel srv = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        srv.bind(UnixDomainSocketAddress.of(path));
        Thread echo = new Thread(() -> {
            try (SocketChannel c = srv.accept()) {
                ByteBuffer b = ByteBuffer.allocateDirect(PAYLOAD);
                for (;;) {
                    readFully(c, b);
                    while (b.hasRemaining())
                        c.write(b);
                }
            } catch (Exception e) {
                // the client closed
            }
        });
        echo.setDaemon(true);
        echo.start();
        SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(path));
        ByteBuffer out = ByteBuffer.allocateDirect(PAYLOAD), in = ByteBuffer.allocateDirect(PAYLOAD);
        long n = 0, warm = 2000;
        for (long i = 0; i < warm; i++) {
            out.clear();
            while (out.hasRemaining())
                c.write(out);
            readFully(c, in);
        }
        long t0 = System.nanoTime(), end = t0 + (long) (sec * 1e9), t;
        do {
            for (int k = 0; k < 100; k++, n++) {
                out.clear();
                out.putLong(0, n);
                while (out.hasRemaining())
                    c.write(out);
                readFully(c, in);
            }
            t = System.nanoTime();
        } while (t < end);
        double s = (t - t0) / 1e9;
        System.out.printf("baseline-java ops/s=%.0f count=%d sec=%.3f%n", n / s, n, s);
        c.close();
        srv.close();
        Files.deleteIfExists(path);
        Files.deleteIfExists(dir);
    }
}
