/* list_test.c — MkBufferListC: appending, indexing, reuse after Reset and
 * the per-thread lists. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "mk_internal.h"
#include "testlib.h"

#define ERRTEXT MkErrorGetText(MkErrorDEFAULT())
#define ERRCODE MkErrorGetCode(MkErrorDEFAULT())

static void
append_all(MkBufferListC *l)
{
    MkBufferC *b = MkBufferCreate();
    MkBufferSetDBL(b, -2.25);
    MQT_OK(MkBufferListAppendI8(l, INT8_MIN), ERRTEXT);
    MQT_OK(MkBufferListAppendI16(l, INT16_MAX), ERRTEXT);
    MQT_OK(MkBufferListAppendI32(l, -123456), ERRTEXT);
    MQT_OK(MkBufferListAppendI64(l, INT64_MAX), ERRTEXT);
    MQT_OK(MkBufferListAppendFLT(l, 1.5f), ERRTEXT);
    MQT_OK(MkBufferListAppendDBL(l, 1e300), ERRTEXT);
    MQT_OK(MkBufferListAppendBOL(l, true), ERRTEXT);
    MQT_OK(MkBufferListAppendSTR(l, "hello"), ERRTEXT);
    MQT_OK(MkBufferListAppendBIN(l, "\0\1\2", 3), ERRTEXT);
    MQT_OK(MkBufferListAppendBUF(l, b), ERRTEXT);
    MkBufferSetDBL(b, 0); /* the list holds a copy */
    MkBufferDelete(b);
}

static void
check_all(MkBufferListC *l)
{
    static const MkTypeE types[] = { MK_TYPE_I8, MK_TYPE_I16, MK_TYPE_I32, MK_TYPE_I64,
                                     MK_TYPE_FLT, MK_TYPE_DBL, MK_TYPE_BOL, MK_TYPE_STR,
                                     MK_TYPE_BIN, MK_TYPE_DBL };
    MK_I64 i64 = 0;
    MK_DBL d = 0;
    const char *s = NULL;
    MQT_CHECK(MkBufferListSize(l) == 10);
    for (MK_I32 i = 0; i < 10; i++) {
        MkBufferC *b = MkBufferListIndexGet(l, i);
        MQT_CHECK_MSG(b != NULL && MkBufferGetType(b) == types[i], "item %d", i);
    }
    MQT_OK(MkBufferGetI64(MkBufferListIndexGet(l, 0), &i64), ERRTEXT);
    MQT_CHECK(i64 == INT8_MIN);
    MQT_OK(MkBufferGetI64(MkBufferListIndexGet(l, 1), &i64), ERRTEXT);
    MQT_CHECK(i64 == INT16_MAX);
    MQT_OK(MkBufferGetI64(MkBufferListIndexGet(l, 2), &i64), ERRTEXT);
    MQT_CHECK(i64 == -123456);
    MQT_OK(MkBufferGetI64(MkBufferListIndexGet(l, 3), &i64), ERRTEXT);
    MQT_CHECK(i64 == INT64_MAX);
    MQT_OK(MkBufferGetDBL(MkBufferListIndexGet(l, 4), &d), ERRTEXT);
    MQT_CHECK(d == 1.5);
    MQT_OK(MkBufferGetDBL(MkBufferListIndexGet(l, 5), &d), ERRTEXT);
    MQT_CHECK(d == 1e300);
    MQT_OK(MkBufferGetSTR(MkBufferListIndexGet(l, 6), &s), ERRTEXT);
    MQT_CHECK(strcmp(s, "true") == 0);
    MQT_OK(MkBufferGetSTR(MkBufferListIndexGet(l, 7), &s), ERRTEXT);
    MQT_CHECK(strcmp(s, "hello") == 0);
    MkBufferC *bin = MkBufferListIndexGet(l, 8);
    MQT_CHECK(bin->size == 3 && memcmp(bin->data, "\0\1\2", 3) == 0);
    MQT_OK(MkBufferGetDBL(MkBufferListIndexGet(l, 9), &d), ERRTEXT);
    MQT_CHECK(d == -2.25);
}

