/* keeper.c — the process's one keeper of deadlines: a thread that ends a
 * wait whose deadline passed, so that the wait itself is a read or poll
 * with no timeout of its own.  A wait with a timeout costs the kernel a
 * high resolution timer set and cancelled per wait (link/start/thread.c
 * has the figures).  Two kinds of wait use it, each thread through its
 * one slot (mqi_thread_keeper):
 *
 * - a --thread pool thread's instance waiting for its peer limits
 *   (--idle-timeout, --frame-timeout; event.c, mqi_keeper_set);
 * - a uds/pipe client's wait for its handshake's answer (conn.c), which
 *   polled with the handshake's timeout and then read.  A blocking read
 *   instead, the deadline kept here, saves the poll: uds, five parent
 *   workers, client and server on CPU 0, 30 000 parents, 3 alternated
 *   runs each (load 1.3-2, the measuring session's autogroup at nice
 *   -20): 30.55 30.52 29.95 -> 29.49 29.93 28.91 us of CPU 0 per parent
 *   (link/start/thread.c has why PARENT's gap to its floor is CPU).  A
 *   receive timeout on the socket (SO_RCVTIMEO) instead costs a
 *   setsockopt per link, as much as the poll saved: 31.85 30.68 29.54.
 *
 * A slot is armed with the socket and the deadline before the wait and
 * disarmed after it with one atomic operation each.  The keeper sleeps
 * until the soonest deadline and is woken only when an armed slot makes
 * that sooner, so under a stream of parents with one timeout once per
 * timeout.  A deadline that passes shuts the socket's reading side down:
 * the wait ends with the end of file and disarm says the deadline passed.
 * The keeper looks at an armed slot with mu held and the slot's state
 * SLOT_LOOKED, so a disarm that finds it looked at takes mu and waits: the
 * keeper never shuts down a socket the link closed (whose number may be
 * another link's by then).
 *
 * The --thread pool's watcher kept its threads' deadlines itself before;
 * one keeper for both costs a --thread server one more thread, no wake-up
 * per parent (the deadlines of a stream come later than the one kept).
 *
 * It starts with the first slot; a process that cannot start it (or a
 * build without threads) keeps its waits' own timeouts.  A forked child has no
 * keeper thread: it starts its own at its first wait (pthread_atfork), the
 * slots of the parent's other threads forgotten.  The thread blocks every
 * signal and runs no runtime code. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "link_int.h"

#ifdef MQ_HAVE_THREADS
#include <pthread.h>

enum { SLOT_IDLE, SLOT_ARMED, SLOT_LOOKED, SLOT_FIRED };

typedef struct kslot {
    mqi_keeper k; /* first: the waits' view */
    int state;    /* SLOT_*, atomic */
    int fd;       /* waited on, while armed */
    MK_I64 deadline;
    unsigned gen;       /* the keeper's generation it is listed in */
    struct kslot *next; /* in K.slots, under K.mu */
} kslot;

enum { KEEPER_NONE, KEEPER_RUNS, KEEPER_FAILED };

/* The process's keeper.  A forked child starts a new generation: its
 * thread's slot is listed again, the others' are not its own. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* the keeper's sleep */
    kslot *slots;
    MK_I64 keep_at; /* look at the slots then, -1: none (atomic) */
    unsigned gen;
    int state; /* KEEPER_* (atomic) */
} K = {.mu = PTHREAD_MUTEX_INITIALIZER, .keep_at = -1};

static pthread_key_t slot_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* End the waits whose deadline passed and set keep_at to the next one;
 * keep_at is -1 while the slots are looked at, so that a wait armed
 * meanwhile lowers it again (mu held). */
