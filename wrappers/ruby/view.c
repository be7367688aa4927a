/* view.c — the view forms of a stream's and a list's borrowed reads
 * (MkBufferStreamC#ReadBUFR, MkBufferListC#IndexGetR): one MkBufferC per
 * stream or list, pointed at the value the C call lent, so that a value
 * passed on at once (BUST's SendBUF(bus.ReadBUFR())) costs no object and no
 * copy.  ReadBUF and IndexGet still return a new copy, safe to keep.
 *
 * The lent value lives in the stream's or list's memory (a stream's BIN
 * points into its data, which a write may move), so the view ends at the
 * next call of any method on its stream or list (the glue calls
 * mqrb_src_end first in each; the next view call repoints it), when a
 * CreateTLS empties it, and when it is freed (mqrb_src_forget).  An ended
 * view's methods raise.  Which view belongs to which stream is found by the
 * C address, not through a wrapper, because one C object may have more than
 * one wrapper (a CreateTLS object whose kept wrapper was replaced).
 *
 * A slot is taken over by whichever source hashes to it: the view it held
 * ends (its source's later calls find no view of theirs), so the table never
 * grows and no view outlives what it points at.  Marked with the keep list;
 * used with the GVL held. */
#include "runtime.h"

mqrb_view_slot mqrb_src_views[MQRB_SRC_VIEWS];

VALUE
mqrb_src_view_new(void *src, MkBufferC *buf)
{
    mqrb_view_slot *s = mqrb_src_slot(src);
    VALUE view = TypedData_Wrap_Struct(mqrb_cMkBufferC, &mqrb_MkBufferC_type, MQRB_SRC_ENDED);
    if (s->view && s->src != src)
        RTYPEDDATA_DATA(s->view) = MQRB_SRC_ENDED; /* another source's: its view ends */
    s->src = src;
    s->view = view;
    RTYPEDDATA_DATA(view) = (void *)((uintptr_t)buf | MQRB_SRC_VIEW);
    return view;
}

void
mqrb_src_forget(void *src)
{
    mqrb_view_slot *s = mqrb_src_slot(src);
    if (s->src != src)
        return;
    if (s->view)
        RTYPEDDATA_DATA(s->view) = MQRB_SRC_ENDED;
    s->src = NULL;
    s->view = 0; /* a later object at this address gets a view of its own */
}

void
mqrb_src_views_mark(void)
{
    for (int i = 0; i < MQRB_SRC_VIEWS; i++)
        if (mqrb_src_views[i].view)
            rb_gc_mark(mqrb_src_views[i].view);
}
