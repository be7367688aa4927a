/* convert.c — values between Java and C: strings (real UTF-8 both ways),
 * bytes, argument vectors, and the buffers a read returns, whose value is
 * held in Java fields instead of a C copy.
 *
 * Strings: JNI's own UTF functions speak *modified* UTF-8 (NUL as C0 80, a
 * character outside the BMP as two 3-byte surrogates), which is not the
 * UTF-8 on the wire.  Text goes in through GetStringUTFRegion when that is
 * already real UTF-8 (no NUL, no surrogate: the common case, one call) and
 * through UTF-16 otherwise; text comes out through NewStringUTF when it is
 * ASCII and through UTF-16 (NewString) otherwise. */
#include <stdio.h>
#include <stdlib.h>

#include "runtime.h"

/* ------------------------------------------------ buffers held in Java */

/* A read buffer's value goes into the fields (dtype, dval, dref) of an
 * MkBufferC the Java side made with `new`, instead of a C copy, a
 * constructor call and a Cleaner registration (measured: about 2 us per
 * ReadBUF, mostly the GC's reference processing, against a round trip of
 * 30 us), and instead of a JNI AllocObject (the slow allocation path: 5 % of
 * the perfserver's BUST server time, measured).  The type and a value of at
 * most 32 bits come back as the native's result (fill_code), which the Java
 * side stores itself (MkObjectC.fill).  A STR or BIN comes back as its
 * length: the Java side allocates the array (a TLAB `new`, where a JNI
 * NewByteArray takes the slow path) and takes the bytes with
 * MkObjectC.take; a 64-bit value the Java side takes with
 * MkObjectC.takeBits.  Both read the thread's pending value below, which
 * points into the buffer the native just read: nothing else runs on the
 * thread in between, and the buffer lives until the next read.  (BUS: 16 ->
 * 10 JNI calls per message, measured; a JNI field store was one call each.) */
static __thread struct {
    const void *data;
    size_t size;
    jlong bits;
} pending __attribute__((tls_model("initial-exec")));

static jlong
fill_code(MkTypeE t, uint32_t low)
{
    return (jlong)((uint64_t)(t + 1) << 32 | low);
}

/* The result code of value_to_java (MkObjectC.fill decodes it); 0: not a
 * value (copied in C), -1: an exception. */
static jlong
value_to_java(JNIEnv *env, MkBufferC *buf)
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
        if (size > INT32_MAX) {
            mqj_throw(env, MK_ERR_MEMORY, "ReadBUF: %zu bytes do not fit a Java array", size);
            return -1;
        }
        pending.data = data;
        pending.size = size;
        return fill_code(t, (uint32_t)size); /* MkObjectC.fill allocates, take copies */
    }
    if (t == MK_TYPE_I64 || t == MK_TYPE_DBL) {
        pending.bits = bits;
        return fill_code(t, bits != 0); /* 1: MkObjectC.fill calls takeBits */
    }
    return fill_code(t, (uint32_t)bits); /* the low 32 bits: MkObjectC.fill extends them */
}

/* The Java buffer o takes b as its own C object (freed with it); on an
 * exception b is freed here and 0 returned. */
static int
adopt(JNIEnv *env, jobject o, MkBufferC *b)
{
    (*env)->CallVoidMethod(env, o, mqj.adopt, (jlong)(intptr_t)b, (jint)mqj.buf_kind);
    if ((*env)->ExceptionCheck(env)) {
        MkBufferDelete(b);
        return 0;
    }
    return 1;
}

jlong
mqj_fill_BUF(JNIEnv *env, MkBufferC *buf)
{
    jlong rc;

    if (!buf)
        return mqj_handle(env, NULL);
    if ((rc = value_to_java(env, buf)) != 0)
        return rc > 0 ? rc : 0;
    if (!(pending.bits = mqj_handle(env, MkBufferDup(buf)))) /* not a value: a C copy */
        return 0;
    return MQJ_FILL_ADOPT;
}

/* MkObjectC.take(dst): the pending STR/BIN bytes into the array the Java
 * side made for them (their length, from fill_code). */
void JNICALL
mqj_take(JNIEnv *env, jclass cls, jbyteArray dst)
{
    (*env)->SetByteArrayRegion(env, dst, 0, (jsize)pending.size, pending.data);
    pending.data = NULL;
}

/* MkObjectC.takeBits(): the pending 64-bit value. */
jlong JNICALL
mqj_take_bits(JNIEnv *env, jclass cls)
{
    return pending.bits;
}

jlong
mqj_view(JNIEnv *env, MqContextC *ctx, MkBufferC *buf)
{
    mqj_ctx *c = MqContextGetUserData(ctx);

    if (!c) /* a context without its Java object: no view to end later */
        return mqj_throw(env, MQ_ERR_LINK, "ReadBUFR: the context was deleted");
    c->shown = buf;
    return (jlong)(intptr_t)c | 1; /* malloc'd: the low bit is free */
}

