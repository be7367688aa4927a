package org.mqlink;

import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.function.Supplier;

/**
 * The base of every mqlink object: the C object it wraps.  Objects are
 * {@link AutoCloseable}: {@code Delete()} (or {@code close()}, for
 * try-with-resources) frees the C object at once; a kernel object that is
 * never deleted is freed after it is collected.  A context lives until it is
 * deleted: the library holds it while its link may still call into it.
 */
public abstract class MkObjectC implements AutoCloseable {
    static final Cleaner CLEANER = Cleaner.create();

    /** The C object (read by the JNI library); 0 once it is deleted. */
    long hdl;
    private Cleaner.Cleanable cleanable;
    /*
     * A value held on the Java side instead of a C object: what an MkBufferC
     * that ReadBUF or IndexGet returns is (a copy, safe to keep), so that
     * reading a buffer costs no C allocation and no Cleaner registration.
     * SendBUF, WriteBUF and AppendBUF take the value from here; any other
     * method first makes the C object (adopt).  dtype is the MK_TYPE_* plus
     * one (0: no such value), dval the bits of a fixed-size value, dref the
     * bytes of a STR (UTF-8) or BIN.  Set and read by the JNI library.
     */
    int dtype;
    long dval;
    byte[] dref;
    /*
     * A context's ReadBUFR buffer: one MkBufferC per context (dtype -1),
     * not owned.  Its hdl names the context's view slot in the JNI library
     * (mqj_resolve), which shows each borrowed read's buffer and nothing
     * once the read ends (its methods throw then): neither costs a JNI call.
     * hdl becomes 0 when the context is deleted.  A stream's or a list's
     * view (ReadBUFR, IndexGetR: srcView) is the same kind of MkBufferC whose
     * hdl is the borrowed C buffer itself, 0 from the next call on the
     * stream or list but a query (srcEnd) and from its deletion; src keeps the stream
     * or list (and so the buffer) alive while the view is.
     */
    private MkBufferC view;
    MkObjectC src;
    /*
     * What the last read of this stream or context said of the next item
     * (java.py's AHEAD: ReadItemExists answers from it without a JNI call):
     * 1 an item is left, -1 none, 0 unknown, as every other method of the
     * stream or context makes it, and a context's callables as they start
     * and end (callNoArg).
     */
    int next;
    /*
     * A list's size plus one, 0 when unknown (java.py's counted): Size
     * answers from it without a JNI call, as Size and Reset make it and
     * each Append that returned counts on.
     */
    int count;
    /*
     * A context's services' callables, by the slot the JNI library's
     * registration of each names (serviceSlot; java.py's slotted), and each
     * slot's token (MkObjectC.token's word): a replacement takes its token's
     * slot and ServiceDelete empties it (serviceForget), so the library
     * lets go of a service without a JNI call and keeps no record of it.
     * They go with the object.  null until the first ServiceCreate.  The
     * generated ServiceSlots runs them (java.py's SLOT_METHODS).
     */
    Object[] services;
    private int[] serviceTokens;
    private int serviceEnd; // the slots past it were never used
    /*
     * What lets serviceSlot skip its scan of the slots (a setup's every
     * registration: five per perfserver instance): holes, the empty slots
     * below serviceEnd, and tokenSeen, a bit (tokenBit) for every token
     * ever kept here.  A token whose bit is clear has no slot, and with no
     * hole its slot is the next.
     */
    private int holes;
    private long tokenSeen;
    /*
     * A server instance's ServiceCreate calls while its own setup runs
     * (callSetup: deferring), by slot (the first 64: a bit each in pending,
     * the form in pendingNoArg, the token in serviceTokens), handed to the
     * library in one JNI call per eight slots (servicesDue) as the setup
     * returns, or before a blocking call or a ServiceDelete on the context:
     * one call instead of one per service (five per perfserver child).  The
     * library serves an instance only once its setup returned (a child's
     * creation and a parent's handshake are answered after it), so no call
     * can miss them; only a client calling before that answer, served by a
     * blocking call that the setup makes on another context, finds none,
     * as it could find only some without the deferral.  A registration
     * that can fail (an invalid token, a null callable, slot 64 on) is not
     * deferred: it goes at once.
     */
    private boolean deferring;
    private long pending, pendingNoArg;

