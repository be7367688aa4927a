/* listen.c — a listening server: accept connections and start one instance
 * for each in the configured start mode (start/start.h: a mode with run,
 * --thread, accepts on its own), or, without a start mode, serve the first
 * connection in this context.  SIGINT, SIGTERM or SIGHUP end the listener in
 * order (stop.c): socket file removed, exit status 0.  Instances started with
 * --fork or --spawn are processes of their own: they go on serving their open
 * links until the client closes them or a signal reaches them too (Ctrl-C in
 * a terminal reaches the whole process group). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "start/start.h"
#include "transport/transport.h"

typedef struct {
    int lfd, fd;
} accept_args;

static void *
accept_fn(void *p)
{
    accept_args *a = p;
    a->fd = accept4(a->lfd, NULL, NULL, SOCK_CLOEXEC);
    return NULL;
}

static int
accept_one(int lfd)
{
    accept_args a = {lfd, -1};
    int arm = mqi_stop_owner(); /* the listener's thread, not a pool's */
    /* a stop signal may have come before the first accept (it is caught
     * from before listening): look first, or accept would wait for ever;
     * armed before the look, so that one coming after it ends the accept
     * (EINVAL: stop.c shut the socket down) */
    while (!(arm ? mqi_stop_arm(lfd) : mqi_stop_signal()) && !mqi_block_stopped()) {
        mqi_block_run(accept_fn, &a);
        if (arm)
            mqi_stop_disarm();
        if (a.fd >= 0 || errno != EINTR)
            return a.fd;
    }
    if (arm)
        mqi_stop_disarm();
    errno = EINTR;
    return -1;
}

static int
listen_accept(const mqi_listener *l)
{
    int fd = accept_one(l->lfd);
    if (fd >= 0 && l->tp->tune && !l->inherit)
        l->tp->tune(fd);
    return fd;
}

/* A start mode's listener: where accepted sockets inherit the listening
 * socket's options, they are set there once (two system calls less per
 * parent on TCP).  The receive timeout then also bounds the waits in
 * accept (EAGAIN): the --fork loop reaps at that pace, --thread's pool
 * accepts again.  Returns whether the options are in place. */
static int
tune_listener(MqContextC *ctx, const mqi_transport *tp, int lfd)
{
    if (!tp->accepted_inherit)
        return 0;
    if (tp->tune)
        tp->tune(lfd);
    ctx->cfg.accepted_rcvtimeo_ms = mqi_rcvtimeo_set(lfd, &ctx->cfg, 0);
    return 1;
}

/* A connection past --max-connections is accepted and closed at once
 * rather than left in the backlog: its client learns at once (the
 * handshake ends) instead of waiting out its timeout, and the backlog
 * stays free for the moment an instance ends.  A flood of connections
 * makes one log line a second, not one each. */
static void
refuse(MqContextC *tmpl, mqi_refusals *r, int fd, int alive)
{
    close(fd);
    r->count++;
    MK_I64 now = mqi_now_ms();
    if (r->logged_ms && now - r->logged_ms < 1000)
        return;
    mqi_log(tmpl, MK_LOG_WARN, "%lu connection%s refused: %d instances alive, the most "
            "--max-connections allows", r->count, r->count == 1 ? "" : "s", alive);
    r->logged_ms = now;
    r->count = 0;
}

/* Reap the instances that ended; returns how many are still alive. */
static int
reap(int alive)
{
    pid_t pid;
    while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
        alive--;
    if (pid < 0 && errno == ECHILD)
        return 0; /* none left (SIGCHLD ignored: the kernel reaped them) */
    return alive < 0 ? 0 : alive;
}

/* Close the listening socket and remove what listen left (a socket file). */
static void
stop_listening(MqContextC *ctx, const mqi_transport *tp, int lfd)
{
    close(lfd);
    if (tp->unlisten)
        tp->unlisten(ctx);
}

/* fork and spawn: this thread accepts and starts each instance.  accept
 * waits itself, at most half a second (the listening socket's receive
 * timeout; on TCP the instances' own, tune_listener), instead of poll +
 * accept: one system call less per parent.  The timeout reaps the
 * instances that ended while no connection comes; every accept reaps too,
 * so --max-connections counts only the living. */
