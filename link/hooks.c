/* hooks.c — the registry of the layers that hook into the core (link_int.h,
 * mqi_hooks): adding one is one line here. */
#include "link_int.h"

extern const mqi_hooks mqi_persist_hooks;

const mqi_hooks *const mqi_hooks_registered[] = {
    &mqi_persist_hooks,
    NULL,
};
