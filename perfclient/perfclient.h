/* perfclient.h — what the parts of perfclient share: the options, one
 * measured result, the timed loop, and the tests. */
#ifndef PERFCLIENT_H
#define PERFCLIENT_H

#include "clock.h"
#include "mqlink.h"
#include "runs.h"

/* --scale takes at most this many sizes. */
#define PERF_MAX_SCALE 16

/* The options and the main link; built by main, read by every test. */
typedef struct perf_client {
    MqContextC *ctx;        /* the main link, opened from link_argv */
    int link_argc;          /* arguments for MqLinkCreate (argv[0] included) */
    const char **link_argv;
    long num;               /* most operations per test */
    double sec;             /* most seconds per test */
    int wrk;                /* --parent worker threads */
    int window;             /* --send-and-callback: most calls in flight */
    int server_cpu;         /* pipe mode: CPU for forked servers, -1: none */
    long outstanding;       /* callbacks not yet run */
    long failed_cb;         /* callbacks that saw an error */
    const char *storage;    /* --storage FILE: the persistent test's storage */
    int runs;               /* --runs: runs per test, the median reported */
    double warmup;          /* --warmup: seconds of an unmeasured first run, 0: none */
    int nscale;             /* --scale: the sizes the scaling tests sweep */
    int scale[PERF_MAX_SCALE];
    FILE *out;              /* where this link's lines go: stdout, or --links' OUT */
    char *line;             /* --links: the line link_argv points into */
} perf_client;

/* --links takes at most this many links. */
#define PERF_MAX_LINKS 16

/* Read --links FILE: a copy of tmpl's options per line, with its link
 * arguments, out file and storage (links.c has the format); the count, or
 * -1 with err set. */
int perf_links_read(const perf_client *tmpl, const char *path, perf_client *pcs, int max,
                    char *err, size_t errsize);
void perf_links_free(perf_client *pcs, int n);

/* One measured figure: count operations done in sec seconds. */
typedef struct perf_result {
    long count;
    double sec;
    double t0;  /* perf_now() when the loop started */
} perf_result;

/* One operation of a timed loop. */
typedef MkErrorE (*perf_op)(perf_client *pc, void *arg);

/* Run op until pc->num operations or pc->sec seconds are done, checking the
 * clock every batch operations; sets res->count, res->t0 and res->sec.  A
 * test with a final synchronisation calls perf_stop after it. */
MkErrorE perf_loop(perf_client *pc, perf_op op, void *arg, int batch, perf_result *res);
/* Set res->sec to the time since res->t0. */
void perf_stop(perf_result *res);

/* The tests (tests.c, create.c); each warms up with one operation first. */
MkErrorE perf_send_nothing(perf_client *pc, perf_result *res);
MkErrorE perf_send(perf_client *pc, perf_result *res);
MkErrorE perf_send_and_wait(perf_client *pc, perf_result *res);
MkErrorE perf_send_and_callback(perf_client *pc, perf_result *res);
MkErrorE perf_bus(perf_client *pc, perf_result *res);
MkErrorE perf_bfl(perf_client *pc, perf_result *res);
MkErrorE perf_parent(perf_client *pc, perf_result *res);
MkErrorE perf_child(perf_client *pc, perf_result *res);
MkErrorE perf_send_persistent(perf_client *pc, perf_result *res);
/* The scaling tests, run once per --scale size N: WAIT calls with N in
 * flight on the main link (tests.c); N threads, N processes each calling
 * on a link of its own (scaling.c).  N is pc->window, pc->wrk. */
MkErrorE perf_in_flight(perf_client *pc, perf_result *res);
MkErrorE perf_scale_threads(perf_client *pc, perf_result *res);
MkErrorE perf_scale_procs(perf_client *pc, perf_result *res);

/* One WAIT call of the send-and-wait test on ctx, its answer checked
 * against seq (tests.c). */
MkErrorE perf_wait_call(MqContextC *ctx, MK_I32 seq);

/* Open ctx's link from pc's arguments; in pipe mode the forked server lands
 * on pc->server_cpu (create.c). */
MkErrorE perf_link_create(perf_client *pc, MqContextC *ctx);
/* The encoded sizes of the NOTHING and the send/ECUL messages in bytes,
 * frame header included (tests.c). */
void perf_message_sizes(size_t *empty, size_t *send);

#endif
