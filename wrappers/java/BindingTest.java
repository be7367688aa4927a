// BindingTest.java — the Java binding's own cases, in one JVM (TAP): every
// type at its boundaries through the kernel objects, strings outside the BMP,
// errors both ways, wrong-type reads, deleted objects, --fork refused, and a
// server in this JVM (uds --thread: the library's threads call into Java)
// whose instances are new objects of its class, released when they go.
import java.io.File;
import java.io.FileWriter;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.mqlink.*;

public class BindingTest {
    interface Case {
        void run() throws Exception;
    }

    static int n = 0, failed = 0;

    static void check(String name, Case c) {
        n++;
        try {
            c.run();
            System.out.println("ok " + n + " - " + name);
        } catch (Throwable e) {
            failed++;
            System.out.println("not ok " + n + " - " + name);
            System.out.println("#   " + e);
            for (StackTraceElement s : e.getStackTrace())
                if (s.getClassName().startsWith("BindingTest"))
                    System.out.println("#     at " + s);
        }
        System.out.flush();
    }

    static void expect(boolean ok, String what) {
        if (!ok)
            throw new AssertionError(what);
    }

    static MkExceptionC raises(Case c) throws Exception {
        try {
            c.run();
        } catch (MkExceptionC e) {
            return e;
        }
        throw new AssertionError("no MkExceptionC");
    }

    static final String NONBMP = "\u00e4\u4e2d\ud83d\ude00x";
    static final int MiB = 1 << 20;

    // ------------------------------------------------------------ a server
    static final List<WeakReference<TestServer>> instances = Collections.synchronizedList(new ArrayList<>());

    public static class TestServer extends MqContextC {
        static volatile String refuseNext;   // the next instance's constructor throws this

        static volatile String keepRefused;

        // the next instance's constructor makes a context before its own
        static volatile boolean madeBeforeNext;

        final MqContextC madeBefore;

        public TestServer() {
            this(madeBefore());
        }

        static MqContextC madeBefore() {
            if (!madeBeforeNext)
                return null;
            madeBeforeNext = false;
            return new MqContextC();
        }

        private TestServer(MqContextC before) {
            madeBefore = before;
            String r = refuseNext;
            if (r != null) {
                refuseNext = null;
                throw new IllegalStateException(r);
            }
            instances.add(new WeakReference<>(this));
        }

        public void ServerSetup() {
            ServiceCreate("ECHO", ctx -> {   // a lambda taking the context
                ctx.SendSTART();
                while (ctx.ReadItemExists())
                    ctx.ProxyItem(ctx);
                ctx.SendRETURN();
            });
            ServiceCreate("FAIL", this::FAIL);   // a bound method reference
            ServiceCreate("JERR", () -> {
                throw new IllegalStateException("java says no");
            });
            ServiceCreate("INST", TestServer::INST);   // an unbound one
            ServiceCreate("WRNG", this::WRNG);
            ServiceCreate("VIEW", this::VIEW);
            ServiceCreate("CNTR", this::CNTR);
            ServiceCreate("!~aZ", this::TOKN);   // the printable range's ends
            // slots 7 to 11: past the eight that MkObjectC runs by a method each
            for (int i = 0; i < 4; i++)
                answer("SVC" + i, "SV" + i, i % 2 == 0);
            answer("KEEP", "kept", true);
            ServiceCreate("GONE", () -> { });   // deleted in the setup that registered it
            ServiceDelete("GONE");
            answer("TWIC", "first", true);      // replaced there, by the other form
            answer("TWIC", "second", false);
            try {   // refused: KEEP keeps its callable
                ServiceCreate("KEEP", (MqServiceNoArgIF) null);
            } catch (MkExceptionC e) {
                keepRefused = e.getText();
            }
            ServiceCreate("SWAP", () -> {   // SVC0 replaced by a new callable, in the slot SWAP's call frees
                ServiceDelete("SVC1");
                answer("SVC0", "new", false);
                SendSTART();
                SendRETURN();
            });
            // past the eighth slot too, both forms: each starts knowing its message's first item
            ServiceCreate("CNTN", this::CNTR);
            ServiceCreate("CNTX", ctx -> ((TestServer) ctx).CNTR());
        }

        /** A service answering text, of either form. */
        void answer(String token, String text, boolean noArg) {
            if (noArg) {
                ServiceCreate(token, () -> {
                    SendSTART();
                    SendSTR(text);
                    SendRETURN();
                });
            } else {
                ServiceCreate(token, ctx -> {
                    ctx.SendSTART();
                    ctx.SendSTR(text);
                    ctx.SendRETURN();
                });
            }
        }

        public void TOKN() {
            SendSTART();
            SendSTR(ServiceGetToken());
            SendRETURN();
        }

        // kept past the service on purpose: the view must be dead by then
        static volatile MkBufferC keptView, keptCopy;

        void VIEW() {
            MkBufferC v = ReadBUFR(), c = ReadBUF(), w = ReadBUFR();
            String same = v == w ? "same" : "new";
            SendSTART();
            SendBUF(w);   // the view passes on without a copy
            SendSTR(same + ":" + w.GetSTR() + ":" + c.GetI32());
            SendRETURN();
            keptView = w;
            keptCopy = c;
        }

        // the items, counted as PerfServer's BUST reads them (ReadItemExists answered in Java)
        void CNTR() {
            int n = 0;
            while (ReadItemExists()) {
                ReadBUFR();
                n++;
            }
            SendSTART();
            SendI32(n);
            SendRETURN();
        }

        void FAIL() {
            throw new MkExceptionC(ReadSTR(), 1234);
        }

        void INST() {
            SendSTART();
            SendSTR(getClass().getName() + ":" + System.identityHashCode(this) + ":"
                    + Thread.currentThread().getName());
            SendRETURN();
        }

        void WRNG() {
            String text;
            try {
                ReadI32();
                text = "not caught";
            } catch (MkExceptionC e) {
                text = "caught: " + e.getText();
            }
            SendSTART();
            SendSTR(text);
            SendRETURN();
        }
    }

    // a callable of both forms: the overload chosen at registration decides
    static final class Both implements MqServiceIF<MqContextC>, MqServiceNoArgIF {
        volatile String ran;

        public void Call(MqContextC ctx) {
            ctx.ReadI32();
            ran = "Call(ctx)";
        }

        public void Call() {
            ran = "Call()";
        }
    }

    public static class NoDefault extends MqContextC {
        public NoDefault(int x) {
        }
    }

    public static class BadSetup extends MqContextC {
        public void ServerSetup() {
            throw new MkExceptionC("setup refused on purpose", 4321);
        }
    }

    // not public, its constructor private and able to throw a checked exception
    static final class Hidden extends MqContextC {
        static volatile String refuseNext;

        private Hidden() throws java.io.IOException {
            String r = refuseNext;
            if (r != null) {
                refuseNext = null;
                throw new java.io.IOException(r);
            }
        }

