/* callback.c — calls from the library into Java (services, the server
 * setup, call callbacks), the factory that makes each server instance a new
 * object of the user's class, context lifetime and the library's threads.
 *
 * Threads: a thread that calls the library from Java is attached already;
 * the threads the library makes itself (the --thread pool) are attached
 * once, as daemons, by the thread hooks (MqSetThreadHooks) and detached as
 * they end.  The JNIEnv of each thread is kept in a thread-local variable,
 * so a callback costs one inline TLS read before its call into Java.
 *
 * Local references: a callback runs on a thread that may never return to
 * Java (a pool thread's event loop, ProcessEvent(MQ_WAIT_FOREVER)), so every
 * local reference made here is deleted here.
 *
 * Exceptions: an exception thrown by a service or the setup becomes the
 * context's error (text and code of an MkExceptionC, "Class: message" of
 * any other Throwable), so the caller on the other side receives the text;
 * one thrown by a call callback (SendEND_AND_CALLBACK) has no caller to go
 * to and is reported on stderr.  Either way the event loop goes on. */
#include <stdio.h>
#include <stdlib.h>

#include "runtime.h"

/* Each thread's JNIEnv once known (runtime.h's mqj_env reads it inline). */
__thread JNIEnv *mqj_tl_env __attribute__((tls_model("initial-exec")));

