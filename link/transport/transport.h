/* transport.h — how a link gets its socket.  Every transport plugs in
 * through one table of operations; after connect/accept all of them are a
 * stream socket, read and written the same way (conn.c). */
#ifndef MQ_TRANSPORT_H
#define MQ_TRANSPORT_H

#include "link_int.h"
#include "option.h"

typedef struct mqi_transport {
    enum mqi_tp tp;
    const char *scheme;
    /* Client side: a connected socket (pipe: and the started server's pid). */
    MkErrorE (*connect)(MqContextC *ctx, int *fd, pid_t *pid);
    /* Server side: a listening socket (NULL where there is none). */
    MkErrorE (*listen)(MqContextC *ctx, int *fd);
    /* Remove what listen left behind (a socket file); may be NULL. */
    void (*unlisten)(MqContextC *ctx);
    /* Socket options for a connected socket; may be NULL. */
    void (*tune)(int fd);
    /* A client's plain link sets tune's options at its first write after
     * the handshake instead of at connect (link.c), one system call less
     * for a link that ends without one.  For TCP_NODELAY: Nagle holds a
     * write back only while earlier data is unacknowledged, and the
     * server's answer to the preamble acknowledged the preamble. */
    int tune_at_first_write;
    /* At link creation, after the options: check them and build what every
     * link needs (TLS: cfg.secure); may be NULL. */
    MkErrorE (*prepare)(MqContextC *ctx);
    /* A new connection of ctx, before the preamble: secure it (the TLS
     * handshake, within timeout_ms) or leave it plain; the reason goes to
     * c's error.  May be NULL. */
    MkErrorE (*secure)(MqContextC *ctx, mqi_conn *c, MK_I64 timeout_ms);
    /* A client's link ends by asking the server to close first (_CLS). */
    int server_closes_first;
    /* An accepted socket inherits the listening socket's options (TCP on
     * Linux: the kernel clones the listener's socket): a listener sets
     * tune's options and the receive timeout there once, not once per
     * connection. */
    int accepted_inherit;
    /* A wait for input polls, then reads what came, instead of a read that
     * blocks until data or the socket's receive timeout (which is then not
     * set: one setsockopt less per link).  On a unix socket a blocked read
     * is woken each time the peer takes in what this side sent
     * (unix_write_space wakes every sleeper on the socket; poll's wake-up
     * is filtered by the events it waits for).  With client and server on
     * one CPU, a client waiting for its answer then preempts the server
     * that has just read its request, finds nothing and sleeps again: a
     * task-switch pair per message, measured with a Tcl server (1.9 client
     * sleeps per message instead of 1.0).  TCP wakes a writer only when it
     * had run out of room. */
    int wait_in_poll;
    /* The transport's own options (option.h), terminated by a row with name
     * NULL; NULL for none. */
    const mqi_option *options;
} mqi_transport;

extern const mqi_transport mqi_pipe_transport;
extern const mqi_transport mqi_uds_transport;
extern const mqi_transport mqi_tcp_transport;

/* The transport for ctx's configuration, NULL for none. */
const mqi_transport *mqi_transport_get(enum mqi_tp tp);
/* Every transport, in registration order, NULL-terminated. */
const mqi_transport *const *mqi_transports(void);

#endif
