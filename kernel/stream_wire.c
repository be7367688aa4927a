/* stream_wire.c — streams meet received bytes: mki_stream_validate checks
 * untrusted data once (bounds, types, nesting) without allocating,
 * mki_stream_load takes it in, and mki_stream_copy_item moves one item (a
 * whole list for LST) between streams, converting the byte order. */
#include "config.h"

#include <string.h>

#include "mk_internal.h"

static MkErrorE
bad_item(MkErrorC *err, int rc, const unsigned char *data, size_t pos)
{
    switch (rc) {
    case MKI_ITEM_UNKNOWN:
        return MkErrorSet(err, MK_ERR_FORMAT, "unknown type byte %u at offset %zu",
                          (unsigned)data[pos], pos);
    case MKI_ITEM_NO_NUL:
        return MkErrorSet(err, MK_ERR_FORMAT, "STR not terminated by NUL at offset %zu", pos);
    default:
        return MkErrorSet(err, MK_ERR_FORMAT, "truncated %s at offset %zu",
                          MkTypeName((MkTypeE)data[pos]), pos);
    }
}

/* Account for one well-formed item: list depth and the item count. */
static MkErrorE
check_item(const mki_item *it, size_t pos, int *depth, int max_depth, MK_I32 *count,
           MkErrorC *err)
{
    if (it->type == MK_TYPE_STR && memchr(it->value, '\0', it->n) != NULL)
        return MkErrorSet(err, MK_ERR_FORMAT, "STR with an embedded NUL at offset %zu", pos);
    if (it->type == MK_TYPE_LST_END) {
        if (*depth == 0)
            return MkErrorSet(err, MK_ERR_NESTING, "LST_END without an open list at offset %zu",
                              pos);
        (*depth)--;
        return MK_OK;
    }
    if (it->type == MK_TYPE_LST && ++*depth > max_depth)
        return MkErrorSet(err, MK_ERR_NESTING, "lists nested deeper than %d at offset %zu",
                          max_depth, pos);
    if (*count == INT32_MAX)
        return MkErrorSet(err, MK_ERR_FORMAT, "too many items at offset %zu", pos);
    (*count)++;
    return MK_OK;
}

/* Encoded value size of the fixed types, by type byte. */
static const unsigned char width[] = {0, 1, 2, 4, 8, 4, 8, 1};

/* The prefix of p[0..len) made of fixed-size and BIN items, the bulk of
 * most messages, checked in a tight loop; stops before anything else. */
static size_t
fast_prefix(const unsigned char *p, size_t len, int swap, MK_I32 *count)
{
    size_t pos = 0;
    MK_I32 n = *count;
    while (pos < len) {
        unsigned t = p[pos];
        size_t left = len - pos - 1, w;
        if (t - MK_TYPE_I8 <= MK_TYPE_BOL - MK_TYPE_I8) {
            w = width[t];
        } else if (t == MK_TYPE_BIN && left >= 4) {
            uint32_t size;
            memcpy(&size, p + pos + 1, 4);
            w = 4 + (size_t)(swap ? mki_swap32(size) : size);
        } else {
            break;
        }
        if (left < w)
            break;
        pos += 1 + w;
        n++;
    }
    *count = n;
    return pos;
}

MkErrorE
mki_stream_validate(const void *data, size_t len, int swap, int max_depth, MK_I32 *count,
                    MkErrorC *err)
{
    const unsigned char *p = data;
    size_t pos = 0;
    int depth = 0;
    MK_I32 n = 0;
    mki_item it = {0};
    if (p == NULL && len > 0)
        return MkErrorSet(err, MK_ERR_ARGUMENT, "validate: NULL data of %zu bytes", len);
    /* Every item takes a byte at least: with len below INT32_MAX the count
     * cannot overflow in the fast loop. */
    int fast = len < (size_t)INT32_MAX;
    while (pos < len) {
        if (fast) {
            pos += fast_prefix(p + pos, len - pos, swap, &n);
            if (pos == len)
                break;
        }
        int rc = mki_item_at(p, len, pos, swap, &it);
        if (rc != MKI_ITEM_OK)
            return bad_item(err, rc, p, pos);
        if (check_item(&it, pos, &depth, max_depth, &n, err) != MK_OK)
            return MK_ERROR;
        pos += it.size;
    }
    if (depth > 0)
        return MkErrorSet(err, MK_ERR_NESTING, "%d list%s not closed at the end of the data",
                          depth, depth > 1 ? "s" : "");
    if (count != NULL)
        *count = n;
    return MK_OK;
}

MkErrorE
mki_stream_load(MkBufferStreamC *bus, const void *data, size_t len, int swap)
{
    MkBufferStreamReset(bus);
    if (mki_stream_reserve(bus, len) != MK_OK)
        return MK_ERROR;
    if (len > 0)
        memcpy(bus->data, data, len);
    bus->len = len;
    bus->swap = swap != 0;
    return MK_OK;
}

/* Write one decoded item of src into dst, tracking the list depth. */
static MkErrorE
copy_one(MkBufferStreamC *dst, const mki_item *it, int swap, int *depth)
{
    MkBufferC tmp;
    if (it->type == MK_TYPE_LST) {
        (*depth)++;
        return MkBufferStreamWriteL_START(dst);
    }
    if (it->type == MK_TYPE_LST_END) {
        (*depth)--;
        return MkBufferStreamWriteL_END(dst);
    }
    mki_item_value(it, swap, &tmp);
    return MkBufferStreamWriteBUF(dst, &tmp);
}

/* The common case: one scalar item between streams of the same byte order
 * is copied as it is encoded.  Returns 0 when the general path must do it. */
static int
copy_raw(MkBufferStreamC *dst, MkBufferStreamC *src)
{
    mki_item it;
    if (src->swap || src->rpos >= src->len || src->data[src->rpos] == MK_TYPE_LST ||
        mki_item_at(src->data, src->len, src->rpos, 0, &it) != MKI_ITEM_OK ||
        it.type == MK_TYPE_LST_END || mki_stream_reserve(dst, it.size) != MK_OK)
        return 0;
    memcpy(dst->data + dst->len, src->data + src->rpos, it.size);
    dst->len += it.size;
    dst->count++;
    src->rpos += it.size;
    return 1;
}

/* All or nothing: on failure dst is cut back to what it was and src's read
 * position has not moved. */
MkErrorE
mki_stream_copy_item(MkBufferStreamC *dst, MkBufferStreamC *src)
{
    if (copy_raw(dst, src))
        return MK_OK;
    size_t len0 = dst->len, pos = src->rpos;
    MK_I32 count0 = dst->count;
    int wdepth0 = dst->wdepth, depth = 0;
    mki_item it = {0};
    if (!MkBufferStreamReadItemExists(src))
        return MkErrorSet(src->err, MK_ERR_END, "no more items");
    do {
        if (pos >= src->len) {
            MkErrorSet(src->err, MK_ERR_FORMAT, "list not closed before the end of the data");
            goto error;
        }
        int rc = mki_item_at(src->data, src->len, pos, src->swap, &it);
        if (rc != MKI_ITEM_OK) {
            bad_item(src->err, rc, src->data, pos);
            goto error;
        }
        if (copy_one(dst, &it, src->swap, &depth) != MK_OK)
            goto error;
        pos += it.size;
    } while (depth > 0);
    src->rpos = pos;
    return MK_OK;
error:
    dst->len = len0;
    dst->count = count0;
    dst->wdepth = wdepth0;
    return MK_ERROR;
}