static void
test_append_every_type(void)
{
    MkBufferListC *l = MkBufferListCreate();
    MQT_CHECK(MkBufferListSize(l) == 0);
    append_all(l);
    check_all(l);
    MkBufferListDelete(l);
}

static void
test_index_out_of_range(void)
{
    MkBufferListC *l = MkBufferListCreate();
    MQT_CHECK(MkBufferListIndexGet(l, 0) == NULL && ERRCODE == MK_ERR_RANGE);
    MQT_OK(MkBufferListAppendI32(l, 1), ERRTEXT);
    MkErrorReset(MkErrorDEFAULT());
    MQT_CHECK(MkBufferListIndexGet(l, 1) == NULL && ERRCODE == MK_ERR_RANGE);
    MQT_CHECK(strstr(ERRTEXT, "1") != NULL);
    MQT_CHECK(MkBufferListIndexGet(l, -1) == NULL && ERRCODE == MK_ERR_RANGE);
    MQT_CHECK(MkBufferListIndexGet(l, INT32_MAX) == NULL);
    MQT_CHECK(MkBufferListIndexGet(l, 0) != NULL);
    MkBufferListDelete(l);
}

static void
test_reset_reuses(void)
{
    MkBufferListC *l = MkBufferListCreate();
    MkBufferC *first[10];
    append_all(l);
    for (MK_I32 i = 0; i < 10; i++)
        first[i] = MkBufferListIndexGet(l, i);
    MkBufferListReset(l);
    MQT_CHECK(MkBufferListSize(l) == 0);
    MQT_CHECK(MkBufferListIndexGet(l, 0) == NULL);
    append_all(l);
    check_all(l);
    for (MK_I32 i = 0; i < 10; i++)
        MQT_CHECK_MSG(MkBufferListIndexGet(l, i) == first[i], "slot %d was reallocated", i);
    MkBufferListDelete(l);
}

static void
test_create_tls(void)
{
    MkBufferListC *a = MkBufferListCreateTLS("args");
    MQT_CHECK(a != NULL && a->tls);
    append_all(a);
    MkBufferListC *b = MkBufferListCreateTLS("args");
    MQT_CHECK(a == b && MkBufferListSize(b) == 0);
    MQT_CHECK(MkBufferListCreateTLS("other") != a);
    /* A stream of the same name is another object. */
    MQT_CHECK((void *)MkBufferStreamCreateTLS("args") != (void *)a);
    MkBufferListDelete(a); /* ignored */
    append_all(a);
    check_all(a);
    mki_tls_free_all();
    a = MkBufferListCreateTLS("args");
    MQT_CHECK(a != NULL && MkBufferListSize(a) == 0);
    mki_tls_free_all();
}

static void
test_many_appends(void)
{
    MkBufferListC *l = MkBufferListCreate();
    MK_I32 v = 0;
    for (int round = 0; round < 2; round++) {
        for (MK_I32 i = 0; i < 100000; i++)
            MQT_OK(MkBufferListAppendI32(l, i), ERRTEXT);
        MQT_CHECK(MkBufferListSize(l) == 100000);
        MQT_OK(MkBufferGetI32(MkBufferListIndexGet(l, 99999), &v), ERRTEXT);
        MQT_CHECK(v == 99999);
        MQT_OK(MkBufferGetI32(MkBufferListIndexGet(l, 12345), &v), ERRTEXT);
        MQT_CHECK(v == 12345);
        MkBufferListReset(l);
    }
    MkBufferListDelete(l);
}

static const mqt_case cases[] = {
    { "append every type", test_append_every_type },
    { "IndexGet out of range", test_index_out_of_range },
    { "Reset keeps the buffers", test_reset_reuses },
    { "CreateTLS", test_create_tls },
    { "100000 appends", test_many_appends },
    { NULL, NULL },
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
