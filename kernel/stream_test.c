/* stream_test.c — writing and reading streams: round trips at the type
 * boundaries, nested lists and the read semantics.  Received data (byte
 * order, validation, copying) is tested in stream_wire_test.c. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mk_internal.h"
#include "stream_sample.h"
#include "testlib.h"

#define MIB (1024 * 1024)

static void
test_boundaries(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    write_all_types(s);
    MQT_CHECK(MkBufferStreamCount(s) == ALL_TYPES_COUNT);
    check_all_types(s);
    MQT_CHECK(!MkBufferStreamReadItemExists(s));
    MkBufferStreamDelete(s);
}

static unsigned char
pattern(size_t i)
{
    return (unsigned char)((i + (i >> 8)) % 255 + 1); /* never 0: usable as STR */
}

static void
test_big_values(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    char *big = malloc(MIB + 1);
    for (size_t i = 0; i < MIB; i++)
        big[i] = (char)pattern(i);
    big[MIB] = '\0';
    MQT_OK(MkBufferStreamWriteSTR(s, big), ERRTEXT);
    MQT_OK(MkBufferStreamWriteBIN(s, big, MIB), ERRTEXT);
    memset(big, 0, MIB); /* the stream must hold its own copy */
    const char *str = NULL;
    const void *bin = NULL;
    size_t size = 0, bad = 0;
    MQT_OK(MkBufferStreamReadSTR(s, &str), ERRTEXT);
    MQT_OK(MkBufferStreamReadBIN(s, &bin, &size), ERRTEXT);
    MQT_CHECK(str != NULL && strlen(str) == MIB);
    MQT_CHECK(size == MIB);
    for (size_t i = 0; str != NULL && bin != NULL && i < MIB; i++)
        bad += (unsigned char)str[i] != pattern(i) || ((const unsigned char *)bin)[i] != pattern(i);
    MQT_CHECK_MSG(bad == 0, "%zu bytes differ", bad);
    free(big);
    MkBufferStreamDelete(s);
}

static void
test_nested_lists(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    const char *str;
    MK_I32 v = -1;
    MK_I64 last = 0;
    MK_DBL d = 0;
    write_nested(s, 32);
    MQT_CHECK(MkBufferStreamCount(s) == 32 * 3 + 2);
    for (int i = 0; i < 32; i++) {
        MQT_OK(MkBufferStreamReadI32(s, &v), ERRTEXT);
        MQT_CHECK_MSG(v == i, "level %d read %d", i, v);
        MQT_OK(MkBufferStreamReadSTR(s, &str), ERRTEXT);
        MQT_CHECK(MkBufferStreamReadGetType(s) == MK_TYPE_LST);
        MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
    }
    MQT_OK(MkBufferStreamReadDBL(s, &d), ERRTEXT);
    MQT_CHECK(d == 1.5);
    for (int i = 0; i < 32; i++) {
        MQT_CHECK(!MkBufferStreamReadItemExists(s));
        MQT_OK(MkBufferStreamReadL_END(s), ERRTEXT);
    }
    MQT_OK(MkBufferStreamReadI64(s, &last), ERRTEXT);
    MQT_CHECK(last == -7);
    MQT_CHECK(MkBufferStreamReadL_END(s) == MK_ERROR && ERRCODE == MK_ERR_NESTING);
    MkBufferStreamDelete(s);
}

static void
test_read_l_end_skips(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    const char *str;
    MK_I32 v = -1;
    MK_I64 last = 0;
    write_nested(s, 32);
    /* Enter the first list, read one item, leave: the STR and 31 deeper
     * lists are skipped. */
    MQT_OK(MkBufferStreamReadI32(s, &v), ERRTEXT);
    MQT_CHECK(MkBufferStreamReadL_START(s) == MK_ERROR && ERRCODE == MK_ERR_TYPE);
    MQT_OK(MkBufferStreamReadSTR(s, &str), ERRTEXT);
    MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
    MQT_OK(MkBufferStreamReadI32(s, &v), ERRTEXT);
    MQT_CHECK(v == 1);
    MQT_OK(MkBufferStreamReadL_END(s), ERRTEXT);
    MQT_OK(MkBufferStreamReadI64(s, &last), ERRTEXT);
    MQT_CHECK(last == -7);
    MQT_CHECK(!MkBufferStreamReadItemExists(s));
    /* Enter two lists and leave both without reading anything. */
    MkBufferStreamPosToStart(s);
    MQT_OK(MkBufferStreamReadI32(s, &v), ERRTEXT);
    MQT_OK(MkBufferStreamReadSTR(s, &str), ERRTEXT);
    MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
    MQT_OK(MkBufferStreamReadI32(s, &v), ERRTEXT);
    MQT_OK(MkBufferStreamReadSTR(s, &str), ERRTEXT);
    MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
    MQT_OK(MkBufferStreamReadL_END(s), ERRTEXT);
    MQT_CHECK(!MkBufferStreamReadItemExists(s));
    MQT_OK(MkBufferStreamReadL_END(s), ERRTEXT);
    MQT_OK(MkBufferStreamReadI64(s, &last), ERRTEXT);
    MQT_CHECK(last == -7);
    MkBufferStreamDelete(s);
}

