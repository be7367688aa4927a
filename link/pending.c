/* pending.c — calls waiting for their answer, found by transaction id in
 * an idmap, and the free list of callback records. */
#include <stdlib.h>

#include "link_int.h"

MkErrorE
mqi_pend_add(mqi_pend_table *t, mqi_pending *p)
{
    return mqi_idmap_put(t, p->trans, p);
}

mqi_pending *
mqi_pend_take(mqi_pend_table *t, uint64_t trans)
{
    return mqi_idmap_take(t, trans);
}

void
mqi_pend_free(mqi_pend_table *t, void (*drop)(mqi_pending *))
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i].val)
            drop(t->slot[i].val);
    mqi_idmap_free(t);
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
