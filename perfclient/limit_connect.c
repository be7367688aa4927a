/* limit_connect.c — the floor of a parent start on a socket transport, with
 * no mqlink: connect, a 16-byte handshake each way, a close, and nothing
 * else.  The server either answers each connection itself, as a --thread
 * server's waiting pool thread does (limit-connect), or forks a child for
 * each, as --fork does (limit-connect-fork).  What any library pays on this
 * machine for a new connection, before its own work: set beside
 * limit-thread and limit-fork it tells how much of those a parent can reach
 * at all.  The client side is o->wrk threads connecting at once, as
 * perfclient --parent's workers do, so that the floor and PARENT are
 * measured alike.
 *
 * In those two the server closes first, right after its answer.  A link's
 * server cannot: it does not know its client has nothing more to send, so
 * it waits for the client's close (a blocking read that finds the end) and
 * only then closes.  limit-connect-wait and limit-connect-fork-wait are
 * the same floors with that wait: the least any server that waits for its
 * peer's end pays, which is what C PARENT is to be read against (the gap
 * between the two floors is the wait's own cost, not the library's). */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#ifdef MQ_HAVE_THREADS
#include <pthread.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perflimit.h"

#define HANDSHAKE 16

typedef struct lim_addr {
    int family;
    socklen_t len;
    union {
        struct sockaddr sa;
        struct sockaddr_un un;
        struct sockaddr_in in;
    } u;
} lim_addr;

/* A listening socket on a fresh address of the transport. */
static int
listen_on(lim_transport t, lim_addr *a)
{
    memset(a, 0, sizeof *a);
    if (t == LIM_UDS) {
        a->family = a->u.un.sun_family = AF_UNIX;
        const char *dir = getenv("TMPDIR");
        snprintf(a->u.un.sun_path, sizeof a->u.un.sun_path, "%s/perflimit-%d.conn",
                 dir && *dir ? dir : "/tmp", (int)getpid());
        unlink(a->u.un.sun_path);
        a->len = sizeof a->u.un;
    } else {
        a->family = a->u.in.sin_family = AF_INET;
        a->u.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a->len = sizeof a->u.in;
    }
    int fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, &a->u.sa, a->len) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, &a->u.sa, &a->len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
    stop = sig;
}

/* How a connection is served and ended (flags of connect_limit). */
enum { CONN_FORK = 1, CONN_WAIT = 2 };

/* The client's close, as a link's --thread server finds it after a
 * parent's handshake (event.c, kept_read_blocks): one blocking read that
 * returns the end, the least a server that waits for it pays (anything
 * read instead is not waited on further: the client sends nothing after
 * its handshake).  A SIGTERM ends the read (no SA_RESTART). */
static void
await_close(int fd)
{
    char c;
    if (!stop)
        (void)!read(fd, &c, 1);
}

/* The server's part: handshake in, handshake out, then close first or,
 * with CONN_WAIT, after the client's close. */
static void
serve(int fd, int tcp, int flags)
{
    char buf[HANDSHAKE];
    int one = 1;
    if (tcp)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (lim_read_full(fd, buf, sizeof buf) == 0 && lim_write_full(fd, buf, sizeof buf) == 0 &&
        (flags & CONN_WAIT))
        await_close(fd);
    close(fd);
}

/* The peer process: accepts until SIGTERM, then waits for its children, so
 * that none is left behind (an orphan nobody reaps stays a zombie). */
static void
listener(int lfd, int tcp, int flags)
{
    struct sigaction sa = {.sa_handler = on_term}; /* no SA_RESTART: accept ends */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    while (!stop) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        if (!(flags & CONN_FORK)) {
            serve(fd, tcp, flags);
            continue;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(lfd);
            serve(fd, tcp, flags);
            _exit(0);
        }
        close(fd);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
    }
    while (wait(NULL) > 0 || errno == EINTR)
        ;
}

