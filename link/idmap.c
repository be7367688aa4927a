/* idmap.c — a table from 64-bit ids to pointers: the calls waiting for
 * their answers (by transaction) and the child contexts of a connection (by
 * child id).  Those ids come from the peer, so they only ever key the
 * table: its size follows the number of entries, never an id's value.
 * Open addressing with linear probing and backward-shift deletion; answers
 * usually come in order, so the table stays small and probes short. */
#include <stdlib.h>

#include "link_int.h"

#define IDMAP_MIN_CAP 16 /* 256 bytes: inside the allocator's thread cache */

static size_t
slot_of(const mqi_idmap *m, uint64_t id)
{
    /* Fibonacci hashing spreads consecutive ids over the table. */
    return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
}

static void
insert(mqi_idmap *m, uint64_t id, void *val)
{
    size_t i = slot_of(m, id);
    while (m->slot[i].val)
        i = (i + 1) & (m->cap - 1);
    m->slot[i].id = id;
    m->slot[i].val = val;
    m->used++;
}

/* On failure the table is left as it was, every pointer valid. */
static MkErrorE
grow(mqi_idmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : IDMAP_MIN_CAP;
    mqi_idmap_slot *old = m->slot, *fresh = calloc(ncap, sizeof *fresh);
    size_t ocap = m->cap;
    if (!fresh)
        return MK_ERROR;
    m->slot = fresh;
    m->cap = ncap;
    m->used = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].val)
            insert(m, old[i].id, old[i].val);
    free(old);
    return MK_OK;
}

MkErrorE
mqi_idmap_put(mqi_idmap *m, uint64_t id, void *val)
{
    if ((m->used + 1) * 2 > m->cap && grow(m) != MK_OK)
        return MK_ERROR;
    insert(m, id, val);
    return MK_OK;
}

static size_t
find(const mqi_idmap *m, uint64_t id)
{
    size_t i = slot_of(m, id);
    while (m->slot[i].val && m->slot[i].id != id)
        i = (i + 1) & (m->cap - 1);
    return i;
}

void *
mqi_idmap_get(const mqi_idmap *m, uint64_t id)
{
    return m->cap ? m->slot[find(m, id)].val : NULL;
}

void *
mqi_idmap_take(mqi_idmap *m, uint64_t id)
{
    if (!m->cap)
        return NULL;
    size_t i = find(m, id);
    void *val = m->slot[i].val;
    if (!val)
        return NULL;
    m->slot[i].val = NULL;
    m->used--;
    /* Backward-shift deletion keeps every probe chain unbroken. */
    for (size_t j = i;;) {
        j = (j + 1) & (m->cap - 1);
        if (!m->slot[j].val)
            break;
        size_t home = slot_of(m, m->slot[j].id);
        if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
            m->slot[i] = m->slot[j];
            m->slot[j].val = NULL;
            i = j;
        }
    }
    return val;
}

void
mqi_idmap_free(mqi_idmap *m)
{
    free(m->slot);
    m->slot = NULL;
    m->cap = m->used = 0;
}
