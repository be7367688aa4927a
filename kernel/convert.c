/* convert.c — the checked conversions between item types, shared by
 * MkBufferGet* and the stream reads.  A value converts only when the target
 * type represents it exactly (integers) or as closely as the type allows
 * (FLT/DBL); otherwise the call fails with a text naming the value and both
 * types, e.g.  cannot read STR "300" as I8: out of range.
 * MK_ERR_TYPE: the types never convert (BIN as STR) or the text is not a
 * number; MK_ERR_RANGE: this value does not fit (300 as I8, 2.5 as I32). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "mk_internal.h"

/* Longest STR shown in an error text. */
#define SHOW_MAX 32

static int
is_int_type(MkTypeE t)
{
    return t == MK_TYPE_I8 || t == MK_TYPE_I16 || t == MK_TYPE_I32 || t == MK_TYPE_I64
           || t == MK_TYPE_BOL;
}

/* An integer or BOL value widened to I64. */
static MK_I64
int_value(const MkBufferC *b)
{
    switch (b->type) {
    case MK_TYPE_I8:
        return b->v.i8;
    case MK_TYPE_I16:
        return b->v.i16;
    case MK_TYPE_I32:
        return b->v.i32;
    case MK_TYPE_I64:
        return b->v.i64;
    default:
        return b->v.bol ? 1 : 0;
    }
}

/* "I32 300", "STR \"abc\"", "BIN": the source as an error text shows it. */
static void
describe(const MkBufferC *b, char *out, size_t n)
{
    const char *name = MkTypeName(b->type);
    if (b->type == MK_TYPE_BOL)
        snprintf(out, n, "BOL %s", b->v.bol ? "true" : "false");
    else if (is_int_type(b->type))
        snprintf(out, n, "%s %" PRId64, name, int_value(b));
    else if (b->type == MK_TYPE_FLT)
        snprintf(out, n, "FLT %.9g", (double)b->v.flt);
    else if (b->type == MK_TYPE_DBL)
        snprintf(out, n, "DBL %.17g", b->v.dbl);
    else if (b->type == MK_TYPE_STR)
        snprintf(out, n, "STR \"%.*s%s\"", SHOW_MAX, b->data,
                 b->size > SHOW_MAX ? "..." : "");
    else
        snprintf(out, n, "%s", name);
}

static MkErrorE
fail(MkErrorC *err, MK_I32 code, const MkBufferC *b, MkTypeE want, const char *why)
{
    char what[SHOW_MAX + 32];
    describe(b, what, sizeof what);
    if (why == NULL)
        return MkErrorSet(err, code, "cannot read %s as %s", what, MkTypeName(want));
    return MkErrorSet(err, code, "cannot read %s as %s: %s", what, MkTypeName(want), why);
}

/* --------------------------------------------------------------- integers */

static MkErrorE
check_range(const MkBufferC *b, MK_I64 v, MkTypeE want, MK_I64 *out, MkErrorC *err)
{
    static const MK_I64 lo[] = { 0, INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN };
    static const MK_I64 hi[] = { 0, INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX };
    if (want < MK_TYPE_I8 || want > MK_TYPE_I64)
        return fail(err, MK_ERR_ARGUMENT, b, want, "not an integer type");
    if (v < lo[want] || v > hi[want])
        return fail(err, MK_ERR_RANGE, b, want, "out of range");
    *out = v;
    return MK_OK;
}

/* Only a finite, integral value converts: 3.0 is 3, 2.5 is no integer. */
static MkErrorE
int_from_double(const MkBufferC *b, double d, MkTypeE want, MK_I64 *out, MkErrorC *err)
{
    if (!isfinite(d))
        return fail(err, MK_ERR_RANGE, b, want, "not a finite number");
    if (d != trunc(d))
        return fail(err, MK_ERR_RANGE, b, want, "not an integer");
    /* -2^63 is exact as a double; 2^63 is the first value past INT64_MAX. */
    if (d < -9223372036854775808.0 || d >= 9223372036854775808.0)
        return fail(err, MK_ERR_RANGE, b, want, "out of range");
    return check_range(b, (MK_I64)d, want, out, err);
}

/* The whole text must be one decimal integer: no blanks, no trailing junk. */
static MkErrorE
int_from_text(const MkBufferC *b, MkTypeE want, MK_I64 *out, MkErrorC *err)
{
    const char *s = b->data;
    char *end;
    if (b->size == 0 || isspace((unsigned char)s[0]))
        return fail(err, MK_ERR_TYPE, b, want, "not an integer");
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end != s + b->size)
        return fail(err, MK_ERR_TYPE, b, want, "not an integer");
    if (errno == ERANGE)
        return fail(err, MK_ERR_RANGE, b, want, "out of range");
    return check_range(b, v, want, out, err);
}

