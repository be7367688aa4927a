/* close_wait.c — a client's TCP sockets waiting for the server to close
 * first (link.c: _CLS), so that TIME_WAIT lands on the server (tcp.c says
 * why).  Waiting for that close in LinkDelete would cost a poll and a
 * sleep until the server has run, per link; instead the socket waits here
 * and is closed by the next link end of this process that finds the
 * server's close arrived (one recv), or when its wait is over anyway.
 *
 * A short list: when it is full, the oldest is waited for the old way.  A
 * process that ends no more links keeps its last few such sockets open
 * (the server closed them: they hold no more than a descriptor each) until
 * it exits.
 * The lock is only ever tried: a thread that finds it taken (or a child
 * forked while another thread held it) waits for its own socket instead. */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "link_int.h"

#ifdef MQ_HAVE_THREADS
#include <pthread.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
#define TRY_LOCK() (pthread_mutex_trylock(&mu) == 0)
#define UNLOCK() pthread_mutex_unlock(&mu)
#else
#define TRY_LOCK() 1
#define UNLOCK() ((void)0)
#endif

#define WAITING_MAX 16

static struct {
    int fd;
    MK_I64 until; /* closed at the first look past this, closed by the server or not */
} waiting[WAITING_MAX];
static int nwaiting;

/* 1 when fd's server closed (or the link broke), 0 while it is still open:
 * what the server sent after our _CLS is dropped. */
static int
server_closed(int fd, int wait_ms)
{
    char scratch[512];
    for (;;) {
        ssize_t n = recv(fd, scratch, sizeof scratch, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK))
            return 1;
        if (n > 0 || (n < 0 && errno == EINTR))
            continue;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (wait_ms <= 0 || mqi_block_poll(&p, 1, wait_ms) <= 0)
            return 0;
        wait_ms = 0; /* one wait, then one look */
    }
}

/* Close the waiting sockets whose server closed or whose wait is over. */
static void
sweep(MK_I64 now)
{
    int n = nwaiting;
    for (int i = 0; i < n;) {
        if (server_closed(waiting[i].fd, 0) || now >= waiting[i].until) {
            close(waiting[i].fd);
            waiting[i] = waiting[--n];
        } else {
            i++;
        }
    }
    nwaiting = n;
}

void
mqi_close_wait_add(int fd, MK_I64 wait_ms)
{
    MK_I64 now = mqi_now_ms();
    if (!TRY_LOCK()) {
        server_closed(fd, (int)wait_ms);
        close(fd);
        return;
    }
    sweep(now);
    if (nwaiting == WAITING_MAX) { /* servers slower than their clients: wait for the oldest */
        int oldest = 0;
        for (int i = 1; i < nwaiting; i++)
            if (waiting[i].until < waiting[oldest].until)
                oldest = i;
        server_closed(waiting[oldest].fd, (int)(waiting[oldest].until - now));
        close(waiting[oldest].fd);
        waiting[oldest] = waiting[nwaiting - 1]; /* its place takes the new one's */
        nwaiting = nwaiting - 1;
    }
    waiting[nwaiting].fd = fd;
    waiting[nwaiting].until = now + wait_ms;
    nwaiting = nwaiting + 1;
    UNLOCK();
}
