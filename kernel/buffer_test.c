/* buffer_test.c — MkBufferC storage and checked conversions, MkErrorC and
 * logging. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mk_internal.h"
#include "testlib.h"

#define ERRTEXT MkErrorGetText(MkErrorDEFAULT())
#define ERRCODE MkErrorGetCode(MkErrorDEFAULT())

static void
test_conversions_work(void)
{
    MkBufferC *b = MkBufferCreate();
    const char *s = NULL;
    MK_I8 i8 = 0;
    MK_I32 i32 = 0;
    MK_I64 i64 = 0;
    MK_DBL d = 0;
    MK_FLT f = 0;
    MK_BOL bol = false;
    const void *bin;
    size_t size;

    MkBufferSetI32(b, 42);
    MQT_OK(MkBufferGetSTR(b, &s), ERRTEXT);
    MQT_CHECK(s != NULL && strcmp(s, "42") == 0);
    MQT_OK(MkBufferSetSTR(b, "-5"), ERRTEXT);
    MQT_OK(MkBufferGetI8(b, &i8), ERRTEXT);
    MQT_CHECK(i8 == -5);
    MkBufferSetDBL(b, 3.0);
    MQT_OK(MkBufferGetI32(b, &i32), ERRTEXT);
    MQT_CHECK(i32 == 3);
    MQT_OK(MkBufferSetSTR(b, "2.5"), ERRTEXT);
    MQT_OK(MkBufferGetDBL(b, &d), ERRTEXT);
    MQT_CHECK(d == 2.5);
    MQT_OK(MkBufferGetFLT(b, &f), ERRTEXT);
    MQT_CHECK(f == 2.5f);
    MQT_OK(MkBufferSetSTR(b, "yes"), ERRTEXT);
    MQT_OK(MkBufferGetBOL(b, &bol), ERRTEXT);
    MQT_CHECK(bol == true);
    MQT_OK(MkBufferSetSTR(b, "OFF"), ERRTEXT);
    MQT_OK(MkBufferGetBOL(b, &bol), ERRTEXT);
    MQT_CHECK(bol == false);
    MQT_OK(MkBufferSetSTR(b, "-9223372036854775808"), ERRTEXT);
    MQT_OK(MkBufferGetI64(b, &i64), ERRTEXT);
    MQT_CHECK(i64 == INT64_MIN);
    MkBufferSetI64(b, 7);
    MQT_OK(MkBufferGetBOL(b, &bol), ERRTEXT);
    MQT_CHECK(bol == true);
    MkBufferSetBOL(b, true);
    MQT_OK(MkBufferGetI8(b, &i8), ERRTEXT);
    MQT_CHECK(i8 == 1);
    MQT_OK(MkBufferGetSTR(b, &s), ERRTEXT);
    MQT_CHECK(strcmp(s, "true") == 0);
    MkBufferSetDBL(b, 0.1);
    MQT_OK(MkBufferGetSTR(b, &s), ERRTEXT);
    MQT_CHECK_MSG(strtod(s, NULL) == 0.1, "%s does not read back as 0.1", s);
    MkBufferSetFLT(b, NAN);
    MQT_OK(MkBufferGetDBL(b, &d), ERRTEXT);
    MQT_CHECK(isnan(d));
    MkBufferSetDBL(b, -INFINITY);
    MQT_OK(MkBufferGetFLT(b, &f), ERRTEXT);
    MQT_CHECK(isinf(f) && f < 0);
    MQT_OK(MkBufferSetSTR(b, "text"), ERRTEXT);
    MQT_OK(MkBufferGetBIN(b, &bin, &size), ERRTEXT);
    MQT_CHECK(size == 4 && memcmp(bin, "text", 4) == 0);
    MkBufferDelete(b);
}

/* Each case sets a value, reads it as want, and must fail with code; the
 * text must name both types. */
typedef struct bad_case {
    const char *what;
    MkTypeE from;
    MK_I64 i;
    MK_DBL d;
    const char *s;
    MkTypeE want;
    MK_I32 code;
} bad_case;

static void
set_case(MkBufferC *b, const bad_case *c)
{
    switch (c->from) {
    case MK_TYPE_I32: MkBufferSetI32(b, (MK_I32)c->i); break;
    case MK_TYPE_I64: MkBufferSetI64(b, c->i); break;
    case MK_TYPE_DBL: MkBufferSetDBL(b, c->d); break;
    case MK_TYPE_STR: MkBufferSetSTR(b, c->s); break;
    case MK_TYPE_BIN: MkBufferSetBIN(b, c->s, strlen(c->s)); break;
    default: MkBufferReset(b); break;
    }
}