    /**
     * A context: the JNI library sets hdl (its constructor's Init) and its
     * destroy callback clears it; a server instance's adopts the handle
     * the library made for it (callNewServer).
     */
    MkObjectC() {
        Adopt a = ADOPT.get();
        if (a.h != 0) {
            hdl = a.h;
            a.h = 0;
            a.taken = this;
        }
    }

    /**
     * The context of the server instance whose object callNewServer makes
     * on this thread: h, taken by the first context constructed (MkObjectC()),
     * which taken names.
     */
    private static final class Adopt {
        long h;
        MkObjectC taken;
    }

    private static final ThreadLocal<Adopt> ADOPT = ThreadLocal.withInitial(Adopt::new);

    /** A kernel object of class index kind, freed with this object when owned. */
    MkObjectC(long hdl, boolean owned, int kind) {
        this.hdl = hdl;
        cleanable = owned && hdl != 0 ? CLEANER.register(this, new Free(kind, hdl)) : null;
    }

    /** Take over the C object made from the Java-side value (called by the JNI library). */
    void adopt(long hdl, int kind) {
        this.hdl = hdl;
        dtype = 0;
        dref = null;
        cleanable = CLEANER.register(this, new Free(kind, hdl));
    }

    /** Free the C object now; idempotent, and later calls throw MkExceptionC. */
    public void Delete() {
        srcEnd();
        hdl = 0;
        dtype = 0;
        dref = null;
        if (cleanable != null)
            cleanable.clean();
    }

    /** The same as {@code Delete()}. */
    @Override
    public void close() {
        Delete();
    }

    /** True until the C object is deleted. */
    public boolean IsValid() {
        return dtype == -1 ? hdl != 0 && viewShows(hdl) : hdl != 0 || dtype > 0;
    }

    /** fill's code for a C copy to adopt, its handle from takeBits (MQJ_FILL_ADOPT). */
    static final long FILL_ADOPT = -1;

    /**
     * Store what a ReadBUF or IndexGet native returns (mqj_fill_BUF): the
     * type plus one in the high 32 bits (0: nothing to store, an exception
     * is pending; FILL_ADOPT: a C copy to adopt); in the low ones a value
     * of at most 32 bits (the JNI library reads back only those bits for
     * such a type), a STR's or BIN's length (its bytes go into an array
     * made here, a plain {@code new}, by take; dval keeps the length, so
     * passing them back costs the JNI library no GetArrayLength), or for a
     * 64-bit value 1 when takeBits has it (0: the value is 0).  This object
     * is never handed to native code here, so a copy that is passed on at
     * once (SendBUF(ReadBUF())) need not be allocated at all (C2's escape
     * analysis; the generated SendBUF passes such a value as its fields).
     */
    final void fill(long r) {
        if (r == FILL_ADOPT) {
            adopt(takeBits(), MkBufferC.KIND);
            return;
        }
        int t = (int) (r >>> 32) - 1;
        if (t < 0)
            return;
        dtype = t + 1;
        if (t == MqLink.MK_TYPE_STR || t == MqLink.MK_TYPE_BIN) {
            byte[] b = new byte[(int) r];
            if (b.length > 0)
                take(b);
            dref = b;
            dval = b.length;
        } else if (t == MqLink.MK_TYPE_I64 || t == MqLink.MK_TYPE_DBL) {
            dval = (int) r == 0 ? 0 : takeBits();
        } else {
            dval = (int) r;
        }
    }

    /** ahead's flag in a read's result: an item is left after it (MQJ_MORE). */
    static final int MORE_BIT = 62;
    static final long MORE = 1L << MORE_BIT;

    /** A read's result without its MORE flag, which goes to next (mqj_ahead). */
    final long ahead(long r) {
        if (r == FILL_ADOPT) {
            next = 0;
            return r;
        }
        /*
         * 1 or -1 without a branch: C2 compiles a branch that its profile
         * never saw taken as a trap, and a server's first services may
         * read only last items (RDUL's ReadBUFR): BUST's first read with
         * items after it deoptimised the method, compiled again within
         * perfclient --bus's first run.
         */
        next = (int) (r >>> (MORE_BIT - 1) & 2) - 1;
        return r & ~MORE;
    }