static void
accept_loop(const mqi_listener *l, const mqi_start_mode *mode)
{
    MqContextC *ctx = l->tmpl;
    int alive = 0; /* instances started, not yet reaped */
    mqi_refusals refused = {0};
    struct timeval tv = {.tv_sec = 0, .tv_usec = 500 * 1000};
    int waits = ctx->cfg.accepted_rcvtimeo_ms > 0 || /* tune_listener's */
                setsockopt(l->lfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0;
    while (!mqi_stop_signal() && !mqi_block_stopped()) {
        if (!waits) { /* no timeout on accept: poll bounds the wait */
            struct pollfd p = {.fd = l->lfd, .events = POLLIN};
            if (mqi_block_poll(&p, 1, 500) <= 0) {
                alive = reap(alive);
                continue;
            }
        }
        int fd = l->accept(l);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                alive = reap(alive);
            continue;
        }
        alive = reap(alive); /* count the ones that ended up to now */
        if (alive >= ctx->cfg.max_connections)
            refuse(ctx, &refused, fd, alive);
        else if (mode->start(l, fd) != MK_OK)
            mqi_log(ctx, MK_LOG_ERROR, "%s", MqErrorGetText(ctx));
        else
            alive++;
    }
}

/* thread: the pool accepts; this thread only waits for the stop signal.
 * It waits on the listening socket for its shutdown only (POLLRDHUP: the
 * connections waiting there are the pool's), armed (stop.c), so a signal
 * that comes after the look ends the wait at once, and no tick is needed.
 * Should the socket report anything else, the wait goes on with the tick
 * alone (poll without the socket, at most 500 ms): it never spins.  So does
 * a listener whose signals another thread caught (not armed). */
static void
wait_for_stop(int lfd)
{
    struct pollfd p = {.fd = lfd, .events = POLLRDHUP};
    int arm = mqi_stop_owner(), n = arm; /* 0: the tick alone */
    while (!(arm ? mqi_stop_arm(lfd) : mqi_stop_signal()) && !mqi_block_stopped()) {
        if (mqi_block_poll(n ? &p : NULL, (unsigned long)n, n ? -1 : 500) > 0 &&
            !mqi_stop_signal())
            n = 0; /* not the stop's shutdown */
        if (arm)
            mqi_stop_disarm();
    }
    if (arm)
        mqi_stop_disarm();
}

/* The listener is done: stop listening and leave. */
static void
leave(MqContextC *ctx, const mqi_transport *tp, int lfd)
{
    stop_listening(ctx, tp, lfd);
    if (mqi_stop_signal())
        mqi_log(ctx, MK_LOG_INFO, "listener stopped by signal %d", (int)mqi_stop_signal());
    else
        mqi_log(ctx, MK_LOG_INFO, "listener stopped: its thread was interrupted");
    /* Instances may still run in other threads: leave the way the signal
     * would have (no exit handlers racing them), with the output flushed. */
    fflush(NULL);
    _exit(0);
}

/* Returns only when a mode that accepts on its own cannot start. */
static void
serve_forever(const mqi_listener *l, const mqi_start_mode *mode)
{
    MqContextC *ctx = l->tmpl;
    (void)MkLogGetLevel(); /* read the environment once, not in every instance */
    if (!mode->run)
        accept_loop(l, mode);
    else if (mode->run(l) != MK_OK) {
        ctx->cfg.accepted_rcvtimeo_ms = 0; /* the context goes on as it was */
        return;
    }
    else
        wait_for_stop(l->lfd);
    leave(ctx, l->tp, l->lfd);
}

MkErrorE
mqi_listen_serve(MqContextC *ctx)
{
    const mqi_transport *tp = mqi_transport_get(ctx->cfg.tp);
    const mqi_start_mode *mode = mqi_start_get(ctx->cfg.start);
    int lfd = -1;
    if (!tp || !tp->listen)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "LinkCreate: transport cannot listen");
    if (mode && mode->prepare && mode->prepare(ctx) != MK_OK)
        return MK_ERROR;
    /* Caught before the socket exists: a stop signal sent as soon as the
     * socket file appears must not find the default action (death, the
     * file left behind). */
    mqi_stop_catch();
    if (tp->listen(ctx, &lfd) != MK_OK) {
        mqi_stop_release();
        return MK_ERROR;
    }
    mqi_listener l = {.tmpl = ctx, .tp = tp, .lfd = lfd, .accept = listen_accept,
                      .serve = mqi_instance_serve, .refuse = refuse};
    if (mode) {
        l.inherit = tune_listener(ctx, tp, lfd);
        serve_forever(&l, mode);
        stop_listening(ctx, tp, lfd);
        return MK_ERROR;
    }
    int fd = listen_accept(&l);
    int e = errno;
    if (fd < 0 && mqi_stop_signal())
        leave(ctx, tp, lfd); /* stopped before the first client came */
    stop_listening(ctx, tp, lfd);
    if (fd < 0)
        return MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "LinkCreate: accept failed: %s", strerror(e));
    return mqi_server_attach(ctx, fd);
}
