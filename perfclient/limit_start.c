/* limit_start.c — start-up limits: what a new parent costs at the least in
 * each start mode.  fork+waitpid (--fork), fork+exec of `PROG --version`
 * + waitpid (pipe and --spawn; PROG is the installed perfserver, so loading
 * its shared libraries is part of the limit), pthread create+join (--thread). */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef MQ_HAVE_THREADS
#include <pthread.h>
#endif

#include "perflimit.h"

void
lim_pin(int cpu)
{
    cpu_set_t set;
    if (cpu < 0)
        return;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static int
reap(pid_t pid)
{
    int st;
    if (pid < 0)
        return -1;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int
lim_fork(const lim_opts *o, lim_result *res)
{
    int rc = 0;
    long n = 0;
    double t0 = perf_now();
    for (; rc == 0 && lim_more(o, n, t0); n++) {
        pid_t pid = fork();
        if (pid == 0) {
            lim_pin(o->peer_cpu);
            _exit(0);
        }
        rc = reap(pid);
    }
    res->count = n;
    res->sec = perf_now() - t0;
    return rc;
}

/* Between fork and exec only async-signal-safe calls. */
int
lim_spawn(const lim_opts *o, lim_result *res)
{
    char *const argv[] = {(char *)o->exec, "--version", NULL};
    int rc = 0, null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    long n = 0;
    double t0 = perf_now();
    for (; rc == 0 && null >= 0 && lim_more(o, n, t0); n++) {
        pid_t pid = fork();
        if (pid == 0) {
            lim_pin(o->peer_cpu);
            dup2(null, 1);
            execv(o->exec, argv);
            _exit(127);
        }
        rc = reap(pid);
    }
    res->count = n;
    res->sec = perf_now() - t0;
    if (null >= 0)
        close(null);
    return null >= 0 ? rc : -1;
}

#ifdef MQ_HAVE_THREADS
static void *
nothing(void *arg)
{
    return arg;
}

int
lim_thread(const lim_opts *o, lim_result *res)
{
    int rc = 0;
    long n = 0;
    double t0 = perf_now();
    for (; rc == 0 && lim_more(o, n, t0); n++) {
        pthread_t tid;
        rc = pthread_create(&tid, NULL, nothing, NULL);
        if (rc == 0)
            rc = pthread_join(tid, NULL);
    }
    res->count = n;
    res->sec = perf_now() - t0;
    return rc == 0 ? 0 : -1;
}
#else
int
lim_thread(const lim_opts *o, lim_result *res)
{
    errno = ENOSYS;
    return -1;
}
#endif

int
lim_free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1, fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}