    /** The type (plus one) of a value a buffer holds in Java (dtype; 0 or less: none). */
    static int type(MkObjectC o) {
        return o == null ? 0 : o.dtype;
    }

    /**
     * The bits of a value a buffer holds in Java (dval: a STR's or BIN's
     * length), or else its handle (hdl: a C buffer or a view), so that the
     * JNI library reads no field of it.
     */
    static long bits(MkObjectC o) {
        return o == null ? 0 : o.dtype > 0 ? o.dval : o.hdl;
    }

    /** A context argument's C object (hdl; 0 for null), passed to the natives that take it. */
    static long handle(MkObjectC o) {
        return o == null ? 0 : o.hdl;
    }

    /** The bytes a buffer holds in Java (dref), passed to the natives that take it. */
    static byte[] bytes(MkObjectC o) {
        return o == null ? null : o.dref;
    }

    /** ReadBUFR's result: this context's view, p its handle (mqj_view). */
    final MkBufferC view(long p) {
        MkBufferC v = view;
        if (v == null) {
            v = new MkBufferC(0, false);
            v.dtype = -1;
            viewInit(hdl, v); // the JNI library keeps it, to end it with the context
            view = v;
        }
        v.hdl = p;
        return v;
    }

    /** A stream's or a list's view form's result: its view, showing p (a borrowed MkBufferC). */
    final MkBufferC srcView(long p) {
        MkBufferC v = view;
        if (v == null) {
            v = new MkBufferC(0, false);
            v.dtype = -1; // a view: its errors say it is no longer valid
            v.src = this;
            view = v;
        }
        v.hdl = p;
        return v;
    }

    /** The start of every method of a stream or a list with views: its view ends. */
    final void srcEnd() {
        MkBufferC v = view;
        if (v != null)
            v.hdl = 0;
    }

    /**
     * A token's 4 characters as one int (character i in bits 8i..8i+7), 0
     * unless they are 4 printable ASCII characters: the generated methods
     * pass it to their natives, which then need no JNI string call; for 0
     * the native converts the String and the library reports the bad token.
     */
    static int token(String t) {
        if (t == null || t.length() != 4)
            return 0;
        int w = 0;
        for (int i = 0; i < 4; i++) {
            char c = t.charAt(i);
            if (c < 0x21 || c > 0x7e)
                return 0;
            w |= c << (8 * i);
        }
        return w;
    }

    /** A String argument's length, passed to the natives that convert it (0 for null). */
    static int length(String s) {
        return s == null ? 0 : s.length();
    }

    /**
     * A service or callback as the JNI library runs it (mqj_cb_call): the
     * callable fn[0] (the library holds each object in such a holder, see
     * its refs.c); true once it has returned, so the library needs no JNI
     * ExceptionCheck per call; when it throws, the JNI call returns false
     * with the exception pending.  See callback.c for what it saves.  It
     * runs on the context ctx[0] (null: none): see enter.
     */
    static boolean callNoArg(Object[] fn, Object[] ctx) throws Exception {
        MkObjectC c = enter(ctx);
        try {
            ((MqServiceNoArgIF) fn[0]).Call();
        } finally {
            leave(c);
        }
        return true;
    }

    /*
     * A callable's context (ctx[0], or null), whose read is a new message
     * while the callable runs and the one it interrupted, if any, after it:
     * what its last read said of the next item (next, java.py's AHEAD) is
     * forgotten as the callable starts (enter) and as it ends (leave).
     */
    static MkObjectC enter(Object[] ctx) {
        MkObjectC c = ctx == null ? null : (MkObjectC) ctx[0];
        if (c != null)
            c.next = 0;
        return c;
    }

    static void leave(MkObjectC c) {
        if (c != null)
            c.next = 0;
    }