        void ServerSetup() {
            ServiceCreate("NAME", () -> {
                SendSTART();
                SendSTR(getClass().getName() + ":" + System.identityHashCode(this));
                SendRETURN();
            });
        }
    }

    public static void main(String[] args) throws Exception {
        check("MkBufferC: every fixed type at its boundaries", () -> {
            try (MkBufferC b = new MkBufferC()) {
                b.SetI8(Byte.MIN_VALUE); expect(b.GetI8() == Byte.MIN_VALUE, "I8 min");
                b.SetI8(Byte.MAX_VALUE); expect(b.GetI8() == Byte.MAX_VALUE, "I8 max");
                b.SetI16(Short.MIN_VALUE); expect(b.GetI16() == Short.MIN_VALUE, "I16");
                b.SetI32(Integer.MIN_VALUE); expect(b.GetI32() == Integer.MIN_VALUE, "I32");
                b.SetI64(Long.MIN_VALUE); expect(b.GetI64() == Long.MIN_VALUE, "I64 min");
                b.SetI64(Long.MAX_VALUE); expect(b.GetI64() == Long.MAX_VALUE, "I64 max");
                expect(b.GetType() == MqLink.MK_TYPE_I64, "type");
                b.SetFLT(Float.NaN); expect(Float.isNaN(b.GetFLT()), "FLT NaN");
                b.SetDBL(-0.0); expect(Double.doubleToRawLongBits(b.GetDBL()) == Long.MIN_VALUE, "-0.0");
                b.SetDBL(Double.MIN_VALUE); expect(b.GetDBL() == Double.MIN_VALUE, "denormal");
                b.SetBOL(true); expect(b.GetBOL(), "BOL");
                b.SetBOL(false); expect(!b.GetBOL(), "BOL false");
            }
        });
        check("MkBufferC: checked conversions throw with a code", () -> {
            MkBufferC b = new MkBufferC();
            b.SetI32(300);
            MkExceptionC e = raises(() -> b.GetI8());
            expect(e.getCode() == MqLink.MK_ERR_RANGE, "code " + e.getCode());
            expect(b.GetSTR().equals("300"), "I32 as STR");
            b.SetBIN(new byte[] {1});
            raises(() -> b.GetSTR());
            b.Delete();
        });
        check("STR: UTF-8 outside the BMP both ways, NUL refused", () -> {
            MkBufferC b = new MkBufferC();
            b.SetSTR(NONBMP);
            expect(b.GetSTR().equals(NONBMP), "round trip");
            b.SetSTR("");
            expect(b.GetSTR().isEmpty(), "empty");
            byte[] utf8 = NONBMP.getBytes(StandardCharsets.UTF_8);
            b.SetBIN(utf8);
            MkBufferStreamC s = new MkBufferStreamC();
            s.WriteSTR(NONBMP);
            expect(s.Size() > utf8.length, "size");
            s.PosToStart();
            expect(Arrays.equals(s.ReadBIN(), utf8), "the bytes on the wire are real UTF-8");
            raises(() -> b.SetSTR("a\u0000b"));
            s.Delete();
        });
        check("MkBufferStreamC: every type, nested lists, BIN empty and 1 MiB", () -> {
            MkBufferStreamC s = MkBufferStreamC.Create();
            byte[] big = new byte[MiB];
            for (int i = 0; i < big.length; i++)
                big[i] = (byte) i;
            s.WriteI8((byte) -128); s.WriteI16((short) 32767); s.WriteI32(-1); s.WriteI64(Long.MIN_VALUE);
            s.WriteFLT(Float.NEGATIVE_INFINITY); s.WriteDBL(Double.NaN); s.WriteBOL(true);
            s.WriteL_START(); s.WriteSTR(NONBMP); s.WriteL_START(); s.WriteBIN(new byte[0]); s.WriteL_END(); s.WriteL_END();
            s.WriteBIN(big);
            s.PosToStart();
            expect(s.ReadI8() == -128 && s.ReadI16() == 32767 && s.ReadI32() == -1, "ints");
            expect(s.ReadI64() == Long.MIN_VALUE, "I64");
            expect(s.ReadFLT() == Float.NEGATIVE_INFINITY && Double.isNaN(s.ReadDBL()) && s.ReadBOL(), "floats");
            s.ReadL_START();
            expect(s.ReadSTR().equals(NONBMP), "STR");
            s.ReadL_START();
            expect(s.ReadBIN().length == 0, "empty BIN");
            expect(!s.ReadItemExists(), "end of inner list");
            s.ReadL_END(); s.ReadL_END();
            expect(Arrays.equals(s.ReadBIN(), big), "1 MiB BIN");
            raises(() -> s.ReadI8());
            s.Delete();
        });
        check("MkBufferStreamC: a wrong-type read throws, ReadBUF is a copy to keep", () -> {
            MkBufferStreamC s = new MkBufferStreamC();
            s.WriteSTR("abc"); s.WriteI32(7); s.WriteI32(8);
            s.PosToStart();
            MkExceptionC e = raises(() -> s.ReadI32());
            expect(e.getCode() == MqLink.MK_ERR_TYPE, "code " + e.getCode() + " " + e.getText());
            s.PosToStart();
            s.ReadSTR();
            MkBufferC a = s.ReadBUF(), b = s.ReadBUF();
            expect(a.GetI32() == 7 && b.GetI32() == 8, "copies");
            s.Delete();
            expect(a.GetI32() == 7, "the copy outlives the stream");
        });
        check("a stream's ReadBUFR and a list's IndexGetR: one reused view each, until the next call on it", () -> {
            MkBufferStreamC s = new MkBufferStreamC(), t = new MkBufferStreamC();
            s.WriteSTR("one"); s.WriteI32(2);
            s.PosToStart();
            MkBufferC v = s.ReadBUFR();
            expect(v.IsValid() && v.GetSTR().equals("one"), "a live view");
            t.WriteBUF(v);   // passed on at once: no copy
            expect(s.ReadBUFR() == v && v.GetI32() == 2, "the same view shows the next item");
            s.WriteI32(3);   // any call on the stream ends it
            expect(!v.IsValid(), "ended by the next call");
            MkExceptionC e = raises(() -> v.GetI32());
            expect(e.getText().contains("no longer valid"), e.getText());
            e = raises(() -> t.WriteBUF(v));
            expect(e.getText().contains("no longer valid"), e.getText());
            t.PosToStart();
            expect(t.ReadSTR().equals("one") && !t.ReadItemExists(), "the view's value was written");
            MkBufferListC l = new MkBufferListC();
            l.AppendSTR("a"); l.AppendI64(Long.MIN_VALUE);
            MkBufferC w = l.IndexGetR(1);
            expect(w.GetI64() == Long.MIN_VALUE && l.IndexGetR(0) == w && w.GetSTR().equals("a"), "list view");
            raises(() -> l.IndexGetR(2));
            l.AppendI32(3);  // a call that may change the list ends it
            raises(() -> w.GetSTR());
            MkBufferC x = l.IndexGetR(0);
            l.Delete();
            expect(!x.IsValid(), "a deleted list's view is not valid");
            raises(() -> x.GetSTR());
            s.Delete();
            t.Delete();
        });
        check("a query on a stream or list (ReadItemExists, ReadGetType, Count, Size) leaves its view; the next other call ends it", () -> {
            MkBufferStreamC s = new MkBufferStreamC();
            s.WriteSTR("ab"); s.WriteI32(2);
            s.PosToStart();
            MkBufferC v = s.ReadBUFR();
            expect(s.ReadItemExists() && s.ReadGetType() == MqLink.MK_TYPE_I32 && s.Count() == 2
                   && s.Size() > 0, "the queries");
            expect(v.IsValid() && v.GetSTR().equals("ab"), "the view after the queries");
            s.ReadI32();
            expect(!v.IsValid(), "ended by a read");
            MkBufferListC l = new MkBufferListC();
            l.AppendI32(5);
            MkBufferC w = l.IndexGetR(0);
            expect(l.Size() == 1 && w.IsValid() && w.GetI32() == 5, "a list's view after Size");
            l.AppendI32(6);
            expect(!w.IsValid(), "ended by an append");
            s.Delete();
            l.Delete();
        });
        check("MkBufferStreamC: ReadItemExists after ReadBUF/ReadBUFR sees a later write, PosToStart and Reset; deleted, it throws", () -> {
            MkBufferStreamC s = new MkBufferStreamC();
            s.WriteI32(1);
            s.PosToStart();
            expect(s.ReadBUF().GetI32() == 1 && !s.ReadItemExists(), "read to the end");
            expect(!s.ReadItemExists(), "asked again");
            s.WriteI32(2);
            expect(s.ReadItemExists(), "a write after the last read adds an item");
            expect(s.ReadBUFR().GetI32() == 2 && !s.ReadItemExists(), "the new item read");
            s.PosToStart();
            expect(s.ReadItemExists(), "PosToStart");
            s.ReadBUFR();
            expect(s.ReadItemExists(), "one item left");
            s.Reset();
            expect(!s.ReadItemExists(), "Reset");
            s.PosToStart();
            expect(!s.ReadItemExists(), "PosToStart on an empty stream");
            s.WriteSTR("x");
            s.PosToStart();
            s.ReadBUF();
            s.Delete();
            raises(() -> s.ReadItemExists());
        });
        check("ReadBUF copies of every type pass on unchanged and answer every method", () -> {
            MkBufferStreamC s = new MkBufferStreamC(), t = new MkBufferStreamC();
            byte[] bin = {0, (byte) 0xff, 7};
            s.WriteI8((byte) -128); s.WriteI16(Short.MIN_VALUE); s.WriteI32(Integer.MAX_VALUE);
            s.WriteI64(Long.MIN_VALUE); s.WriteFLT(-0.0f); s.WriteDBL(Double.NaN); s.WriteBOL(true);
            s.WriteSTR(NONBMP); s.WriteBIN(bin); s.WriteSTR("");
            s.WriteI64(0); s.WriteBIN(new byte[0]); s.WriteDBL(-1.5); // zero and empty: no take
            s.PosToStart();
            List<MkBufferC> got = new ArrayList<>();
            while (s.ReadItemExists())
                got.add(s.ReadBUF());
            for (MkBufferC b : got)
                t.WriteBUF(b);
            MkBufferListC l = new MkBufferListC();
            for (MkBufferC b : got)
                l.AppendBUF(b);
            t.PosToStart();
            expect(t.ReadI8() == -128 && t.ReadI16() == Short.MIN_VALUE && t.ReadI32() == Integer.MAX_VALUE, "ints");
            expect(t.ReadI64() == Long.MIN_VALUE, "I64");
            expect(Float.floatToRawIntBits(t.ReadFLT()) == Integer.MIN_VALUE && Double.isNaN(t.ReadDBL()) && t.ReadBOL(), "floats");
            expect(t.ReadSTR().equals(NONBMP) && Arrays.equals(t.ReadBIN(), bin) && t.ReadSTR().isEmpty(), "STR BIN");
            expect(t.ReadI64() == 0 && t.ReadBIN().length == 0 && t.ReadDBL() == -1.5, "zero, empty");
            expect(l.IndexGet(7).GetSTR().equals(NONBMP) && l.IndexGet(3).GetI64() == Long.MIN_VALUE, "list");
            MkBufferC b = got.get(2);
            expect(b.IsValid() && b.GetType() == MqLink.MK_TYPE_I32 && b.GetI32() == Integer.MAX_VALUE, "methods");
            b.SetI8((byte) 5);
            expect(b.GetI8() == 5 && got.get(8).GetBIN().length == 3 && got.get(1).Dup().GetI16() == Short.MIN_VALUE, "more");
            MkBufferC d = got.get(0);
            d.Delete();
            expect(!d.IsValid(), "deleted");
            raises(() -> d.GetI8());
            raises(() -> t.WriteBUF(d));
            MkExceptionC e = raises(() -> t.WriteBUF(null));
            expect(e.getText().contains("null object"), e.getText());
            s.Delete(); t.Delete(); l.Delete();
        });
        // SendBUF, WriteBUF, AppendBUF and Copy take a C buffer or a view by
        // its handle alone (java.py's by_handle), the rest by their full form
        check("a buffer argument, C or view, through WriteBUF, AppendBUF, Copy; one that names none throws why and changes nothing", () -> {
            MkBufferStreamC s = new MkBufferStreamC(), t = new MkBufferStreamC();
            MkBufferListC l = new MkBufferListC();
            MkBufferC b = new MkBufferC(), into = new MkBufferC();
            b.SetI32(41);
            s.WriteSTR("view");
            s.PosToStart();
            MkBufferC v = s.ReadBUFR();
            t.WriteBUF(b); t.WriteBUF(v);
            l.AppendBUF(b); l.AppendBUF(v);
            into.Copy(v);
            expect(into.GetSTR().equals("view"), "Copy of a view: " + into.GetSTR());
            into.Copy(b);
            expect(into.GetI32() == 41 && l.Size() == 2 && l.IndexGet(1).GetSTR().equals("view"), "list");
            s.Reset();   // the view is spent
            MkBufferC d = new MkBufferC();
            d.Delete();
            String[] why = {"no longer valid", "was deleted", "null object"};
            MkBufferC[] bad = {v, d, null};
            for (int i = 0; i < bad.length; i++) {
                MkBufferC x = bad[i];
                for (Case call : new Case[] {() -> t.WriteBUF(x), () -> l.AppendBUF(x), () -> into.Copy(x)}) {
                    MkExceptionC e = raises(call);
                    expect(e.getText().contains(why[i]), e.getText());
                }
            }
            expect(l.Size() == 2 && into.GetI32() == 41, "nothing appended or copied");
            t.PosToStart();
            expect(t.ReadI32() == 41 && t.ReadSTR().equals("view") && !t.ReadItemExists(), "nothing written");
            s.Delete(); t.Delete(); l.Delete(); b.Delete(); into.Delete();
        });
        check("MkBufferListC: append, size, index; a bad index throws", () -> {
            try (MkBufferListC l = new MkBufferListC()) {
                l.AppendI8((byte) 1); l.AppendSTR(NONBMP); l.AppendBIN(new byte[] {9});
                MkBufferC b = new MkBufferC();
                b.SetDBL(2.5);
                l.AppendBUF(b);
                expect(l.Size() == 4, "size");
                expect(l.IndexGet(1).GetSTR().equals(NONBMP) && l.IndexGet(3).GetDBL() == 2.5, "values");
                raises(() -> l.IndexGet(4));
                MkBufferListC t = MkBufferListC.CreateTLS("bindingtest");
                t.AppendI32(1);
                expect(MkBufferListC.CreateTLS("bindingtest").Size() == 0, "TLS list emptied");
            }
        });
        // Size is answered in Java once known (java.py's counted): it must
        // agree with the list after every kind of change.
        check("MkBufferListC: Size as the list's own after appends, a refused append, Reset, CreateTLS", () -> {
            try (MkBufferListC l = new MkBufferListC()) {
                l.AppendI32(1);   // before any Size: counted from the first Size on
                expect(l.Size() == 1, "first");
                l.AppendSTR("x"); l.AppendBUF(l.IndexGet(0)); l.AppendBUF(l.IndexGet(1));
                expect(l.Size() == 4, "appended: " + l.Size());
                raises(() -> l.AppendSTR("a\u0000b"));
                raises(() -> l.AppendBUF(null));
                expect(l.Size() == 4, "refused appends count nothing: " + l.Size());
                l.Reset();
                expect(l.Size() == 0, "reset");
                l.AppendI8((byte) 2);
                expect(l.Size() == 1 && l.IndexGet(0).GetI8() == 2, "after reset");
                MkBufferListC t = MkBufferListC.CreateTLS("bindingtest-size");
                for (int i = 0; i < 3; i++)
                    t.AppendI32(i);
                expect(t.Size() == 3, "TLS list");
                MkBufferListC u = MkBufferListC.CreateTLS("bindingtest-size");
                expect(u == t && u.Size() == 0, "TLS list emptied: " + u.Size());
                u.AppendI32(7);
                expect(u.Size() == 1, "TLS list appended again");
            }
        });
        check("CreateTLS: one object per thread and name, emptied on each call; a deleted one is made anew", () -> {
            long empty = new MkBufferStreamC().Size();
            MkBufferStreamC a = MkBufferStreamC.CreateTLS("bindingtest-tls");
            a.WriteI32(5);
            MkBufferStreamC b = MkBufferStreamC.CreateTLS(new String("bindingtest-tls"));
            expect(b == a && a.Size() == empty, "the same object, emptied");
            MkBufferStreamC o = MkBufferStreamC.CreateTLS("bindingtest-other");
            o.WriteI32(6);
            expect(o != a && a.Size() == empty, "another name, another object");
            boolean[] own = new boolean[1];
            Thread t = new Thread(() -> {
                MkBufferStreamC x = MkBufferStreamC.CreateTLS("bindingtest-tls");
                x.WriteI32(7);
                own[0] = x != a && a.Size() == empty;
            });
            t.start();
            t.join();
            expect(own[0], "another thread, another object");
            a.Delete();
            MkBufferStreamC c = MkBufferStreamC.CreateTLS("bindingtest-tls");
            expect(c != a && c.IsValid() && c.Size() == empty && !a.IsValid(), "made anew after Delete");
            raises(() -> MkBufferStreamC.CreateTLS(null));
        });
        check("MqConfigFileC: typed reads, defaults, a type error names the file", () -> {
            File f = File.createTempFile("bindingtest", ".cfg");
            try (FileWriter w = new FileWriter(f)) {
                w.write("name = \"" + NONBMP + "\";\nport = 4711;\nfast = true;\nratio = 0.5;\n");
            }
            try (MqConfigFileC c = new MqConfigFileC()) {
                c.Read(f.getPath());
                expect(c.GetSTR("name").equals(NONBMP) && c.GetI64("port") == 4711, "values");
                expect(c.GetBOL("fast") && c.GetDBL("ratio") == 0.5 && c.Exists("port"), "more");
                expect(c.GetI64("none", 9) == 9 && c.GetSTR("none", "d").equals("d"), "defaults");
                MkExceptionC e = raises(() -> c.GetI64("name"));
                expect(e.getText().contains(f.getName()), e.getText());
            } finally {
                f.delete();
            }
        });
        check("a deleted object throws instead of touching freed memory", () -> {
            MkBufferC b = new MkBufferC();
            b.Delete();
            b.Delete();
            raises(() -> b.GetI8());
            MqContextC c = new MqContextC();
            c.Delete();
            c.close();
            MkExceptionC e = raises(() -> c.SendSTART());
            expect(e.getText().contains("SendSTART: the context was deleted"), e.getText());
            raises(() -> c.ConfigSetName("x"));
            MqContextC live = new MqContextC();
            e = raises(() -> live.ProxyItem(c));   // an argument: its handle, then the object
            expect(e.getText().contains("ProxyItem: the context was deleted"), e.getText());
            e = raises(() -> live.ProxyItem(null));
            expect(e.getText().contains("ProxyItem: null object"), e.getText());
            live.Delete();
        });
        check("--fork is refused clearly; a bad option throws", () -> {
            MqContextC c = new MqContextC();
            MkExceptionC e = raises(() -> c.LinkCreate(new String[] {"t", "--uds", "--file", "/tmp/x", "--fork"}));
            expect(e.getText().contains("--fork") && e.getText().contains("JVM"), e.getText());
            raises(() -> c.LinkCreate(new String[] {"t", "--no-such-option"}));
            c.Delete();
        });
        check("a failed registration keeps nothing", () -> {
            MqContextC c = new MqContextC();
            WeakReference<Object> w = failedRegistration(c);
            expect(collected(w), "the callback is still referenced");
            c.Delete();
        });

        // A setup's ServiceCreate calls go to the library in batches of eight
        // slots as it returns (MkObjectC.callSetup); failServiceCreate makes one
        // of them fail as the library's out of memory would.
        check("a deferred registration that fails: every batch is tried, its slot freed", () -> {
            MqContextC k = new MqContextC();
            List<WeakReference<Object>> ws = new ArrayList<>();
            failServiceCreate(2);   // S002, in the first batch; S008-S011 are the second
            Throwable t = runSetup(k, ctx -> ws.addAll(registerServices(ctx, 12)));
            expect(t instanceof MkExceptionC && ((MkExceptionC) t).getCode() == MqLink.MK_ERR_MEMORY,
                   "the failure: " + t);
            expect(collected(ws.get(2)), "the failed registration's callable is still referenced");
            expect(ws.get(3).get() != null && ws.get(11).get() != null, "registered callables kept");
            for (int i = 0; i < 12; i++) {
                String tok = String.format("S%03d", i);
                if (i == 2)
                    expect(raises(() -> k.ServiceDelete(tok)).getText().contains("no service"), tok);
                else
                    k.ServiceDelete(tok);   // registered: every other one, in both batches
            }
            k.Delete();
        });
        check("a deferred registration that fails in a setup that throws: the setup's exception wins", () -> {
            MqContextC k = new MqContextC();
            failServiceCreate(0);
            Throwable t = runSetup(k, ctx -> {
                registerServices(ctx, 3);
                throw new IllegalStateException("the setup's own");
            });
            expect(t instanceof IllegalStateException && t.getMessage().equals("the setup's own"), "thrown: " + t);
            Throwable[] s = t.getSuppressed();
            expect(s.length == 1 && s[0] instanceof MkExceptionC
                   && ((MkExceptionC) s[0]).getText().contains("out of memory"), "suppressed: " + Arrays.toString(s));
            raises(() -> k.ServiceDelete("S000"));
            k.ServiceDelete("S001");
            k.ServiceDelete("S002");
            k.Delete();
        });

        // ------------------------------------------------ a server in this JVM
        File dir = Files.createTempDirectory("bindingtest").toFile();
        String sock = new File(dir, "sock").getPath();
        Thread st = new Thread(() -> {
            TestServer srv = new TestServer();
            try {
                srv.ConfigSetServerSetup(TestServer::ServerSetup);
                srv.LinkCreate(new String[] {"bindingtest", "--uds", "--file", sock, "--thread"});
            } catch (MkExceptionC e) {
                System.out.println("# server: " + e.getText());
            }
        });
        st.setDaemon(true);
        st.start();
        for (int i = 0; i < 100 && !new File(sock).exists(); i++)
            Thread.sleep(50);
        MqContextC c = new MqContextC();
        check("a client links to a Java server on the library's threads", () -> {
            c.LinkCreate(new String[] {"client", "--uds", "--file", sock});
            c.SendSTART();
            c.SendI64(Long.MAX_VALUE); c.SendSTR(NONBMP); c.SendDBL(-0.0);
            c.SendL_START(); c.SendBIN(new byte[MiB]); c.SendL_END();
            c.SendEND_AND_WAIT("ECHO", 10000);
            expect(c.ReadI64() == Long.MAX_VALUE && c.ReadSTR().equals(NONBMP), "values");
            expect(Double.doubleToRawLongBits(c.ReadDBL()) == Long.MIN_VALUE, "-0.0");
            c.ReadL_START();
            expect(c.ReadBIN().length == MiB, "BIN");
            c.ReadL_END();
            c.SendSTART();
            c.SendEND_AND_WAIT("INST");
            String inst = c.ReadSTR();
            expect(inst.startsWith("BindingTest$TestServer:") && inst.endsWith("mqlink-thread"), inst);
            expect(c.LinkGetParent() == c, "LinkGetParent");
        });
        check("a Java thread's recycled holders are deleted after it ends, not kept", () -> {
            java.lang.reflect.Method held = Class.forName("org.mqlink.MkObjectC").getDeclaredMethod("heldCount");
            held.setAccessible(true);
            new MqContextC().Delete();   // this thread's pool has a holder to reuse
            int before = (int) held.invoke(null);
            for (int i = 0; i < 20; i++) {   // each thread's first context takes a new holder
                Thread t = new Thread(() -> new MqContextC().Delete());
                t.start();
                t.join();
            }
            // a thread with an env deletes what the ended ones left; a thread's end
            // (its pool's key destructor) may come a little after its join
            int after;
            long end = System.nanoTime() + 30_000_000_000L;
            do {
                new MqContextC().Delete();
                after = (int) held.invoke(null);
            } while (after != before && System.nanoTime() < end && sleep(10));
            expect(after == before, "holders alive: " + before + " before, " + after + " after");
        });
        check("a Java thread's linked context with a ReadBUFR view: its record is deleted once after the thread ends", () -> {
            List<MkBufferC> views = new ArrayList<>();
            for (int i = 0; i < 20; i++) {   // each thread's pool goes to the next thread as orphans
                Throwable[] failed = {null};
                Thread t = new Thread(() -> {
                    try {
                        MqContextC k = new MqContextC();
                        k.LinkCreate(new String[] {"client", "--uds", "--file", sock});
                        k.SendSTART();
                        k.SendI32(7);
                        k.SendEND_AND_WAIT("ECHO");
                        MkBufferC v = k.ReadBUFR();
                        expect(v.GetI32() == 7, "a view");
                        k.Delete();   // the view's global reference goes here, once
                        views.add(v);
                    } catch (Throwable e) {
                        failed[0] = e;
                    }
                });
                t.start();
                t.join();
                if (failed[0] != null)
                    throw new AssertionError("thread " + i, failed[0]);
            }
            for (int i = 0; i < 20; i++) {   // the last ones' orphans, deleted here
                new MqContextC().Delete();
                sleep(5);
            }
            for (MkBufferC v : views)
                expect(!v.IsValid(), "a deleted context's view stays dead");
        });
        // A valid token goes to C as one int packed in Java (MkObjectC.token):
        // the token the service sees is the one sent, character for character.
        check("tokens: any 4 printable ASCII characters arrive as sent; others are refused, named", () -> {
            c.SendSTART();
            c.SendEND_AND_WAIT("!~aZ");
            String t = c.ReadSTR();
            expect(t.equals("!~aZ"), t);
            for (String bad : new String[] {"TOOLONG", "abc", " abc", "ab\u007fc", "\u00e4bcd"}) {
                c.SendSTART();
                MkExceptionC e = raises(() -> c.SendEND_AND_WAIT(bad));
                expect(e.getText().contains("not exactly 4 printable"), bad + ": " + e.getText());
            }
            c.SendSTART();
            MkExceptionC e = raises(() -> c.SendEND_AND_WAIT("ab\u0000c"));
            expect(e.getText().contains("NUL character"), e.getText());
            e = raises(() -> c.ServiceCreate("\u00e4bcd", () -> { }));
            expect(e.getText().contains("'\u00e4bcd'"), e.getText());
            e = raises(() -> c.SendEND(null));
            expect(e.getText().contains("null string"), e.getText());
        });
        check("errors both ways: MkExceptionC text and code, any other exception's class", () -> {
            c.SendSTART();
            c.SendSTR("broken on purpose");
            MkExceptionC e = raises(() -> c.SendEND_AND_WAIT("FAIL"));
            expect(e.getText().contains("broken on purpose") && e.getCode() == 1234, e.getText() + " " + e.getCode());
            c.SendSTART();
            e = raises(() -> c.SendEND_AND_WAIT("JERR"));
            expect(e.getText().contains("java.lang.IllegalStateException: java says no"), e.getText());
            c.SendSTART();
            c.SendSTR("abc");
            c.SendEND_AND_WAIT("WRNG");
            String t = c.ReadSTR();
            expect(t.startsWith("caught: "), t);
        });
        check("a callback runs from the event loop; one that throws does not stop it", () -> {
            int[] got = {0};
            c.SendSTART();
            c.SendI32(42);
            c.SendEND_AND_CALLBACK("ECHO", ctx -> got[0] = ctx.ReadI32());
            for (int i = 0; i < 100 && got[0] == 0; i++)
                c.ProcessEvent(MqLink.MQ_WAIT_ONCE, 100);
            expect(got[0] == 42, "callback ran: " + got[0]);
            c.SendSTART();
            c.SendI32(1);
            c.SendEND_AND_CALLBACK("ECHO", () -> {
                throw new RuntimeException("callback failed on purpose");
            });
            c.ProcessEvent(MqLink.MQ_WAIT_ONCE, 1000);
            c.SendSTART();
            c.SendI16((short) 7);
            c.SendEND_AND_WAIT("ECHO");
            expect(c.ReadI16() == 7, "still serving");
        });
        check("20 callbacks in flight on one context each run once, with their own answer", () -> {
            int[] got = new int[20];
            for (int i = 0; i < 20; i++) {
                int k = i;
                c.SendSTART();
                c.SendI32(100 + i);
                c.SendEND_AND_CALLBACK("ECHO", ctx -> got[k] += ctx.ReadI32());
            }
            for (int i = 0; i < 200 && Arrays.stream(got).anyMatch(v -> v == 0); i++)
                c.ProcessEvent(MqLink.MQ_WAIT_ONCE, 100);
            for (int i = 0; i < 20; i++)
                expect(got[i] == 100 + i, "callback " + i + ": " + got[i]);
        });
        check("a context holds 20 services; a deleted or replaced one is let go, the others kept", () -> {
            MqContextC k = new MqContextC();
            List<WeakReference<Object>> ws = registerServices(k, 20);
            k.ServiceDelete("S005");
            k.ServiceCreate("S007", () -> { });
            expect(collected(ws.get(5)), "the deleted service's callable is still referenced");
            expect(collected(ws.get(7)), "the replaced service's callable is still referenced");
            for (int i = 0; i < 20; i++)
                expect(i == 5 || i == 7 || ws.get(i).get() != null, "service " + i + " was let go");
            k.Delete();
        });
        check("a freed slot is taken again, a replacement keeps its token's slot: the slots do not grow", () -> {
            MqContextC k = new MqContextC();
            List<WeakReference<Object>> ws = registerServices(k, 6);   // slots 0 to 5 of 8
            k.ServiceCreate("S004", () -> { });   // a replacement: S004's own slot
            expect(collected(ws.get(4)), "the replaced service's callable is still referenced");
            k.ServiceDelete("S002");
            for (int i = 0; i < 10; i++) {   // tokens never seen: into S002's slot
                MqServiceNoArgIF fn = () -> { };
                k.ServiceCreate("NEW" + i, fn);
                expect(services(k)[2] == fn, "NEW" + i + " not in the freed slot");
                if (i < 9)
                    k.ServiceDelete("NEW" + i);
            }
            k.ServiceCreate("NEWA", () -> { });   // slots 6 and 7
            k.ServiceCreate("NEWB", () -> { });
            k.ServiceDelete("S005");
            k.ServiceCreate("S002", () -> { });   // a token seen before, deleted: into S005's slot
            expect(services(k).length == 8, "slots " + services(k).length);
            k.ServiceCreate("NEWC", () -> { });   // no free slot: the ninth
            expect(services(k).length == 16, "slots " + services(k).length);
            for (String t : new String[] {"S000", "S001", "S002", "S003", "S004", "NEW9", "NEWA", "NEWB", "NEWC"})
                k.ServiceDelete(t);   // each registered once: deleted once
            expect(raises(() -> k.ServiceDelete("S005")).getText().contains("no service"), "S005");
            k.Delete();
        });
        check("a callable of both interfaces runs the form its overload names", () -> {
            Both both = new Both();
            for (boolean noArg : new boolean[] {true, false}) {
                both.ran = null;
                c.SendSTART();
                c.SendI32(5);
                if (noArg)
                    c.SendEND_AND_CALLBACK("ECHO", (MqServiceNoArgIF) both);
                else
                    c.SendEND_AND_CALLBACK("ECHO", (MqServiceIF<MqContextC>) both);
                for (int i = 0; i < 100 && both.ran == null; i++)
                    c.ProcessEvent(MqLink.MQ_WAIT_ONCE, 100);
                expect((noArg ? "Call()" : "Call(ctx)").equals(both.ran), noArg + ": ran " + both.ran);
            }
        });
        check("ReadBUFR: one reused view, valid until the service ends or a blocking call; ReadBUF's copy survives", () -> {
            c.SendSTART();
            c.SendI8((byte) 1); c.SendI32(99); c.SendSTR("view");
            c.SendEND_AND_WAIT("VIEW");
            MkBufferC v = c.ReadBUFR();
            String t = c.ReadSTR();
            expect(t.equals("same:view:99") && v.GetSTR().equals("view"), t);
            MkExceptionC e = raises(() -> TestServer.keptView.GetSTR());
            expect(e.getText().contains("ReadBUFR") && e.getText().contains("no longer valid"), e.getText());
            expect(!TestServer.keptView.IsValid(), "a dead view is not valid");
            expect(TestServer.keptCopy.GetI32() == 99, "the copy outlives the service");
            c.SendSTART();
            c.SendEND_AND_WAIT("ECHO");
            raises(() -> v.GetSTR());          // the blocking call ended the client's read
            raises(() -> c.SendBUF(v));
            c.SendSTART();                     // inside a message too: never sent as an empty item
            e = raises(() -> c.SendBUF(v));
            expect(e.getText().contains("no longer valid"), e.getText());
            c.SendEND_AND_WAIT("ECHO");
            expect(!c.ReadItemExists(), "nothing was sent for the dead view");
            MqContextC k = new MqContextC();   // a view outlives its context: it throws
            k.LinkCreateChild(c);
            k.SendSTART();
            k.SendSTR("kept");
            k.SendEND_AND_WAIT("ECHO");
            MkBufferC kv = k.ReadBUFR();
            expect(kv.IsValid() && kv.GetSTR().equals("kept"), "a live view");
            k.Delete();
            expect(!kv.IsValid(), "a deleted context's view is not valid");
            e = raises(() -> kv.GetSTR());
            expect(e.getText().contains("no longer valid"), e.getText());
        });
        check("SendBUF of a C buffer; of a deleted one or null it throws why and sends nothing", () -> {
            MkBufferC b = new MkBufferC(), d = new MkBufferC();
            b.SetSTR("c buffer");
            d.Delete();
            c.SendSTART();
            c.SendBUF(b);
            expect(raises(() -> c.SendBUF(d)).getText().contains("was deleted"), "deleted");
            expect(raises(() -> c.SendBUF(null)).getText().contains("null object"), "null");
            c.SendEND_AND_WAIT("ECHO");
            expect(c.ReadSTR().equals("c buffer") && !c.ReadItemExists(), "only the C buffer was sent");
            b.Delete();
        });
        check("a context's ReadItemExists after ReadBUFR: each message's own, each answer's, around a callback in a blocking call or another context's loop", () -> {
            for (int items : new int[] {2, 3, 0, 1, 0, 2}) {   // a message ending with none, then one with some
                c.SendSTART();
                for (int i = 0; i < items; i++)
                    c.SendI32(i);
                c.SendEND_AND_WAIT("CNTR");
                int n = c.ReadI32();
                expect(n == items, "CNTR counted " + n + " of " + items);
            }
            c.SendSTART();
            c.SendI32(1);
            c.SendI32(2);
            c.SendEND_AND_WAIT("ECHO");
            expect(c.ReadBUFR().GetI32() == 1 && c.ReadItemExists(), "one item of the answer left");
            c.SendSTART();
            c.SendEND_AND_WAIT("ECHO");   // its answer has none: what the last read said is past
            expect(!c.ReadItemExists(), "the new answer is empty");
            for (boolean noArg : new boolean[] {true, false}) {
                // a callback that reads its answer to the end runs within the
                // next blocking call, whose answer still has its items after it
                int[] read = {0};
                MqServiceNoArgIF drain = () -> {
                    while (c.ReadItemExists()) {
                        c.ReadBUFR();
                        read[0]++;
                    }
                };
                c.SendSTART();
                c.SendI32(5);
                if (noArg)
                    c.SendEND_AND_CALLBACK("ECHO", drain);
                else
                    c.SendEND_AND_CALLBACK("ECHO", ctx -> drain.Call());
                c.SendSTART();
                c.SendI32(3);
                c.SendEND_AND_WAIT("ECHO");
                expect(read[0] == 1, noArg + ": the callback read " + read[0] + " items within the wait");
                expect(c.ReadItemExists(), noArg + ": the answer's item is still there");
                expect(c.ReadBUFR().GetI32() == 3 && !c.ReadItemExists(), noArg + ": and no more");
            }
            // a child's callback run by its parent's event loop, after a read
            // of the child's that left an item: the callback's answer has none
            MqContextC k = new MqContextC();
            k.LinkCreateChild(c);
            k.SendSTART();
            k.SendI32(1);
            k.SendI32(2);
            k.SendEND_AND_WAIT("ECHO");
            int[] got = {-1};   // -1: not run, -2: threw
            k.SendSTART();
            k.SendEND_AND_CALLBACK("ECHO", () -> {
                got[0] = -2;
                int n = 0;
                while (k.ReadItemExists()) {
                    k.ReadBUFR();
                    n++;
                }
                got[0] = n;
            });
            expect(k.ReadItemExists() && k.ReadBUFR().GetI32() == 1, "the first answer's first item");
            for (int i = 0; i < 100 && got[0] == -1; i++)
                c.ProcessEvent(MqLink.MQ_WAIT_ONCE, 100);
            expect(got[0] == 0, "the child's callback read " + got[0] + " items of an empty answer (-2: threw)");
            k.Delete();
        });
        check("a service past the eighth slot, of either form, knows whether its message has items", () -> {
            for (String token : new String[] {"CNTN", "CNTX"}) {
                for (int items : new int[] {3, 0, 1, 0}) {
                    c.SendSTART();
                    for (int i = 0; i < items; i++)
                        c.SendI32(i);
                    c.SendEND_AND_WAIT(token);
                    int n = c.ReadI32();
                    expect(n == items, token + " counted " + n + " of " + items);
                }
            }
        });
        check("a server instance's services past its eighth run, and a replaced one runs its new callable", () -> {
            MqContextC k = new MqContextC();   // a child: an instance of its own
            k.LinkCreateChild(c);
            for (int i = 0; i < 4; i++) {
                k.SendSTART();
                k.SendEND_AND_WAIT("SVC" + i);
                String t = k.ReadSTR();
                expect(t.equals("SV" + i), "SVC" + i + " answered " + t);
            }
            k.SendSTART();
            k.SendEND_AND_WAIT("SWAP");
            k.SendSTART();
            k.SendEND_AND_WAIT("SVC0");
            String t = k.ReadSTR();
            expect(t.equals("new"), "SVC0 answered " + t);
            k.SendSTART();
            MkExceptionC e = raises(() -> k.SendEND_AND_WAIT("SVC1"));
            expect(e.getText().contains("SVC1"), e.getText());
            for (int i = 2; i < 4; i++) {
                k.SendSTART();
                k.SendEND_AND_WAIT("SVC" + i);
                t = k.ReadSTR();
                expect(t.equals("SV" + i), "SVC" + i + " answered " + t + " after SWAP");
            }
            k.Delete();
        });
        check("a null callable for a registered token is refused; the service keeps its callable", () -> {
            expect(String.valueOf(TestServer.keepRefused).contains("null callback"),
                   "refused with: " + TestServer.keepRefused);
            c.SendSTART();
            c.SendEND_AND_WAIT("KEEP");
            String t = c.ReadSTR();
            expect(t.equals("kept"), "KEEP answered " + t);
        });
        check("a service deleted or replaced in the setup that registered it: gone, and the newest", () -> {
            MqContextC k = new MqContextC();   // a child: its setup runs now
            k.LinkCreateChild(c);
            for (MqContextC x : new MqContextC[] {c, k}) {
                x.SendSTART();
                MkExceptionC e = raises(() -> x.SendEND_AND_WAIT("GONE"));
                expect(e.getText().contains("GONE"), e.getText());
                x.SendSTART();
                x.SendEND_AND_WAIT("TWIC");
                String t = x.ReadSTR();
                expect(t.equals("second"), "TWIC answered " + t);
            }
            k.Delete();
        });
        check("every child is a new instance of the server's class, released when it goes", () -> {
            List<String> names = new ArrayList<>();
            int before = instances.size();
            for (int i = 0; i < 3; i++) {
                MqContextC k = new MqContextC();
                k.LinkCreateChild(c);
                k.SendSTART();
                k.SendEND_AND_WAIT("INST");
                names.add(k.ReadSTR());
                k.Delete();
            }
            c.SendSTART();   // a round trip: the deletes are on their way before it returns
            c.SendEND_AND_WAIT("ECHO");
            expect(instances.size() == before + 3, "instances " + instances.size());
            expect(names.stream().distinct().count() == 3, names.toString());
            for (int i = before; i < before + 3; i++)
                expect(collected(instances.get(i)), "instance " + i + " still referenced");
        });
        check("an exception in the server's constructor refuses the child with its text", () -> {
            TestServer.refuseNext = "constructor refused on purpose";
            MqContextC k = new MqContextC();
            try {
                MkExceptionC e = raises(() -> k.LinkCreateChild(c));
                expect(e.getText().contains("IllegalStateException: constructor refused on purpose"),
                       e.getText());
            } finally {
                k.Delete();
            }
            c.SendSTART();
            c.SendEND_AND_WAIT("ECHO");
        });
        // The library's context for a new instance goes to the first
        // MqContextC() its creation runs: a context made in an argument of
        // this(...) would take it, so the instance is refused, named.
        check("a server constructor that makes a context before its own: the child is refused, named", () -> {
            TestServer.madeBeforeNext = true;
            MqContextC k = new MqContextC();
            try {
                MkExceptionC e = raises(() -> k.LinkCreateChild(c));
                expect(e.getText().contains("made a context before its own"), e.getText());
            } finally {
                k.Delete();
            }
            MqContextC k2 = new MqContextC();
            try {   // the next child is served
                k2.LinkCreateChild(c);
                k2.SendSTART();
                k2.SendEND_AND_WAIT("INST");
                expect(k2.ReadSTR().startsWith("BindingTest$TestServer:"), "a child after it");
            } finally {
                k2.Delete();
            }
        });
        check("a server class without a constructor taking no arguments is refused", () -> {
            NoDefault nd = new NoDefault(1);
            MkExceptionC e = raises(() -> nd.ConfigSetServerSetup(ctx -> { }));
            expect(e.getText().contains("constructor without arguments"), e.getText());
            nd.Delete();
        });
        // The library makes each server instance with new through a
        // factory of the class (MkObjectC.newServer), which reaches a class
        // that is not public and its private constructor, and hands a
        // checked exception of the constructor on as it is.
        check("a server class that is not public, with a private constructor: its instances serve", () -> {
            String hs = new File(dir, "hidden").getPath();
            Thread ht = new Thread(() -> {
                try {
                    Hidden srv = new Hidden();
                    srv.ConfigSetServerSetup(Hidden::ServerSetup);
                    srv.LinkCreate(new String[] {"hidden", "--uds", "--file", hs, "--thread"});
                } catch (Exception e) {
                    System.out.println("# hidden server: " + e);
                }
            });
            ht.setDaemon(true);
            ht.start();
            for (int i = 0; i < 600 && !new File(hs).exists(); i++)
                Thread.sleep(50);
            MqContextC p = new MqContextC();
            MqContextC k = new MqContextC();
            MqContextC k2 = new MqContextC();
            try {
                p.LinkCreate(new String[] {"client", "--uds", "--file", hs});
                k.LinkCreateChild(p);
                List<String> names = new ArrayList<>();
                for (MqContextC x : new MqContextC[] {p, k}) {
                    x.SendSTART();
                    x.SendEND_AND_WAIT("NAME");
                    names.add(x.ReadSTR());
                }
                expect(names.get(0).startsWith("BindingTest$Hidden:"), names.toString());
                expect(names.get(1).startsWith("BindingTest$Hidden:") && !names.get(1).equals(names.get(0)),
                       names.toString());
                Hidden.refuseNext = "hidden constructor refused on purpose";
                MkExceptionC e = raises(() -> k2.LinkCreateChild(p));
                expect(e.getText().contains("IOException: hidden constructor refused on purpose"), e.getText());
            } finally {
                k2.Delete();
                k.Delete();
                p.Delete();
                new File(hs).delete();
            }
        });
        // The library ends a link whose setup failed (and logs the text on the
        // server's side): the client is refused, the server goes on.
        check("an exception in the server setup refuses the link, the server goes on", () -> {
            String bad = new File(dir, "bad").getPath();
            Thread bt = new Thread(() -> {
                BadSetup srv = new BadSetup();
                try {
                    srv.ConfigSetServerSetup(BadSetup::ServerSetup);
                    srv.LinkCreate(new String[] {"badsetup", "--uds", "--file", bad, "--thread"});
                } catch (MkExceptionC e) {
                    System.out.println("# bad server: " + e.getText());
                }
            });
            bt.setDaemon(true);
            bt.start();
            for (int i = 0; i < 100 && !new File(bad).exists(); i++)
                Thread.sleep(50);
            MqContextC k = new MqContextC();
            try {
                MkExceptionC e = raises(() -> {
                    k.LinkCreate(new String[] {"client", "--uds", "--file", bad});
                    k.SendSTART();
                    k.SendEND_AND_WAIT("ECHO", 5000);
                });
                expect(e.getText().contains("setup refused on purpose") || e.getText().contains("peer closed"),
                       e.getText());
                MqContextC again = new MqContextC();
                raises(() -> again.LinkCreate(new String[] {"client", "--uds", "--file", bad}));
                again.Delete();
            } finally {
                k.Delete();
                new File(bad).delete();
            }
        });
        c.Delete();
        new File(sock).delete();
        dir.delete();
        System.out.println("1.." + n);
        System.exit(failed == 0 ? 0 : 1);
    }

