/* peer_zmq.c — bin/perfpeer-zmq: ZeroMQ (libzmq's C API) measured the way
 * perfclient measures the link, for the table's `P: ZeroMQ` rows.
 *
 *   perfpeer-zmq --transport pipe|uds|tcp [--size-empty N] [--size N]
 *                [--num N] [--sec S] [--runs N] [--window N] [--server-cpu N]
 *                [--send-nothing --send --send-and-callback --send-and-wait | --all]
 *
 * Each run forks a server (the counterpart of perfserver) and connects to
 * it: ipc:// for pipe and uds (ZeroMQ has no socket pair transport; ipc is a
 * Unix socket), tcp:// on loopback for tcp.  The payloads have the sizes of
 * perfclient's encoded messages (performance.bash passes perfclient --sizes):
 *   send-nothing       PUSH/PULL, --size-empty bytes          (NOTHING)
 *   send               PUSH/PULL, --size bytes                (END)
 *   send-and-callback  DEALER/ROUTER, --window (1000) in flight (CALLBACK)
 *   send-and-wait      REQ/REP, one at a time                 (WAIT)
 * One-way runs end with a sync message the server acknowledges, inside the
 * measured time, as perfclient's end with an ECUL call.  Output: perfclient's
 * lines, the median of --runs (runs.h). */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zmq.h>

#include "clock.h"
#include "peer_zmq.h"
#include "runs.h"

typedef struct peer_opts {
    const char *transport;
    size_t size_empty, size;
    long num;
    double sec;
    int runs, window, server_cpu;
} peer_opts;

/* The client side of one run: sockets connected to a forked server. */
typedef struct peer_run {
    const peer_opts *o;
    void *ctx, *s, *ack;
    char *buf;
} peer_run;

typedef int (*peer_fn)(peer_run *r, size_t size, perf_run *out);

static int
send_size(void *s, const char *buf, size_t size)
{
    return zmq_send(s, buf, size, 0) == (int)size ? 0 : -1;
}

static int
recv_any(void *s, char *buf, size_t cap)
{
    return zmq_recv(s, buf, cap, 0) >= 0 ? 0 : -1;
}

/* perfclient's perf_loop: until --num operations or --sec seconds, the
 * clock read every 100 operations. */
static int
more(const peer_opts *o, long n, double t0)
{
    return n < o->num && perf_now() - t0 < o->sec;
}

static int
one_way(peer_run *r, size_t size, perf_run *out)
{
    long n = 0;
    if (send_size(r->s, r->buf, size) || send_size(r->s, r->buf, PEER_SYNC_SIZE) ||
        recv_any(r->ack, r->buf, 1)) /* warm-up */
        return -1;
    double t0 = perf_now();
    while (more(r->o, n, t0))
        for (int i = 0; i < 100 && n < r->o->num; i++, n++)
            if (send_size(r->s, r->buf, size))
                return -1;
    if (send_size(r->s, r->buf, PEER_SYNC_SIZE) || recv_any(r->ack, r->buf, 1))
        return -1;
    *out = (perf_run){n, perf_now() - t0};
    return 0;
}

static int
wait_each(peer_run *r, size_t size, perf_run *out)
{
    long n = 0;
    if (send_size(r->s, r->buf, size) || recv_any(r->s, r->buf, size)) /* warm-up */
        return -1;
    double t0 = perf_now();
    while (more(r->o, n, t0))
        for (int i = 0; i < 100 && n < r->o->num; i++, n++)
            if (send_size(r->s, r->buf, size) || recv_any(r->s, r->buf, size))
                return -1;
    *out = (perf_run){n, perf_now() - t0};
    return 0;
}

/* Keep --window calls in flight: a new one for every answer, until the
 * budget is spent, then collect the rest. */