static MkErrorE
get_as(MkBufferC *b, MkTypeE want)
{
    union { MK_I8 i8; MK_I16 i16; MK_I32 i32; MK_I64 i64; MK_FLT f; MK_DBL d; MK_BOL b; } v;
    const char *s;
    const void *p;
    size_t n;
    switch (want) {
    case MK_TYPE_I8: return MkBufferGetI8(b, &v.i8);
    case MK_TYPE_I16: return MkBufferGetI16(b, &v.i16);
    case MK_TYPE_I32: return MkBufferGetI32(b, &v.i32);
    case MK_TYPE_I64: return MkBufferGetI64(b, &v.i64);
    case MK_TYPE_FLT: return MkBufferGetFLT(b, &v.f);
    case MK_TYPE_DBL: return MkBufferGetDBL(b, &v.d);
    case MK_TYPE_BOL: return MkBufferGetBOL(b, &v.b);
    case MK_TYPE_STR: return MkBufferGetSTR(b, &s);
    default: return MkBufferGetBIN(b, &p, &n);
    }
}

static void
test_conversions_fail(void)
{
    static const bad_case cases[] = {
        { "STR 300 as I8", MK_TYPE_STR, 0, 0, "300", MK_TYPE_I8, MK_ERR_RANGE },
        { "I32 300 as I8", MK_TYPE_I32, 300, 0, NULL, MK_TYPE_I8, MK_ERR_RANGE },
        { "I32 -40000 as I16", MK_TYPE_I32, -40000, 0, NULL, MK_TYPE_I16, MK_ERR_RANGE },
        { "I64 max as I32", MK_TYPE_I64, INT64_MAX, 0, NULL, MK_TYPE_I32, MK_ERR_RANGE },
        { "STR abc as I32", MK_TYPE_STR, 0, 0, "abc", MK_TYPE_I32, MK_ERR_TYPE },
        { "STR 12x as I32", MK_TYPE_STR, 0, 0, "12x", MK_TYPE_I32, MK_ERR_TYPE },
        { "STR empty as I32", MK_TYPE_STR, 0, 0, "", MK_TYPE_I32, MK_ERR_TYPE },
        { "STR blank 5 as I32", MK_TYPE_STR, 0, 0, " 5", MK_TYPE_I32, MK_ERR_TYPE },
        { "STR huge as I64", MK_TYPE_STR, 0, 0, "99999999999999999999", MK_TYPE_I64, MK_ERR_RANGE },
        { "DBL 2.5 as I32", MK_TYPE_DBL, 0, 2.5, NULL, MK_TYPE_I32, MK_ERR_RANGE },
        { "DBL NaN as I64", MK_TYPE_DBL, 0, NAN, NULL, MK_TYPE_I64, MK_ERR_RANGE },
        { "DBL 2^63 as I64", MK_TYPE_DBL, 0, 9223372036854775808.0, NULL, MK_TYPE_I64, MK_ERR_RANGE },
        { "DBL 1e300 as FLT", MK_TYPE_DBL, 0, 1e300, NULL, MK_TYPE_FLT, MK_ERR_RANGE },
        { "STR 1e39 as FLT", MK_TYPE_STR, 0, 0, "1e39", MK_TYPE_FLT, MK_ERR_RANGE },
        { "STR 1e999 as DBL", MK_TYPE_STR, 0, 0, "1e999", MK_TYPE_DBL, MK_ERR_RANGE },
        { "STR 1.5x as DBL", MK_TYPE_STR, 0, 0, "1.5x", MK_TYPE_DBL, MK_ERR_TYPE },
        { "STR maybe as BOL", MK_TYPE_STR, 0, 0, "maybe", MK_TYPE_BOL, MK_ERR_TYPE },
        { "DBL as BOL", MK_TYPE_DBL, 0, 1.0, NULL, MK_TYPE_BOL, MK_ERR_TYPE },
        { "BIN as STR", MK_TYPE_BIN, 0, 0, "abc", MK_TYPE_STR, MK_ERR_TYPE },
        { "BIN as I32", MK_TYPE_BIN, 0, 0, "12", MK_TYPE_I32, MK_ERR_TYPE },
        { "I32 as BIN", MK_TYPE_I32, 5, 0, NULL, MK_TYPE_BIN, MK_ERR_TYPE },
        { "NONE as I32", MK_TYPE_NONE, 0, 0, NULL, MK_TYPE_I32, MK_ERR_TYPE },
        { "NONE as STR", MK_TYPE_NONE, 0, 0, NULL, MK_TYPE_STR, MK_ERR_TYPE },
        { "NONE as BIN", MK_TYPE_NONE, 0, 0, NULL, MK_TYPE_BIN, MK_ERR_TYPE },
        { "NONE as DBL", MK_TYPE_NONE, 0, 0, NULL, MK_TYPE_DBL, MK_ERR_TYPE },
        { "NONE as BOL", MK_TYPE_NONE, 0, 0, NULL, MK_TYPE_BOL, MK_ERR_TYPE },
    };
    MkBufferC *b = MkBufferCreate();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_case *c = &cases[i];
        set_case(b, c);
        MkErrorReset(MkErrorDEFAULT());
        MQT_CHECK_MSG(get_as(b, c->want) == MK_ERROR, "%s: did not fail", c->what);
        MQT_CHECK_MSG(ERRCODE == c->code, "%s: code %d, expected %d (%s)", c->what, ERRCODE,
                      c->code, ERRTEXT);
        MQT_CHECK_MSG(strstr(ERRTEXT, MkTypeName(c->from)) != NULL
                          && strstr(ERRTEXT, MkTypeName(c->want)) != NULL,
                      "%s: text \"%s\" does not name both types", c->what, ERRTEXT);
    }
    MkBufferSetI32(b, 300);
    get_as(b, MK_TYPE_I8);
    MQT_CHECK_MSG(strcmp(ERRTEXT, "cannot read I32 300 as I8: out of range") == 0, "%s", ERRTEXT);
    MkBufferSetSTR(b, "300");
    get_as(b, MK_TYPE_I8);
    MQT_CHECK_MSG(strcmp(ERRTEXT, "cannot read STR \"300\" as I8: out of range") == 0, "%s",
                  ERRTEXT);
    MkBufferSetBIN(b, "x", 1);
    get_as(b, MK_TYPE_STR);
    MQT_CHECK_MSG(strcmp(ERRTEXT, "cannot read BIN as STR") == 0, "%s", ERRTEXT);
    MkBufferDelete(b);
}