    /**
     * The slot of services that now holds fn for the token word w (the
     * generated ServiceCreate passes it): the token's own slot when it has
     * one (a replacement), else a free one.  w is 0 for an invalid token,
     * whose registration fails; fn null (refused by the native) takes none:
     * -1.
     */
    final int serviceSlot(int w, Object fn) {
        if (fn == null)
            return -1;
        Object[] s = services;
        if (s == null) {
            services = s = new Object[8];
            serviceTokens = new int[8];
        }
        int n = serviceEnd;
        long bit = tokenBit(w), seen = tokenSeen;
        tokenSeen = seen | bit;
        if ((seen & bit) == 0 && holes == 0 && n < s.length) {
            serviceEnd = n + 1;
            return keep(n, w, fn);
        }
        int[] t = serviceTokens;
        int free = -1;
        for (int i = 0; i < n; i++) {
            if (s[i] == null) {
                if (free < 0)
                    free = i;
            } else if (t[i] == w && w != 0) {
                return keep(i, w, fn);
            }
        }
        if (free >= 0) {
            holes--;
            return keep(free, w, fn);
        }
        if (n == s.length) {
            services = Arrays.copyOf(s, 2 * n);
            serviceTokens = Arrays.copyOf(t, 2 * n);
        }
        serviceEnd = n + 1;
        return keep(n, w, fn);
    }

    /**
     * A token word's bit in tokenSeen: six bits of a hash in which every
     * character counts (a single multiplication gave "S000" and "NEW0" the
     * same bit).
     */
    private static long tokenBit(int w) {
        int h = w * 0x9e3779b1;
        h ^= h >>> 15;
        h *= 0x85ebca6b;
        return 1L << (h >>> 26);
    }

    private int keep(int slot, int w, Object fn) {
        services[slot] = fn;
        serviceTokens[slot] = w;
        return slot;
    }

    /**
     * A ServiceCreate while this context's setup runs: kept for servicesDue
     * (true) instead of its own JNI call; false for one that goes at once.
     */
    final boolean defer(int slot, int w, int noArg) {
        if (!deferring || slot >= 64 || slot < 0 || w == 0 || hdl == 0)
            return false;
        long bit = 1L << slot;
        pending |= bit;
        pendingNoArg = noArg != 0 ? pendingNoArg | bit : pendingNoArg & ~bit;
        return true;
    }

    /**
     * The deferred registrations to the library now (see deferring), as if
     * each had gone at once: every one is tried, a failed one's slot freed;
     * the first failure is thrown, any later one suppressed in it.
     */
    final void servicesDue() {
        MkExceptionC failed = registerPending();
        if (failed != null)
            throw failed;
    }

    /**
     * servicesDue's registrations, eight slots per JNI call, their token
     * words as arguments, where an array cost the JNI library a
     * GetIntArrayRegion (180 instructions, callgrind); the first failure
     * returned (later ones suppressed in it), null when all went.  A failed
     * one ends its call: the bits after it go in the next.
     */
    private MkExceptionC registerPending() {
        long p = pending;
        if (p == 0)
            return null;
        pending = 0;
        int[] t = serviceTokens;
        MkExceptionC failed = null;
        for (int b = 0; p >>> b != 0; b += 8) {
            int m = (int) (p >>> b) & 0xff;
            while (m != 0 && hdl != 0) { // hdl 0: deleted, they went with it
                int f = servicesCreate(hdl, b, m, (int) (pendingNoArg >>> b) & 0xff, t[b],
                                       t[b + 1], t[b + 2], t[b + 3], t[b + 4], t[b + 5],
                                       t[b + 6], t[b + 7]);
                if (f == 0)
                    break;
                serviceDrop(b + f - 1);
                failed = firstOf(failed, registrationError());
                m &= -1 << f; // the bits after the failed one
            }
        }
        return failed;
    }

    /** The context's error, which a failed servicesCreate left there, as an exception. */
    private MkExceptionC registrationError() {
        MqContextC c = (MqContextC) this;
        MkExceptionC e = new MkExceptionC(c.ErrorGetText(), c.ErrorGetCode());
        c.ErrorReset();
        return e;
    }

    private static MkExceptionC firstOf(MkExceptionC first, MkExceptionC e) {
        if (first == null)
            return e;
        first.addSuppressed(e);
        return first;
    }

