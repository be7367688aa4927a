/* stream_sample.c — see stream_sample.h. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "stream_sample.h"
#include "testlib.h"

/* Every type at its boundaries; the order matches check_all_types. */
void
write_all_types(MkBufferStreamC *s)
{
    MQT_OK(MkBufferStreamWriteI8(s, INT8_MIN), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI8(s, INT8_MAX), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI16(s, INT16_MIN), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI16(s, INT16_MAX), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI32(s, INT32_MIN), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI32(s, INT32_MAX), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI64(s, INT64_MIN), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI64(s, INT64_MAX), ERRTEXT);
    MQT_OK(MkBufferStreamWriteFLT(s, FLT_MIN), ERRTEXT);
    MQT_OK(MkBufferStreamWriteFLT(s, FLT_MAX), ERRTEXT);
    MQT_OK(MkBufferStreamWriteFLT(s, NAN), ERRTEXT);
    MQT_OK(MkBufferStreamWriteFLT(s, -0.0f), ERRTEXT);
    MQT_OK(MkBufferStreamWriteFLT(s, -INFINITY), ERRTEXT);
    MQT_OK(MkBufferStreamWriteDBL(s, DBL_MIN), ERRTEXT);
    MQT_OK(MkBufferStreamWriteDBL(s, DBL_MAX), ERRTEXT);
    MQT_OK(MkBufferStreamWriteDBL(s, NAN), ERRTEXT);
    MQT_OK(MkBufferStreamWriteDBL(s, 0.0), ERRTEXT);
    MQT_OK(MkBufferStreamWriteDBL(s, -0.0), ERRTEXT);
    MQT_OK(MkBufferStreamWriteDBL(s, INFINITY), ERRTEXT);
    MQT_OK(MkBufferStreamWriteDBL(s, -INFINITY), ERRTEXT);
    MQT_OK(MkBufferStreamWriteBOL(s, true), ERRTEXT);
    MQT_OK(MkBufferStreamWriteBOL(s, false), ERRTEXT);
    MQT_OK(MkBufferStreamWriteSTR(s, ""), ERRTEXT);
    MQT_OK(MkBufferStreamWriteBIN(s, NULL, 0), ERRTEXT);
    MQT_OK(MkBufferStreamWriteL_START(s), ERRTEXT);
    MQT_OK(MkBufferStreamWriteSTR(s, "inner"), ERRTEXT);
    MQT_OK(MkBufferStreamWriteBIN(s, "\x00\x01\xff", 3), ERRTEXT);
    MQT_OK(MkBufferStreamWriteL_END(s), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI32(s, 0x01020304), ERRTEXT);
}

