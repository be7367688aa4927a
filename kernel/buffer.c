/* buffer.c — MkBufferC: one typed value and where its bytes live.  Small
 * STR/BIN values sit inline in text[], large ones in an owned heap block
 * that is kept for reuse, and a stream's ReadBUF borrows bytes without a
 * copy.  The checked conversions behind MkBufferGet* are in convert.c. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mk_internal.h"

#define INLINE_MAX sizeof(((MkBufferC *)0)->text)

void *
mki_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    if (elem == 0 || need > SIZE_MAX / elem)
        return NULL;
    /* at least 256 bytes: few reallocs for small items, and a table of large
     * ones (a context's services) stays small enough for the allocator's
     * per-thread cache */
    size_t min = elem < 256 ? 256 / elem : 1;
    size_t n = *cap >= min ? *cap : min;
    while (n < need)
        n = n > SIZE_MAX / 2 ? need : n * 2;
    /* Doubling may overshoot what fits in size_t bytes; need itself fits. */
    if (n > SIZE_MAX / elem)
        n = need;
    void *q = realloc(p, n * elem);
    if (q == NULL)
        return NULL;
    *cap = n;
    return q;
}

void
mki_buffer_init(MkBufferC *buf)
{
    memset(buf, 0, sizeof *buf);
    buf->type = MK_TYPE_NONE;
}

void
mki_buffer_free(MkBufferC *buf)
{
    free(buf->heap);
    mki_buffer_init(buf);
}

void
mki_buffer_borrow(MkBufferC *buf, MkTypeE type, const char *data, size_t size)
{
    buf->type = type;
    buf->data = data;
    buf->size = size;
}

MkBufferC *
MkBufferCreate(void)
{
    MkBufferC *buf = malloc(sizeof *buf);
    if (buf == NULL) {
        MkErrorSet(NULL, MK_ERR_MEMORY, "out of memory creating a buffer");
        return NULL;
    }
    mki_buffer_init(buf);
    return buf;
}

void
MkBufferDelete(MkBufferC *buf)
{
    if (buf == NULL)
        return;
    mki_buffer_free(buf);
    free(buf);
}

MkBufferC *
MkBufferDup(const MkBufferC *buf)
{
    MkBufferC *dup = MkBufferCreate();
    if (dup != NULL && MkBufferCopy(dup, buf) != MK_OK) {
        MkBufferDelete(dup);
        return NULL;
    }
    return dup;
}

void
MkBufferReset(MkBufferC *buf)
{
    mki_buffer_borrow(buf, MK_TYPE_NONE, NULL, 0);
}

MkTypeE
MkBufferGetType(const MkBufferC *buf)
{
    return buf->type;
}

const char *
MkTypeName(MkTypeE type)
{
    static const char *const names[] = {
        "NONE", "I8", "I16", "I32", "I64", "FLT", "DBL",
        "BOL", "STR", "BIN", "LST", "LST_END",
    };
    if ((unsigned)type >= sizeof names / sizeof names[0])
        return "UNKNOWN";
    return names[type];
}

/* ----------------------------------------------------------------- setters */

static void
set_number(MkBufferC *buf, MkTypeE type)
{
    mki_buffer_borrow(buf, type, NULL, 0);
}

void
MkBufferSetI8(MkBufferC *buf, MK_I8 v)
{
    set_number(buf, MK_TYPE_I8);
    buf->v.i8 = v;
}

void
MkBufferSetI16(MkBufferC *buf, MK_I16 v)
{
    set_number(buf, MK_TYPE_I16);
    buf->v.i16 = v;
}

void
MkBufferSetI32(MkBufferC *buf, MK_I32 v)
{
    set_number(buf, MK_TYPE_I32);
    buf->v.i32 = v;
}

void
MkBufferSetI64(MkBufferC *buf, MK_I64 v)
{
    set_number(buf, MK_TYPE_I64);
    buf->v.i64 = v;
}

void
MkBufferSetFLT(MkBufferC *buf, MK_FLT v)
{
    set_number(buf, MK_TYPE_FLT);
    buf->v.flt = v;
}

void
MkBufferSetDBL(MkBufferC *buf, MK_DBL v)
{
    set_number(buf, MK_TYPE_DBL);
    buf->v.dbl = v;
}

void
MkBufferSetBOL(MkBufferC *buf, MK_BOL v)
{
    set_number(buf, MK_TYPE_BOL);
    buf->v.bol = v;
}

