/* fork.c — the --fork start mode.  The child starts from a clean library
 * state: it closes the listening socket, forgets the listener's signal
 * handlers and this thread's cached streams, and leaves when its instance
 * is done, so it never returns into the listener's accept loop. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "start.h"

MkErrorE
mqi_start_fork(MqContextC *tmpl, int listen_fd, int fd)
{
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fd);
        return MkErrorSet(tmpl->err, MQ_ERR_SYSTEM, "fork failed: %s", strerror(e));
    }
    if (pid > 0) {
        close(fd);
        return MK_OK;
    }
    close(listen_fd);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    mki_tls_free_all();
    mqi_instance_serve(tmpl, fd);
    /* The exit handlers and library destructors belong to the listener; in
     * this copy they would only touch (copy) its pages. */
    fflush(NULL);
    _exit(0);
}
