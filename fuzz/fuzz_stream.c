/* fuzz_stream.c — libFuzzer target: the stream decoder.  The input is a
 * stream body as it arrives from a peer; it is checked with
 * mki_stream_validate in both byte orders and, where valid, loaded and read
 * back item by item with every typed reader and every buffer conversion,
 * then copied item by item (mki_stream_copy_item, as MqProxyItem does).
 *
 * Besides crashes and sanitizer reports the target checks that the readers
 * agree with the validator: a valid stream reads to its end with exactly the
 * validated number of items, and its copy is valid again.  A disagreement
 * aborts, so it is a finding like a crash. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "mk_internal.h"

static void
disagree(const char *what, int swap, size_t pos)
{
    fprintf(stderr, "fuzz_stream: %s (swap %d, offset %zu)\n", what, swap, pos);
    abort();
}

/* Every conversion of a buffer, as MkBufferGet* offers them. */
static void
convert_all(MkBufferC *buf)
{
    MK_I8 i8;
    MK_I16 i16;
    MK_I32 i32;
    MK_I64 i64;
    MK_FLT flt;
    MK_DBL dbl;
    MK_BOL bol;
    const char *s;
    const void *bin;
    size_t n;
    MkBufferGetI8(buf, &i8);
    MkBufferGetI16(buf, &i16);
    MkBufferGetI32(buf, &i32);
    MkBufferGetI64(buf, &i64);
    MkBufferGetFLT(buf, &flt);
    MkBufferGetDBL(buf, &dbl);
    MkBufferGetBOL(buf, &bol);
    if (MkBufferGetSTR(buf, &s) == MK_OK && strlen(s) > 1u << 30)
        abort(); /* touch every byte of the text */
    MkBufferGetBIN(buf, &bin, &n);
    MkBufferC *dup = MkBufferDup(buf);
    if (dup)
        MkBufferCopy(dup, buf);
    MkBufferDelete(dup);
}

/* Every typed reader on the item at the read position; each success is
 * undone, so all of them see the same item. */
static void
read_every_type(MkBufferStreamC *bus)
{
    size_t pos = bus->rpos;
    MK_I8 i8;
    MK_I16 i16;
    MK_I32 i32;
    MK_I64 i64;
    MK_FLT flt;
    MK_DBL dbl;
    MK_BOL bol;
    const char *s;
    const void *bin;
    size_t n;
    MkBufferStreamReadI8(bus, &i8);
    bus->rpos = pos;
    MkBufferStreamReadI16(bus, &i16);
    bus->rpos = pos;
    MkBufferStreamReadI32(bus, &i32);
    bus->rpos = pos;
    MkBufferStreamReadI64(bus, &i64);
    bus->rpos = pos;
    MkBufferStreamReadFLT(bus, &flt);
    bus->rpos = pos;
    MkBufferStreamReadDBL(bus, &dbl);
    bus->rpos = pos;
    MkBufferStreamReadBOL(bus, &bol);
    bus->rpos = pos;
    MkBufferStreamReadSTR(bus, &s);
    bus->rpos = pos;
    MkBufferStreamReadBIN(bus, &bin, &n);
    bus->rpos = pos;
}

/* Read the loaded stream to its end; returns the number of items. */
static MK_I32
read_back(MkBufferStreamC *bus, int swap)
{
    MK_I32 items = 0;
    MkBufferC *buf;
    for (;;) {
        read_every_type(bus);
        if (MkBufferStreamReadItemExists(bus)) {
            items++;
            if (MkBufferStreamReadGetType(bus) == MK_TYPE_LST) {
                if (MkBufferStreamReadL_START(bus) != MK_OK)
                    disagree("L_START refused in a valid stream", swap, bus->rpos);
            } else if (MkBufferStreamReadBUF(bus, &buf) != MK_OK) {
                disagree("ReadBUF refused an item of a valid stream", swap, bus->rpos);
            } else {
                convert_all(buf);
            }
        } else if (bus->rpos < bus->len) {
            if (MkBufferStreamReadL_END(bus) != MK_OK)
                disagree("L_END refused in a valid stream", swap, bus->rpos);
        } else {
            return items;
        }
    }
}

/* Copy the top-level items one by one; the copy is valid in our byte order
 * and holds as many items as the original. */
static void
copy_back(MkBufferStreamC *bus, MK_I32 count, int swap)
{
    MkBufferStreamC *copy = MkBufferStreamCreate();
    MK_I32 n = -1;
    MkBufferStreamPosToStart(bus);
    while (MkBufferStreamReadItemExists(bus))
        if (mki_stream_copy_item(copy, bus) != MK_OK)
            disagree("copy_item refused an item of a valid stream", swap, bus->rpos);
    if (mki_stream_validate(copy->data, copy->len, 0, MK_STREAM_MAX_DEPTH, &n, NULL) != MK_OK ||
        n != count)
        disagree("the copy of a valid stream is not valid", swap, copy->len);
    MkBufferStreamDelete(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    MkErrorC *err = MkErrorCreate();
    MkBufferStreamC *bus = MkBufferStreamCreate();
    for (int swap = 0; swap <= 1; swap++) {
        MK_I32 count = -1;
        MkErrorReset(err);
        if (mki_stream_validate(data, size, swap, MK_STREAM_MAX_DEPTH, &count, err) != MK_OK)
            continue;
        if (mki_stream_load(bus, data, size, swap) != MK_OK)
            disagree("load failed", swap, 0);
        bus->err = err;
        if (read_back(bus, swap) != count)
            disagree("read a different number of items than validated", swap, bus->rpos);
        copy_back(bus, count, swap);
    }
    MkBufferStreamDelete(bus);
    MkErrorDelete(err);
    return 0;
}