static void
test_depth_limit(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    for (int i = 0; i < MK_STREAM_MAX_DEPTH; i++)
        MQT_OK(MkBufferStreamWriteL_START(s), ERRTEXT);
    size_t size = MkBufferStreamSize(s);
    MQT_CHECK(MkBufferStreamWriteL_START(s) == MK_ERROR);
    MQT_CHECK(ERRCODE == MK_ERR_NESTING);
    MQT_CHECK(MkBufferStreamSize(s) == size);
    for (int i = 0; i < MK_STREAM_MAX_DEPTH; i++)
        MQT_OK(MkBufferStreamWriteL_END(s), ERRTEXT);
    MQT_CHECK(MkBufferStreamWriteL_END(s) == MK_ERROR && ERRCODE == MK_ERR_NESTING);
    MQT_CHECK(MkBufferStreamCount(s) == MK_STREAM_MAX_DEPTH);
    for (int i = 0; i < MK_STREAM_MAX_DEPTH; i++)
        MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
    for (int i = 0; i < MK_STREAM_MAX_DEPTH; i++)
        MQT_OK(MkBufferStreamReadL_END(s), ERRTEXT);
    MkBufferStreamDelete(s);
}

static void
test_item_exists(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    MK_I32 v;
    MQT_CHECK(!MkBufferStreamReadItemExists(s));
    MQT_CHECK(MkBufferStreamReadGetType(s) == MK_TYPE_NONE);
    MQT_OK(MkBufferStreamWriteL_START(s), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI32(s, 5), ERRTEXT);
    MQT_OK(MkBufferStreamWriteL_END(s), ERRTEXT);
    MQT_CHECK(MkBufferStreamReadItemExists(s));
    MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
    MQT_CHECK(MkBufferStreamReadItemExists(s));
    MQT_CHECK(MkBufferStreamReadGetType(s) == MK_TYPE_I32);
    MQT_OK(MkBufferStreamReadI32(s, &v), ERRTEXT);
    MQT_CHECK(!MkBufferStreamReadItemExists(s));
    MQT_CHECK(MkBufferStreamReadI32(s, &v) == MK_ERROR && ERRCODE == MK_ERR_END);
    MQT_OK(MkBufferStreamReadL_END(s), ERRTEXT);
    MQT_CHECK(!MkBufferStreamReadItemExists(s));
    MkBufferStreamDelete(s);
}

static void
test_pos_to_start_and_reset(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    write_all_types(s);
    check_all_types(s);
    MkBufferStreamPosToStart(s);
    check_all_types(s);
    /* PosToStart inside a list also leaves the list. */
    MkBufferStreamPosToStart(s);
    for (int i = 0; i < ALL_TYPES_SCALARS; i++) {
        MkBufferC *b;
        MQT_OK(MkBufferStreamReadBUF(s, &b), ERRTEXT);
    }
    MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
    MkBufferStreamPosToStart(s);
    check_all_types(s);
    MkBufferStreamReset(s);
    MQT_CHECK(MkBufferStreamSize(s) == 0 && MkBufferStreamCount(s) == 0);
    MQT_CHECK(!MkBufferStreamReadItemExists(s));
    write_all_types(s);
    check_all_types(s);
    MkBufferStreamDelete(s);
}

