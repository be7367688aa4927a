/* convert.c — Ruby values to C arguments and back.  Integers are
 * range-checked against the mqlink type: 300 for an I8 is a RangeError
 * naming the call and the value, never a silent wrap; the whole I64 range
 * is exact (Bignums included). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "runtime.h"

static rb_encoding *utf8;
int mqrb_utf8_index, mqrb_ascii_index;
static void listener(mqrb_argv *a, const char *fn);
static VALUE argv0; /* $PROGRAM_NAME as the C argv[0], frozen */

void
mqrb_convert_init(void)
{
    utf8 = rb_utf8_encoding();
    mqrb_utf8_index = rb_utf8_encindex();
    mqrb_ascii_index = rb_usascii_encindex();
}

void
mqrb_range_error(VALUE v, const char *fn, const char *type)
{
    rb_raise(rb_eRangeError, "%s: %" PRIsVALUE " out of range for %s", fn, rb_inspect(v), type);
}

long long
mqrb_to_int_slow(VALUE v, long long lo, long long hi, const char *fn, const char *type)
{
    long long x;
    if (RB_FIXNUM_P(v)) {
        x = RB_FIX2LONG(v);
    } else if (RB_TYPE_P(v, T_BIGNUM)) {
        /* the magnitude and the sign (2: more than 64 bits); exact for
         * the whole I64 range, INT64_MIN included */
        unsigned long long m;
        int sign = rb_integer_pack(v, &m, 1, sizeof m, 0,
                                   INTEGER_PACK_LSWORD_FIRST | INTEGER_PACK_NATIVE_BYTE_ORDER);
        if (sign == 2 || sign == -2 || (sign > 0 && m > (unsigned long long)INT64_MAX) ||
            (sign < 0 && m > (unsigned long long)INT64_MAX + 1))
            mqrb_range_error(v, fn, type);
        x = sign < 0 ? (long long)(0 - m) : (long long)m;
    } else {
        rb_raise(rb_eTypeError, "%s: expected Integer for %s, got %" PRIsVALUE, fn, type,
                 rb_obj_class(v));
    }
    if (x < lo || x > hi)
        mqrb_range_error(v, fn, type);
    return x;
}

double
mqrb_to_double(VALUE v, const char *fn)
{
    if (RB_INTEGER_TYPE_P(v) || rb_obj_is_kind_of(v, rb_cNumeric))
        return NUM2DBL(v);
    rb_raise(rb_eTypeError, "%s: expected Float, got %" PRIsVALUE, fn, rb_obj_class(v));
}

MK_FLT
mqrb_to_FLT(VALUE v, const char *fn)
{
    double d = mqrb_to_DBL(v, fn);
    if (isfinite(d) && fabs(d) > FLT_MAX)
        mqrb_range_error(v, fn, "FLT");
    return (MK_FLT)d;
}

MqWaitE
mqrb_to_WAIT(VALUE v, const char *fn)
{
    return (MqWaitE)mqrb_to_int_slow(v, MQ_WAIT_NO, MQ_WAIT_FOREVER, fn, "MqWaitE");
}

MkTypeE
mqrb_to_TYPE(VALUE v, const char *fn)
{
    return (MkTypeE)mqrb_to_int_slow(v, MK_TYPE_NONE, MK_TYPE_LST_END, fn, "MkTypeE");
}

static void
not_string(VALUE v, const char *fn)
{
    rb_raise(rb_eTypeError, "%s: expected String, got %" PRIsVALUE, fn, rb_obj_class(v));
}

const char *
mqrb_to_STR(VALUE v, volatile VALUE *keep, const char *fn)
{
    rb_encoding *e;
    if (!RB_TYPE_P(v, T_STRING))
        not_string(v, fn);
    /* UTF-8 (a literal in a UTF-8 source) is read off the flags, without
     * rb_enc_get's calls */
    if (RB_ENCODING_GET_INLINED(v) != mqrb_utf8_index) {
        e = rb_enc_get(v);
        if (e != utf8 && !(rb_enc_asciicompat(e) && rb_enc_str_asciionly_p(v)))
            v = rb_str_export_to_enc(v, utf8); /* raises when it cannot */
    }
    *keep = v;
    if (memchr(RSTRING_PTR(v), 0, (size_t)RSTRING_LEN(v)))
        rb_raise(rb_eArgError, "%s: string contains a NUL character", fn);
    return RSTRING_PTR(v); /* Ruby strings are NUL-terminated */
}

const char *
mqrb_to_TOKEN_slow(VALUE v, volatile VALUE *keep, const char *fn)
{
    const char *s = mqrb_to_STR(v, keep, fn);
    if (strlen(s) != 4)
        rb_raise(rb_eArgError, "%s: token %" PRIsVALUE " is not 4 characters", fn, rb_inspect(v));
    return s;
}

const void *
mqrb_to_BIN(VALUE v, size_t *size, const char *fn)
{
    if (!RB_TYPE_P(v, T_STRING))
        not_string(v, fn);
    *size = (size_t)RSTRING_LEN(v);
    return RSTRING_PTR(v);
}