static void
test_dup_copy(void)
{
    MkBufferC *a = MkBufferCreate();
    MkBufferC *c = MkBufferCreate();
    char big[100];
    memset(big, 'q', sizeof big - 1);
    big[99] = '\0';
    MQT_OK(MkBufferSetSTR(a, big), ERRTEXT);
    MkBufferC *d = MkBufferDup(a);
    MQT_OK(MkBufferCopy(c, a), ERRTEXT);
    MQT_OK(MkBufferSetSTR(a, "changed"), ERRTEXT);
    MQT_CHECK(MkBufferGetType(d) == MK_TYPE_STR && strcmp(d->data, big) == 0);
    MQT_CHECK(strcmp(c->data, big) == 0 && c->data != a->data && d->data != c->data);
    MQT_OK(MkBufferSetSTR(c, "small"), ERRTEXT);
    MkBufferC *e = MkBufferDup(c);
    MQT_CHECK(e->data == e->text && strcmp(e->data, "small") == 0);
    MkBufferSetI16(c, -3);
    MQT_OK(MkBufferCopy(e, c), ERRTEXT);
    MQT_CHECK(MkBufferGetType(e) == MK_TYPE_I16 && e->v.i16 == -3);
    MQT_OK(MkBufferCopy(e, e), ERRTEXT);
    MQT_CHECK(e->v.i16 == -3);
    MkBufferReset(e);
    MQT_CHECK(MkBufferGetType(e) == MK_TYPE_NONE);
    /* A borrowed value becomes an owned copy. */
    char ext[] = "external";
    mki_buffer_borrow(c, MK_TYPE_STR, ext, 8);
    MQT_OK(MkBufferCopy(e, c), ERRTEXT);
    ext[0] = 'X';
    MQT_CHECK(strcmp(e->data, "external") == 0);
    MkBufferDelete(a);
    MkBufferDelete(c);
    MkBufferDelete(d);
    MkBufferDelete(e);
}

