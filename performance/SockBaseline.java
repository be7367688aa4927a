// SockBaseline.java — what a Java user would otherwise use: round trips of
// SIZE bytes between two JVMs over java.nio channels, on the same transport
// as the link: uds, a SocketChannel on a Unix-domain address (Java 16+);
// tcp, a SocketChannel on loopback with TCP_NODELAY, as the link; pipe, a
// child process's standard input and output (ProcessBuilder: Java has no
// socket pair, and a child's pipes are its way to a peer it starts).
//
//   java SockBaseline.java --transport pipe|uds|tcp [--sec S] [--size N]
//
// Run as a single source file (no build step).  Prints one line in
// perfclient's shape, for the Java row's .perf file:
//   sock-roundtrip ops/s=53000 count=53000 sec=1.000 transport=uds size=88
// (the peer is this program too: --serve pipe|uds|tcp ADDRESS SIZE)
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public class SockBaseline {
    /** One end of a connection: write a message, read one of the same size. */
    interface End {
        void write(byte[] msg) throws IOException;
        boolean read(byte[] msg) throws IOException;
        void close() throws IOException;
    }

    static End channelEnd(SocketChannel ch) {
        return new End() {
            public void write(byte[] msg) throws IOException {
                ByteBuffer b = ByteBuffer.wrap(msg);
                while (b.hasRemaining())
                    ch.write(b);
            }
            public boolean read(byte[] msg) throws IOException {
                ByteBuffer b = ByteBuffer.wrap(msg);
                while (b.hasRemaining())
                    if (ch.read(b) < 0)
                        return false;
                return true;
            }
            public void close() throws IOException { ch.close(); }
        };
    }

    static End streamEnd(InputStream in, OutputStream out) {
        DataInputStream din = new DataInputStream(in);
        return new End() {
            public void write(byte[] msg) throws IOException { out.write(msg); out.flush(); }
            public boolean read(byte[] msg) throws IOException {
                try {
                    din.readFully(msg);
                    return true;
                } catch (java.io.EOFException e) {
                    return false;
                }
            }
            public void close() throws IOException { out.close(); in.close(); }
        };
    }

    static SocketAddress address(String transport, String where) {
        if (transport.equals("uds"))
            return UnixDomainSocketAddress.of(where);
        return new InetSocketAddress("127.0.0.1", Integer.parseInt(where));
    }

    /** The peer: answer every message with itself until the other side closes. */
    static void serve(String transport, String where, int size) throws IOException {
        End end;
        if (transport.equals("pipe")) {
            end = streamEnd(System.in, System.out);
        } else {
            SocketChannel ch = SocketChannel.open(address(transport, where));
            if (transport.equals("tcp"))
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            end = channelEnd(ch);
        }
        byte[] msg = new byte[size];
        while (end.read(msg))
            end.write(msg);
    }

    /** This source file, as the launcher was given it (single-file mode). */
    static String source() {
        for (String a : ProcessHandle.current().info().arguments().orElse(new String[0]))
            if (a.endsWith("SockBaseline.java"))
                return a;
        throw new IllegalStateException("run as: java SockBaseline.java ...");
    }

    /** The echo peer: this program again, in a JVM of its own. */
    static Process peer(String transport, String where, int size) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), source(),
                "--serve", transport, where, Integer.toString(size)));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        if (!transport.equals("pipe"))
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        return pb.start();
    }

    public static void main(String[] args) throws Exception {
        String transport = "pipe";
        double sec = 1.0;
        int size = 88;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
            case "--serve":
                serve(args[i + 1], args[i + 2], Integer.parseInt(args[i + 3]));
                return;
            case "--transport": transport = args[++i]; break;
            case "--sec": sec = Double.parseDouble(args[++i]); break;
            case "--size": size = Integer.parseInt(args[++i]); break;
            default:
                System.err.println("usage: java SockBaseline.java --transport pipe|uds|tcp [--sec S] [--size N]");
                System.exit(2);
            }
        }
        End end;
        Process p;
        Path dir = Files.createTempDirectory("sockbaseline");
        if (transport.equals("pipe")) {
            p = peer(transport, "-", size);
            end = streamEnd(p.getInputStream(), p.getOutputStream());
        } else if (transport.equals("uds") || transport.equals("tcp")) {
            ServerSocketChannel server = transport.equals("uds")
                    ? ServerSocketChannel.open(StandardProtocolFamily.UNIX)
                    : ServerSocketChannel.open();
            server.bind(transport.equals("uds") ? address("uds", dir.resolve("sock").toString())
                                                : new InetSocketAddress("127.0.0.1", 0));
            String where = transport.equals("uds") ? dir.resolve("sock").toString()
                    : Integer.toString(((InetSocketAddress) server.getLocalAddress()).getPort());
            p = peer(transport, where, size);
            SocketChannel ch = server.accept();
            server.close();
            if (transport.equals("tcp"))
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            end = channelEnd(ch);
        } else {
            System.err.println("SockBaseline: --transport takes pipe, uds or tcp");
            System.exit(2);
            return;
        }
        byte[] msg = new byte[size];
        java.util.Arrays.fill(msg, (byte) 'x');
        // warm-up: the JIT compiles the loop before the clock starts
        for (int i = 0; i < 2000; i++) {
            end.write(msg);
            end.read(msg);
        }
        long n = 0, t0 = System.nanoTime();
        double s;
        while (true) {
            for (int i = 0; i < 100; i++) {
                end.write(msg);
                if (!end.read(msg))
                    throw new IOException("the peer ended");
            }
            n += 100;
            s = (System.nanoTime() - t0) / 1e9;
            if (s >= sec)
                break;
        }
        end.close();
        p.waitFor();
        Files.deleteIfExists(dir.resolve("sock"));
        Files.delete(dir);
        System.out.printf("sock-roundtrip ops/s=%.0f count=%d sec=%.3f transport=%s size=%d%n",
                          n / s, n, s, transport, size);
    }
}
