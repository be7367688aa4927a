/* transport.c — the registry of transports: adding one is one line here. */
#include "transport.h"

static const mqi_transport *const transports[] = {
    &mqi_pipe_transport,
    &mqi_uds_transport,
    &mqi_tcp_transport,
    NULL,
};

const mqi_transport *
mqi_transport_get(enum mqi_tp tp)
{
    for (size_t i = 0; transports[i]; i++)
        if (transports[i]->tp == tp)
            return transports[i];
    return NULL;
}

const mqi_transport *const *
mqi_transports(void)
{
    return transports;
}
