/* block.c — the blocking hooks (MqSetBlockingCall, MqSetBlockingHooks), the
 * blocking sections that call them, and the hooks of the library's own
 * threads (MqSetThreadHooks).  Plain globals: they are set once before any
 * link exists and only read afterwards. */
#include <poll.h>

#include "link_int.h"

static MqBlockingCallF run_fn;
static MqBlockEnterF enter_fn;
static MqBlockLeaveF leave_fn;
static _Thread_local int stopped; /* the last section was interrupted */

void
MqSetBlockingCall(MqBlockingCallF run)
{
    run_fn = run;
}

void
MqSetBlockingHooks(MqBlockEnterF enter, MqBlockLeaveF leave)
{
    enter_fn = enter && leave ? enter : NULL;
    leave_fn = enter && leave ? leave : NULL;
}

/* fn as the runtime sees it: the result, errno and whether it ran stay here,
 * out of reach of whatever the runtime does after fn returns. */
typedef struct {
    MqBlockingFnF fn;
    void *arg;
    int ran, err;
} section;

static void *
trampoline(void *p)
{
    section *s = p;
    s->fn(s->arg);
    s->err = errno;
    s->ran = 1;
    return NULL;
}

int
mqi_block_run(MqBlockingFnF fn, void *arg)
{
    if (run_fn) {
        section s = {fn, arg, 0, EINTR};
        /* A runtime that returns 0 without running fn (against the contract
         * of MqSetBlockingCall) would have every caller retry at once, lock
         * held, for ever: a wait that did not happen ends as interrupted. */
        stopped = run_fn(trampoline, &s) != 0 || !s.ran;
        errno = s.err;
        return stopped;
    }
    /* no runtime's call, nothing stops a section: stopped (thread-local,
     * a __tls_get_addr call in a shared library) is not touched */
    void *token = enter_fn ? enter_fn() : NULL;
    fn(arg);
    if (leave_fn) {
        int e = errno;
        leave_fn(token);
        errno = e;
    }
    return 0;
}

int
mqi_block_stopped(void)
{
    return run_fn && stopped;
}

typedef struct {
    struct pollfd *p;
    nfds_t n;
    int timeout_ms, rc;
} poll_args;

static void *
poll_fn(void *p)
{
    poll_args *a = p;
    a->rc = poll(a->p, a->n, a->timeout_ms);
    return NULL;
}

int
mqi_block_poll(struct pollfd *p, unsigned long n, int timeout_ms)
{
    poll_args a = {p, (nfds_t)n, timeout_ms, -1};
    if (timeout_ms == 0)
        return poll(p, (nfds_t)n, 0);
    mqi_block_run(poll_fn, &a);
    return a.rc;
}

MqThreadHookF mqi_thread_start_fn;
MqThreadHookF mqi_thread_end_fn;

void
MqSetThreadHooks(MqThreadHookF start, MqThreadHookF end)
{
    mqi_thread_start_fn = start && end ? start : NULL;
    mqi_thread_end_fn = start && end ? end : NULL;
}
