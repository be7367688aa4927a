/* runtime.c — the JNI library's start (JNI_OnLoad: every class, method and
 * field ID looked up once and cached as global references, the natives
 * registered with RegisterNatives), exceptions, wrapper objects and the
 * conversions of strings, bytes and argument vectors.  Callbacks, contexts
 * and threads are in callback.c; the natives themselves are generated
 * (gen/glue.c).
 *
 * Strings: JNI's own UTF functions speak *modified* UTF-8 (NUL as C0 80, a
 * character outside the BMP as two 3-byte surrogates), which is not the
 * UTF-8 on the wire.  Text goes in through GetStringUTFRegion when that is
 * already real UTF-8 (no NUL, no surrogate: the common case, one call) and
 * through UTF-16 otherwise; text comes out through NewStringUTF when it is
 * ASCII and through UTF-16 (NewString) otherwise. */
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
    if (!o)
        mqj_throw(env, MK_ERR_ARGUMENT, "%s: null object", fn);
    else
        mqj_throw(env, MQ_ERR_LINK, "%s: the %s was deleted", fn,
                  (*env)->IsInstanceOf(env, o, mqj.ctx) ? "context" : "object");
    return NULL;
}

jobject
mqj_new(JNIEnv *env, int cls, void *obj, int owned)
{
    if (!obj) {
        mqj_raise_kernel(env);
        if (!(*env)->ExceptionCheck(env))
            mqj_throw(env, MK_ERR_MEMORY, "out of memory");
        return NULL;
    }
    jobject o = (*env)->NewObject(env, mqj.cls[cls], mqj.cls_init[cls], (jlong)(intptr_t)obj,
                                  (jboolean)(owned != 0));
    if (!o && owned)
        mqj_classes[cls].free(obj);
    return o;
}

/* MkObjectC.free0(kind, hdl): the Cleaner's action and Delete()'s. */
static void JNICALL
object_free(JNIEnv *env, jclass cls, jint kind, jlong hdl)
{
    if (hdl && kind >= 0 && kind < mqj_class_count && mqj_classes[kind].free)
        mqj_classes[kind].free((void *)(intptr_t)hdl);
}

jobject
mqj_from_BUF(JNIEnv *env, MkBufferC *buf)
{
    MkBufferC *copy = MkBufferDup(buf);
    jobject o;

    if (!copy)
        return mqj_new(env, 0, NULL, 1);
    o = (*env)->NewObject(env, mqj.buf, mqj.buf_init, (jlong)(intptr_t)copy, JNI_TRUE);
    if (!o)
        MkBufferDelete(copy);
    return o;
}

/* ----------------------------------------------------------------- strings */

static size_t
utf16_to_utf8(const jchar *u, jsize n, char *out)
{
    char *o = out;
    for (jsize i = 0; i < n; i++) {
        uint32_t c = u[i];
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && u[i + 1] >= 0xDC00 && u[i + 1] <= 0xDFFF)
            c = 0x10000 + ((c - 0xD800) << 10) + (u[++i] - 0xDC00);
        else if (c >= 0xD800 && c <= 0xDFFF)
            c = '?'; /* a lone surrogate, as String.getBytes(UTF_8) does */
        if (c < 0x80) {
            *o++ = (char)c;
        } else if (c < 0x800) {
            *o++ = (char)(0xC0 | c >> 6);
            *o++ = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            *o++ = (char)(0xE0 | c >> 12);
            *o++ = (char)(0x80 | (c >> 6 & 0x3F));
            *o++ = (char)(0x80 | (c & 0x3F));
        } else {
            *o++ = (char)(0xF0 | c >> 18);
            *o++ = (char)(0x80 | (c >> 12 & 0x3F));
            *o++ = (char)(0x80 | (c >> 6 & 0x3F));
            *o++ = (char)(0x80 | (c & 0x3F));
        }
    }
    *o = 0;
    return (size_t)(o - out);
}

/* Modified UTF-8 that is not real UTF-8: a NUL (C0 80) or a surrogate
 * (ED A0..ED BF). */
static int
needs_utf16(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] >= 0xC0 && i + 1 < n &&
            ((s[i] == 0xC0 && s[i + 1] == 0x80) || (s[i] == 0xED && s[i + 1] >= 0xA0)))
            return 1;
    return 0;
}

