/* thread.c — the --thread start mode: a pool of threads that each accept a
 * connection on the listening socket and serve its instance.
 *
 * One thread waits in accept, the acceptor.  A thread whose instance
 * ended takes the acceptor's place when it is free, or accepts beside it
 * when connections wait in the backlog (second()), and otherwise parks (at
 * most MAX_IDLE do; more end).  A thread that takes a connection
 * starts no other, so a stream of new parents is served by the threads
 * whose instances just ended, each taking the next connection from the
 * backlog without sleeping in accept, and no idle acceptor is woken for a
 * connection another thread takes.  (A pool that kept a spare acceptor and
 * let finished threads wait in accept too grew to ~13 threads under five
 * parent workers, and ~0.5 of its accepts per parent slept.)
 *
 * The pool grows only when the threads it has are all busy: a watcher
 * thread looks every TICK_MS while connections come or no thread is in
 * accept, and when a tick ends with no acceptor and no connection taken in
 * it, or SHORT_LOOKS ticks in a row end with no acceptor and connections
 * waiting in the backlog, it makes one (a parked thread, or a new one).
 * The backlog counts too because a thread
 * that takes the next connection whenever its own ends keeps connections
 * being taken in every tick: short links (a parent: handshake, the
 * client's close) were served by one thread one after another, each
 * waiting for its client's close before the next accept, under five
 * parent workers (~2 task switches per parent on each side instead of
 * ~1.4 and ~1.3 on uds, issue 16 point 4).  Such a stream makes one
 * acceptor every SHORT_LOOKS ticks, so the pool ends near the number of
 * links open at once (5-7 serving threads for five workers and
 * perfclient's main link).  A burst (a tick with none taken) grows
 * faster: each acceptor that finds more connections waiting when it takes
 * its own makes the next acceptor at once, so a burst of N connections has
 * N threads a tick after it came, not one a tick.  (Growing that fast on
 * a stream too made more threads than links, parked and woken over and
 * over: 0.2-0.25 futex waits per parent on TCP, 2 us more server CPU per
 * parent.)  A stream once grew the pool at every tick that ended short,
 * and a thread parked whenever it found an acceptor: the pool swung
 * between four and seven serving threads, a thread woken and parked again
 * at nearly every tick (0.9 of each a tick, ~0.03 futex calls per parent
 * after tick() was a sleep).  Nearly every one of those parks (229 of 230,
 * counted in a scratch build) came with connections waiting: the acceptor
 * was on its way (it had taken the place but not yet a connection, on one
 * CPU often preempted in between), so the thread parked for nothing and
 * the watcher woke it at the next look.  A thread that accepts beside the
 * acceptor then (to_accept), and growth on a stream only after SHORT_LOOKS
 * short looks in a row, made that 0.1-0.15 a tick, the pool at five to
 * seven serving threads (figures below).  Either alone did not: growth
 * after 8 short looks in a row, threads parking as before, left the pool
 * at two or three serving threads (parks for nothing still shrank it), 1.3-1.45
 * server task switches per parent instead of 1.2; nor did a pool that grew
 * only on a tick with none taken (1.6-2.0), nor one that did not grow on a
 * stream for 64 ticks after a park, nor one that stopped growing at the
 * number of serving threads where a growth had been followed by a park
 * (stuck at two: 1.5-1.7).  When a tick passes with an
 * acceptor and nothing taken, the watcher sleeps until the acceptor takes
 * a connection.
 *
 * Every instance is new (factory and server setup run each time); the
 * template is only read.  A thread's cached streams serve its next instance
 * too and are freed when the thread ends.  The pool's threads run the
 * runtime's thread hooks once each (start and end), the watcher none (it
 * runs no instance), nor the process's deadline keeper (link/keeper.c,
 * which keeps the waits' --idle-timeout and --frame-timeout).  A parked thread waits in a blocking section, so it
 * holds no runtime's lock.  All block SIGTERM/SIGINT, which go to the
 * listener's thread and end the process.
 *
 * What a pool thread still waits for per parent is its client's close
 * (uds: the end of file; tcp: its reset): the thread holds the link from accept
 * to close, as its instance's objects may belong to the thread (a Tcl
 * interpreter per pool thread).  That wait is where PARENT loses to its
 * floor (issue 16, point 4): perflimit --connect's server closes first and
 * takes the next connection without sleeping.  Measured on uds, five parent
 * workers, client and server on CPU 0 as the suite runs them, perf stat per
 * parent, 30 000 parents, medians of 7 alternated runs (load 9-12), server
 * + client: a scratch floor like limit-connect 11.1 + 16.1 us CPU (4 + 6
 * system calls, 0.77 + 1.40 task switches); the same floor whose server,
 * like a link, waits for its client's close (poll + read) before it closes
 * 15.8 + 16.0 us (6 + 5 calls, 1.51 + 1.82 switches); C PARENT 15.8 +
 * 17.8 us (5.2 + 6.0 calls, 1.14 + 1.07 switches; before the blocking read
 * below 16.7 + 18.1, 6.2 calls).  So by CPU C PARENT is 0.81 of the floor
 * and 0.94 of the floor that waits (rates in those runs: 0.75 and 0.93).
 * The server's wait costs ~4.7 us of kernel time (a sleep and a wake per
 * parent); user space is ~1.3 us a side (time -f: 0.06-0.08 s user, 0.6-0.7
 * s system per 50 000 parents).  The server makes 5 system calls per
 * parent: accept, the preamble's read, the answer's write, the read that
 * finds the client's close (a blocking read, event.c: kept_read_blocks;
 * it was poll + read), close.  User space runs ~2 860 instructions on the
 * server (instance, setup and its services, delete: callgrind, 1 500
 * parents against 500; the most: MqServiceCreate 310 for perfserver's
 * services, malloc and free 300, the loop 205, p's mutex 120) and ~2 660
 * on the client (malloc and free 290: its context and connection, the
 * options parsed 540; ~2 900 while its name and --file were on the heap,
 * link_int.h: mqi_config.text); the waiting floor's ~90 and ~260.  Once ~5 300
 * and ~4 100 (a context and a connection not from calloc, the listener's
 * strings borrowed, the option rows indexed, a fixed text for the peer's
 * close, the first services in the context), then ~3 490 and ~3 260 (a
 * slot armed and disarmed under its mutex, a connection's receive streams
 * zeroed in it, a context zeroed twice).  Per parent that user space is
 * ~1.1-1.7 us a side (perf stat user time, under load), what the link
 * costs beyond the waiting floor besides the pool's own futex calls:
 * 0.08-0.22 per parent, nearly all from the watcher's tick (perf record
 * of their call sites, 20 000 parents): almost every tick ends with all
 * threads serving and a connection waiting, so the watcher wakes a parked
 * thread, which parks again once a thread finishes while another accepts
 * (the pool swings between four and five serving threads under five
 * workers): per tick its timed wait, a wake on p's mutex, the signal, the
 * parked thread's wait and a wake on the mutex, 0.02 ticks per parent.
 * (Looking at the backlog with mu released did not change that: the
 * mutex's waiter was there before the watcher's poll.)  The tick is a
 * sleep now (tick()): per parent, uds, five workers, 30 000 parents, two
 * alternated runs (perf stat, CPU 0 to the measuring session at nice -20,
 * load 8-9): server futex calls 0.076 -> 0.044, system calls 5.11 -> 5.09,
 * CPU and task switches the same (15.7 us, 1.19).  And with to_accept and
 * SHORT_LOOKS (three alternated runs each, load 8-12): server futex calls
 * 0.105-0.118 (45ef831), 0.058-0.078 (the tick a sleep), 0.011-0.013;
 * server task switches 1.22-1.26, 1.22-1.23, 1.14-1.15, client 1.11-1.16
 * in all; system calls 5.14-5.16, 5.12-5.15, 5.14-5.15 (a poll where a
 * thread parked before); CPU within the runs' spread (server 15.7-18.0
 * us, 16.3-18.2 before).  On TCP (two runs each, load 16-18): server
 * futex calls 0.143-0.199, 0.099-0.103, 0.020-0.022; server CPU 22.0-23.2,
 * 21.3-22.8, 20.1-21.0 us; task switches 1.08-1.12 in all.
 *
 * The client's poll before it reads the handshake's answer is no loss to
 * the floor: the floor's client blocks in read, and a unix socket wakes a
 * blocked reader when its peer takes in what it sent (write space), here
 * the server's read of the handshake, before the answer is there.  A
 * scratch copy of limit-connect-wait in two processes (uds, five workers,
 * 30 000 parents, medians of 5 alternated runs, load 5-6): server + client
 * 32.8 us CPU and 1.8 + 2.1 task switches per parent with the read; 31.2
 * us and 1.3 + 1.6 with poll (90 s) and read; 34.7 us with SO_RCVTIMEO set
 * before connect and the read.  C PARENT made 1.1 + 1.05 switches and 5.1
 * + 6 system calls, its CPU within the runs' spread of the floor's.
 *
 * On TCP the server makes 5
 * and the client 7 system calls per parent, as the floor's: a parent's
 * client resets at once instead of sending _CLS (link.c).
 *
 * A poll with a timeout costs the kernel a high resolution timer, set and
 * cancelled per wait: two threads on one CPU passing 16 bytes back and
 * forth over a unix socket pair spend 9.2-9.5 us CPU per round trip
 * waiting with poll(-1), 10.2-10.5 with poll(300 s) (medians of 5, load
 * 4-7): ~0.5 us a wait.  So a pool thread's instance waits for its peer
 * limits (--idle-timeout, --frame-timeout) without a timeout, and the
 * process's keeper thread keeps those deadlines (link/keeper.c, which
 * keeps a client's wait for its handshake's answer too: one keeper, not
 * one in the watcher and one for the clients).  That keeper was first the
 * watcher's own: per parent, uds, five workers, 30 000 parents, 7
 * alternated runs (perf stat, load 3-6): server CPU 16.4 -> 15.8 us
 * (median), system calls the same (6.1), client 17.6 as before; WAIT
 * (100 000 calls, 5 alternated runs) 6.31 -> 6.22 us server CPU per call.
 * The suite's uds_thread C PARENT / floor, 3 alternated runs of the four
 * fork and thread modes (load 3.5-10, the floor itself 20 000 to
 * 42 000/s): 0.79 0.79 0.91 before, 0.72 0.83 0.78 after, within the
 * runs' spread.  A blocking read with SO_RCVTIMEO instead (a setsockopt
 * in place of the poll) saved nothing.
 *
 * Where PARENT's time goes against the waiting floor is CPU, not idle time
 * or others on CPU 0: perf record of sched_switch and sched_waking on CPU 0
 * over one suite-like run each (uds, five workers, both sides on CPU 0, the
 * measuring session's autogroup at nice -20 so the other sessions' builds
 * kept off CPU 0; per parent): CPU 0 idle 0 and other tasks 0.01 us (floor
 * 0.06); switches in 1.25 server + 1.17 client (floor 1.99 + 2.32); wake-ups
 * server -> client 1.00, client -> server 0.75, server -> server 0.02 (the
 * watcher and parked threads; floor 1.61 and 0.73, its client's read woken
 * by the server's read of the preamble too).  Untraced, /proc/stat saw no
 * idle tick on CPU 0 in 30 000 parents, so the rate is CPU 0's time per
 * parent: 29.8-30.3 us against the floor's 27.9-29.7.  The difference is the
 * link's user space (~2 900 + 2 660 instructions) and the client's poll.
 * The pool's one wait of its own shows at a test's start: perfclient's
 * main link takes the new pool's only acceptor and its first parent waits
 * for the watcher's tick, nothing of the link runnable meanwhile (1.6 and
 * 0.3 ms in a three-run test of 1.2 s: 0.05 us per parent).
 * (perf stat's task-clock of both sides sums to 0.94-0.95 of that time for
 * the link and 0.98-1.00 for the floor: such per-side CPU figures read the
 * link ~5 % cheaper than it is.)
 *
 * The read that waits for a parent's close blocks (event.c): the keeper's
 * shutdown ends it as it ends a poll.  Only the first wait after the
 * handshake: a blocked read on a unix socket wakes whenever the peer takes
 * in what this side sent, so every wait blocking made WAIT (100 000 calls,
 * 5 alternated runs, load 8-10) 1.34 task switches per call on each side
 * instead of 1.00 and the client's CPU 7.0 -> 7.95 us per call; the first
 * wait only: WAIT server 6.63 -> 6.55 us (the same), PARENT server 15.3
 * -> 14.9 and 15.8 -> 15.3 us CPU (9 and 11 alternated runs, load 7.5-12),
 * 6.1 -> 5.1 system calls, switches 1.07 -> 1.09, client the same.
 *
 * Reading before the first wait (in case the client closed already) found
 * nothing in 97% of parents: one system call more.  A thread that waits on the listening socket and on
 * every link idle since its handshake at once (epoll; the acceptor never
 * runs a service, link/start/thread_test.c holds that rule; branch
 * thread7-shared) cut the server's switches to 0.8-1.0 per parent, but
 * added an epoll_ctl per link and an epoll_wait per event (on one CPU each
 * close or connect wakes the waiting thread alone, so it batches little):
 * 6-7 calls per parent and no less server CPU, so it is not taken.  An
 * earlier scratch build that closed right after the handshake's answer
 * saved the poll and the read of the close, which a link cannot skip. */
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