static void
test_storage_sizes(void)
{
    static const size_t sizes[] = { 0, 39, 40, 41, 1024 * 1024 };
    MkBufferC *b = MkBufferCreate();
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char *p = malloc(n + 1);
        for (size_t j = 0; j < n; j++)
            p[j] = (unsigned char)(j % 251 + 1);
        p[n] = '\0';
        for (int bin = 0; bin < 2; bin++) {
            if (bin)
                MQT_OK(MkBufferSetBIN(b, p, n), ERRTEXT);
            else
                MQT_OK(MkBufferSetSTR(b, (char *)p), ERRTEXT);
            const void *data = NULL;
            size_t size = 0;
            MQT_OK(MkBufferGetBIN(b, &data, &size), ERRTEXT);
            MQT_CHECK_MSG(size == n && memcmp(data, p, n) == 0, "%zu bytes differ", n);
            int inl = b->data == b->text;
            MQT_CHECK_MSG(inl == (n < sizeof b->text), "%zu bytes stored %s", n,
                          inl ? "inline" : "on the heap");
        }
        free(p);
    }
    MQT_CHECK(MkBufferSetBIN(b, NULL, 3) == MK_ERROR && ERRCODE == MK_ERR_ARGUMENT);
    MkBufferDelete(b);
}

static void
test_type_names(void)
{
    static const char *const names[] = { "NONE", "I8", "I16", "I32", "I64", "FLT", "DBL",
                                         "BOL", "STR", "BIN", "LST", "LST_END" };
    for (int t = 0; t <= MK_TYPE_LST_END; t++)
        MQT_CHECK(strcmp(MkTypeName((MkTypeE)t), names[t]) == 0);
    MQT_CHECK(MkTypeName((MkTypeE)99) != NULL);
}

/* ------------------------------------------------------------------ errors */

static void
test_error_object(void)
{
    MkErrorC *e = MkErrorCreate();
    MkErrorC *f = MkErrorCreate();
    MQT_CHECK(!MkErrorIsSet(e) && MkErrorGetCode(e) == 0);
    MQT_CHECK(MkErrorGetText(e) != NULL && MkErrorGetText(e)[0] == '\0');
    MQT_CHECK(MkErrorSet(e, MK_ERR_USER + 1, "bad %s %d", "thing", 7) == MK_ERROR);
    MQT_CHECK(MkErrorIsSet(e) && MkErrorGetCode(e) == MK_ERR_USER + 1);
    MQT_CHECK(strcmp(MkErrorGetText(e), "bad thing 7") == 0);
    MkErrorStack(e, "while reading %s", "ECUL");
    MQT_CHECK(strcmp(MkErrorGetText(e), "bad thing 7\n  while reading ECUL") == 0);
    MkErrorCopy(f, e);
    MkErrorSet(e, 3, "replaced");
    MQT_CHECK(strcmp(MkErrorGetText(e), "replaced") == 0 && MkErrorGetCode(e) == 3);
    MQT_CHECK(strcmp(MkErrorGetText(f), "bad thing 7\n  while reading ECUL") == 0);
    MQT_CHECK(MkErrorGetCode(f) == MK_ERR_USER + 1);
    MkErrorReset(e);
    MQT_CHECK(!MkErrorIsSet(e) && strcmp(MkErrorGetText(e), "") == 0);
    MkErrorDelete(e);
    MkErrorDelete(f);
    MkErrorDelete(NULL);
    MkErrorDelete(MkErrorDEFAULT()); /* ignored */
    MkErrorSet(MkErrorDEFAULT(), 9, "still here");
    MQT_CHECK(strcmp(ERRTEXT, "still here") == 0);
}

static void
test_error_cap(void)
{
    MkErrorC *e = MkErrorCreate();
    char line[101];
    memset(line, 'x', 100);
    line[100] = '\0';
    MkErrorSet(e, 1, "start");
    for (int i = 0; i < 10000; i++)
        MkErrorStack(e, "%s", line);
    size_t n = strlen(MkErrorGetText(e));
    MQT_CHECK_MSG(n >= 60 * 1024 && n < 64 * 1024, "text grew to %zu bytes", n);
    MQT_CHECK(strncmp(MkErrorGetText(e), "start\n  xxx", 11) == 0);
    MkErrorSet(e, 2, "%s", "short again");
    MQT_CHECK(strcmp(MkErrorGetText(e), "short again") == 0);
    /* a fixed text (no conversion) takes another path: the same bound */
    for (int i = 0; i < 10000; i++)
        MkErrorStack(e, "a fixed line of text, no conversions in it at all");
    n = strlen(MkErrorGetText(e));
    MQT_CHECK_MSG(n >= 60 * 1024 && n < 64 * 1024, "fixed text grew to %zu bytes", n);
    MkErrorSet(e, 3, "100%% done");
    MQT_CHECK(strcmp(MkErrorGetText(e), "100% done") == 0);
    MkErrorSet(e, 4, "");
    MQT_CHECK(MkErrorGetCode(e) == 4 && strcmp(MkErrorGetText(e), "") == 0);
    MkErrorDelete(e);
}

