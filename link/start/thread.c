/* thread.c — the --thread start mode: a pool of threads that each accept a
 * connection on the listening socket and serve its instance.
 *
 * One thread waits in accept, the acceptor.  A thread whose instance ended
 * takes the acceptor's place when it is free, accepts beside it when
 * connections wait in the backlog (to_accept(): the acceptor may have taken
 * its place but not yet a connection, often preempted in between on one
 * CPU), and otherwise parks (at most MAX_IDLE do; more end).  A thread that
 * takes a connection starts no other, so a stream of short links is served
 * by the threads whose links just ended, each taking the next connection
 * without sleeping in accept, and no idle acceptor is woken for a
 * connection another thread takes.  (A spare acceptor beside finished
 * threads in accept grew the pool to ~13 threads under five parent workers,
 * half its accepts sleeping.)
 *
 * The pool grows only when its threads are all busy.  A watcher thread
 * looks every TICK_MS while connections come or no thread is in accept
 * (a sleep, not a timed wait on its condition: that wait and its relock
 * were two futex calls a tick), and sleeps on watch_cv when a tick passes
 * with an acceptor and nothing taken.  It makes one acceptor (a parked
 * thread, or a new one) when a tick ends with no acceptor and none taken (a
 * burst: each acceptor that then finds more waiting makes the next at once,
 * so N connections have N threads within a tick), or when SHORT_LOOKS
 * ticks in a row end with no acceptor and connections waiting (a stream:
 * one thread taking connection after connection, each waiting for its
 * client's close, would serve them one by one).  Growing at every short
 * tick instead made more threads than links, parked and woken at nearly
 * every tick; growing only on a tick with none taken left a stream on one
 * or two threads.
 *
 * Every instance is new (factory and server setup run each time); the
 * template is only read.  A thread's cached streams serve its next instance
 * too and are freed when the thread ends.  The pool's threads run the
 * runtime's thread hooks once each (start and end); the watcher runs none
 * (it runs no instance), nor does the process's deadline keeper
 * (link/keeper.c: the waits' --idle-timeout and --frame-timeout, so that a
 * pool thread waits for its peer without a timer of its own: a poll with a
 * timeout costs the kernel a timer set and cancelled per wait).  A parked
 * thread waits in a blocking section, so it holds no runtime's lock.  All
 * block SIGTERM/SIGINT, which go to the listener's thread and end the
 * process.
 *
 * A pool thread holds its link from accept to close, as its instance's
 * objects may belong to the thread (a Tcl interpreter per pool thread), so
 * per parent it waits for its client's close (uds: the end of file; tcp:
 * its reset) with one blocking read (event.c: only the first wait after
 * the handshake blocks; every wait blocking woke WAIT's reader at each
 * write space too).  That wait is what the suite's PARENT floor does not
 * pay (perflimit --connect's server closes first and takes the next
 * connection without sleeping) and its waiting floor does; C PARENT is
 * close to the waiting floor (issue 16, point 4; the measurements are in
 * its notes).  Not taken, measured: a thread waiting on the listening
 * socket and every idle link at once (epoll: an epoll_ctl per link and an
 * epoll_wait per event, no less server CPU); a read before the first wait
 * (it found nothing in 97 % of parents); SO_RCVTIMEO instead of the keeper
 * (saved nothing). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "start.h"

#ifdef MQ_HAVE_THREADS
#include <pthread.h>

#define MAX_IDLE 8 /* parked threads kept */
#define TICK_MS 2  /* how long all threads may be busy before the pool grows */
#define SHORT_LOOKS 4 /* ticks in a row a stream finds the pool short before it grows */

typedef struct pool {
    mqi_listener l;
    pthread_mutex_t mu;
    pthread_cond_t parked_cv; /* parked threads wait for a wake token */
    pthread_cond_t watch_cv;  /* the watcher's sleep while nothing comes */
    int accepting;            /* acceptors, in accept or on their way: 0-2 (to_accept) */
    int busy;                 /* threads serving an instance (--max-connections) */
    int parked, wake;         /* parked threads, tokens given to them */
    int growing;              /* the watcher found all threads busy */
    int watcher_asleep;       /* nothing came: until the acceptor takes a connection */
    int stopped;              /* the listening socket is gone, or run failed */
    int abandoned;            /* run failed: the watcher frees the pool */
    unsigned long taken;      /* connections taken, for the watcher */
    mqi_refusals refused;
} pool;

static void *worker(void *arg);