static void
test_read_errors(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    MK_I8 i8 = 0;
    MK_I32 i32 = 0;
    const char *str = NULL;
    const void *bin;
    size_t size;
    MQT_CHECK(MkBufferStreamReadI32(s, &i32) == MK_ERROR);
    MQT_CHECK(ERRCODE == MK_ERR_END && strcmp(ERRTEXT, "no more items") == 0);
    MQT_OK(MkBufferStreamWriteI32(s, 300), ERRTEXT);
    MQT_OK(MkBufferStreamWriteSTR(s, "abc"), ERRTEXT);
    MQT_OK(MkBufferStreamWriteBIN(s, "xy", 2), ERRTEXT);
    /* A failed read leaves the position: the same item reads as I32. */
    MQT_CHECK(MkBufferStreamReadI8(s, &i8) == MK_ERROR && ERRCODE == MK_ERR_RANGE);
    MQT_CHECK(strstr(ERRTEXT, "I8") != NULL && strstr(ERRTEXT, "300") != NULL);
    MQT_OK(MkBufferStreamReadI32(s, &i32), ERRTEXT);
    MQT_CHECK(i32 == 300);
    MQT_CHECK(MkBufferStreamReadI32(s, &i32) == MK_ERROR && ERRCODE == MK_ERR_TYPE);
    MQT_CHECK(MkBufferStreamReadL_START(s) == MK_ERROR && ERRCODE == MK_ERR_TYPE);
    MQT_OK(MkBufferStreamReadSTR(s, &str), ERRTEXT);
    MQT_CHECK(str != NULL && strcmp(str, "abc") == 0);
    MQT_CHECK(MkBufferStreamReadSTR(s, &str) == MK_ERROR && ERRCODE == MK_ERR_TYPE);
    MQT_CHECK(strcmp(ERRTEXT, "cannot read BIN as STR") == 0);
    MQT_OK(MkBufferStreamReadBIN(s, &bin, &size), ERRTEXT);
    MQT_CHECK(size == 2 && memcmp(bin, "xy", 2) == 0);
    MQT_CHECK(MkBufferStreamReadBIN(s, &bin, &size) == MK_ERROR && ERRCODE == MK_ERR_END);
    MQT_CHECK(MkBufferStreamReadL_END(s) == MK_ERROR && ERRCODE == MK_ERR_NESTING);
    MkBufferStreamDelete(s);
}

static void
test_conversions(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    const char *str = NULL;
    MK_I8 i8 = 0;
    MK_DBL d = 0;
    const void *bin;
    size_t size;
    MQT_OK(MkBufferStreamWriteI32(s, 42), ERRTEXT);
    MQT_OK(MkBufferStreamWriteSTR(s, "-5"), ERRTEXT);
    MQT_OK(MkBufferStreamWriteSTR(s, "2.5"), ERRTEXT);
    MQT_OK(MkBufferStreamWriteSTR(s, "bytes"), ERRTEXT);
    MQT_OK(MkBufferStreamReadSTR(s, &str), ERRTEXT);
    MQT_CHECK(str != NULL && strcmp(str, "42") == 0);
    MQT_OK(MkBufferStreamReadI8(s, &i8), ERRTEXT);
    MQT_CHECK(i8 == -5);
    MQT_OK(MkBufferStreamReadDBL(s, &d), ERRTEXT);
    MQT_CHECK(d == 2.5);
    MQT_OK(MkBufferStreamReadBIN(s, &bin, &size), ERRTEXT);
    MQT_CHECK(size == 5 && memcmp(bin, "bytes", 5) == 0);
    MkBufferStreamDelete(s);
}

static int
inside(const MkBufferStreamC *s, const void *p)
{
    const unsigned char *c = p;
    return c >= s->data && c < s->data + s->len;
}

