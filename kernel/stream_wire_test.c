/* stream_wire_test.c — streams meeting received bytes: reading a peer's
 * byte order, mki_stream_validate against truncated, malformed and random
 * data, mki_stream_load and mki_stream_copy_item. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mk_internal.h"
#include "stream_sample.h"
#include "testlib.h"

/* The sample most tests share: every type, a list, and nested lists. */
static MkBufferStreamC *
sample(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    write_all_types(s);
    write_nested(s, 5);
    return s;
}

static unsigned char *
swapped_copy(const MkBufferStreamC *s)
{
    unsigned char *copy = malloc(s->len);
    memcpy(copy, s->data, s->len);
    swap_encoding(copy, s->len);
    return copy;
}

static void
test_swapped_read(void)
{
    MkBufferStreamC *s = sample();
    MkBufferStreamC *r = MkBufferStreamCreate();
    MK_I32 count = 0;
    MK_I16 v = 0;
    unsigned char *copy = swapped_copy(s);
    MQT_CHECK(memcmp(copy, s->data, s->len) != 0);
    MQT_OK(mki_stream_validate(copy, s->len, 1, MK_STREAM_MAX_DEPTH, &count, NULL), ERRTEXT);
    MQT_CHECK(count == MkBufferStreamCount(s));
    MQT_OK(mki_stream_load(r, copy, s->len, 1), ERRTEXT);
    MQT_CHECK(r->swap == 1 && r->count == 0 && MkBufferStreamSize(r) == s->len);
    check_all_types(r);
    /* The same bytes read unswapped give other numbers: INT16_MIN turns
     * into 0x0080 on either byte order. */
    MQT_OK(mki_stream_load(r, copy, s->len, 0), ERRTEXT);
    MQT_OK(MkBufferStreamReadI16(r, &v), ERRTEXT);
    MQT_OK(MkBufferStreamReadI16(r, &v), ERRTEXT);
    MQT_OK(MkBufferStreamReadI16(r, &v), ERRTEXT);
    MQT_CHECK(v == (MK_I16)0x0080);
    free(copy);
    MkBufferStreamDelete(r);
    MkBufferStreamDelete(s);
}

static void
copy_all(MkBufferStreamC *d, MkBufferStreamC *s)
{
    while (MkBufferStreamReadItemExists(s))
        MQT_OK(mki_stream_copy_item(d, s), ERRTEXT);
}

static void
test_copy_item(void)
{
    MkBufferStreamC *s = sample();
    MkBufferStreamC *d = MkBufferStreamCreate();
    copy_all(d, s);
    MQT_CHECK(d->len == s->len && memcmp(d->data, s->data, s->len) == 0);
    MQT_CHECK(MkBufferStreamCount(d) == MkBufferStreamCount(s));
    size_t len = d->len;
    MQT_CHECK(mki_stream_copy_item(d, s) == MK_ERROR && ERRCODE == MK_ERR_END);
    MQT_CHECK(d->len == len);
    /* Inside a list, the copy stops at the list's end. */
    MkBufferStreamPosToStart(s);
    MkBufferStreamReset(d);
    for (int i = 0; i < ALL_TYPES_SCALARS; i++)
        MQT_OK(MkBufferStreamReadBUF(s, &(MkBufferC *){ NULL }), ERRTEXT);
    MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
    copy_all(d, s);
    MQT_CHECK(MkBufferStreamCount(d) == 2);
    MkBufferStreamDelete(d);
    MkBufferStreamDelete(s);
}

static void
test_copy_item_swapped(void)
{
    MkBufferStreamC *s = sample();
    MkBufferStreamC *r = MkBufferStreamCreate();
    MkBufferStreamC *d = MkBufferStreamCreate();
    unsigned char *copy = swapped_copy(s);
    MQT_OK(mki_stream_load(r, copy, s->len, 1), ERRTEXT);
    copy_all(d, r);
    MQT_CHECK_MSG(d->len == s->len && memcmp(d->data, s->data, s->len) == 0,
                  "copy from a swapped source is not the native encoding");
    MQT_CHECK(d->swap == 0);
    check_all_types(d);
    free(copy);
    MkBufferStreamDelete(d);
    MkBufferStreamDelete(r);
    MkBufferStreamDelete(s);
}