/* Own a copy of size bytes.  A NUL follows BIN bytes too, which costs one
 * byte and lets every owned value be handed out as a C string.  p may point
 * into buf's own storage: memmove, and the heap only grows when p cannot be
 * inside it (a value inside the heap is shorter than its capacity). */
static MkErrorE
set_bytes(MkBufferC *buf, MkTypeE type, const void *p, size_t size)
{
    char *dst = buf->text;
    if (size >= INLINE_MAX) {
        char *heap = size < SIZE_MAX ? mki_grow(buf->heap, &buf->heap_cap, size + 1, 1) : NULL;
        if (heap == NULL)
            return MkErrorSet(NULL, MK_ERR_MEMORY, "out of memory storing %zu bytes", size);
        buf->heap = dst = heap;
    }
    if (size > 0)
        memmove(dst, p, size);
    dst[size] = '\0';
    mki_buffer_borrow(buf, type, dst, size);
    return MK_OK;
}

MkErrorE
MkBufferSetSTR(MkBufferC *buf, const char *s)
{
    if (s == NULL)
        s = "";
    return set_bytes(buf, MK_TYPE_STR, s, strlen(s));
}

MkErrorE
MkBufferSetBIN(MkBufferC *buf, const void *data, size_t size)
{
    if (data == NULL && size > 0)
        return MkErrorSet(NULL, MK_ERR_ARGUMENT, "MkBufferSetBIN: NULL data with size %zu", size);
    return set_bytes(buf, MK_TYPE_BIN, data, size);
}

MkErrorE
MkBufferCopy(MkBufferC *buf, const MkBufferC *src)
{
    if (buf == src)
        return MK_OK;
    switch (src->type) {
    case MK_TYPE_STR:
    case MK_TYPE_BIN:
        return set_bytes(buf, src->type, src->data, src->size);
    case MK_TYPE_I8:
    case MK_TYPE_I16:
    case MK_TYPE_I32:
    case MK_TYPE_I64:
    case MK_TYPE_FLT:
    case MK_TYPE_DBL:
    case MK_TYPE_BOL:
        set_number(buf, src->type);
        buf->v = src->v;
        return MK_OK;
    default:
        MkBufferReset(buf);
        return MK_OK;
    }
}

/* ------------------------------------------------------------ checked gets */

static MkErrorE
get_int(MkBufferC *buf, MkTypeE want, MK_I64 *out)
{
    return mki_conv_int(buf, want, out, NULL);
}

MkErrorE
MkBufferGetI8(MkBufferC *buf, MK_I8 *out)
{
    MK_I64 v;
    if (get_int(buf, MK_TYPE_I8, &v) != MK_OK)
        return MK_ERROR;
    *out = (MK_I8)v;
    return MK_OK;
}

MkErrorE
MkBufferGetI16(MkBufferC *buf, MK_I16 *out)
{
    MK_I64 v;
    if (get_int(buf, MK_TYPE_I16, &v) != MK_OK)
        return MK_ERROR;
    *out = (MK_I16)v;
    return MK_OK;
}

MkErrorE
MkBufferGetI32(MkBufferC *buf, MK_I32 *out)
{
    MK_I64 v;
    if (get_int(buf, MK_TYPE_I32, &v) != MK_OK)
        return MK_ERROR;
    *out = (MK_I32)v;
    return MK_OK;
}

MkErrorE
MkBufferGetI64(MkBufferC *buf, MK_I64 *out)
{
    return get_int(buf, MK_TYPE_I64, out);
}

MkErrorE
MkBufferGetFLT(MkBufferC *buf, MK_FLT *out)
{
    return mki_conv_flt(buf, out, NULL);
}

MkErrorE
MkBufferGetDBL(MkBufferC *buf, MK_DBL *out)
{
    return mki_conv_dbl(buf, out, NULL);
}

MkErrorE
MkBufferGetBOL(MkBufferC *buf, MK_BOL *out)
{
    return mki_conv_bol(buf, out, NULL);
}

/* Numbers are rendered into buf->text, which only STR/BIN values use. */
MkErrorE
MkBufferGetSTR(MkBufferC *buf, const char **out)
{
    return mki_conv_str(buf, buf->text, out, NULL);
}

MkErrorE
MkBufferGetBIN(MkBufferC *buf, const void **data, size_t *size)
{
    return mki_conv_bin(buf, data, size, NULL);
}
