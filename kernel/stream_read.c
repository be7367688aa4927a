/* stream_read.c — reading a MkBufferStreamC: each Read* takes the next item
 * of the current list and converts it as MkBufferGet* would.  A failed read
 * leaves the read position where it was, so the caller may try another type.
 * Nothing here allocates: an item is decoded into a stack MkBufferC that
 * borrows the stream's bytes. */
#include "config.h"

#include <string.h>

#include "mk_internal.h"

/* The next item of the current list, or MK_ERR_END at the end of the data
 * or of the list. */
static MkErrorE
next_item(MkBufferStreamC *bus, mki_item *it)
{
    if (!MkBufferStreamReadItemExists(bus))
        return MkErrorSet(bus->err, MK_ERR_END, "no more items");
    int rc = mki_item_at(bus->data, bus->len, bus->rpos, bus->swap, it);
    if (rc != MKI_ITEM_OK)
        return MkErrorSet(bus->err, MK_ERR_FORMAT, "malformed %s item at offset %zu",
                          MkTypeName(it->type), bus->rpos);
    return MK_OK;
}

/* The common case, without decoding: the next item has exactly the fixed
 * type asked for.  Returns 0 when the general path must decide. */
static inline int
exact(MkBufferStreamC *bus, MkTypeE type, size_t size, void *out)
{
    /* length first: a stream that never held data has no buffer at all */
    if (bus->len - bus->rpos < 1 + size)
        return 0;
    const unsigned char *p = bus->data + bus->rpos;
    if (p[0] != type)
        return 0;
    if (!bus->swap || size == 1) {
        memcpy(out, p + 1, size);
    } else if (size == 2) {
        uint16_t v;
        memcpy(&v, p + 1, 2);
        v = mki_swap16(v);
        memcpy(out, &v, 2);
    } else if (size == 4) {
        uint32_t v;
        memcpy(&v, p + 1, 4);
        v = mki_swap32(v);
        memcpy(out, &v, 4);
    } else {
        uint64_t v;
        memcpy(&v, p + 1, 8);
        v = mki_swap64(v);
        memcpy(out, &v, 8);
    }
    bus->rpos += 1 + size;
    return 1;
}

/* Decode the next item into tmp; the caller converts and then advances. */
static MkErrorE
next_value(MkBufferStreamC *bus, mki_item *it, MkBufferC *tmp)
{
    if (next_item(bus, it) != MK_OK)
        return MK_ERROR;
    mki_item_value(it, bus->swap, tmp);
    return MK_OK;
}

static MkErrorE
read_int(MkBufferStreamC *bus, MkTypeE want, MK_I64 *out)
{
    mki_item it = {0};
    MkBufferC tmp;
    if (next_value(bus, &it, &tmp) != MK_OK)
        return MK_ERROR;
    if (mki_conv_int(&tmp, want, out, bus->err) != MK_OK)
        return MK_ERROR;
    bus->rpos += it.size;
    return MK_OK;
}

MkErrorE
MkBufferStreamReadI8(MkBufferStreamC *bus, MK_I8 *out)
{
    MK_I64 v;
    if (exact(bus, MK_TYPE_I8, 1, out))
        return MK_OK;
    if (read_int(bus, MK_TYPE_I8, &v) != MK_OK)
        return MK_ERROR;
    *out = (MK_I8)v;
    return MK_OK;
}

MkErrorE
MkBufferStreamReadI16(MkBufferStreamC *bus, MK_I16 *out)
{
    MK_I64 v;
    if (exact(bus, MK_TYPE_I16, 2, out))
        return MK_OK;
    if (read_int(bus, MK_TYPE_I16, &v) != MK_OK)
        return MK_ERROR;
    *out = (MK_I16)v;
    return MK_OK;
}

MkErrorE
MkBufferStreamReadI32(MkBufferStreamC *bus, MK_I32 *out)
{
    MK_I64 v;
    if (exact(bus, MK_TYPE_I32, 4, out))
        return MK_OK;
    if (read_int(bus, MK_TYPE_I32, &v) != MK_OK)
        return MK_ERROR;
    *out = (MK_I32)v;
    return MK_OK;
}

MkErrorE
MkBufferStreamReadI64(MkBufferStreamC *bus, MK_I64 *out)
{
    if (exact(bus, MK_TYPE_I64, 8, out))
        return MK_OK;
    return read_int(bus, MK_TYPE_I64, out);
}

MkErrorE
MkBufferStreamReadFLT(MkBufferStreamC *bus, MK_FLT *out)
{
    if (exact(bus, MK_TYPE_FLT, 4, out))
        return MK_OK;
    mki_item it = {0};
    MkBufferC tmp;
    if (next_value(bus, &it, &tmp) != MK_OK || mki_conv_flt(&tmp, out, bus->err) != MK_OK)
        return MK_ERROR;
    bus->rpos += it.size;
    return MK_OK;
}

