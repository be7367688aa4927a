/* list.c — MkBufferListC: an array of owned MkBufferC.  Reset keeps every
 * buffer (and its heap block) allocated, so refilling a list in a loop
 * allocates nothing after the first round.  Slots past cap are never
 * touched; slots in [size, cap) are either NULL or a kept buffer. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mk_internal.h"

MkBufferListC *
MkBufferListCreate(void)
{
    MkBufferListC *bfl = calloc(1, sizeof *bfl);
    if (bfl == NULL)
        MkErrorSet(NULL, MK_ERR_MEMORY, "out of memory creating a buffer list");
    return bfl;
}

static void
destroy(void *p)
{
    MkBufferListC *bfl = p;
    for (MK_I32 i = 0; i < bfl->cap; i++)
        MkBufferDelete(bfl->items[i]);
    free(bfl->items);
    free(bfl);
}

MkBufferListC *
MkBufferListCreateTLS(const char *name)
{
    if (name == NULL)
        name = "";
    MkBufferListC *bfl = mki_tls_find(MKI_TLS_LIST, name);
    if (bfl != NULL) {
        MkBufferListReset(bfl);
        return bfl;
    }
    if ((bfl = MkBufferListCreate()) == NULL)
        return NULL;
    bfl->tls = 1;
    if (mki_tls_add(MKI_TLS_LIST, name, bfl, destroy) != MK_OK) {
        destroy(bfl);
        return NULL;
    }
    return bfl;
}

void
MkBufferListDelete(MkBufferListC *bfl)
{
    if (bfl == NULL || bfl->tls)
        return;
    destroy(bfl);
}

void
MkBufferListReset(MkBufferListC *bfl)
{
    bfl->size = 0;
}

MK_I32
MkBufferListSize(const MkBufferListC *bfl)
{
    return bfl->size;
}

MkBufferC *
MkBufferListIndexGet(MkBufferListC *bfl, MK_I32 i)
{
    if (i < 0 || i >= bfl->size) {
        MkErrorSet(NULL, MK_ERR_RANGE, "index %d out of range (list size %d)", i, bfl->size);
        return NULL;
    }
    return bfl->items[i];
}

static MkErrorE
grow(MkBufferListC *bfl)
{
    size_t cap = (size_t)bfl->cap;
    if (bfl->cap == INT32_MAX)
        return MkErrorSet(NULL, MK_ERR_MEMORY, "buffer list holds too many values");
    MkBufferC **items = mki_grow(bfl->items, &cap, cap + 1, sizeof *items);
    if (items == NULL)
        return MkErrorSet(NULL, MK_ERR_MEMORY, "out of memory growing a buffer list");
    if (cap > INT32_MAX)
        cap = INT32_MAX;
    memset(items + bfl->cap, 0, (cap - (size_t)bfl->cap) * sizeof *items);
    bfl->items = items;
    bfl->cap = (MK_I32)cap;
    return MK_OK;
}

/* The buffer for the next value, kept from before a Reset when there is
 * one; size grows only once the value is stored (see commit). */
static MkBufferC *
next_slot(MkBufferListC *bfl)
{
    if (bfl->size == bfl->cap && grow(bfl) != MK_OK)
        return NULL;
    if (bfl->items[bfl->size] == NULL)
        bfl->items[bfl->size] = MkBufferCreate();
    return bfl->items[bfl->size];
}

static MkErrorE
commit(MkBufferListC *bfl, MkErrorE rc)
{
    if (rc == MK_OK)
        bfl->size++;
    return rc;
}

MkErrorE
MkBufferListAppendI8(MkBufferListC *bfl, MK_I8 v)
{
    MkBufferC *b = next_slot(bfl);
    if (b == NULL)
        return MK_ERROR;
    MkBufferSetI8(b, v);
    return commit(bfl, MK_OK);
}

MkErrorE
MkBufferListAppendI16(MkBufferListC *bfl, MK_I16 v)
{
    MkBufferC *b = next_slot(bfl);
    if (b == NULL)
        return MK_ERROR;
    MkBufferSetI16(b, v);
    return commit(bfl, MK_OK);
}

MkErrorE
MkBufferListAppendI32(MkBufferListC *bfl, MK_I32 v)
{
    MkBufferC *b = next_slot(bfl);
    if (b == NULL)
        return MK_ERROR;
    MkBufferSetI32(b, v);
    return commit(bfl, MK_OK);
}

MkErrorE
MkBufferListAppendI64(MkBufferListC *bfl, MK_I64 v)
{
    MkBufferC *b = next_slot(bfl);
    if (b == NULL)
        return MK_ERROR;
    MkBufferSetI64(b, v);
    return commit(bfl, MK_OK);
}

MkErrorE
MkBufferListAppendFLT(MkBufferListC *bfl, MK_FLT v)
{
    MkBufferC *b = next_slot(bfl);
    if (b == NULL)
        return MK_ERROR;
    MkBufferSetFLT(b, v);
    return commit(bfl, MK_OK);
}

MkErrorE
MkBufferListAppendDBL(MkBufferListC *bfl, MK_DBL v)
{
    MkBufferC *b = next_slot(bfl);
    if (b == NULL)
        return MK_ERROR;
    MkBufferSetDBL(b, v);
    return commit(bfl, MK_OK);
}

MkErrorE
MkBufferListAppendBOL(MkBufferListC *bfl, MK_BOL v)
{
    MkBufferC *b = next_slot(bfl);
    if (b == NULL)
        return MK_ERROR;
    MkBufferSetBOL(b, v);
    return commit(bfl, MK_OK);
}

MkErrorE
MkBufferListAppendSTR(MkBufferListC *bfl, const char *s)
{
    MkBufferC *b = next_slot(bfl);
    if (b == NULL)
        return MK_ERROR;
    return commit(bfl, MkBufferSetSTR(b, s));
}

MkErrorE
MkBufferListAppendBIN(MkBufferListC *bfl, const void *data, size_t size)
{
    MkBufferC *b = next_slot(bfl);
    if (b == NULL)
        return MK_ERROR;
    return commit(bfl, MkBufferSetBIN(b, data, size));
}

MkErrorE
MkBufferListAppendBUF(MkBufferListC *bfl, const MkBufferC *buf)
{
    MkBufferC *b = next_slot(bfl);
    if (b == NULL)
        return MK_ERROR;
    return commit(bfl, MkBufferCopy(b, buf));
}