    private static native int servicesCreate(long hdl, int base, int mask, int noArg, int w0,
                                             int w1, int w2, int w3, int w4, int w5, int w6,
                                             int w7);

    /** A test's fault: the deferred registration after {@code after} more fails (-1: none). */
    private static native void failServiceCreate(int after);

    /** A registration that failed: its slot is free again. */
    final void serviceDrop(int slot) {
        if (slot >= 0 && services[slot] != null) {
            services[slot] = null;
            serviceTokens[slot] = 0;
            holes++;
        }
    }

    /** The service of token word w was deleted (the generated ServiceDelete): its slot is free. */
    final void serviceForget(int w) {
        int[] t = serviceTokens;
        for (int i = 0; w != 0 && i < serviceEnd; i++) {
            if (t[i] == w && services[i] != null) {
                serviceDrop(i);
                return;
            }
        }
    }

    /**
     * A server instance's setup (ConfigSetServerSetup) on ctx[0]: its
     * ServiceCreate calls on ctx[0] go to the library together as it
     * returns (deferring), also when it throws; then its exception wins,
     * a failed registration suppressed in it.
     */
    static boolean callSetup(Object[] fn, Object[] ctx) throws Exception {
        return setup(fn, enter(ctx));
    }

    /**
     * A new server instance's setup (the JNI library's server_setup): its
     * object made first, of the class server[1], taking the context h that
     * the library made for it and held in holder (empty), then the setup
     * server[0] run on it, in the same call into Java.
     * A constructor that made another context before its own (in an
     * argument of this(...) or super(...)) gave h to that one: it is held
     * (the library clears its handle as h goes) and the instance refused.
     */
    static boolean callNewServer(Object[] server, long h, Object[] holder) throws Throwable {
        Object f = SERVER_FACTORY.getAcquire(server, 2);
        if (f == null) // the first instance: its class's factory, kept for the next ones
            SERVER_FACTORY.setRelease(server, 2, f = SERVER.get((Class<?>) server[1]));
        Adopt a = ADOPT.get();
        long outerH = a.h; // an instance whose constructor runs a setup (a blocking call)
        MkObjectC outerTaken = a.taken;
        MkObjectC o;
        a.h = h;
        a.taken = null;
        try {
            o = newServer(f);
        } finally {
            holder[0] = a.taken; // null: the constructor threw before MkObjectC()
            a.h = outerH;
            a.taken = outerTaken;
        }
        if (holder[0] != o) {
            o.close();
            throw new IllegalStateException(((Class<?>) server[1]).getName() + ": its constructor "
                                            + "made a context before its own, which a server "
                                            + "instance's cannot");
        }
        return setup(server, o);
    }

    /*
     * callNewServer's server[2], the factory of server[1] (SERVER's value),
     * null until the first instance: read and stored with acquire and
     * release, as the library's threads may make instances of one template
     * at once.  A lookup of SERVER (ClassValue.get) cost 20 instructions per
     * instance (callgrind).
     */
    private static final VarHandle SERVER_FACTORY = MethodHandles.arrayElementVarHandle(Object[].class);

    /** The setup fn[0] on c (callSetup, callNewServer). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static boolean setup(Object[] fn, MkObjectC c) throws Exception {
        boolean was = c.deferring;
        c.next = 0;
        c.deferring = true;
        try {
            ((MqServiceIF) fn[0]).Call((MqContextC) c);
        } catch (Throwable e) {
            c.deferring = was;
            MkExceptionC failed = c.registerPending();
            if (failed != null)
                e.addSuppressed(failed);
            throw e;
        } finally {
            c.deferring = was;
            leave(c);
        }
        c.servicesDue();
        return true;
    }

    /** The same for a callable that takes its context, ctx[0]. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static boolean call(Object[] fn, Object[] ctx) throws Exception {
        MkObjectC c = enter(ctx);
        try {
            // a context of another class than the callable's T: ClassCastException
            ((MqServiceIF) fn[0]).Call((MqContextC) c);
        } finally {
            leave(c);
        }
        return true;
    }

    /**
     * Which of the two forms a registration passes (the generated methods
     * call this with the parameter's declared type, so the overload the user
     * chose decides, also for a class that implements both): 0 runs
     * Call(ctx), 1 runs Call().
     */
    static int noArg(MqServiceIF<?> fn) {
        return 0;
    }