MkErrorE
MkBufferStreamReadDBL(MkBufferStreamC *bus, MK_DBL *out)
{
    if (exact(bus, MK_TYPE_DBL, 8, out))
        return MK_OK;
    mki_item it = {0};
    MkBufferC tmp;
    if (next_value(bus, &it, &tmp) != MK_OK || mki_conv_dbl(&tmp, out, bus->err) != MK_OK)
        return MK_ERROR;
    bus->rpos += it.size;
    return MK_OK;
}

MkErrorE
MkBufferStreamReadBOL(MkBufferStreamC *bus, MK_BOL *out)
{
    mki_item it = {0};
    MkBufferC tmp;
    if (next_value(bus, &it, &tmp) != MK_OK || mki_conv_bol(&tmp, out, bus->err) != MK_OK)
        return MK_ERROR;
    bus->rpos += it.size;
    return MK_OK;
}

/* A STR comes straight from the stream's bytes (the encoding keeps its NUL);
 * a number is rendered into rbuf.text, which a ReadBUF value never uses. */
MkErrorE
MkBufferStreamReadSTR(MkBufferStreamC *bus, const char **out)
{
    mki_item it = {0};
    MkBufferC tmp;
    if (next_value(bus, &it, &tmp) != MK_OK
        || mki_conv_str(&tmp, bus->rbuf.text, out, bus->err) != MK_OK)
        return MK_ERROR;
    bus->rpos += it.size;
    return MK_OK;
}

MkErrorE
MkBufferStreamReadBIN(MkBufferStreamC *bus, const void **data, size_t *size)
{
    if (bus->len - bus->rpos > 5 && bus->data[bus->rpos] == MK_TYPE_BIN) {
        /* the common case: a BIN item, its length checked like any other */
        mki_item it;
        if (mki_item_at(bus->data, bus->len, bus->rpos, bus->swap, &it) == MKI_ITEM_OK) {
            *data = it.value;
            *size = it.n;
            bus->rpos += it.size;
            return MK_OK;
        }
    }
    mki_item it = {0};
    MkBufferC tmp;
    if (next_value(bus, &it, &tmp) != MK_OK || mki_conv_bin(&tmp, data, size, bus->err) != MK_OK)
        return MK_ERROR;
    bus->rpos += it.size;
    return MK_OK;
}

MkErrorE
MkBufferStreamReadBUF(MkBufferStreamC *bus, MkBufferC **out)
{
    mki_item it = {0};
    if (next_item(bus, &it) != MK_OK)
        return MK_ERROR;
    if (it.type == MK_TYPE_LST)
        return MkErrorSet(bus->err, MK_ERR_TYPE, "cannot read LST as BUF");
    mki_item_value(&it, bus->swap, &bus->rbuf);
    bus->rpos += it.size;
    *out = &bus->rbuf;
    return MK_OK;
}

/* ------------------------------------------------------------------ lists */

MkErrorE
MkBufferStreamReadL_START(MkBufferStreamC *bus)
{
    mki_item it = {0};
    if (next_item(bus, &it) != MK_OK)
        return MK_ERROR;
    if (it.type != MK_TYPE_LST)
        return MkErrorSet(bus->err, MK_ERR_TYPE, "cannot read %s as L_START",
                          MkTypeName(it.type));
    if (bus->rdepth >= MK_STREAM_MAX_DEPTH)
        return MkErrorSet(bus->err, MK_ERR_NESTING, "lists nested deeper than %d",
                          MK_STREAM_MAX_DEPTH);
    bus->rdepth++;
    bus->rpos += it.size;
    return MK_OK;
}

/* Find the end of the list that pos is inside: the offset after its LST_END. */
static MkErrorE
list_end(MkBufferStreamC *bus, size_t pos, size_t *end)
{
    int nested = 0;
    mki_item it = {0};
    while (pos < bus->len) {
        if (mki_item_at(bus->data, bus->len, pos, bus->swap, &it) != MKI_ITEM_OK)
            return MkErrorSet(bus->err, MK_ERR_FORMAT, "malformed item at offset %zu", pos);
        pos += it.size;
        if (it.type == MK_TYPE_LST) {
            nested++;
        } else if (it.type == MK_TYPE_LST_END) {
            if (nested == 0) {
                *end = pos;
                return MK_OK;
            }
            nested--;
        }
    }
    return MkErrorSet(bus->err, MK_ERR_FORMAT, "list not closed before the end of the data");
}

MkErrorE
MkBufferStreamReadL_END(MkBufferStreamC *bus)
{
    size_t end = bus->rpos;
    if (bus->rdepth == 0)
        return MkErrorSet(bus->err, MK_ERR_NESTING, "ReadL_END outside a list");
    if (list_end(bus, bus->rpos, &end) != MK_OK)
        return MK_ERROR;
    bus->rpos = end;
    bus->rdepth--;
    return MK_OK;
}

MK_BOL
MkBufferStreamReadItemExists(const MkBufferStreamC *bus)
{
    return bus->rpos < bus->len && bus->data[bus->rpos] != MK_TYPE_LST_END;
}

MkTypeE
MkBufferStreamReadGetType(const MkBufferStreamC *bus)
{
    if (!MkBufferStreamReadItemExists(bus))
        return MK_TYPE_NONE;
    return (MkTypeE)bus->data[bus->rpos];
}
