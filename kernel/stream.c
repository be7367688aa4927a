/* stream.c — MkBufferStreamC: typed items appended to one byte array in the
 * encoding of mk_internal.h, and read back in order.  Writes are always in
 * native byte order; reads swap when the data came from a peer of the other
 * order.  Received data is checked once by mki_stream_validate (stream_wire.c)
 * and the reads below still never step outside len, whatever the bytes. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mk_internal.h"

/* A stream never grows past this, so hostile sizes cannot exhaust memory. */
#define STREAM_MAX ((size_t)UINT32_MAX * 2)

/* Value bytes of the fixed types, indexed by type byte. */
static const unsigned char fixed_size[] = { 0, 1, 2, 4, 8, 4, 8, 1 };

/* ------------------------------------------------------- item decoding */

static uint16_t
ld16(const unsigned char *p, int swap)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return swap ? mki_swap16(v) : v;
}

static uint32_t
ld32(const unsigned char *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return swap ? mki_swap32(v) : v;
}

static uint64_t
ld64(const unsigned char *p, int swap)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return swap ? mki_swap64(v) : v;
}

int
mki_item_at(const unsigned char *data, size_t len, size_t pos, int swap, mki_item *it)
{
    size_t left = len - pos - 1;
    unsigned t = data[pos];
    it->type = (MkTypeE)t;
    it->value = data + pos + 1;
    it->n = 0;
    it->size = 1;
    if (t >= MK_TYPE_I8 && t <= MK_TYPE_BOL) {
        if (left < fixed_size[t])
            return MKI_ITEM_TRUNCATED;
        it->size += fixed_size[t];
        return MKI_ITEM_OK;
    }
    if (t == MK_TYPE_LST || t == MK_TYPE_LST_END)
        return MKI_ITEM_OK;
    if (t != MK_TYPE_STR && t != MK_TYPE_BIN)
        return MKI_ITEM_UNKNOWN;
    if (left < 4)
        return MKI_ITEM_TRUNCATED;
    size_t n = ld32(data + pos + 1, swap);
    size_t tail = t == MK_TYPE_STR ? 1 : 0;
    /* n + tail cannot overflow: n is at most UINT32_MAX. */
    if (left - 4 < n + tail)
        return MKI_ITEM_TRUNCATED;
    if (tail && data[pos + 5 + n] != '\0')
        return MKI_ITEM_NO_NUL;
    it->value = data + pos + 5;
    it->n = n;
    it->size = 5 + n + tail;
    return MKI_ITEM_OK;
}

