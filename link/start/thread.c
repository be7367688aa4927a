/* thread.c — the --thread start mode: a pool of threads that each accept a
 * connection on the listening socket and serve its instance.
 *
 * At least one thread always waits in accept: the thread that takes a
 * connection starts a new one when no other is left waiting.  A thread
 * whose instance ended goes back to accept unless MAX_IDLE others already
 * wait there, so a stream of new parents pays for creating threads once,
 * not once per parent, and the listener's own thread is not woken per
 * connection.  Every instance is new (factory and server setup run each
 * time); the template is only read.  A thread's cached streams serve its
 * next instance too and are freed when the thread ends.  The threads block
 * SIGTERM/SIGINT, which go to the listener's thread and end the process. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "start.h"

#ifdef MQ_HAVE_THREADS
#include <pthread.h>

#define MAX_IDLE 8

typedef struct pool {
    mqi_listener l;
    pthread_mutex_t mu;
    int idle; /* threads in accept, or about to be */
    int busy; /* threads serving an instance (--max-connections) */
    mqi_refusals refused;
} pool;

static int start_worker(pool *p);

/* The next connection, or -1 when the listening socket is gone. */
static int
next_connection(pool *p)
{
    for (;;) {
        int fd = p->l.accept(&p->l);
        if (fd >= 0)
            return fd;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            continue; /* the listening socket's receive timeout (listen.c) */
        /* EINTR: the listener was told to stop (start.h).  The thread ends
         * rather than sleep and look again: a runtime's pool thread holds
         * its interpreter lock outside blocking sections (Python), and the
         * listener's thread needs it to leave. */
        if (errno == EINTR || errno == EBADF || errno == EINVAL || errno == ENOTSOCK)
            return -1;
        /* out of descriptors or memory: wait instead of spinning */
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void *
worker(void *arg)
{
    pool *p = arg;
    int fd;
    if (mqi_thread_start_fn)
        mqi_thread_start_fn();
    while ((fd = next_connection(p)) >= 0) {
        pthread_mutex_lock(&p->mu);
        if (p->busy >= p->l.tmpl->cfg.max_connections) {
            p->l.refuse(p->l.tmpl, &p->refused, fd, p->busy); /* stays idle in accept */
            pthread_mutex_unlock(&p->mu);
            continue;
        }
        p->busy++;
        int last = --p->idle == 0;
        pthread_mutex_unlock(&p->mu);
        if (last && start_worker(p) != 0)
            mqi_log(p->l.tmpl, MK_LOG_ERROR, "cannot start a thread: %s", strerror(errno));
        p->l.serve(p->l.tmpl, fd);
        pthread_mutex_lock(&p->mu);
        p->busy--;
        int stay = p->idle < MAX_IDLE;
        p->idle += stay;
        pthread_mutex_unlock(&p->mu);
        if (!stay)
            break;
    }
    mki_tls_free_all();
    if (mqi_thread_end_fn)
        mqi_thread_end_fn();
    return NULL;
}

/* 0 or -1 with errno; the new thread is counted idle from the start. */
static int
start_worker(pool *p)
{
    pthread_t t;
    pthread_attr_t attr;
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_mutex_lock(&p->mu);
    p->idle++;
    pthread_mutex_unlock(&p->mu);
    pthread_sigmask(SIG_BLOCK, &stop, &old); /* inherited by the thread */
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int e = pthread_create(&t, &attr, worker, p);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e == 0)
        return 0;
    pthread_mutex_lock(&p->mu);
    p->idle--;
    pthread_mutex_unlock(&p->mu);
    errno = e;
    return -1;
}

/* Start the pool of threads that accept on l->lfd and run each instance
 * in this process. */
static MkErrorE
run(const mqi_listener *l)
{
    MqContextC *tmpl = l->tmpl;
    pool *p = malloc(sizeof *p); /* lives as long as the listener */
    if (!p)
        return MkErrorSet(tmpl->err, MK_ERR_MEMORY, "--thread: out of memory");
    *p = (pool){.l = *l};
    pthread_mutex_init(&p->mu, NULL);
    if (start_worker(p) != 0) {
        int e = errno;
        pthread_mutex_destroy(&p->mu);
        free(p);
        return MkErrorSet(tmpl->err, MQ_ERR_SYSTEM, "cannot start a thread: %s", strerror(e));
    }
    return MK_OK;
}
#else
static MkErrorE
run(const mqi_listener *l)
{
    return MkErrorSet(l->tmpl->err, MQ_ERR_OPTION, "--thread needs a build with threads");
}
#endif

#define THREAD MQI_START_ID('t', 'h', 'r', 'e')

static const mqi_option options[] = {
    {.name = "thread", .kind = MQI_OPT_FLAG, .help = "server: one thread per connection",
     MQI_FIELD(start), .val = THREAD,
#ifndef MQ_HAVE_THREADS
     .unavailable = "a build with threads",
#endif
    },
    {.name = NULL},
};

const mqi_start_mode mqi_thread_start = {
    .id = THREAD, .name = "thread", .run = run, .options = options,
};