static void
pool_free(pool *p)
{
    pthread_cond_destroy(&p->watch_cv);
    pthread_cond_destroy(&p->parked_cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* A detached thread running fn(p), with the stop signals blocked: 0 or -1
 * with errno. */
static int
start_thread(pool *p, void *(*fn)(void *))
{
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    return mqi_thread_detached(fn, p, &stop);
}

enum grow { GROW_NONE, GROW_WAKE, GROW_START };

/* Make an acceptor (mu held; it is counted as the acceptor already): give a
 * parked thread a wake token (GROW_WAKE), or GROW_START when none is
 * parked.  The caller does the rest with mu released (grow_finish): a
 * thread signalled with mu held wakes only to wait for mu, and on one CPU
 * it preempts the signaller first (~0.1 task switches per parent more). */
static enum grow
grow_locked(pool *p)
{
    p->accepting++;
    if (p->parked > p->wake) {
        p->wake++;
        return GROW_WAKE;
    }
    return GROW_START;
}

/* Wake the parked thread or start the new one grow_locked asked for (mu
 * not held). */
static void
grow_finish(pool *p, enum grow how)
{
    if (how == GROW_WAKE)
        pthread_cond_signal(&p->parked_cv);
    if (how != GROW_START || start_thread(p, worker) == 0)
        return;
    mqi_log(p->l.tmpl, MK_LOG_ERROR, "cannot start a thread: %s", strerror(errno));
    pthread_mutex_lock(&p->mu);
    p->accepting--;
    pthread_mutex_unlock(&p->mu);
}

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

/* Whether connections wait in the listening socket's backlog. */
static int
waiting(const pool *p)
{
    struct pollfd more = {.fd = p->l.lfd, .events = POLLIN};
    return poll(&more, 1, 0) > 0;
}

/* While the pool grows, the thread that took the last acceptor's place
 * makes the next acceptor when more connections wait (poll, a system
 * call, with mu released). */
static void
grow_more(pool *p)
{
    int more = waiting(p);
    enum grow how = GROW_NONE;
    pthread_mutex_lock(&p->mu);
    if (p->accepting == 0 && p->growing) {
        if (more)
            how = grow_locked(p);
        else
            p->growing = 0;
    }
    pthread_mutex_unlock(&p->mu);
    grow_finish(p, how);
}

/* The acceptor took fd: 1 when it is to serve it (the acceptor's place is
 * free then), 0 when it was refused (past --max-connections; the thread
 * stays the acceptor). */
static int
take(pool *p, int fd)
{
    pthread_mutex_lock(&p->mu);
    p->taken++;
    if (p->busy >= p->l.tmpl->cfg.max_connections) {
        p->l.refuse(p->l.tmpl, &p->refused, fd, p->busy);
        pthread_mutex_unlock(&p->mu);
        return 0;
    }
    p->busy++;
    p->accepting--;
    int look = p->accepting == 0 && p->growing;
    int wake_watcher = p->accepting == 0 && p->watcher_asleep;
    if (wake_watcher)
        p->watcher_asleep = 0;
    pthread_mutex_unlock(&p->mu);
    if (wake_watcher)
        pthread_cond_signal(&p->watch_cv);
    if (look)
        grow_more(p);
    return 1;
}

typedef struct {
    pool *p;
    int woken;
} park_args;

/* Wait for a wake token (a blocking section: mu taken and left inside, so
 * no thread ever waits for mu while it holds a runtime's lock). */
static void *
park_fn(void *arg)
{
    park_args *a = arg;
    pool *p = a->p;
    pthread_mutex_lock(&p->mu);
    while (p->wake == 0)
        pthread_cond_wait(&p->parked_cv, &p->mu);
    p->wake--;
    p->parked--;
    a->woken = 1;
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Whether a thread whose instance ended accepts now (mu held; counted as
 * an acceptor then): in the acceptor's place when it is free, or beside the
 * acceptor when connections wait in the backlog.  The acceptor may be on
 * its way still, its connection not yet taken (on one CPU often preempted
 * in between): a thread that parked then was woken at the watcher's next
 * look.  At most two accept, so when the other took what the poll saw, the
 * one that waits in accept is the only one. */
static int
to_accept(pool *p)
{
    if (p->stopped || p->accepting > 1)
        return 0;
    if (p->accepting == 1) {
        pthread_mutex_unlock(&p->mu);
        int more = waiting(p);
        pthread_mutex_lock(&p->mu);
        if (p->stopped || p->accepting > 1 || (p->accepting == 1 && !more))
            return 0;
    }
    p->accepting++;
    return 1;
}

/* The thread's instance ended: 1 when it is an acceptor now (at once, or
 * woken from parking), 0 when it is to end. */
static int
finish(pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->busy--;
    if (to_accept(p)) {
        pthread_mutex_unlock(&p->mu);
        return 1;
    }
    if (p->parked >= MAX_IDLE || p->stopped) {
        pthread_mutex_unlock(&p->mu);
        return 0;
    }
    p->parked++;
    pthread_mutex_unlock(&p->mu);
    park_args a = {p, 0};
    mqi_block_run(park_fn, &a);
    if (a.woken)
        return 1;
    pthread_mutex_lock(&p->mu); /* the runtime interrupted the wait: end */
    p->parked--;
    if (p->wake > p->parked) { /* a token given for it: its acceptor is none */
        p->wake--;
        p->accepting--;
    }
    pthread_mutex_unlock(&p->mu);
    return 0;
}

static void *
worker(void *arg)
{
    pool *p = arg;
    mqi_thread_name("mqlink-pool");
    mqi_keeper_set(mqi_thread_keeper()); /* NULL: the waits keep their own */
    if (mqi_thread_start_fn)
        mqi_thread_start_fn();
    for (;;) {
        int fd = next_connection(p);
        if (fd < 0) {
            pthread_mutex_lock(&p->mu);
            p->accepting--;
            p->stopped = 1;
            pthread_mutex_unlock(&p->mu);
            break;
        }
        if (!take(p, fd))
            continue;
        p->l.serve(p->l.tmpl, fd);
        if (!finish(p))
            break;
    }
    /* the runtime's end first: ending its objects (a Tcl interpreter's,
     * a Python thread state's) may run code that uses the thread's
     * CreateTLS objects */
    if (mqi_thread_end_fn)
        mqi_thread_end_fn();
    mki_tls_free_all();
    mqi_keeper_set(NULL);
    return NULL;
}

/* Sleep TICK_MS.  A sleep, not a timed wait on watch_cv: that wait cost two
 * futex calls a tick (the wait, and the wake that unlocking mu makes after
 * it, as glibc relocks a waiter's mutex as contended), ~0.03 per parent
 * under five parent workers; run's failure is seen a tick later. */
static void
tick(void)
{
    struct timespec t = {0, TICK_MS * 1000L * 1000L};
    nanosleep(&t, NULL); /* EINTR: the pool's threads block the signals */
}

/* The watcher's look at the end of a tick with connections taken or an
 * acceptor (mu held): 1 when every thread is busy (make an acceptor).
 * *looks counts the ticks in a row that ended with no acceptor and
 * connections waiting while others were taken: a stream's connection may
 * wait for the thread that ends its instance next, and growing at the
 * first such look woke a thread that soon parked again (the header). */
static int
short_of_threads(pool *p, int idle, int *looks)
{
    if (p->accepting > 0 || (!idle && !waiting(p))) {
        *looks = 0;
        return 0; /* an acceptor, or every connection that came is taken */
    }
    if (!idle && ++*looks < SHORT_LOOKS)
        return 0;
    *looks = 0;
    return 1;
}

/* Looks every TICK_MS while connections come or no thread is in accept: a
 * tick that ends with no acceptor and no connection taken in it, or
 * SHORT_LOOKS in a row with none and some waiting, means every thread is
 * busy (make an acceptor); one with an acceptor and no connection taken,
 * that none come (sleep until the acceptor takes one).  One poll a tick,
 * none a parent. */
static void *
watcher(void *arg)
{
    pool *p = arg;
    int looks = 0; /* short_of_threads */
    mqi_thread_name("mqlink-watcher");
    pthread_mutex_lock(&p->mu);
    while (!p->stopped) {
        unsigned long seen = p->taken;
        pthread_mutex_unlock(&p->mu);
        tick();
        pthread_mutex_lock(&p->mu);
        int idle = p->taken == seen; /* no connection taken in the tick */
        if (p->stopped)
            continue;
        if (p->accepting > 0 && idle) { /* nothing comes: sleep until something does */
            p->watcher_asleep = 1;
            while (p->watcher_asleep && !p->stopped)
                pthread_cond_wait(&p->watch_cv, &p->mu);
            looks = 0;
            continue;
        }
        if (!short_of_threads(p, idle, &looks))
            continue;
        if (idle) /* a burst: each acceptor makes the next (take) */
            p->growing = 1;
        enum grow how = grow_locked(p);
        pthread_mutex_unlock(&p->mu);
        grow_finish(p, how);
        pthread_mutex_lock(&p->mu);
    }
    int last = p->abandoned; /* run failed: no other thread has p */
    pthread_mutex_unlock(&p->mu);
    if (last)
        pool_free(p);
    return NULL;
}

/* Start the watcher and the first acceptor.  The pool lives as long as the
 * listener: its threads end with the process. */
static MkErrorE
run(const mqi_listener *l)
{
    MqContextC *tmpl = l->tmpl;
    pool *p = malloc(sizeof *p);
    if (!p)
        return MkErrorSet(tmpl->err, MK_ERR_MEMORY, "--thread: out of memory");
    *p = (pool){.l = *l, .accepting = 1}; /* the first acceptor, counted */
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->parked_cv, NULL);
    pthread_cond_init(&p->watch_cv, NULL);
    if (start_thread(p, watcher) != 0) {
        int e = errno;
        pool_free(p);
        return MkErrorSet(tmpl->err, MQ_ERR_SYSTEM, "cannot start a thread: %s", strerror(e));
    }
    if (start_thread(p, worker) == 0)
        return MK_OK;
    int e = errno;
    pthread_mutex_lock(&p->mu); /* the watcher ends and frees p */
    p->stopped = p->abandoned = 1;
    pthread_cond_signal(&p->watch_cv);
    pthread_mutex_unlock(&p->mu);
    return MkErrorSet(tmpl->err, MQ_ERR_SYSTEM, "cannot start a thread: %s", strerror(e));
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
