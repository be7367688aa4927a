// JavaClient.java LABEL LINK-ARGS... — the interop client in Java: every type
// with boundary values, nested lists, errors both ways, wrong-type reads,
// callbacks and server instances against the server LINK-ARGS reach.
// Prints one TAP line per case ("ok - LABEL: case"); run_matrix.sh numbers them.
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.mqlink.*;

public class JavaClient {
    interface Case {
        void run() throws Exception;
    }

    static String label;
    static MqContextC c;
    static final int MiB = 1 << 20;

    static void report(boolean ok, String name, String why) {
        System.out.println((ok ? "ok" : "not ok") + " - " + label + ": " + name);
        if (!ok && why != null)
            System.out.println("#   " + why);
        System.out.flush();
    }

    static void check(String name, Case fn) {
        try {
            fn.run();
            report(true, name, null);
        } catch (Throwable e) {   // a failing case never stops the others
            report(false, name, e.toString());
        }
    }

    static void expect(boolean ok, String what) {
        if (!ok)
            throw new AssertionError(what);
    }

    static void raises(Case fn, String what) throws Exception {
        try {
            fn.run();
        } catch (MkExceptionC e) {
            return;
        }
        throw new AssertionError(what);
    }

    static void call(MqContextC k, String t) {
        k.SendEND_AND_WAIT("ECHO", 20000);
    }