static void
test_read_buf(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    MkBufferC *b = NULL;
    MK_I32 v = 0;
    MQT_OK(MkBufferStreamWriteSTR(s, "hello"), ERRTEXT);
    MQT_OK(MkBufferStreamWriteBIN(s, "\x01\x02", 2), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI32(s, -9), ERRTEXT);
    MQT_OK(MkBufferStreamWriteL_START(s), ERRTEXT);
    MQT_OK(MkBufferStreamWriteL_END(s), ERRTEXT);
    MQT_OK(MkBufferStreamReadBUF(s, &b), ERRTEXT);
    MQT_CHECK(MkBufferGetType(b) == MK_TYPE_STR && b->size == 5);
    MQT_CHECK_MSG(inside(s, b->data), "STR was copied, not borrowed");
    MQT_CHECK(strcmp(b->data, "hello") == 0);
    MQT_OK(MkBufferStreamReadBUF(s, &b), ERRTEXT);
    MQT_CHECK(MkBufferGetType(b) == MK_TYPE_BIN && b->size == 2 && inside(s, b->data));
    MQT_OK(MkBufferStreamReadBUF(s, &b), ERRTEXT);
    MQT_CHECK(MkBufferGetType(b) == MK_TYPE_I32);
    MQT_OK(MkBufferGetI32(b, &v), ERRTEXT);
    MQT_CHECK(v == -9);
    MQT_CHECK(MkBufferStreamReadBUF(s, &b) == MK_ERROR && ERRCODE == MK_ERR_TYPE);
    /* A buffer read from a stream writes back as the same item. */
    MkBufferStreamC *t = MkBufferStreamCreate();
    MkBufferStreamPosToStart(s);
    for (int i = 0; i < 3; i++) {
        MQT_OK(MkBufferStreamReadBUF(s, &b), ERRTEXT);
        MQT_OK(MkBufferStreamWriteBUF(t, b), ERRTEXT);
    }
    MQT_CHECK(MkBufferStreamSize(t) == MkBufferStreamSize(s) - 2);
    MQT_CHECK(memcmp(t->data, s->data, t->len) == 0);
    MkBufferStreamDelete(t);
    MkBufferStreamDelete(s);
}

static void
test_create_tls(void)
{
    MkBufferStreamC *a = MkBufferStreamCreateTLS("send");
    MK_I32 v = 0;
    MQT_CHECK(a != NULL && a->tls);
    MQT_OK(MkBufferStreamWriteI32(a, 1), ERRTEXT);
    MkBufferStreamC *b = MkBufferStreamCreateTLS("send");
    MQT_CHECK(a == b);
    MQT_CHECK(MkBufferStreamSize(b) == 0 && MkBufferStreamCount(b) == 0);
    MkBufferStreamC *c = MkBufferStreamCreateTLS("read");
    MQT_CHECK(c != NULL && c != a);
    MkBufferStreamDelete(a); /* ignored */
    MQT_OK(MkBufferStreamWriteI32(a, 2), ERRTEXT);
    MQT_OK(MkBufferStreamReadI32(a, &v), ERRTEXT);
    MQT_CHECK(v == 2);
    mki_tls_free_all();
    a = MkBufferStreamCreateTLS("send");
    MQT_CHECK(a != NULL && MkBufferStreamSize(a) == 0);
    mki_tls_free_all();
}

/* A stream that never held data (no buffer at all) reads as empty: every
 * read is MK_ERR_END, no pointer arithmetic on the missing buffer (UBSan
 * saw an offset applied to a null pointer). */
static void
test_read_empty(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    MK_I8 i8; MK_I16 i16; MK_I32 i32; MK_I64 i64; MK_FLT f; MK_DBL d; MK_BOL b;
    const char *str; const void *bin; size_t n; MkBufferC *buf;
    MQT_CHECK(!MkBufferStreamReadItemExists(s));
    MQT_CHECK(MkBufferStreamReadI8(s, &i8) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadI16(s, &i16) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadI32(s, &i32) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadI64(s, &i64) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadFLT(s, &f) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadDBL(s, &d) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadBOL(s, &b) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadSTR(s, &str) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadBIN(s, &bin, &n) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadBUF(s, &buf) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadL_START(s) == MK_ERROR);
    MQT_CHECK(MkBufferStreamReadL_END(s) == MK_ERROR);
    MQT_CHECK(MkErrorGetCode(MkErrorDEFAULT()) == MK_ERR_NESTING);
    MkBufferStreamPosToStart(s);
    MkBufferStreamReset(s);
    MQT_CHECK(MkBufferStreamReadI32(s, &i32) == MK_ERROR);
    MQT_CHECK(MkErrorGetCode(MkErrorDEFAULT()) == MK_ERR_END);
    MkBufferStreamDelete(s);
}

static const mqt_case cases[] = {
    { "reading a stream that never held data", test_read_empty },
    { "boundary values round trip", test_boundaries },
    { "1 MiB STR and BIN", test_big_values },
    { "32 nested lists", test_nested_lists },
    { "ReadL_END skips unread items", test_read_l_end_skips },
    { "nesting depth limit", test_depth_limit },
    { "ReadItemExists", test_item_exists },
    { "PosToStart and Reset", test_pos_to_start_and_reset },
    { "read errors leave the position", test_read_errors },
    { "reads convert", test_conversions },
    { "ReadBUF borrows", test_read_buf },
    { "CreateTLS", test_create_tls },
    { NULL, NULL },
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
