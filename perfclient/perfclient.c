/* perfclient.c — the client of the performance suite: options, the timed
 * loop and one output line per test.
 *
 *   perfclient [TESTS] [SIZE] [--runs N] [--wrk N] [--window N] [--server-cpu N] LINK-ARGS
 *   TESTS  --send-nothing --send --send-and-wait --send-and-callback
 *          --send-persistent --parent --child --bus --bfl, or --all
 *   SIZE   --num N (most operations per run) and/or --sec S (most seconds
 *          per run); neither: --sec 1.  --runs N (default 1): each test
 *          runs N times and reports its median run (a moment of load on a
 *          shared machine moves one run, not the median).  --warmup S: each
 *          test first runs once for at most S seconds, unmeasured, so that a
 *          server's JIT has compiled the test's path before it is measured
 *   LINK-ARGS  everything else, given to MqLinkCreate unchanged:
 *          `@ perfserver ...` (pipe), `--uds --file PATH`, `--tcp --port P`
 *   --links FILE  instead of LINK-ARGS: several links side by side, one
 *          per line of FILE (links.c), each with its own output file.
 *          Each test warms up on every link, then takes its first run on
 *          every link, its second on every link, and so on: the languages
 *          of one transport are measured in the same seconds, so a slow
 *          stretch of the machine falls on the runs of all of them alike
 *          and their ratios hold where their rates do not
 *   SCALING  --scale-calls --scale-threads --scale-procs (not in --all),
 *          each run once per size of --scale LIST (e.g. 1,2,4; default
 *          1,2,4,8): WAIT calls with N in flight on the main link, from N
 *          threads or N processes with a link each; printed as TEST-N
 *   --sizes  print the encoded message sizes (for perflimit) and exit
 *   --storage FILE  the sender's storage of --send-persistent (only that
 *          test links with it; without it the storage is in memory)
 *
 * Output, one line per test, made for performance.bash:
 *   send-nothing ops/s=512345 count=512345 sec=1.000
 *   send-nothing ops/s=512345 count=204938 sec=0.400 runs=3 min=498121 max=515002
 *   scale-threads-4 ops/s=40213 count=40213 sec=1.000
 *   send-and-wait error: TEXT      (the test failed; exit status 1) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perfclient.h"

typedef MkErrorE (*perf_test_fn)(perf_client *pc, perf_result *res);

/* What a scaling test's size N sets. */
enum { SCALE_NONE, SCALE_WINDOW, SCALE_WRK };

/* The tests in the order of the table's columns, then the scaling tests
 * (scaled, not in --all); fn NULL: not available. */
static const struct perf_test {
    const char *name;
    perf_test_fn fn;
    int scaled;
} tests[] = {
    {"send-nothing", perf_send_nothing, SCALE_NONE},
    {"send", perf_send, SCALE_NONE},
    {"send-and-callback", perf_send_and_callback, SCALE_NONE},
    {"send-and-wait", perf_send_and_wait, SCALE_NONE},
    {"parent", perf_parent, SCALE_NONE},
    {"child", perf_child, SCALE_NONE},
    {"bus", perf_bus, SCALE_NONE},
    {"bfl", perf_bfl, SCALE_NONE},
    {"send-persistent", perf_send_persistent, SCALE_NONE},
    {"scale-calls", perf_in_flight, SCALE_WINDOW},
    {"scale-threads", perf_scale_threads, SCALE_WRK},
    {"scale-procs", perf_scale_procs, SCALE_WRK},
};
#define NTESTS (int)(sizeof tests / sizeof tests[0])

void
perf_stop(perf_result *res)
{
    res->sec = perf_now() - res->t0;
}

MkErrorE
perf_loop(perf_client *pc, perf_op op, void *arg, int batch, perf_result *res)
{
    long n = 0;
    double now = res->t0 = perf_now();
    while (n < pc->num && now - res->t0 < pc->sec) {
        for (int i = 0; i < batch && n < pc->num; i++, n++)
            if (op(pc, arg) != MK_OK)
                return MK_ERROR;
        now = perf_now();
    }
    res->count = n;
    res->sec = now - res->t0;
    return MK_OK;
}

static int
usage(const char *why)
{
    fprintf(stderr, "perfclient: %s\n"
            "usage: perfclient [--all | --send-nothing --send --send-and-wait --send-and-callback\n"
            "         --send-persistent --parent --child --bus --bfl] [--num N] [--sec S]\n"
            "         [--runs N] [--warmup S] [--wrk N] [--window N] [--server-cpu N] [--sizes]\n"
            "         LINK-ARGS | --links FILE\n"
            "       perfclient --scale-calls --scale-threads --scale-procs [--scale N,N,...] ...\n", why);
    return 2;
}

static int
test_index(const char *opt)
{
    for (int i = 0; i < NTESTS; i++)
        if (strncmp(opt, "--", 2) == 0 && strcmp(opt + 2, tests[i].name) == 0)
            return i;
    return -1;
}

