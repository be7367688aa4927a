/* stop.c — SIGINT, SIGTERM and SIGHUP in a server process.  A process that
 * listens or serves a link as a server is the library's: its stop signals
 * become a request to stop in order, whatever handler the language runtime
 * installed before (Python's SIGINT handler only sets a flag that no Python
 * code reads while the library waits; the JVM's would exit without removing
 * the socket file); one the process ignores (nohup) stays ignored.  A
 * listener then removes its socket file and exits 0
 * (listen.c); an instance serving a link ends the link as if the client had
 * closed it, so ProcessEvent(MQ_WAIT_FOREVER) returns and the program ends
 * the way it always does (event.c). */
#include <pthread.h>
#include <signal.h>

#include "link_int.h"

volatile sig_atomic_t mqi_stop_sig;
static pthread_t owner; /* the thread that waits for the signal */
static int caught;
static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction before[sizeof sigs / sizeof *sigs]; /* for mqi_stop_release */

/* The signal may land on any thread of a threaded runtime: hand it on to
 * the waiting thread, so that its wait ends with EINTR (pthread_kill is
 * async-signal-safe). */
static void
on_stop(int sig)
{
    mqi_stop_sig = sig;
    if (!pthread_equal(pthread_self(), owner))
        pthread_kill(owner, sig);
}

void
mqi_stop_catch(void)
{
    if (caught) /* every instance of a listener: before sa is even made */
        return;
    struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: waits end */
    owner = pthread_self();
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        /* an ignored signal stays ignored (nohup, a shell's background job) */
        if (sigaction(sigs[i], NULL, &before[i]) == 0 && before[i].sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    caught = 1;
}

void
mqi_stop_release(void)
{
    if (!caught || mqi_stop_sig)
        return;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &before[i], NULL);
    caught = 0;
}