    /** MkObjectC's test fault: the deferred registration after n more fails (-1: none). */
    static void failServiceCreate(int n) throws Exception {
        java.lang.reflect.Method m = Class.forName("org.mqlink.MkObjectC").getDeclaredMethod("failServiceCreate", int.class);
        m.setAccessible(true);
        m.invoke(null, n);
    }

    /** setup run on k as the library runs a server instance's (MkObjectC.callSetup): what it threw, or null. */
    static Throwable runSetup(MqContextC k, MqServiceIF<MqContextC> setup) throws Exception {
        java.lang.reflect.Method m = Class.forName("org.mqlink.MkObjectC").getDeclaredMethod("callSetup", Object[].class, Object[].class);
        m.setAccessible(true);
        try {
            m.invoke(null, new Object[] {setup}, new Object[] {k});
            return null;
        } catch (java.lang.reflect.InvocationTargetException e) {
            return e.getCause();
        } finally {
            failServiceCreate(-1);
        }
    }

    static WeakReference<Object> failedRegistration(MqContextC c) throws Exception {
        Object held = new Object();   // a capturing lambda: a new object, not a cached one
        MqServiceNoArgIF fn = () -> held.hashCode();
        raises(() -> c.ServiceCreate("TOOLONG", fn));
        return new WeakReference<>(fn);
    }

    /** n services S000.. on k, each a new object; weak references to them. */
    static List<WeakReference<Object>> registerServices(MqContextC k, int n) {
        List<WeakReference<Object>> ws = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Object held = new Object();
            MqServiceNoArgIF fn = () -> held.hashCode();
            k.ServiceCreate(String.format("S%03d", i), fn);
            ws.add(new WeakReference<>(fn));
        }
        return ws;
    }

    /** A context's service slots (MkObjectC.services). */
    static Object[] services(MqContextC k) throws Exception {
        java.lang.reflect.Field f = Class.forName("org.mqlink.MkObjectC").getDeclaredField("services");
        f.setAccessible(true);
        return (Object[]) f.get(k);
    }

    static boolean sleep(long ms) throws InterruptedException {
        Thread.sleep(ms);
        return true;
    }

    static boolean collected(WeakReference<?> w) throws InterruptedException {
        for (int i = 0; i < 50 && w.get() != null; i++) {
            System.gc();
            Thread.sleep(40);
        }
        return w.get() == null;
    }
}
