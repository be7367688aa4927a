/* start.h — start modes: how a listening server runs the instance for one
 * accepted connection.  Each takes ownership of fd. */
#ifndef MQ_START_H
#define MQ_START_H

#include "link_int.h"

/* fork: the instance runs in a child process from a clean library state. */
MkErrorE mqi_start_fork(MqContextC *tmpl, int listen_fd, int fd);
/* thread: the instance runs in a new detached thread of this process. */
MkErrorE mqi_start_thread(MqContextC *tmpl, int fd);
/* spawn: fork+exec of this very program with `--socket N` appended. */
MkErrorE mqi_start_spawn(MqContextC *tmpl, int fd);
/* Read our own command line once, before any spawn. */
MkErrorE mqi_spawn_prepare(MqContextC *tmpl);

#endif
