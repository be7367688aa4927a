/* peer_zmq_serve.c — the server half of perfpeer-zmq: the smallest loop
 * each ZeroMQ pattern allows (receive, answer with the same bytes), the
 * counterpart of perfserver's NTHT/RDUL/ECUL services. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <zmq.h>

#include "peer_zmq.h"

/* Bind a new socket of type to base (a tcp port the kernel picks) and
 * append its endpoint to out. */
static void *
bind_one(void *ctx, int type, const char *base, const char *name, char *out, size_t cap)
{
    char ep[512];
    size_t len = sizeof ep;
    int zero = 0;
    void *s = zmq_socket(ctx, type);
    if (!s)
        return NULL;
    if (type == ZMQ_ROUTER) { /* the window bounds the queues, not a HWM that drops */
        zmq_setsockopt(s, ZMQ_SNDHWM, &zero, sizeof zero);
        zmq_setsockopt(s, ZMQ_RCVHWM, &zero, sizeof zero);
    }
    if (strncmp(base, "tcp:", 4) == 0)
        snprintf(ep, sizeof ep, "%s:*", base);
    else
        snprintf(ep, sizeof ep, "%s-%s", base, name);
    if (zmq_bind(s, ep) != 0 || zmq_getsockopt(s, ZMQ_LAST_ENDPOINT, ep, &len) != 0) {
        zmq_close(s);
        return NULL;
    }
    strncat(out, ep, cap - strlen(out) - 2);
    strcat(out, "\n");
    return s;
}

/* REQ/REP: every request is answered with itself; 0 bytes: answer, stop. */
static int
serve_rep(void *s)
{
    zmq_msg_t m;
    zmq_msg_init(&m);
    for (;;) {
        if (zmq_msg_recv(&m, s, 0) < 0)
            return 1;
        size_t size = zmq_msg_size(&m);
        if (zmq_msg_send(&m, s, 0) < 0)
            return 1;
        if (size == PEER_END_SIZE)
            return 0;
    }
}

/* PUSH/PULL: payloads are received and dropped, a sync message is
 * acknowledged on the second socket. */
static int
serve_pull(void *pull, void *ack)
{
    zmq_msg_t m;
    zmq_msg_init(&m);
    for (;;) {
        if (zmq_msg_recv(&m, pull, 0) < 0)
            return 1;
        size_t size = zmq_msg_size(&m);
        if (size == PEER_END_SIZE)
            return 0;
        if (size == PEER_SYNC_SIZE && zmq_send(ack, "A", 1, 0) != 1)
            return 1;
    }
}

/* ROUTER: the peer's identity frame, then the payload, both sent back. */
static int
serve_router(void *s)
{
    zmq_msg_t id, m;
    zmq_msg_init(&id);
    zmq_msg_init(&m);
    for (;;) {
        if (zmq_msg_recv(&id, s, 0) < 0 || zmq_msg_recv(&m, s, 0) < 0)
            return 1;
        if (zmq_msg_size(&m) == PEER_END_SIZE)
            return 0;
        if (zmq_msg_send(&id, s, ZMQ_SNDMORE) < 0 || zmq_msg_send(&m, s, 0) < 0)
            return 1;
    }
}

int
peer_serve(peer_pattern p, const char *base, int ready)
{
    char eps[1200] = "";
    int rc = 1;
    void *ctx = zmq_ctx_new(), *a = NULL, *b = NULL;
    switch (p) {
    case PEER_REQREP: a = bind_one(ctx, ZMQ_REP, base, "rep", eps, sizeof eps); break;
    case PEER_PUSHPULL:
        a = bind_one(ctx, ZMQ_PULL, base, "pull", eps, sizeof eps);
        b = a ? bind_one(ctx, ZMQ_PUSH, base, "ack", eps, sizeof eps) : NULL;
        break;
    case PEER_DEALER: a = bind_one(ctx, ZMQ_ROUTER, base, "router", eps, sizeof eps); break;
    }
    if (a && (p != PEER_PUSHPULL || b)) {
        if (write(ready, eps, strlen(eps)) == (ssize_t)strlen(eps)) {
            close(ready);
            ready = -1;
            rc = p == PEER_REQREP ? serve_rep(a) : p == PEER_PUSHPULL ? serve_pull(a, b)
                                                                       : serve_router(a);
        }
    }
    if (ready >= 0)
        close(ready);
    if (a)
        zmq_close(a);
    if (b)
        zmq_close(b);
    zmq_ctx_term(ctx);
    return rc;
}