/* A list that would nest too deep in dst fails whole: dst and src as before. */
static void
test_copy_item_all_or_nothing(void)
{
    MkBufferStreamC *s = sample();
    MkBufferStreamC *d = MkBufferStreamCreate();
    for (int i = 0; i < MK_STREAM_MAX_DEPTH - 2; i++)
        MQT_OK(MkBufferStreamWriteL_START(d), ERRTEXT);
    /* all_types (its one-level list fits), then nested's I32 and STR. */
    for (int i = 0; i < ALL_TYPES_SCALARS + 2 + 2; i++)
        MQT_OK(mki_stream_copy_item(d, s), ERRTEXT);
    size_t len = d->len, pos = s->rpos;
    MK_I32 count = d->count;
    int wdepth = d->wdepth;
    MQT_CHECK(MkBufferStreamReadGetType(s) == MK_TYPE_LST);
    MQT_CHECK(mki_stream_copy_item(d, s) == MK_ERROR && ERRCODE == MK_ERR_NESTING);
    MQT_CHECK(d->len == len && d->count == count && d->wdepth == wdepth && s->rpos == pos);
    MkBufferStreamDelete(d);
    MkBufferStreamDelete(s);
}

/* ------------------------------------------------------------ validation */

/* Offsets where a top-level item ends (and 0): the only prefix lengths that
 * are complete streams.  Found by reading, independently of the validator. */
static size_t
item_ends(MkBufferStreamC *s, size_t *ends, size_t max)
{
    size_t n = 0;
    MkBufferStreamPosToStart(s);
    ends[n++] = 0;
    while (MkBufferStreamReadItemExists(s) && n < max) {
        MkBufferC *b;
        if (MkBufferStreamReadGetType(s) == MK_TYPE_LST) {
            MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
            MQT_OK(MkBufferStreamReadL_END(s), ERRTEXT);
        } else {
            MQT_OK(MkBufferStreamReadBUF(s, &b), ERRTEXT);
        }
        ends[n++] = s->rpos;
    }
    return n;
}

static void
check_prefixes(const unsigned char *data, size_t len, int swap, const size_t *ends, size_t nends)
{
    size_t k = 0, ok = 0;
    for (size_t n = 0; n <= len; n++) {
        /* An exact-size copy, so that ASan sees any read past n. */
        unsigned char *p = malloc(n ? n : 1);
        memcpy(p, data, n);
        MK_I32 count = -1;
        int complete = k < nends && ends[k] == n;
        MkErrorE rc = mki_stream_validate(p, n, swap, MK_STREAM_MAX_DEPTH, &count, NULL);
        MQT_CHECK_MSG((rc == MK_OK) == complete, "prefix %zu of %zu: %s (expected %s)", n, len,
                      rc == MK_OK ? "valid" : ERRTEXT, complete ? "valid" : "an error");
        if (rc != MK_OK)
            MQT_CHECK(ERRCODE == MK_ERR_FORMAT || ERRCODE == MK_ERR_NESTING);
        ok += rc == MK_OK;
        k += complete;
        free(p);
    }
    MQT_CHECK_MSG(ok == nends, "%zu prefixes valid, expected %zu", ok, nends);
}

static void
test_validate_prefixes(void)
{
    MkBufferStreamC *s = sample();
    size_t ends[128];
    size_t nends = item_ends(s, ends, 128);
    MQT_CHECK(ends[nends - 1] == s->len);
    check_prefixes(s->data, s->len, 0, ends, nends);
    unsigned char *copy = swapped_copy(s);
    check_prefixes(copy, s->len, 1, ends, nends);
    free(copy);
    MkBufferStreamDelete(s);
}

