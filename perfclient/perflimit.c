/* perflimit.c — the `L: limit` row of the performance suite: this machine's
 * limits, measured with raw system calls (no mqlink) on the transport the
 * link uses, with messages of the link's sizes.
 *
 *   perflimit [--transport pipe|uds|tcp] [--size N] [--size-empty N]
 *             [--batch N] [--num N] [--sec S] [--runs N] [--peer-cpu N] [--exec PROG]
 *             [--db FILE] [--sync full|normal] [--wrk N]
 *             [--roundtrip --oneway --fork --spawn --thread --persist --connect | --all]
 *   perflimit --free-port     print a TCP port the kernel picked, exit
 *   perflimit --features      print threads=yes|no and tls=yes|no, exit
 *
 * --wrk N: client threads that connect at once for the four limit-connect*
 * floors (default 5, as perfclient --parent's workers; 1 without
 * threads), shown as wrk=N on their lines.
 *
 * --runs N: every figure measured N times, the median run reported with
 * runs=N min=X max=Y (as perfclient --runs).
 *
 * Output lines (same shape as perfclient's):
 *   limit-roundtrip        write+read ping-pong of --size bytes   (WAIT, CALLBACK)
 *   limit-oneway           one write() per --size message          (END)
 *   limit-oneway-empty     one write() per --size-empty message    (NOTHING)
 *   limit-oneway-batched   --size messages packed into --batch-byte writes
 *   limit-fork             fork + _exit + waitpid                  (PARENT, --fork)
 *   limit-spawn            fork + exec `PROG --version` + waitpid  (PARENT, pipe, --spawn)
 *   limit-thread           pthread create + join                   (PARENT, --thread)
 *   limit-persist          sqlite3 insert + commit, WAL, --sync    (PERSIST; needs --db)
 *   limit-connect          connect + 16-byte handshake + close, served by a
 *                          waiting process (the floor of a --thread parent; uds, tcp)
 *   limit-connect-fork     the same, a child forked per connection (floor of --fork)
 *   limit-connect-wait     limit-connect with the server waiting for the client's
 *   limit-connect-fork-wait  close before its own, as a link's server must */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perflimit.h"

enum { T_ROUNDTRIP, T_ONEWAY, T_FORK, T_SPAWN, T_THREAD, T_PERSIST, T_CONNECT, NTESTS };
static const char *const test_names[NTESTS] = {"roundtrip", "oneway", "fork",   "spawn",
                                               "thread",    "persist", "connect"};

int
lim_more(const lim_opts *o, long n, double t0)
{
    if (n >= o->num)
        return 0;
    return n % 16 != 0 || perf_now() - t0 < o->sec;
}

typedef int (*lim_fn)(const lim_opts *o, lim_result *res);

/* Measure o->runs times and print the median run as limit-NAME. */
static void
measure(const lim_opts *o, const char *name, lim_fn fn, const char *extra)
{
    lim_result r[PERF_MAX_RUNS] = {{0}};
    char full[64];
    snprintf(full, sizeof full, "limit-%s", name);
    for (int i = 0; i < o->runs; i++) {
        if (fn(o, &r[i]) != 0) {
            printf("%s error: %s\n", full, strerror(errno));
            return;
        }
    }
    perf_print_median(stdout, full, r, o->runs, extra);
}

static void
run(const lim_opts *o, int t)
{
    char extra[512];
    lim_opts each = *o; /* one write per message, for the unbatched figures */
    each.batch = 0;
    switch (t) {
    case T_ROUNDTRIP:
        snprintf(extra, sizeof extra, " size=%zu", o->size);
        measure(o, "roundtrip", lim_roundtrip, extra);
        break;
    case T_ONEWAY:
        snprintf(extra, sizeof extra, " size=%zu", o->size);
        measure(&each, "oneway", lim_oneway, extra);
        each.size = o->size_empty;
        snprintf(extra, sizeof extra, " size=%zu", o->size_empty);
        measure(&each, "oneway-empty", lim_oneway, extra);
        snprintf(extra, sizeof extra, " size=%zu batch=%zu", o->size, o->batch);
        measure(o, "oneway-batched", lim_oneway, extra);
        break;
    case T_FORK:
        measure(o, "fork", lim_fork, "");
        break;
    case T_SPAWN:
        snprintf(extra, sizeof extra, " exec=%s", o->exec);
        measure(o, "spawn", lim_spawn, extra);
        break;
    case T_THREAD:
#ifdef MQ_HAVE_THREADS
        measure(o, "thread", lim_thread, "");
#else
        printf("limit-thread na.\n");
#endif
        break;
    case T_PERSIST:
        snprintf(extra, sizeof extra, " sync=%s", o->sync_full ? "full" : "normal");
        if (o->db)
            measure(o, "persist", lim_persist, extra);
        else
            printf("limit-persist na.\n");
        break;
    case T_CONNECT:
        if (o->transport == LIM_PIPE) {
            printf("limit-connect na.\nlimit-connect-fork na.\n"
                   "limit-connect-wait na.\nlimit-connect-fork-wait na.\n");
            break;
        }
        snprintf(extra, sizeof extra, " wrk=%d", o->wrk);
        measure(o, "connect", lim_connect, extra);
        measure(o, "connect-fork", lim_connect_fork, extra);
        measure(o, "connect-wait", lim_connect_wait, extra);
        measure(o, "connect-fork-wait", lim_connect_fork_wait, extra);
        break;
    }
}

