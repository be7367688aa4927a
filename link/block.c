/* block.c — the blocking hooks (MqSetBlockingHooks).  Plain globals: they
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