void
check_all_types(MkBufferStreamC *s)
{
    MK_I8 i8 = 0;
    MK_I16 i16 = 0;
    MK_I32 i32 = 0;
    MK_I64 i64 = 0;
    MK_FLT f = 0;
    MK_DBL d = 0;
    MK_BOL b = false;
    const char *str = NULL;
    const void *bin = NULL;
    size_t size = 99;

    MQT_OK(MkBufferStreamReadI8(s, &i8), ERRTEXT);
    MQT_CHECK(i8 == INT8_MIN);
    MQT_OK(MkBufferStreamReadI8(s, &i8), ERRTEXT);
    MQT_CHECK(i8 == INT8_MAX);
    MQT_OK(MkBufferStreamReadI16(s, &i16), ERRTEXT);
    MQT_CHECK(i16 == INT16_MIN);
    MQT_OK(MkBufferStreamReadI16(s, &i16), ERRTEXT);
    MQT_CHECK(i16 == INT16_MAX);
    MQT_OK(MkBufferStreamReadI32(s, &i32), ERRTEXT);
    MQT_CHECK(i32 == INT32_MIN);
    MQT_OK(MkBufferStreamReadI32(s, &i32), ERRTEXT);
    MQT_CHECK(i32 == INT32_MAX);
    MQT_OK(MkBufferStreamReadI64(s, &i64), ERRTEXT);
    MQT_CHECK(i64 == INT64_MIN);
    MQT_OK(MkBufferStreamReadI64(s, &i64), ERRTEXT);
    MQT_CHECK(i64 == INT64_MAX);
    MQT_OK(MkBufferStreamReadFLT(s, &f), ERRTEXT);
    MQT_CHECK(f == FLT_MIN);
    MQT_OK(MkBufferStreamReadFLT(s, &f), ERRTEXT);
    MQT_CHECK(f == FLT_MAX);
    MQT_OK(MkBufferStreamReadFLT(s, &f), ERRTEXT);
    MQT_CHECK(isnan(f));
    MQT_OK(MkBufferStreamReadFLT(s, &f), ERRTEXT);
    MQT_CHECK(f == 0.0f && signbit(f));
    MQT_OK(MkBufferStreamReadFLT(s, &f), ERRTEXT);
    MQT_CHECK(isinf(f) && f < 0);
    MQT_OK(MkBufferStreamReadDBL(s, &d), ERRTEXT);
    MQT_CHECK(d == DBL_MIN);
    MQT_OK(MkBufferStreamReadDBL(s, &d), ERRTEXT);
    MQT_CHECK(d == DBL_MAX);
    MQT_OK(MkBufferStreamReadDBL(s, &d), ERRTEXT);
    MQT_CHECK(isnan(d));
    MQT_OK(MkBufferStreamReadDBL(s, &d), ERRTEXT);
    MQT_CHECK(d == 0.0 && !signbit(d));
    MQT_OK(MkBufferStreamReadDBL(s, &d), ERRTEXT);
    MQT_CHECK(d == 0.0 && signbit(d));
    MQT_OK(MkBufferStreamReadDBL(s, &d), ERRTEXT);
    MQT_CHECK(isinf(d) && d > 0);
    MQT_OK(MkBufferStreamReadDBL(s, &d), ERRTEXT);
    MQT_CHECK(isinf(d) && d < 0);
    MQT_OK(MkBufferStreamReadBOL(s, &b), ERRTEXT);
    MQT_CHECK(b == true);
    MQT_OK(MkBufferStreamReadBOL(s, &b), ERRTEXT);
    MQT_CHECK(b == false);
    MQT_OK(MkBufferStreamReadSTR(s, &str), ERRTEXT);
    MQT_CHECK(str != NULL && str[0] == '\0');
    MQT_OK(MkBufferStreamReadBIN(s, &bin, &size), ERRTEXT);
    MQT_CHECK(size == 0);
    MQT_OK(MkBufferStreamReadL_START(s), ERRTEXT);
    MQT_OK(MkBufferStreamReadSTR(s, &str), ERRTEXT);
    MQT_CHECK(str != NULL && strcmp(str, "inner") == 0);
    MQT_OK(MkBufferStreamReadBIN(s, &bin, &size), ERRTEXT);
    MQT_CHECK(size == 3 && memcmp(bin, "\x00\x01\xff", 3) == 0);
    MQT_CHECK(!MkBufferStreamReadItemExists(s));
    MQT_OK(MkBufferStreamReadL_END(s), ERRTEXT);
    MQT_OK(MkBufferStreamReadI32(s, &i32), ERRTEXT);
    MQT_CHECK(i32 == 0x01020304);
}

/* Level i holds I32 i, a STR, and (below the deepest) the list of level i+1. */
void
write_nested(MkBufferStreamC *s, int levels)
{
    for (int i = 0; i < levels; i++) {
        MQT_OK(MkBufferStreamWriteI32(s, i), ERRTEXT);
        MQT_OK(MkBufferStreamWriteSTR(s, "level"), ERRTEXT);
        MQT_OK(MkBufferStreamWriteL_START(s), ERRTEXT);
    }
    MQT_OK(MkBufferStreamWriteDBL(s, 1.5), ERRTEXT);
    for (int i = 0; i < levels; i++)
        MQT_OK(MkBufferStreamWriteL_END(s), ERRTEXT);
    MQT_OK(MkBufferStreamWriteI64(s, -7), ERRTEXT);
}

/* Byte-swap every number and length of a native encoding in place: the
 * bytes a peer of the other byte order would have sent. */
void
swap_encoding(unsigned char *p, size_t len)
{
    static const size_t fixed[] = { 0, 1, 2, 4, 8, 4, 8, 1 };
    size_t pos = 0;
    while (pos < len) {
        unsigned t = p[pos++];
        if (t >= MK_TYPE_I8 && t <= MK_TYPE_BOL) {
            for (size_t i = 0; i < fixed[t] / 2; i++) {
                unsigned char c = p[pos + i];
                p[pos + i] = p[pos + fixed[t] - 1 - i];
                p[pos + fixed[t] - 1 - i] = c;
            }
            pos += fixed[t];
        } else if (t == MK_TYPE_STR || t == MK_TYPE_BIN) {
            uint32_t n;
            memcpy(&n, p + pos, 4);
            uint32_t sw = __builtin_bswap32(n);
            memcpy(p + pos, &sw, 4);
            pos += 4 + n + (t == MK_TYPE_STR);
        }
    }
}

