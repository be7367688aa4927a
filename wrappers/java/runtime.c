/* runtime.c — the JNI library's start (JNI_OnLoad: every class, method and
 * field ID looked up once and cached as global references, the natives
 * registered with RegisterNatives), exceptions and wrapper objects.
 * Conversions are in convert.c; callbacks, contexts and threads in
 * callback.c; the natives themselves are generated (gen/glue.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime.h"

mqj_cache mqj;
JavaVM *mqj_vm;

void
mqj_free(void *p)
{
    free(p);
}

/* ------------------------------------------------------------- exceptions */

static void
throw_text(JNIEnv *env, const char *text, MK_I32 code)
{
    jstring s;
    jobject e;

    if ((*env)->ExceptionCheck(env))
        return; /* the first exception wins */
    if (!text || !*text)
        text = "unknown error";
    if (!(s = mqj_from_STR(env, text)))
        return;
    e = (*env)->NewObject(env, mqj.exc, mqj.exc_init, s, (jint)code);
    (*env)->DeleteLocalRef(env, s);
    if (e) {
        (*env)->Throw(env, e);
        (*env)->DeleteLocalRef(env, e);
    }
}

int
mqj_throw(JNIEnv *env, MK_I32 code, const char *fmt, ...)
{
    char text[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    throw_text(env, text, code);
    return 0;
}

void
mqj_raise_kernel(JNIEnv *env)
{
    MkErrorC *err = MkErrorDEFAULT();
    throw_text(env, MkErrorGetText(err), MkErrorGetCode(err));
    MkErrorReset(err);
}

void
mqj_raise_ctx(JNIEnv *env, MqContextC *ctx)
{
    throw_text(env, MqErrorGetText(ctx), MqErrorGetCode(ctx));
    MqErrorReset(ctx);
}

/* --------------------------------------------------------------- objects */

void *
mqj_deleted(JNIEnv *env, jobject o, const char *fn)
{
    jint dtype = o ? (*env)->GetIntField(env, o, mqj.dtype) : 0;
    if (dtype > 0)
        return mqj_buf_materialize(env, o, dtype);
    if (dtype == MQJ_VIEW)
        mqj_throw(env, MK_ERR_ARGUMENT,
                  "%s: the buffer from ReadBUFR (IndexGetR) is no longer valid (a context's "
                  "lasts until the next ReadBUFR, the end of the service or callback, or the "
                  "next blocking call on its context; a stream's or a list's until the next "
                  "call on it); use ReadBUF (IndexGet) for a copy to keep", fn);
    else if (!o)
        mqj_throw(env, MK_ERR_ARGUMENT, "%s: null object", fn);
    else
        mqj_throw(env, MQ_ERR_LINK, "%s: the %s was deleted", fn,
                  (*env)->IsInstanceOf(env, o, mqj.ctx) ? "context" : "object");
    return NULL;
}

void *
mqj_gone(JNIEnv *env, const char *fn)
{
    mqj_throw(env, MQ_ERR_LINK, "%s: the context was deleted", fn);
    return NULL;
}

/* A C call made no object: its error, or out of memory. */
static void
raise_no_object(JNIEnv *env)
{
    mqj_raise_kernel(env);
    if (!(*env)->ExceptionCheck(env))
        mqj_throw(env, MK_ERR_MEMORY, "out of memory");
}

jlong
mqj_handle(JNIEnv *env, void *obj)
{
    if (!obj)
        raise_no_object(env);
    return (jlong)(intptr_t)obj;
}

/* MkObjectC.free0(kind, hdl): the Cleaner's action and Delete()'s. */
static void JNICALL
object_free(JNIEnv *env, jclass cls, jint kind, jlong hdl)
{
    if (hdl && kind >= 0 && kind < mqj_class_count && mqj_classes[kind].free)
        mqj_classes[kind].free((void *)(intptr_t)hdl);
}

/* ------------------------------------------------------------------- load */

static jclass
global_class(JNIEnv *env, const char *name)
{
    char full[128];
    jclass c, g;

    snprintf(full, sizeof full, "%s%s", strchr(name, '/') ? "" : MQJ_PKG, name);
    if (!(c = (*env)->FindClass(env, full)))
        return NULL;
    g = (*env)->NewGlobalRef(env, c);
    (*env)->DeleteLocalRef(env, c);
    return g;
}

/* The generated ServiceSlots' methods that run a service by its slot
 * (mqj_cb_call): one per slot for the first MQJ_SLOT_METHODS. */
static int
cache_services(JNIEnv *env)
{
    static const char *const names[2] = {"callServiceCtx", "callService"}; /* by noarg */
    jclass obj = global_class(env, "ServiceSlots");
    char name[32];

    if (!(mqj.slots = obj))
        return 0;
    for (int noarg = 0; noarg < 2; noarg++) {
        if (!(mqj.call_any[noarg] = (*env)->GetStaticMethodID(env, obj, names[noarg],
                                                              "([Ljava/lang/Object;I)Z")))
            return 0;
        for (int i = 0; i < MQJ_SLOT_METHODS; i++) {
            snprintf(name, sizeof name, "%s%d", names[noarg], i);
            if (!(mqj.call_slot[i][noarg] = (*env)->GetStaticMethodID(env, obj, name,
                                                                      "([Ljava/lang/Object;)Z")))
                return 0;
        }
    }
    return 1;
}

static int
cache(JNIEnv *env)
{
    jclass obj = global_class(env, "MkObjectC");
    static const JNINativeMethod object_natives[] = {
        {"free0", "(IJ)V", (void *)object_free},
        {"viewInit", "(JL" MQJ_PKG "MkBufferC;)V", (void *)mqj_view_init},
        {"viewShows", "(J)Z", (void *)mqj_view_shows},
        {"take", "([B)V", (void *)mqj_take},
        {"takeBits", "()J", (void *)mqj_take_bits},
        {"heldCount", "()I", (void *)mqj_held_count},
        {"servicesCreate", "(JIIIIIIIIIII)I", (void *)mqj_services_create},
        {"failServiceCreate", "(I)V", (void *)mqj_fail_service_create},
    };

    if (!obj || !(mqj.hdl = (*env)->GetFieldID(env, obj, "hdl", "J")) ||
        !(mqj.dtype = (*env)->GetFieldID(env, obj, "dtype", "I")) ||
        !(mqj.dval = (*env)->GetFieldID(env, obj, "dval", "J")) ||
        !(mqj.dref = (*env)->GetFieldID(env, obj, "dref", "[B")) ||
        !(mqj.adopt = (*env)->GetMethodID(env, obj, "adopt", "(JI)V")) ||
        !(mqj.call_new_server = (*env)->GetStaticMethodID(env, obj, "callNewServer",
                                                          "([Ljava/lang/Object;J[Ljava/lang/Object;)Z")) ||
        !(mqj.call0 = (*env)->GetStaticMethodID(env, obj, "callNoArg",
                                                 "([Ljava/lang/Object;[Ljava/lang/Object;)Z")) ||
        !(mqj.call1 = (*env)->GetStaticMethodID(env, obj, "call",
                                                "([Ljava/lang/Object;[Ljava/lang/Object;)Z")) ||
        !(mqj.call_setup = (*env)->GetStaticMethodID(env, obj, "callSetup",
                                                     "([Ljava/lang/Object;[Ljava/lang/Object;)Z")) ||
        !cache_services(env) ||
        (*env)->RegisterNatives(env, obj, object_natives,
                                (jint)(sizeof object_natives / sizeof *object_natives)) != 0)
        return 0;
    mqj.obj = obj;
    if (!(mqj.exc = global_class(env, "MkExceptionC")) ||
        !(mqj.exc_init = (*env)->GetMethodID(env, mqj.exc, "<init>", "(Ljava/lang/String;I)V")) ||
        !(mqj.exc_text = (*env)->GetFieldID(env, mqj.exc, "text", "Ljava/lang/String;")) ||
        !(mqj.exc_code = (*env)->GetFieldID(env, mqj.exc, "code", "I")))
        return 0;
    if (!(mqj.throwable = global_class(env, "java/lang/Throwable")) ||
        !(mqj.throwable_str = (*env)->GetMethodID(env, mqj.throwable, "toString",
                                                  "()Ljava/lang/String;")) ||
        !(mqj.string = global_class(env, "java/lang/String")) ||
        !(mqj.object = global_class(env, "java/lang/Object")))
        return 0;
    mqj.cls = calloc((size_t)mqj_class_count, sizeof *mqj.cls);
    if (!mqj.cls)
        return 0;
    for (int i = 0; i < mqj_class_count; i++) {
        const mqj_class *c = &mqj_classes[i];
        if (!(mqj.cls[i] = global_class(env, c->name)) ||
            (*env)->RegisterNatives(env, mqj.cls[i], c->natives, c->count) != 0)
            return 0;
        if (!strcmp(c->name, "MqContextC"))
            mqj.ctx = mqj.cls[i];
        if (!strcmp(c->name, "MkBufferC")) {
            mqj.buf = mqj.cls[i];
            mqj.buf_kind = i;
        }
    }
    jclass mod = global_class(env, "MqLink");
    return mod && mqj.buf && mqj.ctx && (*env)->RegisterNatives(env, mod, mqj_module_natives,
                                                      mqj_module_count) == 0;
}

JNIEXPORT jint JNICALL
JNI_OnLoad(JavaVM *vm, void *reserved)
{
    JNIEnv *env;

    mqj_vm = vm;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK)
        return JNI_ERR;
    if (!cache(env) || !mqj_callback_init(env)) {
        if (!(*env)->ExceptionCheck(env))
            fprintf(stderr, "libmqlinkjni: cannot initialise the org.mqlink classes\n");
        return JNI_ERR;
    }
    return JNI_VERSION_1_8;
}
