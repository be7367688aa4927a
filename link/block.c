/* block.c — the blocking hooks (MqSetBlockingHooks) and the hooks of the
 * library's own threads (MqSetThreadHooks).  Plain globals: they
 * are set once before any link exists and only read afterwards. */
#include "link_int.h"

MqBlockEnterF mqi_block_enter_fn;
MqBlockLeaveF mqi_block_leave_fn;

void
MqSetBlockingHooks(MqBlockEnterF enter, MqBlockLeaveF leave)
{
    mqi_block_enter_fn = enter && leave ? enter : NULL;
    mqi_block_leave_fn = enter && leave ? leave : NULL;
}

MqThreadHookF mqi_thread_start_fn;
MqThreadHookF mqi_thread_end_fn;

void
MqSetThreadHooks(MqThreadHookF start, MqThreadHookF end)
{
    mqi_thread_start_fn = start && end ? start : NULL;
    mqi_thread_end_fn = start && end ? end : NULL;
}
