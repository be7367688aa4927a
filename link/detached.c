/* detached.c — the link's own threads (the --thread pool's, the process's
 * keeper): started detached, with some signals blocked, so that a signal
 * meant for the process goes to a thread of the program's; named; and
 * their condition variables' clock, the monotonic one. */
#include <time.h>

#include "link_int.h"

#ifdef MQ_HAVE_THREADS
#include <pthread.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* Each thread of the link's own names itself as its first step, so that
 * ps -L, top -H, a debugger and the tests tell them from the program's. */
void
mqi_thread_name(const char *name)
{
#ifdef __linux__
    prctl(PR_SET_NAME, name, 0, 0, 0);
#else
    (void)name;
#endif
}

/* A condition variable whose timed waits are on the monotonic clock (a
 * change of the wall clock moves no deadline). */
void
mqi_cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

struct timespec
mqi_after_ms(long ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += ms % 1000 * 1000000L;
    ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

int
mqi_thread_detached(void *(*fn)(void *), void *arg, const sigset_t *blocked)
{
    pthread_t t;
    pthread_attr_t attr;
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, blocked, &old); /* inherited by the thread */
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int e = pthread_create(&t, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return e ? -1 : 0;
}
#endif