MkErrorE
mki_conv_int(const MkBufferC *b, MkTypeE want, MK_I64 *out, MkErrorC *err)
{
    if (is_int_type(b->type))
        return check_range(b, int_value(b), want, out, err);
    switch (b->type) {
    case MK_TYPE_FLT:
        return int_from_double(b, b->v.flt, want, out, err);
    case MK_TYPE_DBL:
        return int_from_double(b, b->v.dbl, want, out, err);
    case MK_TYPE_STR:
        return int_from_text(b, want, out, err);
    default:
        return fail(err, MK_ERR_TYPE, b, want, NULL);
    }
}

/* ----------------------------------------------------------------- floats */

static MkErrorE
double_from_text(const MkBufferC *b, MkTypeE want, double *out, MkErrorC *err)
{
    const char *s = b->data;
    char *end;
    if (b->size == 0 || isspace((unsigned char)s[0]))
        return fail(err, MK_ERR_TYPE, b, want, "not a number");
    errno = 0;
    double d = strtod(s, &end);
    if (end != s + b->size)
        return fail(err, MK_ERR_TYPE, b, want, "not a number");
    /* ERANGE also flags underflow, which still gives a usable tiny value. */
    if (errno == ERANGE && isinf(d))
        return fail(err, MK_ERR_RANGE, b, want, "out of range");
    *out = d;
    return MK_OK;
}

static MkErrorE
to_double(const MkBufferC *b, MkTypeE want, double *out, MkErrorC *err)
{
    if (is_int_type(b->type)) {
        *out = (double)int_value(b);
        return MK_OK;
    }
    switch (b->type) {
    case MK_TYPE_FLT:
        *out = b->v.flt;
        return MK_OK;
    case MK_TYPE_DBL:
        *out = b->v.dbl;
        return MK_OK;
    case MK_TYPE_STR:
        return double_from_text(b, want, out, err);
    default:
        return fail(err, MK_ERR_TYPE, b, want, NULL);
    }
}

MkErrorE
mki_conv_dbl(const MkBufferC *b, MK_DBL *out, MkErrorC *err)
{
    return to_double(b, MK_TYPE_DBL, out, err);
}

/* NaN and the infinities pass; a finite value past FLT_MAX does not, since
 * turning it into an infinity would invent a value the sender never had. */
MkErrorE
mki_conv_flt(const MkBufferC *b, MK_FLT *out, MkErrorC *err)
{
    double d;
    if (b->type == MK_TYPE_FLT) {
        *out = b->v.flt;
        return MK_OK;
    }
    if (to_double(b, MK_TYPE_FLT, &d, err) != MK_OK)
        return MK_ERROR;
    if (isfinite(d) && fabs(d) > FLT_MAX)
        return fail(err, MK_ERR_RANGE, b, MK_TYPE_FLT, "out of range");
    *out = (MK_FLT)d;
    return MK_OK;
}

/* ---------------------------------------------------------------- boolean */

static MkErrorE
bool_from_text(const MkBufferC *b, MK_BOL *out, MkErrorC *err)
{
    static const char *const yes[] = { "true", "yes", "on", "1" };
    static const char *const no[] = { "false", "no", "off", "0" };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(b->data, yes[i]) == 0) {
            *out = true;
            return MK_OK;
        }
        if (strcasecmp(b->data, no[i]) == 0) {
            *out = false;
            return MK_OK;
        }
    }
    return fail(err, MK_ERR_TYPE, b, MK_TYPE_BOL, "not a boolean");
}

/* Integers are true when nonzero; FLT/DBL are not booleans (is 0.1 true?). */
MkErrorE
mki_conv_bol(const MkBufferC *b, MK_BOL *out, MkErrorC *err)
{
    if (is_int_type(b->type)) {
        *out = int_value(b) != 0;
        return MK_OK;
    }
    if (b->type == MK_TYPE_STR)
        return bool_from_text(b, out, err);
    return fail(err, MK_ERR_TYPE, b, MK_TYPE_BOL, NULL);
}

/* ----------------------------------------------------------- text, bytes */

MkErrorE
mki_conv_str(const MkBufferC *b, char *text, const char **out, MkErrorC *err)
{
    const size_t n = sizeof(((MkBufferC *)0)->text);
    if (b->type == MK_TYPE_STR) {
        *out = b->data;
        return MK_OK;
    }
    if (b->type == MK_TYPE_BOL)
        snprintf(text, n, "%s", b->v.bol ? "true" : "false");
    else if (is_int_type(b->type))
        snprintf(text, n, "%" PRId64, int_value(b));
    else if (b->type == MK_TYPE_FLT)
        snprintf(text, n, "%.9g", (double)b->v.flt);
    else if (b->type == MK_TYPE_DBL)
        snprintf(text, n, "%.17g", b->v.dbl);
    else
        return fail(err, MK_ERR_TYPE, b, MK_TYPE_STR, NULL);
    *out = text;
    return MK_OK;
}

/* STR gives its bytes without the NUL; numbers have no canonical bytes. */
MkErrorE
mki_conv_bin(const MkBufferC *b, const void **data, size_t *size, MkErrorC *err)
{
    if (b->type != MK_TYPE_STR && b->type != MK_TYPE_BIN)
        return fail(err, MK_ERR_TYPE, b, MK_TYPE_BIN, NULL);
    *data = b->data;
    *size = b->size;
    return MK_OK;
}
