/* transport.c — the registry of transports: adding one is one line here. */
#include "transport.h"

static const mqi_transport *const transports[] = {
    &mqi_pipe_transport,
    &mqi_uds_transport,
    &mqi_tcp_transport,
    NULL,
};

/* Looked up several times in every LinkCreate and LinkDelete (5 times per
 * parent on a client): a transport listed in the order of its id is found
 * at its place, without a search. */
const mqi_transport *
mqi_transport_get(enum mqi_tp tp)
{
    size_t n = sizeof transports / sizeof *transports - 1;
    if (tp > 0 && (size_t)tp <= n && transports[tp - 1]->tp == tp)
        return transports[tp - 1];
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