int
mqj_to_STR(JNIEnv *env, jstring j, mqj_str *s, const char *fn)
{
    jsize n;
    size_t max;
    jchar *u;

    s->s = s->small;
    if (!j)
        return mqj_throw(env, MK_ERR_ARGUMENT, "%s: null string", fn);
    n = (*env)->GetStringLength(env, j);
    max = (size_t)n * 3 + 1; /* modified UTF-8 takes at most 3 bytes per jchar */
    if (max > sizeof s->small && !(s->s = malloc(max)))
        return mqj_throw(env, MK_ERR_MEMORY, "%s: out of memory", fn);
    (*env)->GetStringUTFRegion(env, j, 0, n, s->s);
    {
        size_t len = strlen(s->s); /* a NUL is C0 80 here, so strlen is the length */
        if (len == (size_t)n || !needs_utf16((unsigned char *)s->s, len))
            return 1;
    }
    /* NUL or surrogates: convert from UTF-16 (at most 3 bytes per jchar too) */
    if (!(u = malloc(((size_t)n + 1) * sizeof *u))) {
        mqj_str_release(s);
        return mqj_throw(env, MK_ERR_MEMORY, "%s: out of memory", fn);
    }
    (*env)->GetStringRegion(env, j, 0, n, u);
    for (jsize i = 0; i < n; i++)
        if (!u[i]) {
            free(u);
            mqj_str_release(s);
            s->s = s->small;
            return mqj_throw(env, MK_ERR_ARGUMENT, "%s: NUL character in a string", fn);
        }
    utf16_to_utf8(u, n, s->s);
    free(u);
    return 1;
}