/* The client's part: connect, handshake out and in, then the server's
 * close or, when the server waits for it (wait), the client's own. */
static int
one_connection(const lim_addr *a, int tcp, int wait)
{
    char buf[HANDSHAKE] = "perflimit-hello";
    int one = 1, fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int rc = connect(fd, &a->u.sa, a->len);
    if (rc == 0 && tcp)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (rc == 0)
        rc = lim_write_full(fd, buf, sizeof buf);
    if (rc == 0)
        rc = lim_read_full(fd, buf, sizeof buf);
    if (rc == 0 && !wait && read(fd, buf, 1) != 0) {
        errno = EPROTO;
        rc = -1; /* the server's close must come next */
    }
    close(fd);
    return rc;
}

/* What the client threads share; started counts connections begun by all. */
typedef struct conn_job {
    const lim_opts *o;
    const lim_addr *a;
    int tcp;
    int wait; /* the server waits for the client's close */
    double t0;
    long started;
    long done;
    int err; /* errno of the first failed connection, 0: none failed */
} conn_job;

static void *
client(void *arg)
{
    conn_job *job = arg;
    while (lim_more(job->o, __atomic_fetch_add(&job->started, 1, __ATOMIC_RELAXED), job->t0) &&
           !__atomic_load_n(&job->err, __ATOMIC_RELAXED)) {
        if (one_connection(job->a, job->tcp, job->wait) != 0) {
            int e = errno ? errno : EIO;
            __atomic_compare_exchange_n(&job->err, &(int){0}, e, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
            break;
        }
        __atomic_add_fetch(&job->done, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* The o->wrk clients; without threads the one client is this thread.
 * 0, or -1 when a connection failed or no thread started. */
static int
run_clients(conn_job *job)
{
#ifdef MQ_HAVE_THREADS
    pthread_t tid[LIM_MAX_WRK];
    int n = 0, wrk = job->o->wrk;
    for (; n < wrk; n++)
        if (pthread_create(&tid[n], NULL, client, job) != 0)
            break;
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    if (n == 0)
        job->err = EAGAIN;
#else
    client(job);
#endif
    return job->err ? -1 : 0;
}

static int
connect_limit(const lim_opts *o, int flags, lim_result *res)
{
    lim_addr a;
    int tcp = o->transport == LIM_TCP;
    if (o->transport == LIM_PIPE) {
        errno = ENOTSUP;
        return -1;
    }
    int lfd = listen_on(o->transport, &a);
    if (lfd < 0)
        return -1;
    /* a SIGTERM before the peer's handler is in place ends it at once, and
     * then it has no children yet */
    pid_t peer = fork();
    if (peer == 0) {
        lim_pin(o->peer_cpu);
        listener(lfd, tcp, flags);
        _exit(0);
    }
    close(lfd);
    conn_job job = {
        .o = o, .a = &a, .tcp = tcp, .wait = !!(flags & CONN_WAIT), .t0 = perf_now()};
    int rc = peer < 0 ? -1 : run_clients(&job);
    res->count = job.done;
    res->sec = perf_now() - job.t0;
    int e = rc == 0 ? 0 : job.err ? job.err : errno;
    if (peer > 0) {
        kill(peer, SIGTERM);
        while (waitpid(peer, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    if (a.family == AF_UNIX)
        unlink(a.u.un.sun_path);
    errno = e;
    return rc;
}

int
lim_connect(const lim_opts *o, lim_result *res)
{
    return connect_limit(o, 0, res);
}

int
lim_connect_fork(const lim_opts *o, lim_result *res)
{
    return connect_limit(o, CONN_FORK, res);
}

int
lim_connect_wait(const lim_opts *o, lim_result *res)
{
    return connect_limit(o, CONN_WAIT, res);
}

int
lim_connect_fork_wait(const lim_opts *o, lim_result *res)
{
    return connect_limit(o, CONN_FORK | CONN_WAIT, res);
}