void
mki_item_value(const mki_item *it, int swap, MkBufferC *buf)
{
    mki_buffer_borrow(buf, it->type, NULL, 0);
    switch (it->type) {
    case MK_TYPE_I8:
        buf->v.i8 = (MK_I8)it->value[0];
        break;
    case MK_TYPE_I16:
        buf->v.i16 = (MK_I16)ld16(it->value, swap);
        break;
    case MK_TYPE_I32:
    case MK_TYPE_FLT: {
        uint32_t u = ld32(it->value, swap);
        memcpy(&buf->v, &u, sizeof u); /* i32 and flt share the union's start */
        break;
    }
    case MK_TYPE_I64:
    case MK_TYPE_DBL: {
        uint64_t u = ld64(it->value, swap);
        memcpy(&buf->v, &u, sizeof u);
        break;
    }
    case MK_TYPE_BOL:
        buf->v.bol = it->value[0] != 0;
        break;
    case MK_TYPE_STR:
    case MK_TYPE_BIN:
        mki_buffer_borrow(buf, it->type, (const char *)it->value, it->n);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------- lifetime */

void
mki_stream_init(MkBufferStreamC *bus)
{
    memset(bus, 0, sizeof *bus);
    mki_buffer_init(&bus->rbuf);
}

_Static_assert(MK_TYPE_NONE == 0, "zeroed storage is an empty stream (mk_internal.h)");

void
mki_stream_release(MkBufferStreamC *bus)
{
    free(bus->data);
    free(bus->rbuf.heap);
}

void
mki_stream_free(MkBufferStreamC *bus)
{
    free(bus->data);
    mki_buffer_free(&bus->rbuf);
    mki_stream_init(bus);
}

MkBufferStreamC *
MkBufferStreamCreate(void)
{
    MkBufferStreamC *bus = malloc(sizeof *bus);
    if (bus == NULL) {
        MkErrorSet(NULL, MK_ERR_MEMORY, "out of memory creating a stream");
        return NULL;
    }
    mki_stream_init(bus);
    return bus;
}

static void
destroy(void *p)
{
    mki_stream_free(p);
    free(p);
}

MkBufferStreamC *
MkBufferStreamCreateTLS(const char *name)
{
    if (name == NULL)
        name = "";
    MkBufferStreamC *bus = mki_tls_find(MKI_TLS_STREAM, name);
    if (bus != NULL) {
        MkBufferStreamReset(bus);
        return bus;
    }
    if ((bus = MkBufferStreamCreate()) == NULL)
        return NULL;
    bus->tls = 1;
    if (mki_tls_add(MKI_TLS_STREAM, name, bus, destroy) != MK_OK) {
        destroy(bus);
        return NULL;
    }
    return bus;
}

void
MkBufferStreamDelete(MkBufferStreamC *bus)
{
    if (bus == NULL || bus->tls)
        return;
    destroy(bus);
}

void
MkBufferStreamReset(MkBufferStreamC *bus)
{
    bus->len = 0;
    bus->rpos = 0;
    bus->count = 0;
    bus->wdepth = 0;
    bus->rdepth = 0;
    bus->swap = 0;
    MkBufferReset(&bus->rbuf);
}

void
MkBufferStreamPosToStart(MkBufferStreamC *bus)
{
    bus->rpos = 0;
    bus->rdepth = 0;
}

MK_I32
MkBufferStreamCount(const MkBufferStreamC *bus)
{
    return bus->count;
}

size_t
MkBufferStreamSize(const MkBufferStreamC *bus)
{
    return bus->len;
}

MkErrorE
mki_stream_reserve(MkBufferStreamC *bus, size_t n)
{
    if (n <= bus->cap - bus->len)
        return MK_OK;
    if (n > STREAM_MAX || bus->len > STREAM_MAX - n)
        return MkErrorSet(bus->err, MK_ERR_MEMORY,
                          "stream of %zu bytes cannot grow by %zu (limit %zu)",
                          bus->len, n, STREAM_MAX);
    unsigned char *p = mki_grow(bus->data, &bus->cap, bus->len + n, 1);
    if (p == NULL)
        return MkErrorSet(bus->err, MK_ERR_MEMORY, "out of memory growing a stream to %zu bytes",
                          bus->len + n);
    bus->data = p;
    return MK_OK;
}

/* ---------------------------------------------------------------- writes */

/* Append the type byte and room for n value bytes; NULL when the stream
 * cannot grow (the reason is set).  LST_END is no item of its own. */
static unsigned char *
put(MkBufferStreamC *bus, MkTypeE type, size_t n)
{
    if (type != MK_TYPE_LST_END && bus->count == INT32_MAX) {
        MkErrorSet(bus->err, MK_ERR_MEMORY, "stream holds too many items");
        return NULL;
    }
    if (bus->cap - bus->len < 1 + n && mki_stream_reserve(bus, 1 + n) != MK_OK)
        return NULL;
    unsigned char *p = bus->data + bus->len;
    p[0] = (unsigned char)type;
    bus->len += 1 + n;
    if (type != MK_TYPE_LST_END)
        bus->count++;
    return p + 1;
}

static MkErrorE
put_fixed(MkBufferStreamC *bus, MkTypeE type, const void *v)
{
    unsigned char *p = put(bus, type, fixed_size[type]);
    if (p == NULL)
        return MK_ERROR;
    memcpy(p, v, fixed_size[type]);
    return MK_OK;
}

static MkErrorE
put_bytes(MkBufferStreamC *bus, MkTypeE type, const void *data, size_t size)
{
    size_t tail = type == MK_TYPE_STR ? 1 : 0;
    if (size > UINT32_MAX)
        return MkErrorSet(bus->err, MK_ERR_RANGE, "%s of %zu bytes is longer than %u bytes",
                          MkTypeName(type), size, (unsigned)UINT32_MAX);
    if (data == NULL && size > 0)
        return MkErrorSet(bus->err, MK_ERR_ARGUMENT, "%s of %zu bytes from NULL",
                          MkTypeName(type), size);
    unsigned char *p = put(bus, type, 4 + size + tail);
    if (p == NULL)
        return MK_ERROR;
    uint32_t n = (uint32_t)size;
    memcpy(p, &n, 4);
    if (size > 0)
        memcpy(p + 4, data, size);
    if (tail)
        p[4 + size] = '\0';
    return MK_OK;
}

MkErrorE
MkBufferStreamWriteI8(MkBufferStreamC *bus, MK_I8 v)
{
    return put_fixed(bus, MK_TYPE_I8, &v);
}

MkErrorE
MkBufferStreamWriteI16(MkBufferStreamC *bus, MK_I16 v)
{
    return put_fixed(bus, MK_TYPE_I16, &v);
}

MkErrorE
MkBufferStreamWriteI32(MkBufferStreamC *bus, MK_I32 v)
{
    return put_fixed(bus, MK_TYPE_I32, &v);
}

MkErrorE
MkBufferStreamWriteI64(MkBufferStreamC *bus, MK_I64 v)
{
    return put_fixed(bus, MK_TYPE_I64, &v);
}

MkErrorE
MkBufferStreamWriteFLT(MkBufferStreamC *bus, MK_FLT v)
{
    return put_fixed(bus, MK_TYPE_FLT, &v);
}

MkErrorE
MkBufferStreamWriteDBL(MkBufferStreamC *bus, MK_DBL v)
{
    return put_fixed(bus, MK_TYPE_DBL, &v);
}

/* One byte, 0 or 1, whatever sizeof(bool) is. */
MkErrorE
MkBufferStreamWriteBOL(MkBufferStreamC *bus, MK_BOL v)
{
    unsigned char b = v ? 1 : 0;
    return put_fixed(bus, MK_TYPE_BOL, &b);
}

MkErrorE
MkBufferStreamWriteSTR(MkBufferStreamC *bus, const char *s)
{
    if (s == NULL)
        s = "";
    return put_bytes(bus, MK_TYPE_STR, s, strlen(s));
}

MkErrorE
MkBufferStreamWriteBIN(MkBufferStreamC *bus, const void *data, size_t size)
{
    return put_bytes(bus, MK_TYPE_BIN, data, size);
}

MkErrorE
MkBufferStreamWriteBUF(MkBufferStreamC *bus, const MkBufferC *buf)
{
    switch (buf->type) {
    case MK_TYPE_STR:
    case MK_TYPE_BIN:
        return put_bytes(bus, buf->type, buf->data, buf->size);
    case MK_TYPE_BOL:
        return MkBufferStreamWriteBOL(bus, buf->v.bol);
    case MK_TYPE_I8:
    case MK_TYPE_I16:
    case MK_TYPE_I32:
    case MK_TYPE_I64:
    case MK_TYPE_FLT:
    case MK_TYPE_DBL:
        return put_fixed(bus, buf->type, &buf->v); /* every member starts at 0 */
    default:
        return MkErrorSet(bus->err, MK_ERR_TYPE, "cannot write a %s buffer",
                          MkTypeName(buf->type));
    }
}

MkErrorE
MkBufferStreamWriteL_START(MkBufferStreamC *bus)
{
    if (bus->wdepth >= MK_STREAM_MAX_DEPTH)
        return MkErrorSet(bus->err, MK_ERR_NESTING, "lists nested deeper than %d",
                          MK_STREAM_MAX_DEPTH);
    if (put(bus, MK_TYPE_LST, 0) == NULL)
        return MK_ERROR;
    bus->wdepth++;
    return MK_OK;
}

MkErrorE
MkBufferStreamWriteL_END(MkBufferStreamC *bus)
{
    if (bus->wdepth == 0)
        return MkErrorSet(bus->err, MK_ERR_NESTING, "L_END without an open list");
    if (put(bus, MK_TYPE_LST_END, 0) == NULL)
        return MK_ERROR;
    bus->wdepth--;
    return MK_OK;
}
