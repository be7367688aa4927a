/* runtime.h — the hand-written part of the Java (JNI) binding: the cache of
 * classes, method and field IDs, argument conversion, exceptions, callbacks
 * into Java and server-instance creation.  The generated glue (gen/glue.c)
 * calls only what is declared here and the C API itself.
 *
 * Every wrapper object is an org.mqlink.MkObjectC whose long field hdl holds
 * the C object (0 once it is deleted): a method passes its own to its
 * private native (mqj_self), one cached field ID reads an argument's for
 * every class.  A context's C object points back at its Java object through
 * its user data (an mqj_ctx holding it, refs.c), let go by the destroy
 * callback whoever deletes the context. */
#ifndef MQJ_RUNTIME_H
#define MQJ_RUNTIME_H

#include <jni.h>
#include <stdint.h>
#include <string.h>

#include <mqlink.h>

#define MQJ_PKG "org/mqlink/"

/* A class of the description for JNI_OnLoad to register: its name, its
 * natives and (plain classes) the function that frees its C object. */
typedef struct {
    const char *name;
    const JNINativeMethod *natives;
    int count;
    void (*free)(void *obj);
} mqj_class;

/* The generated tables: one entry per class, then the module functions
 * (registered on org.mqlink.MqLink). */
extern const mqj_class mqj_classes[];
extern const int mqj_class_count;
extern const JNINativeMethod mqj_module_natives[];
extern const int mqj_module_count;

/* What the generator gives the runtime (gen/glue.h): MQJ_SLOT_METHODS, the
 * slots whose services have a method of their own (ServiceSlots.callServiceN,
 * java.py's SLOT_METHODS). */
#include "gen/glue.h"

/* The cache JNI_OnLoad fills: global references and IDs, never looked up
 * on a call. */
typedef struct {
    jfieldID hdl;               /* MkObjectC.hdl (J) */
    jclass exc;                 /* MkExceptionC */
    jmethodID exc_init;         /* MkExceptionC(String, int) */
    jfieldID exc_text, exc_code;
    jclass ctx;                 /* MqContextC */
    jclass buf;                 /* MkBufferC */
    int buf_kind;               /* its index in mqj_classes */
    jfieldID dtype, dval, dref; /* MkObjectC's Java-side value */
    jmethodID adopt;            /* MkObjectC.adopt(long, int) */
    jclass obj;                 /* MkObjectC */
    jmethodID call_new_server;  /* static MkObjectC.callNewServer(Object[], long, Object[]) */
    jclass *cls;                /* mqj_classes[i], in the table's order */
    jmethodID call0, call1;     /* static MkObjectC.callNoArg, call(Object[], Object[]) */
    jmethodID call_setup;       /* static MkObjectC.callSetup(Object[], Object[]) */
    jclass slots;               /* ServiceSlots (generated): a service's run by its slot */
    jmethodID call_slot[MQJ_SLOT_METHODS][2]; /* ServiceSlots.callServiceCtxN, callServiceN:
                                                 [slot][noarg], callback.c's SLOT_TAG >> 1 */
    jmethodID call_any[2];      /* ServiceSlots.callServiceCtx(Object[], int), callService */
    jclass throwable;
    jmethodID throwable_str;    /* Throwable.toString() */
    jclass string;
    jclass object;              /* java.lang.Object, a holder's element class (refs.c) */
} mqj_cache;

extern mqj_cache mqj;
extern JavaVM *mqj_vm;

/* How long the library keeps a callback. */
enum { MQJ_SCOPE_NOTIFIED = 1, MQJ_SCOPE_ONCE = 2 };

/* ------------------------------------------------------------- exceptions */

/* Throw MkExceptionC(text, code); always returns 0 so a caller can write
 * `return mqj_throw(...)` in a conversion. */
