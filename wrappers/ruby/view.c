/* view.c — the view forms of a stream's and a list's borrowed reads
 * (MkBufferStreamC#ReadBUFR, MkBufferListC#IndexGetR): one MkBufferC per
 * stream or list, pointed at the value the C call lent, so that a value
 * passed on at once (BUST's SendBUF(bus.ReadBUFR())) costs no object and no
 * copy.  ReadBUF and IndexGet still return a new copy, safe to keep.
 *
 * The lent value lives in the stream's or list's memory (a stream's BIN
 * points into its data, which a write may move), so the view ends at the
 * next call of a method that may change its stream or list (the glue calls
 * mqrb_src_end first in each but the queries, ReadItemExists, ReadGetType,
 * Count and Size, whose C object is const; the next view call repoints
 * it), when a CreateTLS empties it, and when it is freed
 * (mqrb_src_forget).  An ended view's methods raise.  Which view belongs to which stream is found by the
 * C address, not through a wrapper, because one C object may have more than
 * one wrapper (a CreateTLS object whose kept wrapper was replaced).
 *
 * A new source takes the set's way used less lately (addr_cache.h): the
 * view it held ends (its source's later calls find no view of theirs), so
 * the table never grows and no view outlives what it points at.  Marked
 * with the keep list; used with the GVL held. */
#include "runtime.h"

mqrb_addr_set mqrb_src_views[1 << MQRB_SRC_VIEW_BITS];

VALUE
mqrb_src_view_new(void *src, MkBufferC *buf)
{
    VALUE view = TypedData_Wrap_Struct(mqrb_cMkBufferC, &mqrb_MkBufferC_type, MQRB_SRC_ENDED);
    VALUE out = mqrb_addr_put(mqrb_src_set(src), src, view);

    if (out)
        RTYPEDDATA_DATA(out) = MQRB_SRC_ENDED; /* another source's: its view ends */
    RTYPEDDATA_DATA(view) = (void *)((uintptr_t)buf | MQRB_SRC_VIEW);
    return view;
}

void
mqrb_src_forget(void *src)
{
    mqrb_addr_set *set = mqrb_src_set(src);
    mqrb_addr_way *w = mqrb_addr_find(set, src);

    if (!w)
        return;
    RTYPEDDATA_DATA(w->value) = MQRB_SRC_ENDED;
    mqrb_addr_drop(set, w); /* a later object at this address gets a view of its own */
}

void
mqrb_src_views_mark(void)
{
    mqrb_addr_mark(mqrb_src_views, MQRB_SRC_VIEW_BITS);
}