static int
window(peer_run *r, size_t size, perf_run *out)
{
    long sent = 0, done = 0;
    int stop = 0;
    if (send_size(r->s, r->buf, size) || recv_any(r->s, r->buf, size)) /* warm-up */
        return -1;
    double t0 = perf_now();
    for (;;) {
        while (!stop && sent - done < r->o->window) {
            if (send_size(r->s, r->buf, size))
                return -1;
            if (++sent % 100 == 0 || sent >= r->o->num)
                stop = !more(r->o, sent, t0);
        }
        if (sent == done)
            break;
        if (recv_any(r->s, r->buf, size))
            return -1;
        done++;
    }
    *out = (perf_run){done, perf_now() - t0};
    return 0;
}

static const struct peer_test {
    const char *name;
    peer_pattern pattern;
    peer_fn fn;
    int empty; /* the payload is --size-empty */
} tests[] = {
    {"send-nothing", PEER_PUSHPULL, one_way, 1},
    {"send", PEER_PUSHPULL, one_way, 0},
    {"send-and-callback", PEER_DEALER, window, 0},
    {"send-and-wait", PEER_REQREP, wait_each, 0},
};
#define NTESTS (int)(sizeof tests / sizeof tests[0])

static void
pin(int cpu)
{
    cpu_set_t set;
    if (cpu < 0)
        return;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

/* Fork the server of t and read the endpoints it bound; 0 or -1. */
static pid_t
start_server(const peer_opts *o, const struct peer_test *t, const char *base, char *eps, size_t cap)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        pin(o->server_cpu);
        _exit(peer_serve(t->pattern, base, fd[1]));
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t k;
    while (pid > 0 && got < cap - 1 && (k = read(fd[0], eps + got, cap - 1 - got)) > 0)
        got += (size_t)k;
    eps[got] = '\0';
    close(fd[0]);
    return pid > 0 && got > 0 ? pid : -1;
}

static void *
connect_one(void *ctx, int type, char **eps)
{
    char *ep = strsep(eps, "\n");
    int zero = 0, linger = 1000; /* a dead server must not hold zmq_ctx_term */
    void *s = zmq_socket(ctx, type);
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    if (type == ZMQ_DEALER) {
        zmq_setsockopt(s, ZMQ_SNDHWM, &zero, sizeof zero);
        zmq_setsockopt(s, ZMQ_RCVHWM, &zero, sizeof zero);
    }
    if (!ep || !*ep || zmq_connect(s, ep) != 0) {
        zmq_close(s);
        return NULL;
    }
    return s;
}

/* One run of test t: server, sockets, the timed loop, the end message. */
static int
run_once(const peer_opts *o, const struct peer_test *t, const char *base, perf_run *out)
{
    static const int types[][2] = {[PEER_REQREP] = {ZMQ_REQ, 0},
                                   [PEER_PUSHPULL] = {ZMQ_PUSH, ZMQ_PULL},
                                   [PEER_DEALER] = {ZMQ_DEALER, 0}};
    char eps[1200], *rest = eps;
    size_t size = t->empty ? o->size_empty : o->size;
    peer_run r = {.o = o, .buf = calloc(1, o->size > o->size_empty ? o->size : o->size_empty)};
    int rc = -1, st;
    pid_t pid = start_server(o, t, base, eps, sizeof eps);
    if (pid < 0 || !r.buf)
        goto out;
    r.ctx = zmq_ctx_new();
    r.s = connect_one(r.ctx, types[t->pattern][0], &rest);
    r.ack = types[t->pattern][1] ? connect_one(r.ctx, types[t->pattern][1], &rest) : r.s;
    if (r.s && r.ack)
        rc = t->fn(&r, size, out);
    if (r.s)
        send_size(r.s, r.buf, PEER_END_SIZE);
    if (r.s && t->pattern == PEER_REQREP && rc == 0)
        recv_any(r.s, r.buf, 1);
    if (r.ack && r.ack != r.s)
        zmq_close(r.ack);
    if (r.s)
        zmq_close(r.s);
    zmq_ctx_term(r.ctx);
    if (rc != 0) /* it may wait for a message that never comes */
        kill(pid, SIGKILL);
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        rc = -1;
out:
    free(r.buf);
    return rc;
}

