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

static void *materialize(JNIEnv *env, jobject o, jint dtype);

void *
mqj_deleted(JNIEnv *env, jobject o, const char *fn)
{
    jint dtype = o ? (*env)->GetIntField(env, o, mqj.dtype) : 0;
    if (dtype)
        return materialize(env, o, dtype);
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

/* ------------------------------------------------ buffers held in Java */

/* A read buffer's value goes into the Java object's fields (dtype, dval,
 * dref): an AllocObject and two or three field stores instead of a C copy,
 * a constructor call and a Cleaner registration (measured: about 2 us per
 * ReadBUF, mostly the GC's reference processing, against a round trip of
 * 30 us). */
static int
value_to_java(JNIEnv *env, jobject o, MkBufferC *buf)
{
    MkTypeE t = MkBufferGetType(buf);
    jlong bits = 0;
    const void *data = NULL;
    size_t size = 0;
    union { MK_I8 i8; MK_I16 i16; MK_I32 i32; MK_I64 i64; MK_FLT f; MK_DBL d; MK_BOL b; } v;

    switch (t) {
    case MK_TYPE_NONE: break;
    case MK_TYPE_I8: MkBufferGetI8(buf, &v.i8); bits = v.i8; break;
    case MK_TYPE_I16: MkBufferGetI16(buf, &v.i16); bits = v.i16; break;
    case MK_TYPE_I32: MkBufferGetI32(buf, &v.i32); bits = v.i32; break;
    case MK_TYPE_I64: MkBufferGetI64(buf, &v.i64); bits = v.i64; break;
    case MK_TYPE_BOL: MkBufferGetBOL(buf, &v.b); bits = v.b; break;
    case MK_TYPE_FLT: {
        uint32_t u;
        MkBufferGetFLT(buf, &v.f);
        memcpy(&u, &v.f, sizeof u);
        bits = u;
        break;
    }
    case MK_TYPE_DBL: MkBufferGetDBL(buf, &v.d); memcpy(&bits, &v.d, sizeof bits); break;
    case MK_TYPE_STR: {
        const char *str = NULL;
        MkBufferGetSTR(buf, &str);
        data = str;
        size = str ? strlen(str) : 0;
        break;
    }
    case MK_TYPE_BIN: MkBufferGetBIN(buf, &data, &size); break;
    default: return 0; /* not a value a buffer holds: the caller copies in C */
    }
    if (t == MK_TYPE_STR || t == MK_TYPE_BIN) {
        jbyteArray a = mqj_from_BIN(env, data, size);
        if (!a)
            return -1;
        (*env)->SetObjectField(env, o, mqj.dref, a);
        (*env)->DeleteLocalRef(env, a);
    } else if (bits) {
        (*env)->SetLongField(env, o, mqj.dval, bits);
    }
    (*env)->SetIntField(env, o, mqj.dtype, (jint)t + 1);
    return 1;
}

jobject
mqj_from_BUF(JNIEnv *env, MkBufferC *buf)
{
    jobject o;
    int rc;

    if (!buf)
        return mqj_new(env, mqj.buf_kind, NULL, 1);
    if (!(o = (*env)->AllocObject(env, mqj.buf)))
        return NULL;
    if ((rc = value_to_java(env, o, buf)) > 0)
        return o;
    (*env)->DeleteLocalRef(env, o);
    return rc < 0 ? NULL : mqj_new(env, mqj.buf_kind, MkBufferDup(buf), 1);
}

/* Store the Java-side value of o (dtype != 0) into the C buffer b. */
static int
value_from_java(JNIEnv *env, jobject o, jint dtype, MkBufferC *b)
{
    MkTypeE t = (MkTypeE)(dtype - 1);
    jlong bits = 0;
    MkErrorE rc = MK_OK;

    if (t != MK_TYPE_STR && t != MK_TYPE_BIN)
        bits = (*env)->GetLongField(env, o, mqj.dval);
    switch (t) {
    case MK_TYPE_I8: MkBufferSetI8(b, (MK_I8)bits); break;
    case MK_TYPE_I16: MkBufferSetI16(b, (MK_I16)bits); break;
    case MK_TYPE_I32: MkBufferSetI32(b, (MK_I32)bits); break;
    case MK_TYPE_I64: MkBufferSetI64(b, (MK_I64)bits); break;
    case MK_TYPE_BOL: MkBufferSetBOL(b, bits != 0); break;
    case MK_TYPE_FLT: {
        uint32_t u = (uint32_t)bits;
        MK_FLT f;
        memcpy(&f, &u, sizeof f);
        MkBufferSetFLT(b, f);
        break;
    }
    case MK_TYPE_DBL: {
        MK_DBL d;
        memcpy(&d, &bits, sizeof d);
        MkBufferSetDBL(b, d);
        break;
    }
    case MK_TYPE_STR:
    case MK_TYPE_BIN: {
        jbyteArray a = (*env)->GetObjectField(env, o, mqj.dref);
        mqj_bin bin;
        int ok = mqj_to_BIN(env, a, &bin, "MkBufferC");
        (*env)->DeleteLocalRef(env, a);
        if (!ok)
            return 0;
        if (t == MK_TYPE_BIN) {
            rc = MkBufferSetBIN(b, bin.p, bin.n);
        } else {
            char *s = malloc(bin.n + 1);
            if (s) {
                memcpy(s, bin.p, bin.n);
                s[bin.n] = 0;
                rc = MkBufferSetSTR(b, s);
                free(s);
            } else {
                rc = MK_ERROR;
            }
        }
        mqj_bin_release(&bin);
        break;
    }
    default: MkBufferReset(b); break;
    }
    if (rc != MK_OK) {
        mqj_raise_kernel(env);
        return 0;
    }
    return 1;
}

/* The thread's scratch buffer, lent for one call (a pool thread frees it as
 * it ends, see callback.c). */
static __thread MkBufferC *scratch;

void
mqj_scratch_free(void)
{
    MkBufferDelete(scratch);
    scratch = NULL;
}

int
mqj_buf_value(JNIEnv *env, jobject o, MkBufferC **b, const char *fn)
{
    jint dtype = o ? (*env)->GetIntField(env, o, mqj.dtype) : 0;

    if (!dtype)
        return (*b = mqj_deleted(env, o, fn)) != NULL;
    if (!scratch && !(scratch = MkBufferCreate()))
        return mqj_throw(env, MK_ERR_MEMORY, "%s: out of memory", fn);
    *b = scratch;
    return value_from_java(env, o, dtype, scratch);
}

/* A method other than SendBUF/WriteBUF/AppendBUF on a buffer that holds its
 * value in Java: make its C object now, owned by the Java object. */
static void *
materialize(JNIEnv *env, jobject o, jint dtype)
{
    MkBufferC *b = MkBufferCreate();
    if (!b) {
        mqj_throw(env, MK_ERR_MEMORY, "out of memory");
        return NULL;
    }
    if (!value_from_java(env, o, dtype, b)) {
        MkBufferDelete(b);
        return NULL;
    }
    (*env)->CallVoidMethod(env, o, mqj.adopt, (jlong)(intptr_t)b, (jint)mqj.buf_kind);
    if ((*env)->ExceptionCheck(env)) {
        MkBufferDelete(b);
        return NULL;
    }
    return b;
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
        !(mqj.dtype = (*env)->GetFieldID(env, obj, "dtype", "I")) ||
        !(mqj.dval = (*env)->GetFieldID(env, obj, "dval", "J")) ||
        !(mqj.dref = (*env)->GetFieldID(env, obj, "dref", "[B")) ||
        !(mqj.adopt = (*env)->GetMethodID(env, obj, "adopt", "(JI)V")) ||
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
            mqj.buf_kind = i;
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