/* Decode UTF-8 into UTF-16; an invalid sequence becomes U+FFFD. */
static jsize
utf8_to_utf16(const unsigned char *s, size_t n, jchar *out)
{
    jsize k = 0;
    for (size_t i = 0; i < n;) {
        uint32_t c = s[i], need, min;
        if (c < 0x80) {
            out[k++] = (jchar)c;
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            need = 1, min = 0x80, c &= 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
            need = 2, min = 0x800, c &= 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
            need = 3, min = 0x10000, c &= 0x07;
        else
            need = 0, min = 0;
        size_t j = 1;
        for (; need && j <= need && i + j < n && (s[i + j] & 0xC0) == 0x80; j++)
            c = c << 6 | (s[i + j] & 0x3F);
        if (!need || j <= need || c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
            out[k++] = 0xFFFD;
            i += j > 1 ? j - 1 : 1;
            continue;
        }
        i += j;
        if (c >= 0x10000) {
            c -= 0x10000;
            out[k++] = (jchar)(0xD800 + (c >> 10));
            out[k++] = (jchar)(0xDC00 + (c & 0x3FF));
        } else {
            out[k++] = (jchar)c;
        }
    }
    return k;
}

jstring
mqj_from_STR(JNIEnv *env, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;
    int ascii = 1;
    jchar small[256], *u;
    jstring r;

    if (!s)
        return NULL;
    for (; p[n]; n++)
        ascii &= p[n] < 0x80;
    if (ascii)
        return (*env)->NewStringUTF(env, s); /* ASCII: modified UTF-8 is UTF-8 */
    u = n <= sizeof small / sizeof *small ? small : malloc(n * sizeof *u);
    if (!u) {
        mqj_throw(env, MK_ERR_MEMORY, "out of memory");
        return NULL;
    }
    r = (*env)->NewString(env, u, utf8_to_utf16(p, n, u));
    if (u != small)
        free(u);
    return r;
}

/* ------------------------------------------------------------------- bytes */

int
mqj_to_BIN(JNIEnv *env, jbyteArray j, mqj_bin *b, const char *fn)
{
    b->p = b->small;
    b->n = 0;
    if (!j)
        return mqj_throw(env, MK_ERR_ARGUMENT, "%s: null byte[]", fn);
    b->n = (size_t)(*env)->GetArrayLength(env, j);
    if (b->n > sizeof b->small && !(b->p = malloc(b->n))) {
        b->p = b->small;
        return mqj_throw(env, MK_ERR_MEMORY, "%s: out of memory", fn);
    }
    (*env)->GetByteArrayRegion(env, j, 0, (jsize)b->n, b->p);
    return 1;
}

jbyteArray
mqj_from_BIN(JNIEnv *env, const void *data, size_t size)
{
    jbyteArray a = (*env)->NewByteArray(env, (jsize)size);
    if (a && size)
        (*env)->SetByteArrayRegion(env, a, 0, (jsize)size, data);
    return a;
}

/* ------------------------------------------------------------ argument vector */

int
mqj_to_ARGV(JNIEnv *env, jobjectArray j, mqj_argv *a, const char *fn)
{
    int server_args = 0;

    a->argc = 0;
    a->argv = NULL;
    if (!j)
        return mqj_throw(env, MK_ERR_ARGUMENT, "%s: null argument array", fn);
    jsize n = (*env)->GetArrayLength(env, j);
    if (!(a->argv = calloc((size_t)n + 1, sizeof *a->argv)))
        return mqj_throw(env, MK_ERR_MEMORY, "%s: out of memory", fn);
    for (jsize i = 0; i < n; i++, a->argc++) {
        jstring s = (*env)->GetObjectArrayElement(env, j, i);
        mqj_str t;
        int ok = mqj_to_STR(env, s, &t, fn);
        (*env)->DeleteLocalRef(env, s);
        if (!ok || !(a->argv[i] = strdup(t.s))) {
            if (ok) {
                mqj_str_release(&t);
                mqj_throw(env, MK_ERR_MEMORY, "%s: out of memory", fn);
            }
            mqj_argv_release(a);
            return 0;
        }
        mqj_str_release(&t);
        if (i > 0 && !strcmp(a->argv[i], "@"))
            server_args = 1;
        else if (i > 0 && !server_args && !strcmp(a->argv[i], "--fork")) {
            mqj_argv_release(a);
            return mqj_throw(env, MQ_ERR_OPTION,
                             "%s: --fork is not available in Java (the JVM cannot fork); "
                             "use --thread or --spawn", fn);
        }
    }
    return 1;
}

void
mqj_argv_release(mqj_argv *a)
{
    for (int i = 0; a->argv && i < a->argc; i++)
        free(a->argv[i]);
    free(a->argv);
    a->argv = NULL;
    a->argc = 0;
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

static int
cache(JNIEnv *env)
{
    jclass obj = global_class(env, "MkObjectC");
    static const JNINativeMethod object_natives[] = {
        {"free0", "(IJ)V", (void *)object_free},
    };

    if (!obj || !(mqj.hdl = (*env)->GetFieldID(env, obj, "hdl", "J")) ||
        (*env)->RegisterNatives(env, obj, object_natives, 1) != 0)
        return 0;
    if (!(mqj.exc = global_class(env, "MkExceptionC")) ||
        !(mqj.exc_init = (*env)->GetMethodID(env, mqj.exc, "<init>", "(Ljava/lang/String;I)V")) ||
        !(mqj.exc_text = (*env)->GetFieldID(env, mqj.exc, "text", "Ljava/lang/String;")) ||
        !(mqj.exc_code = (*env)->GetFieldID(env, mqj.exc, "code", "I")))
        return 0;
    if (!(mqj.svc = global_class(env, "MqServiceIF")) ||
        !(mqj.svc_call = (*env)->GetMethodID(env, mqj.svc, "Call", "(L" MQJ_PKG "MqContextC;)V")) ||
        !(mqj.svc0 = global_class(env, "MqServiceNoArgIF")) ||
        !(mqj.svc0_call = (*env)->GetMethodID(env, mqj.svc0, "Call", "()V")))
        return 0;
    if (!(mqj.throwable = global_class(env, "java/lang/Throwable")) ||
        !(mqj.throwable_str = (*env)->GetMethodID(env, mqj.throwable, "toString",
                                                  "()Ljava/lang/String;")) ||
        !(mqj.string = global_class(env, "java/lang/String")))
        return 0;
    mqj.cls = calloc((size_t)mqj_class_count, sizeof *mqj.cls);
    mqj.cls_init = calloc((size_t)mqj_class_count, sizeof *mqj.cls_init);
    if (!mqj.cls || !mqj.cls_init)
        return 0;
    for (int i = 0; i < mqj_class_count; i++) {
        const mqj_class *c = &mqj_classes[i];
        if (!(mqj.cls[i] = global_class(env, c->name)) ||
            (*env)->RegisterNatives(env, mqj.cls[i], c->natives, c->count) != 0)
            return 0;
        if (c->free && !(mqj.cls_init[i] = (*env)->GetMethodID(env, mqj.cls[i], "<init>", "(JZ)V")))
            return 0;
        if (!strcmp(c->name, "MqContextC"))
            mqj.ctx = mqj.cls[i];
        if (!strcmp(c->name, "MkBufferC")) {
            mqj.buf = mqj.cls[i];
            mqj.buf_init = mqj.cls_init[i];
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