/* A numeric option value; returns 0 and sets *out, or -1. */
static int
number(const char *s, double min, double *out)
{
    char *end;
    *out = s ? strtod(s, &end) : 0;
    return s && *s && *end == '\0' && *out >= min ? 0 : -1;
}

/* The numeric options: name, smallest value, and where the value goes
 * (-1: not given). */
enum { OPT_NUM, OPT_SEC, OPT_WRK, OPT_WINDOW, OPT_CPU, OPT_RUNS, OPT_WARMUP, NOPTS };
static const struct {
    const char *name;
    double min;
} numeric[NOPTS] = {
    {"--num", 1},       {"--sec", 0.001},       {"--wrk", 1},
    {"--window", 1},    {"--server-cpu", 0},    {"--runs", 1},
    {"--warmup", 0},
};

static int
numeric_index(const char *opt)
{
    for (int i = 0; i < NOPTS; i++)
        if (strcmp(opt, numeric[i].name) == 0)
            return i;
    return -1;
}

static void
apply(perf_client *pc, const double *v)
{
    pc->num = v[OPT_NUM] > 0 ? (long)v[OPT_NUM] : LONG_MAX;
    pc->sec = v[OPT_SEC] > 0 ? v[OPT_SEC] : v[OPT_NUM] > 0 ? 1e9 : 1.0;
    pc->wrk = v[OPT_WRK] > 0 ? (int)v[OPT_WRK] : 5;
    pc->window = v[OPT_WINDOW] > 0 ? (int)v[OPT_WINDOW] : 1000;
    pc->server_cpu = (int)v[OPT_CPU];
    pc->runs = v[OPT_RUNS] > 0 ? (int)v[OPT_RUNS] : 1;
    if (pc->runs > PERF_MAX_RUNS)
        pc->runs = PERF_MAX_RUNS;
    pc->warmup = v[OPT_WARMUP] > 0 ? v[OPT_WARMUP] : 0;
}

/* --scale's comma-separated sizes, each 1..100000; 0 or -1 (bad list). */
static int
scale_list(perf_client *pc, const char *s)
{
    char *end;
    pc->nscale = 0;
    while (s && *s) {
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 100000 || pc->nscale == PERF_MAX_SCALE ||
            (*end != ',' && *end != '\0'))
            return -1;
        pc->scale[pc->nscale++] = (int)v;
        s = *end ? end + 1 : end;
    }
    return pc->nscale > 0 ? 0 : -1;
}

/* Take perfclient's options out of argv, leaving the link's arguments (after
 * argv[0]) in order; "@" ends perfclient's options. */
static int
parse(perf_client *pc, int *selected, int argc, const char **argv, int *sizes,
      const char **links)
{
    double v[NOPTS] = {-1, -1, -1, -1, -1, -1, -1};
    int out = 1, i = 1, t, n;
    for (; i < argc && strcmp(argv[i], "@") != 0; i++) {
        const char *o = argv[i];
        if ((t = test_index(o)) >= 0)
            selected[t] = 1;
        else if (strcmp(o, "--all") == 0)
            for (t = 0; t < NTESTS; t++)
                selected[t] |= !tests[t].scaled;
        else if (strcmp(o, "--scale") == 0) {
            if (scale_list(pc, i + 1 < argc ? argv[++i] : NULL) != 0)
                return usage("--scale takes sizes like 1,2,4 (at most 16, each 1..100000)");
        }
        else if (strcmp(o, "--sizes") == 0)
            *sizes = 1;
        else if (strcmp(o, "--storage") == 0 && i + 1 < argc)
            pc->storage = argv[++i];
        else if (strcmp(o, "--links") == 0 && i + 1 < argc)
            *links = argv[++i];
        else if ((n = numeric_index(o)) >= 0) {
            if (number(i + 1 < argc ? argv[i + 1] : NULL, numeric[n].min, &v[n]) != 0)
                return usage("bad or missing number after an option");
            i++;
        } else
            argv[out++] = o;
    }
    while (i < argc)
        argv[out++] = argv[i++];
    argv[out] = NULL;
    apply(pc, v);
    if (pc->nscale == 0)
        scale_list(pc, "1,2,4,8");
    pc->link_argc = out;
    pc->link_argv = argv;
    return 0;
}

/* The unmeasured run of --warmup: at most pc->warmup seconds (and --num
 * operations).  A server whose JIT compiles after some thousand calls
 * (Java's C2) is otherwise measured half cold in a test's first run. */
static MkErrorE
warm_up(perf_client *pc, const struct perf_test *t)
{
    perf_result res = {0};
    double sec = pc->sec;
    pc->sec = pc->warmup < sec ? pc->warmup : sec;
    MkErrorE rc = t->fn(pc, &res);
    pc->sec = sec;
    return rc;
}

/* Report name's failure (the main link's error) and reset it; 1. */
static int
test_failed(perf_client *pc, const char *name)
{
    fprintf(pc->out, "%s error: %s\n", name, MqErrorGetText(pc->ctx));
    fprintf(stderr, "perfclient: %s: %s\n", name, MqErrorGetText(pc->ctx));
    MqErrorReset(pc->ctx);
    return 1;
}