static void
keep(void)
{
    MK_I64 now = mqi_now_ms(), next = -1;
    __atomic_store_n(&K.keep_at, -1, __ATOMIC_RELEASE);
    for (kslot *s = K.slots; s; s = s->next) {
        int was = SLOT_ARMED;
        if (!__atomic_compare_exchange_n(&s->state, &was, SLOT_LOOKED, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue;
        int fire = s->deadline <= now;
        if (fire)
            shutdown(s->fd, SHUT_RD);
        else if (next < 0 || s->deadline < next)
            next = s->deadline;
        __atomic_store_n(&s->state, fire ? SLOT_FIRED : SLOT_ARMED, __ATOMIC_RELEASE);
    }
    MK_I64 at = __atomic_load_n(&K.keep_at, __ATOMIC_ACQUIRE);
    while (next >= 0 && (at < 0 || next < at) &&
           !__atomic_compare_exchange_n(&K.keep_at, &at, next, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
        ;
}

static void *
keeper_main(void *arg)
{
    (void)arg;
    mqi_thread_name("mqlink-keeper");
    pthread_mutex_lock(&K.mu);
    for (;;) {
        MK_I64 at = __atomic_load_n(&K.keep_at, __ATOMIC_ACQUIRE);
        if (at < 0) {
            pthread_cond_wait(&K.cv, &K.mu);
            continue;
        }
        MK_I64 left = at - mqi_now_ms();
        if (left <= 0) {
            keep();
            continue;
        }
        /* + 1 ms: the deadlines are on the coarse clock (mqi_now_ms) */
        struct timespec until = mqi_after_ms((long)left + 1);
        pthread_cond_timedwait(&K.cv, &K.mu, &until);
    }
    return NULL;
}

/* Lower keep_at to deadline when that is sooner, and wake the keeper,
 * which may sleep longer. */
static void
slot_arm(mqi_keeper *k, int fd, MK_I64 deadline)
{
    kslot *s = (kslot *)k;
    s->fd = fd; /* the slot is idle: the keeper does not read these now */
    s->deadline = deadline;
    __atomic_store_n(&s->state, SLOT_ARMED, __ATOMIC_RELEASE);
    MK_I64 at = __atomic_load_n(&K.keep_at, __ATOMIC_ACQUIRE);
    while (at < 0 || deadline < at) {
        if (__atomic_compare_exchange_n(&K.keep_at, &at, deadline, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            /* with mu: the keeper reads keep_at and sleeps with mu held */
            pthread_mutex_lock(&K.mu);
            pthread_cond_signal(&K.cv);
            pthread_mutex_unlock(&K.mu);
            break;
        }
    }
}

/* Before the link may close fd: nonzero when the deadline passed. */
static int
slot_disarm(mqi_keeper *k)
{
    kslot *s = (kslot *)k;
    int was = SLOT_ARMED;
    if (__atomic_compare_exchange_n(&s->state, &was, SLOT_IDLE, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return 0;
    /* looked at (or fired): the keeper holds mu while it looks */
    pthread_mutex_lock(&K.mu);
    was = __atomic_exchange_n(&s->state, SLOT_IDLE, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&K.mu);
    return was == SLOT_FIRED;
}

/* A thread's end: its slot leaves the list (idle: its waits are over). */
static void
slot_free(void *p)
{
    kslot *s = p;
    pthread_mutex_lock(&K.mu);
    if (s->gen == K.gen) {
        kslot **at = &K.slots;
        while (*at && *at != s)
            at = &(*at)->next;
        if (*at)
            *at = s->next;
    }
    pthread_mutex_unlock(&K.mu);
    free(s);
}

/* A forked child: only the forking thread is left, and no keeper thread.
 * Plain stores only (a fork for an exec runs this too). */
static void
after_fork(void)
{
    K.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    K.slots = NULL;
    K.keep_at = -1;
    K.gen++;
    K.state = KEEPER_NONE;
}

static void
key_init(void)
{
    if (pthread_key_create(&slot_key, slot_free) != 0 ||
        pthread_atfork(NULL, NULL, after_fork) != 0)
        K.state = KEEPER_FAILED;
}

/* Start the keeper thread (mu held): 0, or -1 when it cannot. */
static int
start(void)
{
    sigset_t all;
    mqi_cond_init_monotonic(&K.cv);
    sigfillset(&all);
    return mqi_thread_detached(keeper_main, NULL, &all);
}

mqi_keeper *
mqi_thread_keeper(void)
{
    pthread_once(&key_once, key_init);
    if (__atomic_load_n(&K.state, __ATOMIC_ACQUIRE) == KEEPER_FAILED)
        return NULL;
    kslot *s = pthread_getspecific(slot_key);
    if (s && s->gen == __atomic_load_n(&K.gen, __ATOMIC_RELAXED) &&
        __atomic_load_n(&K.state, __ATOMIC_ACQUIRE) == KEEPER_RUNS)
        return &s->k;
    if (!s) {
        if (!(s = calloc(1, sizeof *s)) || pthread_setspecific(slot_key, s) != 0) {
            free(s);
            return NULL;
        }
        s->k = (mqi_keeper){slot_arm, slot_disarm};
        s->gen = K.gen - 1; /* listed below */
    }
    pthread_mutex_lock(&K.mu);
    if (K.state == KEEPER_NONE)
        K.state = start() == 0 ? KEEPER_RUNS : KEEPER_FAILED;
    if (s->gen != K.gen) {
        s->state = SLOT_IDLE;
        s->gen = K.gen;
        s->next = K.slots;
        K.slots = s;
    }
    int runs = K.state == KEEPER_RUNS;
    pthread_mutex_unlock(&K.mu);
    return runs ? &s->k : NULL;
}
#else
mqi_keeper *
mqi_thread_keeper(void)
{
    return NULL;
}
#endif