/* ----------------------------------------------------------------- logging */

static void
test_log(void)
{
    int fds[2];
    char out[256];
    MQT_CHECK(MkLogGetLevel() == MK_LOG_WARN || getenv("MK_LOG_LEVEL") != NULL);
    MQT_CHECK(pipe(fds) == 0);
    dup2(fds[1], STDERR_FILENO);
    MkLogSetLevel(MK_LOG_INFO);
    MQT_CHECK(MkLogGetLevel() == MK_LOG_INFO);
    MkLog(MK_LOG_DEBUG, "kernel", "hidden");
    MkLog(MK_LOG_INFO, "kernel", "shown %d", 5);
    close(fds[1]);
    close(STDERR_FILENO);
    ssize_t n = read(fds[0], out, sizeof out - 1);
    out[n > 0 ? n : 0] = '\0';
    MQT_CHECK_MSG(strcmp(out, "[kernel] shown 5\n") == 0, "logged \"%s\"", out);
}

/* A fixed text (a literal the error points at) reads like any other, and
 * everything that changes it makes a copy first: Stack, Set, Reset, Copy
 * into it, and Delete frees nothing it does not own (ASan builds see it). */
static void
test_error_fixed(void)
{
    static const char peer[] = "peer closed the connection";
    MkErrorC *e = MkErrorCreate(), *f = MkErrorCreate();
    MQT_CHECK(mki_error_set_fixed(e, 7, peer) == MK_ERROR);
    MQT_CHECK(MkErrorIsSet(e) && MkErrorGetCode(e) == 7 && MkErrorGetText(e) == peer);
    MkErrorStack(e, "while %s", "leaving");
    MQT_CHECK(strcmp(MkErrorGetText(e), "peer closed the connection\n  while leaving") == 0);
    MQT_CHECK(strcmp(peer, "peer closed the connection") == 0);
    MkErrorReset(e); /* has a buffer now: a fixed text is copied into it */
    MQT_CHECK(mki_error_set_fixed(e, 8, peer) == MK_ERROR && MkErrorGetText(e) != peer);
    MQT_CHECK(strcmp(MkErrorGetText(e), peer) == 0 && MkErrorGetCode(e) == 8);
    mki_error_set_fixed(f, 9, peer);
    MkErrorCopy(e, f);
    MQT_CHECK(strcmp(MkErrorGetText(e), peer) == 0 && MkErrorGetCode(e) == 9);
    MkErrorCopy(f, e); /* into a fixed one: its own copy */
    MQT_CHECK(MkErrorGetText(f) != peer && strcmp(MkErrorGetText(f), peer) == 0);
    MkErrorDelete(f);
    f = MkErrorCreate();
    mki_error_set_fixed(f, 9, peer);
    MkErrorReset(f);
    MQT_CHECK(!MkErrorIsSet(f) && MkErrorGetText(f)[0] == '\0');
    mki_error_set_fixed(f, 9, peer);
    MkErrorSet(f, 10, "now %d", 10);
    MQT_CHECK(strcmp(MkErrorGetText(f), "now 10") == 0 && strcmp(peer, "peer closed the connection") == 0);
    MkErrorDelete(e);
    mki_error_set_fixed(e = MkErrorCreate(), 1, peer);
    MkErrorDelete(e); /* frees the object, not the literal */
    MkErrorDelete(f);
}

static const mqt_case cases[] = {
    { "conversions that work", test_conversions_work },
    { "conversions that fail", test_conversions_fail },
    { "Dup and Copy are independent", test_dup_copy },
    { "inline and heap storage", test_storage_sizes },
    { "type names", test_type_names },
    { "error object", test_error_object },
    { "error text is capped", test_error_cap },
    { "a fixed error text is copied before it changes", test_error_fixed },
    { "log level and line", test_log },
    { NULL, NULL },
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