jboolean JNICALL
mqj_view_shows(JNIEnv *env, jclass cls, jlong hdl)
{
    return hdl && mqj_resolve(hdl) ? JNI_TRUE : JNI_FALSE;
}

/* MkObjectC.viewInit(ctx, v): the context's view, made by the Java side. */
void JNICALL
mqj_view_init(JNIEnv *env, jclass cls, jlong ctx, jobject v)
{
    mqj_ctx *c = ctx ? MqContextGetUserData((MqContextC *)(intptr_t)ctx) : NULL;

    if (!c) {
        mqj_throw(env, MQ_ERR_LINK, "ReadBUFR: the context was deleted");
        return;
    }
    if (c->view)
        (*env)->DeleteGlobalRef(env, c->view);
    if (!(c->view = (*env)->NewGlobalRef(env, v)))
        mqj_throw(env, MK_ERR_MEMORY, "ReadBUFR: out of memory");
}

/* The n bytes of a STR/BIN held in Java (n: its dval, set by MkObjectC.fill,
 * so no JNI GetArrayLength), NUL-terminated for a STR, in b->small when they
 * fit. */
static int
held_bytes(JNIEnv *env, jbyteArray a, jlong n, mqj_bin *b)
{
    b->p = b->small;
    b->n = (size_t)n;
    if (b->n + 1 > sizeof b->small && !(b->p = malloc(b->n + 1))) {
        b->p = b->small;
        return mqj_throw(env, MK_ERR_MEMORY, "MkBufferC: out of memory");
    }
    (*env)->GetByteArrayRegion(env, a, 0, (jsize)n, b->p);
    ((char *)b->p)[n] = 0;
    return 1;
}

/* Store a Java-side value (dtype > 0, the bits dval, the bytes ref) into
 * the C buffer b. */
static int
value_from_java(JNIEnv *env, jint dtype, jlong bits, jbyteArray ref, MkBufferC *b)
{
    MkTypeE t = (MkTypeE)(dtype - 1); /* bits: a STR/BIN's length */
    MkErrorE rc = MK_OK;

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
        mqj_bin bin;
        if (!held_bytes(env, ref, bits, &bin))
            return 0;
        rc = t == MK_TYPE_BIN ? MkBufferSetBIN(b, bin.p, bin.n) : MkBufferSetSTR(b, bin.p);
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
 * it ends, see callback.c).  initial-exec, as mqj_tl_env and pending: a plain
 * load instead of a __tls_get_addr call per SendBUF of a held value. */
static __thread MkBufferC *scratch __attribute__((tls_model("initial-exec")));

void
mqj_scratch_free(void)
{
    MkBufferDelete(scratch);
    scratch = NULL;
}

int
mqj_buf_value(JNIEnv *env, jint dtype, jlong dval, jbyteArray ref, MkBufferC **b,
              const char *fn)
{
    if (!scratch && !(scratch = MkBufferCreate()))
        return mqj_throw(env, MK_ERR_MEMORY, "%s: out of memory", fn);
    *b = scratch;
    return value_from_java(env, dtype, dval, ref, scratch);
}

/* A method other than SendBUF/WriteBUF/AppendBUF on a buffer that holds its
 * value in Java: make its C object now, owned by the Java object. */
void *
mqj_buf_materialize(JNIEnv *env, jobject o, jint dtype)
{
    MkBufferC *b = MkBufferCreate();
    jbyteArray ref;
    int ok;
    if (!b) {
        mqj_throw(env, MK_ERR_MEMORY, "out of memory");
        return NULL;
    }
    ref = (*env)->GetObjectField(env, o, mqj.dref);
    ok = value_from_java(env, dtype, (*env)->GetLongField(env, o, mqj.dval), ref, b);
    (*env)->DeleteLocalRef(env, ref);
    if (!ok) {
        MkBufferDelete(b);
        return NULL;
    }
    return adopt(env, o, b) ? b : NULL;
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
    return mqj_to_STRn(env, j, j ? (*env)->GetStringLength(env, j) : 0, s, fn);
}

int
mqj_to_STRn(JNIEnv *env, jstring j, jint n, mqj_str *s, const char *fn)
{
    size_t max;
    jchar *u;

    s->s = s->small;
    if (!j)
        return mqj_throw(env, MK_ERR_ARGUMENT, "%s: null string", fn);
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

int
mqj_to_TOKEN(JNIEnv *env, jint word, jstring j, char t[5], mqj_str *s, const char *fn)
{
    mqj_token_text(word, t);
    if (word) {
        s->s = s->small;
        return 1;
    }
    return mqj_to_STR(env, j, s, fn);
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
