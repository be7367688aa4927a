/* detached.c — starting a thread of the link's own (the --thread pool's,
 * the process's keeper): detached, with some signals blocked, so that a
 * signal meant for the process goes to a thread of the program's. */
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