    /** The form without arguments (1). */
    static int noArg(MqServiceNoArgIF fn) {
        return 1;
    }

    /**
     * Each server class's factory (newServer): a Supplier whose get() is
     * {@code new C()}, or where the library cannot make one (see factory)
     * the class's constructor without arguments.
     */
    private static final ClassValue<Object> SERVER = new ClassValue<>() {
        @Override
        protected Object computeValue(Class<?> c) {
            return factory(c);
        }
    };

    /*
     * The Supplier comes from LambdaMetafactory, as a constructor reference
     * in the user's own code would: a class of its own whose get() is a
     * plain new, which C2 inlines at newServer's call.  Reflection's
     * Constructor.newInstance cost 22 more instructions per server instance
     * (callgrind) and, at the 16th call, defined and loaded a bytecode
     * accessor of its own (the JDK's "inflation"), whose interpretation
     * and compiles land in a client's first child creations (perfclient
     * --child's first timed run in spawn mode).  A class whose package its
     * module does not open to the library (a named module) has no such
     * lookup: its constructor is called through reflection, as before.
     */
    private static Object factory(Class<?> c) {
        try {
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(c, MethodHandles.lookup());
            MethodHandle k = l.findConstructor(c, MethodType.methodType(void.class));
            return (Supplier<?>) LambdaMetafactory.metafactory(l, "get",
                    MethodType.methodType(Supplier.class), MethodType.methodType(Object.class), k,
                    MethodType.methodType(c)).getTarget().invokeExact();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) { // no such lookup into c's package: reflection
        }
        try {
            Constructor<?> k = c.getDeclaredConstructor();
            k.trySetAccessible(); // as JNI's NewObject: a class need not be public
            return k;
        } catch (NoSuchMethodException e) {
            return null; // ConfigSetServerSetup refused such a class already
        }
    }

    /**
     * A new server instance made by its class's factory f (SERVER's value,
     * callNewServer), with {@code new}.  An exception of the constructor goes to the library as
     * it is.
     */
    static MkObjectC newServer(Object f) throws Throwable {
        if (f instanceof Supplier<?> s)
            return (MkObjectC) s.get();
        try {
            return (MkObjectC) ((Constructor<?>) f).newInstance();
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    static native void free0(int kind, long hdl);

    private static native void viewInit(long ctx, MkBufferC v);

    private static native boolean viewShows(long hdl);

    /** The bytes of the STR or BIN that fill's native just read, into b (its length). */
    private static native void take(byte[] b);

    /** The 64-bit value that fill's native just read. */
    private static native long takeBits();

    /** The number of holders the JNI library keeps (its refs.c), for the binding's tests. */
    static native int heldCount();

    /**
     * A class's thread-owned objects (CreateTLS), per thread and name: the
     * C object is the thread's for that name, so its wrapper is kept rather
     * than made again.  A Java thread is one C thread, so the two registries
     * agree; a deleted wrapper (hdl 0) is made anew.
     */
    static final class Tls<T extends MkObjectC> extends ThreadLocal<HashMap<String, T>> {
        @Override
        protected HashMap<String, T> initialValue() {
            return new HashMap<>();
        }

        /** The calling thread's wrapper for name, or null (none yet, deleted, or a null name). */
        T find(String name) {
            T o = name == null ? null : get().get(name);
            return o != null && o.hdl != 0 ? o : null;
        }

        /** Keep o as the calling thread's wrapper for name; returns o. */
        T keep(String name, T o) {
            get().put(name, o);
            return o;
        }
    }

    /** The Cleaner's action: holds only the handle, never the object. */
    private static final class Free implements Runnable {
        private final int kind;
        private final long hdl;

        Free(int kind, long hdl) {
            this.kind = kind;
            this.hdl = hdl;
        }

        @Override
        public void run() {
            free0(kind, hdl);
        }
    }
}
