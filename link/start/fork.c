/* fork.c — the --fork start mode.  The child closes the listening socket,
 * keeps the library's stop signals (stop.c: a signal ends its link in
 * order), and leaves when its instance is done, so it never returns into
 * the listener's accept loop.  Every page the child writes first costs a
 * fault and a copy: it writes as few as it can. */
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "start.h"

/* stdout and stderr, where they hold output.  Looking costs nothing;
 * fflush(NULL) would lock every stream, and in a forked instance each lock
 * written is a page copied.  Streams a service opens itself are its own to
 * close. */
static void
flush_std(void)
{
    if (__fpending(stdout))
        fflush(stdout);
    if (__fpending(stderr))
        fflush(stderr);
}

static MkErrorE
start(const mqi_listener *l, int fd)
{
    MqContextC *tmpl = l->tmpl;
    /* what the listener buffered leaves now, or both copies would write it */
    flush_std();
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
    close(l->lfd);
    /* The listener's cached streams stay: this process's copies of them are
     * its own, and freeing them would only copy their pages. */
    l->serve(tmpl, fd);
    /* The exit handlers and library destructors belong to the listener; in
     * this copy they would only touch (copy) its pages. */
    flush_std();
    _exit(0);
}

#define FORK MQI_START_ID('f', 'o', 'r', 'k')

static const mqi_option options[] = {
    {.name = "fork", .kind = MQI_OPT_FLAG, .help = "server: one forked process per connection",
     MQI_FIELD(start), .val = FORK},
    {.name = NULL},
};

const mqi_start_mode mqi_fork_start = {
    .id = FORK, .name = "fork", .start = start, .options = options,
};
