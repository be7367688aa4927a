/* start.c — the registry of start modes: adding one is one line here. */
#include "start.h"

static const mqi_start_mode *const modes[] = {
    &mqi_fork_start,
    &mqi_thread_start,
    &mqi_spawn_start,
    NULL,
};

const mqi_start_mode *
mqi_start_get(int id)
{
    for (size_t i = 0; id && modes[i]; i++)
        if (modes[i]->id == id)
            return modes[i];
    return NULL;
}

const mqi_start_mode *const *
mqi_start_modes(void)
{
    return modes;
}