/* Whether v is of type: the exact type inline (the common case), a
 * subclass's through Ruby. */
static int
is_a(VALUE v, const rb_data_type_t *type)
{
    return (!RB_SPECIAL_CONST_P(v) && RB_BUILTIN_TYPE(v) == RUBY_T_DATA && RTYPEDDATA_P(v) &&
            RTYPEDDATA_TYPE(v) == type) ||
           rb_typeddata_is_kind_of(v, type);
}

MkBufferC *
mqrb_to_BUF_slow(VALUE v, const char *fn)
{
    if (!is_a(v, &mqrb_MkBufferC_type))
        rb_raise(rb_eTypeError, "%s: expected MkBufferC, got %" PRIsVALUE, fn, rb_obj_class(v));
    return mqrb_plain_get(v, &mqrb_MkBufferC_type, fn);
}

MqContextC *
mqrb_to_CTX_slow(VALUE v, const char *fn)
{
    if (!is_a(v, &mqrb_ctx_type))
        rb_raise(rb_eTypeError, "%s: expected MqContextC, got %" PRIsVALUE, fn, rb_obj_class(v));
    return mqrb_ctx_get(v, fn);
}

void
mqrb_to_ARGV(VALUE v, mqrb_argv *a, volatile VALUE *keep, const char *fn)
{
    VALUE ary = rb_check_array_type(v), strs;
    long n, i, bytes;
    char *p;

    if (NIL_P(ary))
        rb_raise(rb_eTypeError, "%s: expected Array of String, got %" PRIsVALUE, fn,
                 rb_obj_class(v));
    n = RARRAY_LEN(ary);
    if (!argv0)
        rb_gc_register_mark_object(argv0 = rb_str_new_frozen(rb_gv_get("$PROGRAM_NAME")));
    /* Check and convert every string first, then copy them all into one
     * buffer the GC frees (a tmpbuf): the C call may run without the GVL
     * while another thread changes the caller's strings, and nothing leaks
     * when a conversion raises. */
    strs = rb_ary_new_capa(n + 1);
    rb_ary_push(strs, argv0);
    bytes = (long)((n + 2) * sizeof(char *)) + RSTRING_LEN(argv0) + 1;
    for (i = 0; i < n; i++) {
        volatile VALUE k;
        mqrb_to_STR(RARRAY_AREF(ary, i), &k, fn);
        rb_ary_push(strs, k);
        bytes += RSTRING_LEN(k) + 1;
    }
    a->argv = rb_alloc_tmp_buffer(keep, bytes);
    p = (char *)(a->argv + n + 2);
    for (i = 0; i <= n; i++) {
        VALUE s = RARRAY_AREF(strs, i);
        memcpy(p, RSTRING_PTR(s), (size_t)RSTRING_LEN(s) + 1);
        a->argv[i] = p;
        p += RSTRING_LEN(s) + 1;
    }
    a->argv[n + 1] = NULL;
    a->argc = (int)(n + 1);
    RB_GC_GUARD(strs);
    listener(a, fn);
}

/* See runtime.h: the start mode of a listener, before any "@". */
static void
listener(mqrb_argv *a, const char *fn)
{
    a->listener = 0;
    for (int i = 1; i < a->argc && strcmp(a->argv[i], "@"); i++) {
        if (!strcmp(a->argv[i], "--thread"))
            rb_exc_raise(rb_class_new_instance(
                2, (VALUE[]){rb_sprintf("%s: --thread is not available in Ruby (the library's "
                                        "threads cannot run Ruby code): use --fork or --spawn",
                                        fn),
                             INT2FIX(MQ_ERR_OPTION)},
                mqrb_eMkExceptionC));
        if (!strcmp(a->argv[i], "--fork") || !strcmp(a->argv[i], "--spawn"))
            a->listener = 1;
    }
    if (a->listener) {
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigemptyset(&dfl.sa_mask);
        sigaction(SIGTERM, &dfl, &a->term);
        sigaction(SIGINT, &dfl, &a->intr);
    }
}

void
mqrb_argv_done(mqrb_argv *a)
{
    if (a->listener) {
        sigaction(SIGTERM, &a->term, NULL);
        sigaction(SIGINT, &a->intr, NULL);
        a->listener = 0;
    }
}

/* ----------------------------------------------------------------- results */

VALUE
mqrb_from_CTX(MqContextC *ctx)
{
    void *v = ctx ? MqContextGetUserData(ctx) : NULL;
    return v ? (VALUE)v : Qnil;
}

/* ---------------------------------------------------------------- arguments */

void
mqrb_args_slow(int argc, const VALUE *argv, int nreq, int nmax, int cb, VALUE *out)
{
    int blk, j = 0;
    blk = cb >= 0 && rb_block_given_p();
    rb_check_arity(argc, nreq - blk, nmax - blk);
    for (int i = 0; i < nmax; i++) {
        if (blk && i == cb)
            out[i] = rb_block_proc();
        else
            out[i] = j < argc ? argv[j++] : Qundef;
    }
}