int mqj_throw(JNIEnv *env, MK_I32 code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Throw the kernel's error (MkErrorDEFAULT) or ctx's, and reset it. */
void mqj_raise_kernel(JNIEnv *env);
void mqj_raise_ctx(JNIEnv *env, MqContextC *ctx);

/* --------------------------------------------------------------- objects */

/* The C object of a wrapper; NULL (with an exception thrown) for null or a
 * deleted object.  fn names the method in the message. */
void *mqj_deleted(JNIEnv *env, jobject o, const char *fn);
static inline void *
mqj_ptr(JNIEnv *env, jobject o, const char *fn)
{
    void *p = o ? (void *)(intptr_t)(*env)->GetLongField(env, o, mqj.hdl) : NULL;
    return p ? p : mqj_deleted(env, o, fn);
}

/* What the library keeps of a Java object it holds (refs.c): a holder, an
 * Object[1] kept by a recycled global reference, and beside it what a
 * context's object or a callable needs.  A context's (its user data) keeps
 * its ReadBUFR view, so that neither costs a JNI field access per message;
 * a callable's keeps its form and scope (mqj_cb_call). */
typedef struct mqj_held {
    jobjectArray h;        /* the holder: [0] the object */
    struct mqj_held *next; /* in the thread's pool of empty ones */
    jobject view;          /* a context's view (global reference), NULL until MkObjectC.viewInit */
    MkBufferC *shown;      /* the buffer the view shows, NULL when its read ended */
    int noarg;             /* a callable's form (MkObjectC.noArg): 1 runs Call(), 0 Call(ctx),
                              MQJ_SETUP Call(ctx) as a server's setup (MkObjectC.callSetup) */
    int scope;             /* a callable's MQJ_SCOPE_* */
    int stale;             /* a context's, let go without an env: its object's hdl still names it */
} mqj_held;
typedef mqj_held mqj_ctx; /* a context's user data, let go by the destroy callback */

/* refs.c: o held (o NULL: an empty holder; NULL, maybe with an exception,
 * when out of memory; every other field 0); the object again as a new local reference; let go (the
 * holder emptied, for the next object; env NULL: deleted later by a thread
 * that has one); the calling thread's empty ones freed as it ends; the
 * number of holders alive (MkObjectC.heldCount, for the binding's tests). */
mqj_held *mqj_hold(JNIEnv *env, jobject o);
jobject mqj_held_object(JNIEnv *env, mqj_held *r);
void mqj_let_go(JNIEnv *env, mqj_held *r);
void mqj_hold_pool_free(void);
jint JNICALL mqj_held_count(JNIEnv *env, jclass cls);

/* The C object a handle names: a ReadBUFR view's handle is its context's
 * mqj_ctx with the low bit set (mqj_view), naming the buffer it shows or
 * NULL once that read ended; any other handle is the object itself. */
static inline void *
mqj_resolve(jlong hdl)
{
    if (hdl & 1)
        return ((mqj_ctx *)(intptr_t)(hdl & ~(jlong)1))->shown;
    return (void *)(intptr_t)hdl;
}

/* The C object of a method's receiver, whose handle the Java method passes
 * (java.py's wrapped: no JNI field access); NULL with an exception as
 * mqj_ptr when it names none. */
static inline void *
mqj_self(JNIEnv *env, jobject self, jlong hdl, const char *fn)
{
    void *p = mqj_resolve(hdl);
    return p ? p : mqj_deleted(env, self, fn);
}

/* The C object of a context method's receiver (java.py's handle_only: a
 * static native, the handle alone); NULL with an exception once the context
 * was deleted. */
void *mqj_gone(JNIEnv *env, const char *fn);
static inline void *
mqj_obj(JNIEnv *env, jlong hdl, const char *fn)
{
    return hdl ? (void *)(intptr_t)hdl : mqj_gone(env, fn);
}

/* A new C object as the handle the Java side wraps (java.py's java_made:
 * a Java `new` instead of a JNI NewObject); 0 with an exception when obj is
 * NULL. */
jlong mqj_handle(JNIEnv *env, void *obj);

/* ----------------------------------------------------- argument conversion */

/* A Java String as NUL-terminated UTF-8 (real UTF-8: characters outside the
 * BMP as 4 bytes, never JNI's modified UTF-8), in s->small when it fits. */
typedef struct {
    char *s;
    char small[256];
} mqj_str;
int mqj_to_STR(JNIEnv *env, jstring j, mqj_str *s, const char *fn);
/* The same with j's length from Java (MkObjectC.length: the generated
 * methods pass it), saving the JNI GetStringLength. */
int mqj_to_STRn(JNIEnv *env, jstring j, jint n, mqj_str *s, const char *fn);
static inline void
mqj_str_release(mqj_str *s)
{
    extern void mqj_free(void *);
    if (s->s != s->small)
        mqj_free(s->s);
}
/* A token: word is its 4 characters packed in Java (MkObjectC.token: 0
 * unless they are 4 printable ASCII characters), unpacked into t[5] without
 * a JNI call; for 0 the String is converted into s as mqj_to_STR does, so
 * the C call names an invalid token in its error.  s is released after the
 * call either way. */
int mqj_to_TOKEN(JNIEnv *env, jint word, jstring j, char t[5], mqj_str *s, const char *fn);
/* A token's word (MkObjectC.token) as its text: character i in bits 8i..8i+7. */
static inline void
mqj_token_text(jint word, char t[5])
{
    uint32_t w = (uint32_t)word;
    for (int i = 0; i < 4; i++)
        t[i] = (char)(w >> (8 * i) & 0xff);
    t[4] = '\0';
}
/* UTF-8 as a new String (NULL for a NULL pointer when nullable). */
jstring mqj_from_STR(JNIEnv *env, const char *s);

/* A byte[] copied with one GetByteArrayRegion, in b->small when it fits. */
typedef struct {
    void *p;
    size_t n;
    char small[256];
} mqj_bin;
int mqj_to_BIN(JNIEnv *env, jbyteArray j, mqj_bin *b, const char *fn);
static inline void
mqj_bin_release(mqj_bin *b)
{
    extern void mqj_free(void *);
    if (b->p != b->small)
        mqj_free(b->p);
}
jbyteArray mqj_from_BIN(JNIEnv *env, const void *data, size_t size);

/* The C objects of an MkBufferC and an MqContextC argument.  A buffer that
 * holds its value on the Java side (a ReadBUF copy) comes as that value
 * alone, o null (types.py's BUF: dtype > 0, dval its bits, ref its bytes),
 * and is lent through the thread's scratch buffer, valid for the call; any
 * other comes with its handle in dval (MkObjectC.bits: no JNI GetLongField,
 * 14 per BUS message), o serving its error alone. */
int mqj_buf_value(JNIEnv *env, jint dtype, jlong dval, jbyteArray ref, MkBufferC **b,
                  const char *fn);
/* Give such a buffer its C object (owned by the Java object) for a method
 * that needs one. */
void *mqj_buf_materialize(JNIEnv *env, jobject o, jint dtype);
static inline int
mqj_to_BUF(JNIEnv *env, jobject o, jint dtype, jlong dval, jbyteArray ref, MkBufferC **b,
           const char *fn)
{
    void *p;
    if (dtype > 0)
        return mqj_buf_value(env, dtype, dval, ref, b, fn);
    if ((p = mqj_resolve(dval))) {
        *b = p;
        return 1;
    }
    return (*b = mqj_deleted(env, o, fn)) != NULL; /* why not: deleted, a spent view, null */
}
/* A context argument comes with its handle (MkObjectC.handle), read in
 * Java instead of by a JNI GetLongField; o serves the error alone. */
static inline int
mqj_to_CTX(JNIEnv *env, jobject o, jlong h, MqContextC **c, const char *fn)
{
    return (*c = h ? (void *)(intptr_t)h : mqj_deleted(env, o, fn)) != NULL;
}
/* A borrowed buffer as an owned copy, safe to keep, for an MkBufferC the
 * Java side makes (java.py's java_made "fill"), never passed here: its value
 * held on the Java side (no C object until a method needs one).  Returns
 * what the Java side stores itself (MkObjectC.fill: the type plus one in the
 * high 32 bits, in the low ones a value of at most 32 bits or a STR/BIN's
 * length), MQJ_FILL_ADOPT for a value that is no plain value (a C copy whose
 * handle MkObjectC.takeBits returns, for fill to adopt), 0 when an exception
 * is thrown.  Only for a native about to return to Java: a STR/BIN's bytes
 * and a 64-bit value or handle wait for MkObjectC.take/takeBits (mqj_take,
 * mqj_take_bits), which fill calls at once. */
#define MQJ_FILL_ADOPT (-1) /* MkObjectC.FILL_ADOPT */
jlong mqj_fill_BUF(JNIEnv *env, MkBufferC *buf);
void JNICALL mqj_take(JNIEnv *env, jclass cls, jbyteArray dst);
jlong JNICALL mqj_take_bits(JNIEnv *env, jclass cls);
/* A stream read's result with whether an item is left to read after it
 * (more: its ReadItemExists) in bit 62, for the Java side to answer
 * ReadItemExists without a JNI call (MkObjectC.ahead, java.py's AHEAD).
 * Only a result above 0 carries it: 0 goes with an exception,
 * MQJ_FILL_ADOPT is all bits. */
#define MQJ_MORE ((jlong)1 << 62) /* MkObjectC.MORE */
static inline jlong
mqj_ahead(jlong r, MK_BOL more)
{
    return r > 0 && more ? r | MQJ_MORE : r;
}
/* ReadBUFR: the context's one reusable view (an MkBufferC of dtype
 * MQJ_VIEW, made by MkObjectC.view in Java): no allocation, no copy and no
 * JNI call per read.  mqj_view shows buf in it and returns its handle (the
 * same for every read of the context: see mqj_resolve).  mqj_view_end shows
 * nothing (its methods throw from then on) with a plain store, no JNI call
 * (one SetLongField per message before, measured): the runtime calls it when
 * a service or callback returns and before each blocking call on the context
 * (the event loop replaces the read message).  When the context is deleted
 * the view's handle becomes 0 (ctx_destroyed), so a kept view never reaches
 * freed memory. */
enum { MQJ_VIEW = -1 };
jlong mqj_view(JNIEnv *env, MqContextC *ctx, MkBufferC *buf);
void JNICALL mqj_view_init(JNIEnv *env, jclass cls, jlong ctx, jobject v);
/* MkObjectC.viewShows(hdl): whether a view's handle shows a buffer. */
jboolean JNICALL mqj_view_shows(JNIEnv *env, jclass cls, jlong hdl);
static inline void
mqj_view_end(JNIEnv *env, MqContextC *ctx)
{
    mqj_ctx *c = MqContextGetUserData(ctx);
    (void)env;
    if (c)
        c->shown = NULL;
}
/* The wrapper object of a context (a new local reference), null for NULL. */
jobject mqj_from_CTX(JNIEnv *env, MqContextC *ctx);

/* A String[] as argc/argv (UTF-8 copies).  Link arguments: --fork before
 * the pipe's "@" is refused, as the JVM cannot fork. */
typedef struct {
    int argc;
    char **argv;
} mqj_argv;
int mqj_to_ARGV(JNIEnv *env, jobjectArray j, mqj_argv *a, const char *fn);
void mqj_argv_release(mqj_argv *a);

/* A callback registration: the Java callable in a holder (refs.c), run as
 * Call() when noarg (MkObjectC.noArg) is 1, else as Call(ctx).  NULL with
 * an exception for null. */
void *mqj_cb_new(JNIEnv *env, jobject fn, jint noarg, int scope, const char *name);
/* The same with the holder left empty, for the generated Java method to
 * store fn into (java.py's held_callback): mqj_cb_holder returns it. */
void *mqj_cb_take(JNIEnv *env, jobject fn, jint noarg, int scope, const char *name);
/* A service's registration whose callable the Java method stored in its
 * context's object (MkObjectC.services[slot], java.py's slotted) instead of
 * a holder: no record, only the slot and the form (noarg), which
 * mqj_cb_call and mqj_cb_free tell from a record.  The Java side keeps the
 * slots by token: a replacement's ServiceCreate reuses its token's slot and
 * ServiceDelete empties it, and the slots go with the object when the
 * context ends, so releasing one costs nothing here (a record and its
 * holder from the pool cost 120 instructions per service, five per
 * perfserver child). */
void *mqj_cb_slot(JNIEnv *env, jobject fn, jint noarg, jint slot, const char *name);
static inline jobjectArray
mqj_cb_holder(void *cb)
{
    return ((mqj_held *)cb)->h;
}
MkErrorE mqj_cb_call(MqContextC *ctx, void *data);
/* A server's setup: a callable of the Call(ctx) form run by MkObjectC.callSetup. */
enum { MQJ_SETUP = 2 };
jint JNICALL mqj_services_create(JNIEnv *env, jclass cls, jlong hdl, jint base, jint mask,
                                 jint noarg, jint w0, jint w1, jint w2, jint w3, jint w4, jint w5,
                                 jint w6, jint w7);
void mqj_cb_free(void *data);
void JNICALL mqj_fail_service_create(JNIEnv *env, jclass cls, jint after);

/* The hand-written natives of MqContextC that the generated table names. */
jlong JNICALL mqj_rt_MqContextC_Init(JNIEnv *env, jobject self);
void JNICALL mqj_rt_MqContextC_ConfigSetServerSetup(JNIEnv *env, jobject self, jobject setup);
void mqj_delete_MqContextC(JNIEnv *env, jobject self);

/* The JNIEnv of the calling thread, attached once (a library thread that
 * the thread hooks did not attach: as a daemon, kept until it ends).  The
 * known one is read inline: the out-of-line function's frame (its
 * stack-protector check for &env) cost 17 instructions per service call,
 * measured with callgrind. */
extern __thread JNIEnv *mqj_tl_env __attribute__((tls_model("initial-exec")));
JNIEnv *mqj_env_attach(void);
static inline JNIEnv *
mqj_env(void)
{
    JNIEnv *env = mqj_tl_env;
    return env ? env : mqj_env_attach();
}
int mqj_callback_init(JNIEnv *env);
void mqj_scratch_free(void);

#endif /* MQJ_RUNTIME_H */