static int
run_test(const peer_opts *o, const struct peer_test *t, const char *base)
{
    perf_run runs[PERF_MAX_RUNS];
    for (int i = 0; i < o->runs; i++)
        if (run_once(o, t, base, &runs[i]) != 0) {
            printf("%s error: %s\n", t->name, zmq_strerror(zmq_errno()));
            return 1;
        }
    perf_print_median(stdout, t->name, runs, o->runs, "");
    return 0;
}

static int
usage(void)
{
    fprintf(stderr, "usage: perfpeer-zmq --transport pipe|uds|tcp [--size-empty N] [--size N]\n"
                    "         [--num N] [--sec S] [--runs N] [--window N] [--server-cpu N]\n"
                    "         [--send-nothing --send --send-and-callback --send-and-wait | --all]\n");
    return 2;
}

static int
parse(int argc, char **argv, peer_opts *o, int *sel)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int t, known = 0;
        for (t = 0; t < NTESTS; t++)
            if (!strncmp(a, "--", 2) && !strcmp(a + 2, tests[t].name))
                sel[t] = known = 1;
        if (known)
            continue;
        if (!strcmp(a, "--all")) {
            for (t = 0; t < NTESTS; t++)
                sel[t] = 1;
            continue;
        }
        if (!v)
            return -1;
        if (!strcmp(a, "--transport")) o->transport = v;
        else if (!strcmp(a, "--size-empty")) o->size_empty = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--size")) o->size = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--num")) o->num = atol(v);
        else if (!strcmp(a, "--sec")) o->sec = atof(v);
        else if (!strcmp(a, "--runs")) o->runs = atoi(v);
        else if (!strcmp(a, "--window")) o->window = atoi(v);
        else if (!strcmp(a, "--server-cpu")) o->server_cpu = atoi(v);
        else return -1;
        i++;
    }
    if (o->num <= 0 && o->sec <= 0)
        o->sec = 1.0;
    if (o->num <= 0)
        o->num = LONG_MAX;
    if (o->sec <= 0)
        o->sec = 1e9;
    if (o->runs > PERF_MAX_RUNS)
        o->runs = PERF_MAX_RUNS;
    /* control messages are 0 and 1 byte long: payloads must be longer */
    return o->runs >= 1 && o->window >= 1 && o->size_empty >= 2 && o->size >= 2 ? 0 : -1;
}

int
main(int argc, char **argv)
{
    peer_opts o = {.transport = "uds", .size_empty = 32, .size = 88, .runs = 1,
                   .window = 1000, .server_cpu = -1};
    int sel[NTESTS] = {0}, failed = 0, major, minor, patch;
    char base[256];
    if (parse(argc, argv, &o, sel) != 0)
        return usage();
    if (!strcmp(o.transport, "tcp"))
        snprintf(base, sizeof base, "tcp://127.0.0.1");
    else if (!strcmp(o.transport, "pipe") || !strcmp(o.transport, "uds")) {
        const char *tmp = getenv("TMPDIR");
        char tmpl[200];
        snprintf(tmpl, sizeof tmpl, "%s/perfpeer.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(tmpl))
            return 1;
        snprintf(base, sizeof base, "ipc://%s/peer", tmpl);
    } else
        return usage();
    setvbuf(stdout, NULL, _IOLBF, 0);
    zmq_version(&major, &minor, &patch);
    printf("# perfpeer-zmq libzmq=%d.%d.%d transport=%s window=%d size-empty=%zu size=%zu\n",
           major, minor, patch, o.transport, o.window, o.size_empty, o.size);
    for (int t = 0; t < NTESTS; t++)
        if (sel[t])
            failed |= run_test(&o, &tests[t], base);
    if (!strncmp(base, "ipc://", 6)) { /* the sockets' files, then their directory */
        char path[300];
        const char *names[] = {"rep", "pull", "ack", "router"};
        for (int i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "%s-%s", base + 6, names[i]);
            unlink(path);
        }
        *strrchr(base + 6, '/') = '\0';
        rmdir(base + 6);
    }
    return failed;
}
