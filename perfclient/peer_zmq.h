/* peer_zmq.h — what the two halves of perfpeer-zmq share: the patterns it
 * measures and the server loop of each (peer_zmq_serve.c). */
#ifndef PEER_ZMQ_H
#define PEER_ZMQ_H

#include <stddef.h>

/* The ZeroMQ counterpart of a perfclient column. */
typedef enum peer_pattern {
    PEER_REQREP,   /* WAIT: REQ/REP, one round trip at a time */
    PEER_PUSHPULL, /* NOTHING, END: PUSH/PULL, acknowledged by a PUSH back */
    PEER_DEALER,   /* CALLBACK: DEALER/ROUTER, a window of calls in flight */
} peer_pattern;

/* Control messages of PUSH/PULL, told apart from the payloads (>= 2 bytes)
 * by their size: 1 byte asks for an acknowledgement, 0 bytes ends the
 * server.  REQ/REP and ROUTER end on 0 bytes too. */
#define PEER_SYNC_SIZE 1
#define PEER_END_SIZE 0

/* The server of pattern p in a forked process: binds its sockets to base
 * ("ipc://DIR/peer" or "tcp://127.0.0.1"), writes the endpoints the client
 * must connect to (one per line) to fd ready, closes it, and serves until the
 * end message; returns the exit status. */
int peer_serve(peer_pattern p, const char *base, int ready);

#endif