JNIEnv *
mqj_env_attach(void)
{
    JNIEnv *env;
    if ((*mqj_vm)->GetEnv(mqj_vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK &&
        (*mqj_vm)->AttachCurrentThreadAsDaemon(mqj_vm, (void **)&env, NULL) != JNI_OK)
        return NULL;
    return mqj_tl_env = env;
}

static void
pool_thread_start(void)
{
    JavaVMAttachArgs args = {JNI_VERSION_1_8, "mqlink-thread", NULL};
    JNIEnv *env;
    if ((*mqj_vm)->AttachCurrentThreadAsDaemon(mqj_vm, (void **)&env, &args) == JNI_OK)
        mqj_tl_env = env;
}

static void
pool_thread_end(void)
{
    mqj_scratch_free();
    mqj_hold_pool_free();
    if (mqj_tl_env) {
        mqj_tl_env = NULL;
        (*mqj_vm)->DetachCurrentThread(mqj_vm);
    }
}

int
mqj_callback_init(JNIEnv *env)
{
    mqj_tl_env = env;
    MqSetThreadHooks(pool_thread_start, pool_thread_end);
    return 1;
}

/* --------------------------------------------------------------- contexts */

/* The C context's destroy callback: the Java object forgets the context
 * (its methods throw from now on) and the library lets go of it. */
static void
ctx_destroyed(MqContextC *ctx, void *data)
{
    mqj_ctx *c = data;
    JNIEnv *env = mqj_env();
    jobject self;

    MqContextSetUserData(ctx, NULL);
    if (env) {
        if ((self = mqj_held_object(env, c))) {
            (*env)->SetLongField(env, self, mqj.hdl, 0);
            (*env)->DeleteLocalRef(env, self);
        }
        if (c->view) { /* its handle names c, recycled below */
            (*env)->SetLongField(env, c->view, mqj.hdl, 0);
            (*env)->DeleteGlobalRef(env, c->view);
            c->view = NULL; /* a pooled record may be orphaned later (refs.c) */
        }
    } else {
        c->stale = 1; /* for the thread that deletes it (refs.c) */
    }
    mqj_let_go(env, c);
}

/* c, the holder of ctx's object, as ctx's user data, let go as ctx goes. */
static void
attach_held(MqContextC *ctx, mqj_ctx *c)
{
    MqContextSetUserData(ctx, c);
    MqContextSetDestroyCallback(ctx, ctx_destroyed, c);
}

/* self, held, as ctx's user data; set_hdl: store ctx in
 * self.hdl too (the constructor's Java code does it itself: one JNI field
 * store per context fewer). */
static int
attach(JNIEnv *env, jobject self, MqContextC *ctx, int set_hdl)
{
    mqj_ctx *c = mqj_hold(env, self);
    if (!c) {
        mqj_throw(env, MK_ERR_MEMORY, "MqContextC: out of memory");
        return 0;
    }
    attach_held(ctx, c);
    if (set_hdl)
        (*env)->SetLongField(env, self, mqj.hdl, (jlong)(intptr_t)ctx);
    return 1;
}

/* MqContextC(): a new C context, held by this object until Delete; returns
 * its handle for the constructor to store. */
jlong JNICALL
mqj_rt_MqContextC_Init(JNIEnv *env, jobject self)
{
    MqContextC *ctx = MqContextCreate();
    if (!ctx) {
        mqj_throw(env, MK_ERR_MEMORY, "MqContextC: out of memory");
        return 0;
    }
    if (!attach(env, self, ctx, 0)) {
        MqContextDelete(ctx);
        return 0;
    }
    return (jlong)(intptr_t)ctx;
}

void
mqj_delete_MqContextC(JNIEnv *env, jobject self)
{
    MqContextC *ctx = (void *)(intptr_t)(*env)->GetLongField(env, self, mqj.hdl);
    if (ctx)
        MqContextDelete(ctx); /* ctx_destroyed clears hdl */
}

/* The holder of ctx's Java object (the context's user data); a context the
 * library made without our factory gets a plain MqContextC. */
static jobjectArray
object_of(JNIEnv *env, MqContextC *ctx)
{
    mqj_ctx *c = MqContextGetUserData(ctx);
    jobject n;
    if (c)
        return c->h;
    if (!(n = (*env)->AllocObject(env, mqj.ctx)))
        return NULL;
    attach(env, n, ctx, 1);
    (*env)->DeleteLocalRef(env, n);
    return (c = MqContextGetUserData(ctx)) ? c->h : NULL;
}

jobject
mqj_from_CTX(JNIEnv *env, MqContextC *ctx)
{
    jobjectArray h = ctx ? object_of(env, ctx) : NULL;
    return h ? (*env)->GetObjectArrayElement(env, h, 0) : NULL;
}

/* -------------------------------------------------------------- callbacks */

/* A callable runs through MkObjectC.call (callNoArg; a service through
 * the generated ServiceSlots.callService), a
 * static Java method returning true once it returned: JNI's false tells an exception without a JNI
 * ExceptionCheck per call, which cost 10 ns where the call through Java
 * costs 4 (measured: C calling an empty service 5 M times), and the
 * perfserver's NTHT 1352 -> 1260 server instructions per message
 * (callgrind).  Its call to the callable is an interface call that C2
 * inlines or compiles to an itable stub (a JNI call through the
 * interface's method ID searched the itable in the VM on every call), so
 * no table of each class's own Call method is needed.  The arguments go as
 * an array (CallStaticBooleanMethodA): the VM's va_list reading cost 23
 * instructions per call more (callgrind, perfclient --send-nothing). */
typedef mqj_held mqj_cb; /* the callable held, its noarg and scope */

static void *
cb_new(JNIEnv *env, jobject fn, jobject held, jint noarg, int scope, const char *name)
{
    mqj_cb *cb;

    if (!fn) {
        mqj_throw(env, MK_ERR_ARGUMENT, "%s: null callback", name);
        return NULL;
    }
    if (!(cb = mqj_hold(env, held))) {
        mqj_throw(env, MK_ERR_MEMORY, "%s: out of memory", name);
        return NULL;
    }
    cb->noarg = noarg;
    cb->scope = scope;
    return cb;
}

void *
mqj_cb_new(JNIEnv *env, jobject fn, jint noarg, int scope, const char *name)
{
    return cb_new(env, fn, fn, noarg, scope, name);
}

void *
mqj_cb_take(JNIEnv *env, jobject fn, jint noarg, int scope, const char *name)
{
    return cb_new(env, fn, NULL, noarg, scope, name);
}

/* A service's registration (mqj_cb_slot) is no record but its slot and
 * form, tagged (bit 0) so that mqj_cb_call and mqj_cb_free tell it from a
 * record (malloc'd, so even): the callable lives in its context's object
 * (MkObjectC.services), which the Java side keeps by token, so neither the
 * registration nor the context's end costs a record or a JNI call per
 * service. */
#define SLOT_TAG(slot, noarg) ((void *)(((intptr_t)(slot) << 2) | ((noarg) != 0) << 1 | 1))
#define IS_SLOT(data) (((intptr_t)(data)&1) != 0)

/* The MkObjectC method that runs a tagged service: for the first slots the
 * tag without its bit 0 indexes mqj.call_slot ([slot][noarg]) at once. */
static inline jmethodID
slot_method(void *data, jvalue *slot)
{
    intptr_t t = (intptr_t)data;
    if (t < 4 * MQJ_SLOT_METHODS)
        return (&mqj.call_slot[0][0])[t >> 1];
    slot->i = (jint)(t >> 2);
    return mqj.call_any[t >> 1 & 1];
}

void *
mqj_cb_slot(JNIEnv *env, jobject fn, jint noarg, jint slot, const char *name)
{
    if (!fn) {
        mqj_throw(env, MK_ERR_ARGUMENT, "%s: null callback", name);
        return NULL;
    }
    if (slot < 0) { /* MkObjectC.serviceSlot's: never */
        mqj_throw(env, MK_ERR_ARGUMENT, "%s: no slot", name);
        return NULL;
    }
    return SLOT_TAG(slot, noarg);
}

void
mqj_cb_free(void *data)
{
    if (data && !IS_SLOT(data)) /* a slot: the Java side lets go of its callable */
        mqj_let_go(mqj_env(), data);
}

/* MkObjectC.failServiceCreate(after), a test's fault: the deferred
 * registration after `after` more fails as the library's out of memory
 * would (its only failure for a registration that is deferred); -1: none.
 * The library's own failure cannot be made on purpose in a JVM. */
static int fail_after = -1;

void JNICALL
mqj_fail_service_create(JNIEnv *env, jclass cls, jint after)
{
    (void)env;
    (void)cls;
    __atomic_store_n(&fail_after, after, __ATOMIC_RELAXED);
}

static MkErrorE
service_create(MqContextC *ctx, const char *tok, void *data)
{
    if (__builtin_expect(__atomic_load_n(&fail_after, __ATOMIC_RELAXED) >= 0, 0) &&
        __atomic_fetch_sub(&fail_after, 1, __ATOMIC_RELAXED) == 0)
        return MqErrorSet(ctx, MK_ERR_MEMORY, "ServiceCreate: out of memory (a test's fault)");
    /* a slot's registration frees nothing: no free function, which the
     * library would call for each service as the context goes (mqj_cb_free,
     * 45 instructions per perfserver child) */
    return MqServiceCreate(ctx, tok, mqj_cb_call, data, NULL);
}

/* MkObjectC.servicesCreate: a setup's deferred ServiceCreate calls (see
 * MkObjectC.deferring) of the slots base + i for each bit i of mask, w[i]
 * the token's word and bit i of noarg the form, registered as the generated
 * ServiceCreate would, lowest bit first.  Returns 0, or i + 1 for the first
 * that failed, its error left on the context: the Java side frees its slot,
 * takes the error and passes the bits after it again. */
jint JNICALL
mqj_services_create(JNIEnv *env, jclass cls, jlong hdl, jint base, jint mask, jint noarg,
                    jint w0, jint w1, jint w2, jint w3, jint w4, jint w5, jint w6, jint w7)
{
    MqContextC *ctx = mqj_obj(env, hdl, "ServiceCreate");
    const jint w[8] = {w0, w1, w2, w3, w4, w5, w6, w7};
    unsigned m = (unsigned)mask & 0xff;
    (void)cls;

    for (; ctx && m; m &= m - 1) { /* each set bit, lowest first */
        int i = __builtin_ctz(m);
        char tok[5];
        mqj_token_text(w[i], tok);
        if (service_create(ctx, tok, SLOT_TAG(base + i, noarg >> i & 1)) != MK_OK)
            return i + 1;
    }
    return 0;
}

/* The pending exception as UTF-8 text and a code; clears it. */
static MK_I32
take_exception(JNIEnv *env, mqj_str *text)
{
    jthrowable t = (*env)->ExceptionOccurred(env);
    jstring s = NULL;
    MK_I32 code = MK_ERR_GENERIC;

    if (MkLogGetLevel() >= MK_LOG_WARN)
        (*env)->ExceptionDescribe(env); /* the default level: the stack trace, on stderr */
    (*env)->ExceptionClear(env);
    text->s = text->small;
    strcpy(text->small, "java exception");
    if ((*env)->IsInstanceOf(env, t, mqj.exc)) {
        s = (*env)->GetObjectField(env, t, mqj.exc_text);
        code = (*env)->GetIntField(env, t, mqj.exc_code);
    } else {
        s = (*env)->CallObjectMethod(env, t, mqj.throwable_str);
    }
    if ((*env)->ExceptionCheck(env) || !s || !mqj_to_STR(env, s, text, "callback")) {
        (*env)->ExceptionClear(env);
        text->s = text->small;
        strcpy(text->small, "java exception");
    }
    if (s)
        (*env)->DeleteLocalRef(env, s);
    (*env)->DeleteLocalRef(env, t);
    return code;
}

static MkErrorE
error_to_ctx(JNIEnv *env, MqContextC *ctx)
{
    mqj_str text;
    MK_I32 code = take_exception(env, &text);
    MqErrorSet(ctx, code, "%s", text.s);
    mqj_str_release(&text);
    return MK_ERROR;
}

/* A callable's call into Java that threw: its exception becomes ctx's
 * error, or for a call callback (once: no caller to tell) goes to stderr.
 * Apart from the callers' path, which mqj_cb_call keeps inline (a call of
 * its own cost every service 10 instructions, callgrind). */
static MkErrorE __attribute__((noinline))
call_failed(JNIEnv *env, MqContextC *ctx, int once)
{
    MkErrorE rc;

    if (once) { /* a service's is notified */
        mqj_str text;
        take_exception(env, &text);
        fprintf(stderr, "mqlink: exception in a callback: %s\n", text.s);
        mqj_str_release(&text);
        rc = MK_ERROR;
    } else {
        rc = error_to_ctx(env, ctx);
    }
    mqj_view_end(env, ctx);
    return rc;
}

MkErrorE
mqj_cb_call(MqContextC *ctx, void *data)
{
    mqj_cb *cb = data;
    JNIEnv *env = mqj_env();
    jvalue a[2];
    jboolean ok;

    if (!env)
        return MqErrorSet(ctx, MK_ERR_GENERIC, "cannot attach the thread to the JVM");
    if (__builtin_expect(IS_SLOT(data), 1)) { /* its context's object, the callable's slot */
        mqj_ctx *c = MqContextGetUserData(ctx);
        if (!c)
            return MqErrorSet(ctx, MK_ERR_GENERIC, "the service's context has no object");
        a[0].l = c->h;
        ok = (*env)->CallStaticBooleanMethodA(env, mqj.slots, slot_method(data, &a[1]), a);
    } else if (cb->noarg == 1) { /* with the context's holder, if it has one: see callNoArg */
        mqj_ctx *c = MqContextGetUserData(ctx);
        a[0].l = cb->h;
        a[1].l = c ? c->h : NULL;
        ok = (*env)->CallStaticBooleanMethodA(env, mqj.obj, mqj.call0, a);
    } else {
        a[0].l = cb->h;
        if (!(a[1].l = object_of(env, ctx)))
            return error_to_ctx(env, ctx);
        ok = (*env)->CallStaticBooleanMethodA(env, mqj.obj,
                                              cb->noarg == MQJ_SETUP ? mqj.call_setup : mqj.call1, a);
    }
    if (ok || !(*env)->ExceptionCheck(env)) {
        mqj_view_end(env, ctx); /* the read ends: so does its ReadBUFR view */
        return MK_OK;
    }
    return call_failed(env, ctx, !IS_SLOT(data) && cb->scope == MQJ_SCOPE_ONCE);
}

/* ------------------------------------------------- server setup and factory */

/* A server instance's object is made as its setup runs, in the same call
 * into Java (MkObjectC.callNewServer): the factory makes the C context
 * only, and server_setup holds it with an empty holder and passes
 * both with the setup and the user's class (server_data.server); the
 * object's constructor adopts the handle in Java
 * (MkObjectC()), without its Init native, and the Java side stores the
 * object in the holder, without a JNI SetObjectArrayElement.  A call into
 * Java costs the VM about 700 instructions (callgrind: JavaCalls, its
 * arguments and handles), so the factory's own (MkObjectC.newServer
 * through a JNI CallStaticLongMethodA) was a quarter of a child's server
 * instructions (1517 of 6588).  The library calls nothing of the instance between the two
 * (link.c's mqi_instance_create, then the attach and, for a child,
 * service.c's child_create; for a parent the handshake), and an instance
 * that goes before its setup (a connection that fails its handshake) costs
 * no object at all. */
typedef struct {
    mqj_cb *fn;          /* the setup callable (MQJ_SETUP), for the template's own setup */
    jobjectArray server; /* {the setup callable, the user's class, its factory}, a global
                            reference: callNewServer's first argument (one argument for all
                            saves the VM's pushing and resolving more: callgrind, per child);
                            the factory null until callNewServer keeps it there */
} server_data;

static void
server_free(void *data)
{
    server_data *s = data;
    JNIEnv *env = mqj_env();
    if (env && s->server)
        (*env)->DeleteGlobalRef(env, s->server);
    if (s->fn)
        mqj_cb_free(s->fn);
    free(s);
}

static MqContextC *
factory(MqContextC *tmpl, void *data)
{
    MqContextC *ctx = MqContextCreate();
    (void)data;
    if (!ctx)
        MqErrorSet(tmpl, MK_ERR_MEMORY, "the server instance: out of memory");
    return ctx;
}

/* The setup of ctx: of a context whose object exists (the template's, one
 * made in Java) as any callable; of one from the factory with its object
 * made first. */
static MkErrorE
server_setup(MqContextC *ctx, void *data)
{
    server_data *s = data;
    JNIEnv *env;
    mqj_ctx *c;
    jvalue a[3];
    jboolean ok;

    if (MqContextGetUserData(ctx))
        return mqj_cb_call(ctx, s->fn);
    if (!(env = mqj_env()))
        return MqErrorSet(ctx, MK_ERR_GENERIC, "cannot attach the thread to the JVM");
    if (!(c = mqj_hold(env, NULL)))
        return MqErrorSet(ctx, MK_ERR_MEMORY, "the server instance: out of memory");
    attach_held(ctx, c); /* its object, once made, in c: ctx_destroyed clears its handle */
    a[0].l = s->server;
    a[1].j = (jlong)(intptr_t)ctx;
    a[2].l = c->h;
    ok = (*env)->CallStaticBooleanMethodA(env, mqj.obj, mqj.call_new_server, a);
    if (ok || !(*env)->ExceptionCheck(env)) {
        mqj_view_end(env, ctx);
        return MK_OK;
    }
    return call_failed(env, ctx, 0);
}

/* {setup, cls, null} as a global reference, NULL when out of memory. */
static jobjectArray
server_pair(JNIEnv *env, jobject setup, jclass cls)
{
    jobjectArray a, g;
    if (!(a = (*env)->NewObjectArray(env, 3, mqj.object, NULL)))
        return NULL;
    (*env)->SetObjectArrayElement(env, a, 0, setup);
    (*env)->SetObjectArrayElement(env, a, 1, cls);
    g = (*env)->NewGlobalRef(env, a);
    (*env)->DeleteLocalRef(env, a);
    return g;
}

void JNICALL
mqj_rt_MqContextC_ConfigSetServerSetup(JNIEnv *env, jobject self, jobject setup)
{
    MqContextC *ctx = mqj_ptr(env, self, "ConfigSetServerSetup");
    server_data *s;
    jclass cls;

    if (!ctx)
        return;
    cls = (*env)->GetObjectClass(env, self);
    if (!(*env)->GetMethodID(env, cls, "<init>", "()V")) {
        (*env)->DeleteLocalRef(env, cls);
        (*env)->ExceptionClear(env);
        mqj_throw(env, MK_ERR_ARGUMENT,
                  "ConfigSetServerSetup: the server class needs a constructor without arguments");
        return;
    }
    if (!(s = calloc(1, sizeof *s))) {
        (*env)->DeleteLocalRef(env, cls);
        mqj_throw(env, MK_ERR_MEMORY, "ConfigSetServerSetup: out of memory");
        return;
    }
    if (!(s->fn = mqj_cb_new(env, setup, MQJ_SETUP, MQJ_SCOPE_NOTIFIED, "ConfigSetServerSetup")) ||
        !(s->server = server_pair(env, setup, cls))) {
        (*env)->DeleteLocalRef(env, cls);
        if (!(*env)->ExceptionCheck(env))
            mqj_throw(env, MK_ERR_MEMORY, "ConfigSetServerSetup: out of memory");
        server_free(s);
        return;
    }
    (*env)->DeleteLocalRef(env, cls);
    MqConfigSetServerSetup(ctx, server_setup, s, server_free);
    MqConfigSetFactory(ctx, factory, NULL, NULL);
}
