// EscapeTest.java — a ReadBUF or IndexGet copy passed straight on to
// WriteBUF or AppendBUF costs no allocation once C2 has compiled the loop
// (TAP).  The copy is never handed to native code (the natives return its
// value and take it back as fields), so C2's escape analysis can drop the
// object: the perfserver's BUST and BFLT do this for every item.  Run with
// the JVM's default compilers (java-binding.sh stops at C1, which has no
// escape analysis).  It counts this thread's allocated bytes, not time: a
// round of the loop either allocates an object per item or nothing.
import java.lang.management.ManagementFactory;
import org.mqlink.*;

public class EscapeTest {
    static final int ITEMS = 4, LOOPS = 20000, ROUNDS = 100;

    interface Loop {
        void run();
    }

    /** The fewest bytes one pass allocated over the rounds (C2 compiles it in the background). */
    static double leastBytesPerPass(Loop loop) {
        com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        double least = Double.MAX_VALUE;
        for (int r = 0; r < ROUNDS && least > 0; r++) {
            long before = mx.getThreadAllocatedBytes(self);
            for (int i = 0; i < LOOPS; i++)
                loop.run();
            least = Math.min(least, (mx.getThreadAllocatedBytes(self) - before) / (double) LOOPS);
        }
        return least;
    }

    /** ok: less than one 16-byte object per pass of ITEMS copies, and the values arrived. */
    static void report(int n, String name, double bytes, MkBufferStreamC dst) {
        dst.PosToStart();
        boolean same = dst.ReadI32() == 7 && dst.ReadDBL() == 3.25 && dst.ReadI64() == -64 &&
            dst.ReadI8() == 8 && !dst.ReadItemExists();
        System.out.println((bytes < 16 && same ? "ok " : "not ok ") + n + " - " + name);
        if (bytes >= 16)
            System.out.println("#   " + bytes + " bytes per pass of " + ITEMS + " items");
        if (!same)
            System.out.println("#   the values did not pass on unchanged");
    }

    public static void main(String[] args) {
        System.out.println("1..2");
        MkBufferStreamC src = new MkBufferStreamC(), dst = new MkBufferStreamC();
        MkBufferListC list = new MkBufferListC();
        src.WriteI32(7); src.WriteDBL(3.25); src.WriteI64(-64); src.WriteI8((byte) 8);
        report(1, "ReadBUF copies passed to WriteBUF allocate nothing once compiled",
               leastBytesPerPass(() -> {
                   src.PosToStart();
                   dst.Reset();
                   while (src.ReadItemExists())
                       dst.WriteBUF(src.ReadBUF());
               }), dst);
        src.PosToStart();
        while (src.ReadItemExists())
            list.AppendBUF(src.ReadBUF());
        report(2, "IndexGet copies passed to WriteBUF allocate nothing once compiled",
               leastBytesPerPass(() -> {
                   dst.Reset();
                   for (int i = 0; i < list.Size(); i++)
                       dst.WriteBUF(list.IndexGet(i));
               }), dst);
        src.Delete(); dst.Delete(); list.Delete();
    }
}