/* Run one test on each of the n links: its warm-up on each, then its first
 * run on each, its second on each, ...; print each link's median run as
 * name.  A link the test fails on reports it and takes no more runs; 0 when
 * none failed. */
static int
run_named(perf_client *pcs, int n, const struct perf_test *t, const char *name)
{
    static perf_run runs[PERF_MAX_LINKS][PERF_MAX_RUNS];
    int failed[PERF_MAX_LINKS] = {0}, any = 0;
    if (!t->fn) {
        for (int k = 0; k < n; k++)
            fprintf(pcs[k].out, "%s na.\n", name);
        return 0;
    }
    for (int k = 0; k < n; k++) {
        failed[k] = !pcs[k].ctx || !MqLinkIsConnected(pcs[k].ctx);
        if (!failed[k] && pcs[k].warmup > 0 && warm_up(&pcs[k], t) != MK_OK)
            any |= failed[k] = test_failed(&pcs[k], name);
    }
    for (int i = 0; i < pcs[0].runs; i++)
        for (int k = 0; k < n; k++) {
            perf_result res = {0};
            if (failed[k])
                continue;
            if (t->fn(&pcs[k], &res) == MK_OK)
                runs[k][i] = (perf_run){res.count, res.sec};
            else
                any |= failed[k] = test_failed(&pcs[k], name);
        }
    for (int k = 0; k < n; k++)
        if (!failed[k])
            perf_print_median(pcs[k].out, name, runs[k], pcs[k].runs, "");
    return any;
}

/* A test, or a scaling test once per --scale size: NAME-N. */
static int
run_test(perf_client *pcs, int n, const struct perf_test *t)
{
    char name[64];
    int failed = 0, window = pcs[0].window, wrk = pcs[0].wrk;
    if (t->scaled == SCALE_NONE)
        return run_named(pcs, n, t, t->name);
    for (int i = 0; i < pcs[0].nscale; i++) {
        for (int k = 0; k < n; k++)
            *(t->scaled == SCALE_WINDOW ? &pcs[k].window : &pcs[k].wrk) = pcs[0].scale[i];
        snprintf(name, sizeof name, "%s-%d", t->name, pcs[0].scale[i]);
        failed |= run_named(pcs, n, t, name);
    }
    for (int k = 0; k < n; k++) {
        pcs[k].window = window;
        pcs[k].wrk = wrk;
    }
    return failed;
}

static void
print_header(const perf_client *pc)
{
#ifdef MQ_HAVE_THREADS
    fprintf(pc->out, "# perfclient threads=yes wrk=%d window=%d link:", pc->wrk, pc->window);
#else
    fprintf(pc->out, "# perfclient threads=no wrk=1 window=%d link:", pc->window);
#endif
    for (int i = 1; i < pc->link_argc; i++)
        fprintf(pc->out, " %s", pc->link_argv[i]);
    fprintf(pc->out, "\n");
}

/* Open pc's link; a link that cannot be opened reports why on its output
 * and is left without a context (its tests are skipped); 0 or 1. */
static int
open_link(perf_client *pc)
{
    print_header(pc);
    pc->ctx = MqContextCreate();
    MqConfigSetName(pc->ctx, "perfclient");
    if (perf_link_create(pc, pc->ctx) == MK_OK)
        return 0;
    fprintf(pc->out, "link error: %s\n", MqErrorGetText(pc->ctx));
    fprintf(stderr, "perfclient: %s\n", MqErrorGetText(pc->ctx));
    MqContextDelete(pc->ctx);
    pc->ctx = NULL;
    return 1;
}

int
main(int argc, char **argv)
{
    static perf_client pcs[PERF_MAX_LINKS];
    perf_client pc = {.out = stdout};
    const char *links = NULL;
    char err[256];
    int selected[NTESTS] = {0}, sizes = 0, failed = 0, any = 0, n = 1;
    if (parse(&pc, selected, argc, (const char **)argv, &sizes, &links) != 0)
        return 2;
    if (sizes) {
        size_t empty, send;
        perf_message_sizes(&empty, &send);
        printf("size-empty=%zu size-send=%zu\n", empty, send);
        return 0;
    }
    for (int i = 0; i < NTESTS; i++)
        any |= selected[i];
    if (!any)
        return usage("no test selected");
    if (links && pc.link_argc > 1)
        return usage("--links and link arguments both given");
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!links)
        pcs[0] = pc;
    else if ((n = perf_links_read(&pc, links, pcs, PERF_MAX_LINKS, err, sizeof err)) < 0) {
        fprintf(stderr, "perfclient: --links: %s\n", err);
        return 2;
    }
    for (int k = 0; k < n; k++)
        failed |= open_link(&pcs[k]);
    for (int i = 0; i < NTESTS; i++)
        if (selected[i])
            failed |= run_test(pcs, n, &tests[i]);
    for (int k = 0; k < n; k++)
        if (pcs[k].ctx)
            MqContextDelete(pcs[k].ctx);
    if (links)
        perf_links_free(pcs, n);
    return failed;
}
