/* stop.c — SIGINT, SIGTERM and SIGHUP in a server process.  A process that
 * listens or serves a link as a server is the library's: its stop signals
 * become a request to stop in order, whatever handler the language runtime
 * installed before (Python's SIGINT handler only sets a flag that no Python
 * code reads while the library waits; the JVM's would exit without removing
 * the socket file); one the process ignores (nohup) stays ignored.  A
 * listener then removes its socket file and exits 0
 * (listen.c); an instance serving a link ends the link as if the client had
 * closed it, so ProcessEvent(MQ_WAIT_FOREVER) returns and the program ends
 * the way it always does (event.c).
 *
 * A signal must not be lost between the waiting thread's look at the flag
 * and the wait's start (a poll, a blocking read or accept, inside a
 * runtime's blocking call or not): there the handler would set the flag and
 * the wait, begun after it, would sleep on.  The waiting thread names the
 * socket it is about to wait on (mqi_stop_arm) before it looks, and the
 * handler, when it runs on that thread, shuts the socket's reading side
 * down: a poll finds it readable, a read its end of file, an accept fails
 * (EINVAL), however soon after the handler the wait begins.  The link or
 * listener ends anyway, so nothing is lost by that.
 *
 * Not taken: blocking the signals outside the waits and waiting in ppoll
 * with a mask that lets them in.  Only poll has such a form: the blocking
 * reads (SO_RCVTIMEO, TCP) and accepts would become poll + read, a system
 * call more per wait, or keep the signal out until their timeout (45 s by
 * default); and every program a service starts (system(), a subprocess)
 * would inherit the blocked mask and could not be stopped with SIGTERM.  A
 * self-pipe has the same trouble with reads and accepts, a descriptor more
 * in every poll, and would be shared by every --fork instance.  Here no
 * mask changes, and a wait costs two stores, no system call. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include "link_int.h"

volatile sig_atomic_t mqi_stop_sig;
volatile sig_atomic_t mqi_stop_fd = -1;
static pthread_t owner; /* the thread that waits for the signal */
static int caught;
static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction before[sizeof sigs / sizeof *sigs]; /* for mqi_stop_release */

/* The signal may land on any thread of a threaded runtime: hand it on to
 * the waiting thread, so that its wait ends with EINTR (pthread_kill is
 * async-signal-safe).  On that thread it may have come after the look at
 * the flag and before the wait: the armed socket makes the wait end at
 * once (shutdown is async-signal-safe too). */
static void
on_stop(int sig)
{
    int e = errno;
    mqi_stop_sig = sig;
    if (!pthread_equal(pthread_self(), owner))
        pthread_kill(owner, sig);
    else if (mqi_stop_fd >= 0)
        shutdown(mqi_stop_fd, SHUT_RD);
    errno = e;
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

int
mqi_stop_owner(void)
{
    return caught && pthread_equal(pthread_self(), owner);
}

void
mqi_stop_release(void)
{
    if (!caught || mqi_stop_sig)
        return;
    mqi_stop_fd = -1;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &before[i], NULL);
    caught = 0;
}