/* Validate n bytes; expect code (0: valid) and, when given, a text part. */
static void
expect(const char *what, const void *data, size_t n, int max_depth, MK_I32 code,
       const char *part)
{
    MK_I32 count;
    MkErrorReset(MkErrorDEFAULT());
    MkErrorE rc = mki_stream_validate(data, n, 0, max_depth, &count, NULL);
    MQT_CHECK_MSG(code == 0 ? rc == MK_OK : rc == MK_ERROR && ERRCODE == code,
                  "%s: rc %d code %d (%s), expected code %d", what, rc, ERRCODE, ERRTEXT, code);
    if (part != NULL)
        MQT_CHECK_MSG(strstr(ERRTEXT, part) != NULL, "%s: \"%s\" lacks \"%s\"", what, ERRTEXT,
                      part);
}

/* [type][u32 len (native)][bytes] */
static size_t
lenitem(unsigned char *p, MkTypeE type, uint32_t n, const char *bytes, size_t nbytes)
{
    p[0] = (unsigned char)type;
    memcpy(p + 1, &n, 4);
    memcpy(p + 5, bytes, nbytes);
    return 5 + nbytes;
}

static void
test_validate_rejects(void)
{
    unsigned char b[256] = { 0 };
    size_t n;
    expect("empty", b, 0, MK_STREAM_MAX_DEPTH, 0, NULL);
    n = lenitem(b, MK_TYPE_STR, 0xFFFFFFFF, "abc", 4);
    expect("STR length 0xFFFFFFFF", b, n, MK_STREAM_MAX_DEPTH, MK_ERR_FORMAT, "truncated STR at offset 0");
    n = lenitem(b, MK_TYPE_BIN, 0xFFFFFFFF, "abc", 3);
    expect("BIN length 0xFFFFFFFF", b, n, MK_STREAM_MAX_DEPTH, MK_ERR_FORMAT, "truncated BIN");
    const unsigned char bad[] = { 0, 12, 255 };
    for (size_t i = 0; i < sizeof bad; i++) {
        unsigned char p[3] = { MK_TYPE_I8, 7, bad[i] };
        char want[64];
        snprintf(want, sizeof want, "unknown type byte %u at offset 2", bad[i]);
        expect("bad type byte", p, 3, MK_STREAM_MAX_DEPTH, MK_ERR_FORMAT, want);
    }
    n = lenitem(b, MK_TYPE_STR, 3, "abcx", 4);
    expect("STR without NUL", b, n, MK_STREAM_MAX_DEPTH, MK_ERR_FORMAT, "NUL");
    n = lenitem(b, MK_TYPE_STR, 3, "a\0c", 4);
    expect("STR with embedded NUL", b, n, MK_STREAM_MAX_DEPTH, MK_ERR_FORMAT, "embedded NUL");
    n = lenitem(b, MK_TYPE_BIN, 3, "a\0c", 3);
    expect("BIN may hold NUL", b, n, MK_STREAM_MAX_DEPTH, 0, NULL);
    const unsigned char i32cut[] = { MK_TYPE_I32, 1, 2, 3 };
    expect("cut I32", i32cut, sizeof i32cut, MK_STREAM_MAX_DEPTH, MK_ERR_FORMAT, "truncated I32");
    const unsigned char open1[] = { MK_TYPE_LST, MK_TYPE_I8, 1 };
    expect("unclosed list", open1, sizeof open1, MK_STREAM_MAX_DEPTH, MK_ERR_NESTING, "not closed");
    const unsigned char close1[] = { MK_TYPE_LST, MK_TYPE_LST_END, MK_TYPE_LST_END };
    expect("extra LST_END", close1, sizeof close1, MK_STREAM_MAX_DEPTH, MK_ERR_NESTING,
           "offset 2");
    /* Depth: max_depth lists nest, one more does not. */
    for (int d = 0; d < 2; d++) {
        int depth = MK_STREAM_MAX_DEPTH + d;
        memset(b, MK_TYPE_LST, (size_t)depth);
        memset(b + depth, MK_TYPE_LST_END, (size_t)depth);
        expect("depth", b, 2 * (size_t)depth, MK_STREAM_MAX_DEPTH, d ? MK_ERR_NESTING : 0, NULL);
    }
    expect("depth 3 of 2", (const unsigned char[]){ 10, 10, 10, 11, 11, 11 }, 6, 2,
           MK_ERR_NESTING, "deeper than 2");
}

