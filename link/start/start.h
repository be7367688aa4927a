/* start.h — start modes: how a listening server runs the instance for one
 * accepted connection.  fork and spawn take ownership of fd; the thread
 * pool accepts its connections itself. */
#ifndef MQ_START_H
#define MQ_START_H

#include "link_int.h"
#include "transport/transport.h"

/* fork: the instance runs in a child process of the listener. */
MkErrorE mqi_start_fork(MqContextC *tmpl, int listen_fd, int fd);
/* thread: start the pool of threads that accept on lfd and run each
 * instance in this process (thread.c tells how the pool grows). */
MkErrorE mqi_start_thread_pool(MqContextC *tmpl, const mqi_transport *tp, int lfd);
/* Accept one connection on lfd and tune it for tp: the fd, or -1 with
 * errno (EINTR only when the listener was told to stop). */
int mqi_listen_accept(const mqi_transport *tp, int lfd);
/* Connections refused past --max-connections, for the log (listen.c). */
typedef struct mqi_refusals {
    MK_I64 logged_ms; /* when the last line went out, 0: never */
    unsigned long count; /* refused since */
} mqi_refusals;
/* Close fd, a connection past --max-connections with alive instances
 * running; logged at most once a second. */
void mqi_listen_refuse(MqContextC *tmpl, mqi_refusals *r, int fd, int alive);
/* spawn: fork+exec of this very program with `--socket N` appended. */
MkErrorE mqi_start_spawn(MqContextC *tmpl, int fd);
/* Read our own command line once, before any spawn. */
MkErrorE mqi_spawn_prepare(MqContextC *tmpl);

#endif
