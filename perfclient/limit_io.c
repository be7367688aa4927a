/* limit_io.c — raw message limits between two processes: a ping-pong round
 * trip and one-way writes, over a socketpair (pipe), a Unix socket (uds) or
 * loopback TCP with TCP_NODELAY (tcp), exactly as the link connects them. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perflimit.h"

#define LIM_MAX_MSG (1 << 16)

/* Accept the connection a connect() just made to the listener lfd. */
static int
pair_over(int lfd, int cfd, int fd[2])
{
    if (cfd < 0)
        return -1;
    fd[0] = cfd;
    fd[1] = accept(lfd, NULL, NULL);
    close(lfd);
    if (fd[1] < 0) {
        close(cfd);
        return -1;
    }
    return 0;
}

static int
pair_uds(int fd[2])
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0), cfd = -1;
    snprintf(a.sun_path, sizeof a.sun_path, "/tmp/perflimit-%d.sock", (int)getpid());
    unlink(a.sun_path);
    if (lfd >= 0 && bind(lfd, (struct sockaddr *)&a, sizeof a) == 0 && listen(lfd, 1) == 0) {
        cfd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (cfd >= 0 && connect(cfd, (struct sockaddr *)&a, sizeof a) != 0) {
            close(cfd);
            cfd = -1;
        }
    }
    unlink(a.sun_path);
    return pair_over(lfd, cfd, fd);
}

static int
pair_tcp(int fd[2])
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0), cfd = -1;
    if (lfd >= 0 && bind(lfd, (struct sockaddr *)&a, sizeof a) == 0 && listen(lfd, 1) == 0 &&
        getsockname(lfd, (struct sockaddr *)&a, &len) == 0) {
        cfd = socket(AF_INET, SOCK_STREAM, 0);
        if (cfd >= 0 && connect(cfd, (struct sockaddr *)&a, sizeof a) != 0) {
            close(cfd);
            cfd = -1;
        }
    }
    if (pair_over(lfd, cfd, fd) != 0)
        return -1;
    setsockopt(fd[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return 0;
}

static int
make_pair(lim_transport t, int fd[2])
{
    switch (t) {
    case LIM_PIPE: return socketpair(AF_UNIX, SOCK_STREAM, 0, fd);
    case LIM_UDS: return pair_uds(fd);
    case LIM_TCP: return pair_tcp(fd);
    }
    return -1;
}

int
lim_read_full(int fd, char *buf, size_t size)
{
    while (size > 0) {
        ssize_t n = read(fd, buf, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        size -= (size_t)n;
    }
    return 0;
}

int
lim_write_full(int fd, const char *buf, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, buf, size);
        if (n < 0 && errno != EINTR)
            return -1;
        if (n > 0) {
            buf += n;
            size -= (size_t)n;
        }
    }
    return 0;
}

/* The peers.  Echo: answer every size-byte message.  Sink: read everything
 * until the writer shuts down, then send one byte back. */
static void
peer_echo(int fd, size_t size)
{
    static char buf[LIM_MAX_MSG];
    while (lim_read_full(fd, buf, size) == 0 && lim_write_full(fd, buf, size) == 0)
        ;
}

static void
peer_sink(int fd)
{
    static char buf[LIM_MAX_MSG];
    while (read(fd, buf, sizeof buf) > 0)
        ;
    lim_write_full(fd, "k", 1);
}

/* Fork the peer on fd[1]; the caller keeps fd[0]. */
static pid_t
start_peer(const lim_opts *o, int fd[2], size_t echo_size)
{
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        lim_pin(o->peer_cpu);
        if (echo_size)
            peer_echo(fd[1], echo_size);
        else
            peer_sink(fd[1]);
        _exit(0);
    }
    close(fd[1]);
    return pid;
}

static int
finish(int fd, pid_t pid, int rc)
{
    close(fd);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return pid > 0 ? rc : -1;
}

int
lim_roundtrip(const lim_opts *o, lim_result *res)
{
    static char buf[LIM_MAX_MSG];
    int fd[2], rc = 0;
    size_t size = o->size < sizeof buf ? o->size : sizeof buf;
    if (make_pair(o->transport, fd) != 0)
        return -1;
    pid_t pid = start_peer(o, fd, size);
    long n = 0;
    double t0 = perf_now();
    for (; rc == 0 && lim_more(o, n, t0); n++)
        rc = lim_write_full(fd[0], buf, size) == 0 ? lim_read_full(fd[0], buf, size) : -1;
    res->count = n;
    res->sec = perf_now() - t0;
    return finish(fd[0], pid, rc);
}

/* Write messages of o->size bytes, per = messages in each write() (o->batch
 * bytes' worth, or one); the time ends when the peer has read them all. */
int
lim_oneway(const lim_opts *o, lim_result *res)
{
    static char buf[LIM_MAX_MSG];
    int fd[2], rc = 0;
    size_t size = o->size < sizeof buf ? o->size : sizeof buf, batch = o->batch;
    size_t per = batch > size ? (batch < sizeof buf ? batch : sizeof buf) / size : 1;
    if (make_pair(o->transport, fd) != 0)
        return -1;
    pid_t pid = start_peer(o, fd, 0);
    long n = 0;
    double t0 = perf_now();
    for (; rc == 0 && lim_more(o, n, t0); n += (long)per)
        rc = lim_write_full(fd[0], buf, size * per);
    shutdown(fd[0], SHUT_WR);
    if (rc == 0)
        rc = lim_read_full(fd[0], buf, 1);
    res->count = n;
    res->sec = perf_now() - t0;
    return finish(fd[0], pid, rc);
}
