/* pending.c — calls waiting for their answer, found by transaction id.
 * Open addressing with linear probing; answers usually come in order, so
 * the table stays small and probes short. */
#include <stdlib.h>

#include "link_int.h"

static size_t
slot_of(const mqi_pend_table *t, uint64_t trans)
{
    /* Fibonacci hashing spreads consecutive ids over the table. */
    return (size_t)((trans * 0x9E3779B97F4A7C15ull) >> 20) & (t->cap - 1);
}

static MkErrorE
grow(mqi_pend_table *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    mqi_pending **old = t->slot;
    size_t ocap = t->cap;
    t->slot = calloc(ncap, sizeof *t->slot);
    if (!t->slot) {
        t->slot = old;
        return MK_ERROR;
    }
    t->cap = ncap;
    t->used = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i])
            mqi_pend_add(t, old[i]);
    free(old);
    return MK_OK;
}

MkErrorE
mqi_pend_add(mqi_pend_table *t, mqi_pending *p)
{
    if ((t->used + 1) * 2 > t->cap && grow(t) != MK_OK)
        return MK_ERROR;
    size_t i = slot_of(t, p->trans);
    while (t->slot[i])
        i = (i + 1) & (t->cap - 1);
    t->slot[i] = p;
    t->used++;
    return MK_OK;
}

mqi_pending *
mqi_pend_take(mqi_pend_table *t, uint64_t trans)
{
    if (!t->cap)
        return NULL;
    size_t i = slot_of(t, trans);
    while (t->slot[i] && t->slot[i]->trans != trans)
        i = (i + 1) & (t->cap - 1);
    mqi_pending *p = t->slot[i];
    if (!p)
        return NULL;
    t->slot[i] = NULL;
    t->used--;
    /* Backward-shift deletion keeps every probe chain unbroken. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & (t->cap - 1);
        mqi_pending *q = t->slot[j];
        if (!q)
            break;
        size_t home = slot_of(t, q->trans);
        if (((j - home) & (t->cap - 1)) >= ((j - i) & (t->cap - 1))) {
            t->slot[i] = q;
            t->slot[j] = NULL;
            i = j;
        }
    }
    return p;
}

void
mqi_pend_free(mqi_pend_table *t, void (*drop)(mqi_pending *))
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i])
            drop(t->slot[i]);
    free(t->slot);
    t->slot = NULL;
    t->cap = t->used = 0;
}

#define FREE_PEND_MAX 4096

mqi_pending *
mqi_pend_alloc(mqi_conn *c)
{
    mqi_pending *p = c->free_pend;
    if (p) {
        c->free_pend = p->next_free;
        c->nfree_pend--;
    } else if (!(p = malloc(sizeof *p))) {
        return NULL;
    }
    return p;
}

void
mqi_pend_release(mqi_conn *c, mqi_pending *p)
{
    if (c->nfree_pend < FREE_PEND_MAX) {
        p->next_free = c->free_pend;
        c->free_pend = p;
        c->nfree_pend++;
    } else {
        free(p);
    }
}