static int
usage(const char *why)
{
    fprintf(stderr, "perflimit: %s\n(see the top of perfclient/perflimit.c for the options)\n",
            why);
    return 2;
}

/* Options that end the program at once; returns -1 when none was given. */
static int
early(const char *opt)
{
    if (strcmp(opt, "--free-port") == 0) {
        int port = lim_free_port();
        if (port > 0)
            printf("%d\n", port);
        return port > 0 ? 0 : 1;
    }
    if (strcmp(opt, "--features") == 0) {
#ifdef MQ_HAVE_THREADS
        printf("threads=yes\n");
#else
        printf("threads=no\n");
#endif
#ifdef MQ_HAVE_OPENSSL
        printf("tls=yes\n");
#else
        printf("tls=no\n");
#endif
        return 0;
    }
    return -1;
}

static int
set_value(lim_opts *o, const char *opt, const char *val)
{
    char *end = NULL;
    double v = val ? strtod(val, &end) : -1;
    int ok = val && *val && end && *end == '\0' && v >= 0;
    if (strcmp(opt, "--transport") == 0) {
        o->transport = strcmp(val, "tcp") == 0 ? LIM_TCP : strcmp(val, "uds") == 0 ? LIM_UDS : LIM_PIPE;
        return strcmp(val, "pipe") == 0 || o->transport != LIM_PIPE ? 0 : -1;
    }
    if (strcmp(opt, "--exec") == 0)
        o->exec = val;
    else if (strcmp(opt, "--db") == 0)
        o->db = val;
    else if (strcmp(opt, "--sync") == 0 && val && (!strcmp(val, "full") || !strcmp(val, "normal")))
        o->sync_full = !strcmp(val, "full");
    else if (!ok)
        return -1;
    else if (strcmp(opt, "--size") == 0)
        o->size = (size_t)v;
    else if (strcmp(opt, "--size-empty") == 0)
        o->size_empty = (size_t)v;
    else if (strcmp(opt, "--batch") == 0)
        o->batch = (size_t)v;
    else if (strcmp(opt, "--num") == 0)
        o->num = (long)v;
    else if (strcmp(opt, "--sec") == 0)
        o->sec = v;
    else if (strcmp(opt, "--peer-cpu") == 0)
        o->peer_cpu = (int)v;
    else if (strcmp(opt, "--wrk") == 0 && v >= 1 && v <= LIM_MAX_WRK && v == (int)v)
        o->wrk = (int)v;
    else if (strcmp(opt, "--runs") == 0 && v >= 1)
        o->runs = v > PERF_MAX_RUNS ? PERF_MAX_RUNS : (int)v;
    else
        return -1;
    return 0;
}

static int
test_index(const char *opt)
{
    for (int t = 0; t < NTESTS; t++)
        if (strncmp(opt, "--", 2) == 0 && strcmp(opt + 2, test_names[t]) == 0)
            return t;
    return -1;
}

int
main(int argc, char **argv)
{
    lim_opts o = {.transport = LIM_PIPE, .sync_full = 1, .size = 64, .size_empty = 32, .batch = 65536,
                  .num = -1, .sec = -1, .runs = 1, .peer_cpu = -1, .exec = "/bin/true", .wrk = 5};
    int selected[NTESTS] = {0}, any = 0, t, rc;
    for (int i = 1; i < argc; i++) {
        if ((rc = early(argv[i])) >= 0)
            return rc;
        if ((t = test_index(argv[i])) >= 0)
            any = selected[t] = 1;
        else if (strcmp(argv[i], "--all") == 0)
            for (any = 1, t = 0; t < NTESTS; t++)
                selected[t] = 1;
        else if (i + 1 < argc && set_value(&o, argv[i], argv[i + 1]) == 0)
            i++;
        else
            return usage("bad option or value");
    }
    /* Sizing as perfclient's: either bound, both, or one second. */
    if (o.sec <= 0)
        o.sec = o.num > 0 ? 1e9 : 1.0;
    if (o.num <= 0)
        o.num = LONG_MAX;
#ifndef MQ_HAVE_THREADS
    o.wrk = 1;
#endif
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (t = 0; t < NTESTS; t++)
        if (!any || selected[t])
            run(&o, t);
    return 0;
}