    public static void main(String[] args) {
        label = args[0];
        String[] link = new String[args.length];
        link[0] = "JavaClient";
        System.arraycopy(args, 1, link, 1, args.length - 1);
        c = new MqContextC();
        c.LinkCreate(link);
        c.SendSTART();
        c.SendEND_AND_WAIT("INST");
        String server = c.ReadSTR();

        check("ECHO I8 with boundary values", () -> {
            for (byte v : new byte[] {Byte.MIN_VALUE, -1, 0, Byte.MAX_VALUE}) {
                c.SendSTART(); c.SendSTR("I8"); c.SendI8(v); call(c, "I8");
                expect(c.ReadI8() == v, "I8 " + v);
            }
        });
        check("ECHO I16 with boundary values", () -> {
            for (short v : new short[] {Short.MIN_VALUE, 0, Short.MAX_VALUE}) {
                c.SendSTART(); c.SendSTR("I16"); c.SendI16(v); call(c, "I16");
                expect(c.ReadI16() == v, "I16 " + v);
            }
        });
        check("ECHO I32 with boundary values", () -> {
            for (int v : new int[] {Integer.MIN_VALUE, 0, Integer.MAX_VALUE}) {
                c.SendSTART(); c.SendSTR("I32"); c.SendI32(v); call(c, "I32");
                expect(c.ReadI32() == v, "I32 " + v);
            }
        });
        check("ECHO I64 with boundary values", () -> {
            for (long v : new long[] {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE}) {
                c.SendSTART(); c.SendSTR("I64"); c.SendI64(v); call(c, "I64");
                expect(c.ReadI64() == v, "I64 " + v);
            }
        });
        check("ECHO FLT with boundary values", () -> {
            for (float v : new float[] {0.0f, -0.0f, 1.5f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, Float.MIN_VALUE}) {
                c.SendSTART(); c.SendSTR("FLT"); c.SendFLT(v); call(c, "FLT");
                float r = c.ReadFLT();
                expect(Float.floatToRawIntBits(r) == Float.floatToRawIntBits(v) || (Float.isNaN(v) && Float.isNaN(r)), "FLT " + v + " came back as " + r);
            }
        });
        check("ECHO DBL with boundary values", () -> {
            for (double v : new double[] {0.0, -0.0, 1e308, -5e-324, Double.POSITIVE_INFINITY, Double.NaN}) {
                c.SendSTART(); c.SendSTR("DBL"); c.SendDBL(v); call(c, "DBL");
                double r = c.ReadDBL();
                expect(Double.doubleToRawLongBits(r) == Double.doubleToRawLongBits(v) || (Double.isNaN(v) && Double.isNaN(r)), "DBL " + v + " came back as " + r);
            }
        });
        check("ECHO BOL with boundary values", () -> {
            for (boolean v : new boolean[] {true, false}) {
                c.SendSTART(); c.SendSTR("BOL"); c.SendBOL(v); call(c, "BOL");
                expect(c.ReadBOL() == v, "BOL " + v);
            }
        });
        check("ECHO STR with boundary values", () -> {
            for (String v : new String[] {"", "text", "\u00e4\u4e2d\ud83d\ude00", "x".repeat(MiB)}) {
                c.SendSTART(); c.SendSTR("STR"); c.SendSTR(v); call(c, "STR");
                String r = c.ReadSTR();
                expect(r.equals(v), "STR of " + v.length() + " came back as " + (r.length() < 40 ? r : "<big>"));
            }
        });
        check("ECHO BIN with boundary values", () -> {
            byte[] big = new byte[MiB];
            for (int i = 0; i < big.length; i++)
                big[i] = (byte) i;
            for (byte[] v : new byte[][] {new byte[0], {0, (byte) 0xff, 0}, big}) {
                c.SendSTART(); c.SendSTR("BIN"); c.SendBIN(v); call(c, "BIN");
                expect(Arrays.equals(c.ReadBIN(), v), "BIN of " + v.length);
            }
        });
        check("ELST echoes nested lists", () -> {
            c.SendSTART();
            c.SendL_START(); c.SendI32(1);
            c.SendL_START(); c.SendSTR("deep"); c.SendBIN(new byte[] {1}); c.SendL_END();
            c.SendDBL(2.5); c.SendL_END();
            c.SendEND_AND_WAIT("ELST");
            c.ReadL_START();
            expect(c.ReadI32() == 1, "1");
            c.ReadL_START();
            expect(c.ReadSTR().equals("deep") && Arrays.equals(c.ReadBIN(), new byte[] {1}), "deep");
            c.ReadL_END();
            expect(c.ReadDBL() == 2.5, "2.5");
            c.ReadL_END();
            expect(!c.ReadItemExists(), "end");
        });
        check("a service's error arrives as MkExceptionC with its text", () -> {
            c.SendSTART();
            c.SendSTR("broken on purpose");
            try {
                c.SendEND_AND_WAIT("FAIL");
                throw new AssertionError("no exception");
            } catch (MkExceptionC e) {
                expect(e.getText().contains("broken on purpose"), e.getText());
            }
        });
        if (server.startsWith("JavaServer"))
            check("a plain Java exception in a service arrives with its class and text", () -> {
                c.SendSTART();
                try {
                    c.SendEND_AND_WAIT("JAER");
                    throw new AssertionError("no exception");
                } catch (MkExceptionC e) {
                    expect(e.getText().contains("java.lang.IllegalArgumentException: java says no"), e.getText());
                }
            });
        check("reading the wrong type in a service is an error the service can catch", () -> {
            c.SendSTART(); c.SendSTR("abc");
            c.SendEND_AND_WAIT("WRNG");
            String t = c.ReadSTR();
            expect(t.startsWith("caught: "), t);
        });
        check("reading the wrong type throws MkExceptionC", () -> {
            c.SendSTART(); c.SendSTR("I32"); c.SendI32(300); call(c, "I32");
            raises(() -> c.ReadI8(), "300 read as I8");
            c.SendSTART(); c.SendSTR("STR"); c.SendSTR("abc"); call(c, "STR");
            raises(() -> c.ReadI32(), "'abc' read as I32");
        });
        check("SendEND_AND_CALLBACK runs the callback from the event loop", () -> {
            int[] got = {0};
            c.SendSTART(); c.SendSTR("I32"); c.SendI32(42);
            c.SendEND_AND_CALLBACK("ECHO", ctx -> got[0] = ctx.ReadI32());
            for (int i = 0; i < 100 && got[0] == 0; i++)
                c.ProcessEvent(MqLink.MQ_WAIT_ONCE, 1000);
            expect(got[0] == 42, "got " + got[0]);
        });
        check("a callback that throws does not kill the event loop", () -> {
            c.SendSTART(); c.SendSTR("I8"); c.SendI8((byte) 1);
            c.SendEND_AND_CALLBACK("ECHO", ctx -> {
                throw new RuntimeException("callback failed on purpose");
            });
            c.ProcessEvent(MqLink.MQ_WAIT_ONCE, 1000);
            c.SendSTART(); c.SendSTR("I16"); c.SendI16((short) 7); call(c, "I16");
            expect(c.ReadI16() == 7, "still serving");
        });
        check("every child gets its own server instance of the server's class", () -> {
            Set<String> names = new HashSet<>();
            names.add(server);
            MqContextC[] kids = new MqContextC[3];
            for (int i = 0; i < 3; i++) {
                MqContextC k = kids[i] = new MqContextC();
                k.LinkCreateChild(c);
                k.SendSTART();
                k.SendEND_AND_WAIT("INST");
                names.add(k.ReadSTR());
                k.SendSTART(); k.SendSTR("I64"); k.SendI64(-5); call(k, "I64");
                expect(k.ReadI64() == -5, "child echo");
            }
            for (MqContextC k : kids)
                k.Delete();
            expect(names.size() == 4, names.toString());
            String prefix = server.split(":")[0];
            for (String n : names)
                expect(n.split(":")[0].equals(prefix), names.toString());
        });
        c.Delete();
        System.exit(0);
    }
}