/* xorshift64: the same "random" bytes on every run. */
static uint64_t
next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* Whatever validates must also read and copy to the end without error. */
static void
read_everything(const unsigned char *p, size_t n, int swap)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    MkBufferStreamC *d = MkBufferStreamCreate();
    MkBufferC *b;
    MQT_OK(mki_stream_load(s, p, n, swap), ERRTEXT);
    for (;;) {
        if (MkBufferStreamReadItemExists(s)) {
            MkTypeE t = MkBufferStreamReadGetType(s);
            if (t == MK_TYPE_LST)
                MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
            else
                MQT_OK(MkBufferStreamReadBUF(s, &b), ERRTEXT);
        } else if (s->rdepth > 0) {
            MQT_OK(MkBufferStreamReadL_END(s), ERRTEXT);
        } else {
            break;
        }
    }
    MQT_CHECK(s->rpos == n);
    MkBufferStreamPosToStart(s);
    while (MkBufferStreamReadItemExists(s))
        MQT_OK(mki_stream_copy_item(d, s), ERRTEXT);
    MkBufferStreamDelete(d);
    MkBufferStreamDelete(s);
}

static void
test_random_garbage(void)
{
    uint64_t state = 0x9E3779B97F4A7C15u;
    int valid = 0;
    for (int i = 0; i < 10000; i++) {
        size_t n = next_random(&state) % 257;
        unsigned char *p = malloc(n ? n : 1);
        /* Mostly small bytes, so that type bytes and short lengths are common
         * and the walk gets past the first item. */
        for (size_t j = 0; j < n; j++) {
            uint64_t r = next_random(&state);
            p[j] = (unsigned char)(r % 4 ? (r >> 8) % 13 : r >> 8);
        }
        for (int swap = 0; swap < 2; swap++) {
            MK_I32 count;
            if (mki_stream_validate(p, n, swap, 8, &count, NULL) == MK_OK) {
                valid++;
                read_everything(p, n, swap);
            }
        }
        free(p);
    }
    MQT_CHECK_MSG(valid > 10, "only %d random buffers were valid: the walk is too shallow", valid);
}

static void
test_reserve_limits(void)
{
    MkBufferStreamC *s = MkBufferStreamCreate();
    MkBufferStreamC *e = MkBufferStreamCreate();
    MkErrorC *err = MkErrorCreate();
    MQT_CHECK(mki_stream_reserve(s, SIZE_MAX) == MK_ERROR && ERRCODE == MK_ERR_MEMORY);
    MQT_CHECK(mki_stream_reserve(s, (size_t)UINT32_MAX * 2 + 1) == MK_ERROR);
    MQT_OK(MkBufferStreamWriteI8(s, 1), ERRTEXT);
    MQT_CHECK(mki_stream_reserve(s, (size_t)UINT32_MAX * 2) == MK_ERROR);
    MQT_CHECK(MkBufferStreamSize(s) == 2);
    MQT_CHECK(mki_stream_load(s, "x", SIZE_MAX / 2, 0) == MK_ERROR && ERRCODE == MK_ERR_MEMORY);
    /* A stream with its own error object leaves MkErrorDEFAULT alone. */
    MkErrorReset(MkErrorDEFAULT());
    e->err = err;
    MQT_CHECK(MkBufferStreamReadI32(e, &(MK_I32){ 0 }) == MK_ERROR);
    MQT_CHECK(MkErrorGetCode(err) == MK_ERR_END && !MkErrorIsSet(MkErrorDEFAULT()));
    MkErrorDelete(err);
    MkBufferStreamDelete(e);
    MkBufferStreamDelete(s);
}

static const mqt_case cases[] = {
    { "swapped byte order reads", test_swapped_read },
    { "copy_item copies items and lists", test_copy_item },
    { "copy_item from a swapped source", test_copy_item_swapped },
    { "copy_item is all or nothing", test_copy_item_all_or_nothing },
    { "validate every prefix", test_validate_prefixes },
    { "validate rejects malformed data", test_validate_rejects },
    { "validate random garbage", test_random_garbage },
    { "reserve refuses huge sizes", test_reserve_limits },
    { NULL, NULL },
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
