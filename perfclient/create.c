/* create.c — the start-up tests of perfclient: new parent links (--parent,
 * from --wrk worker threads when the build has threads) and new child
 * contexts on the main link (--child). */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef MQ_HAVE_THREADS
#include <pthread.h>
#endif

#include "perfclient.h"

/* ------------------------------------------------------------- pinning */

static int
is_pipe(const perf_client *pc)
{
    for (int i = 1; i < pc->link_argc; i++)
        if (strcmp(pc->link_argv[i], "@") == 0)
            return 1;
    return 0;
}

/* In pipe mode the link forks the server from the calling thread, and the
 * child inherits that thread's CPU mask: move the thread to the server's CPU
 * for the moment of MqLinkCreate, then back.  Languages whose server cannot
 * pin itself are placed the same way. */
MkErrorE
perf_link_create(perf_client *pc, MqContextC *ctx)
{
    cpu_set_t saved, server;
    int pin = pc->server_cpu >= 0 && is_pipe(pc) &&
              sched_getaffinity(0, sizeof saved, &saved) == 0;
    if (pin) {
        CPU_ZERO(&server);
        CPU_SET(pc->server_cpu, &server);
        pin = sched_setaffinity(0, sizeof server, &server) == 0;
    }
    MkErrorE rc = MqLinkCreate(ctx, pc->link_argc, pc->link_argv);
    if (pin)
        sched_setaffinity(0, sizeof saved, &saved);
    return rc;
}

/* ---------------------------------------------------------------- --child */

static MkErrorE
op_child(perf_client *pc, void *arg)
{
    MqContextC *child = MqContextCreate();
    if (MqLinkCreateChild(child, pc->ctx) != MK_OK) {
        MqErrorSet(pc->ctx, MqErrorGetCode(child), "child: %s", MqErrorGetText(child));
        MqContextDelete(child);
        return MK_ERROR;
    }
    MqContextDelete(child);
    return MK_OK;
}

MkErrorE
perf_child(perf_client *pc, perf_result *res)
{
    if (op_child(pc, NULL) != MK_OK)
        return MK_ERROR;
    return perf_loop(pc, op_child, NULL, 10, res);
}

/* --------------------------------------------------------------- --parent */

/* What the workers share; started counts operations begun by all workers. */
typedef struct parent_job {
    perf_client *pc;
    double deadline;
    long started;
    long done;
    int failed;
    char error[256];
} parent_job;

static MkErrorE
one_parent(perf_client *pc, char *error, size_t size)
{
    MqContextC *ctx = MqContextCreate();
    MkErrorE rc = perf_link_create(pc, ctx);
    if (rc != MK_OK)
        snprintf(error, size, "%s", MqErrorGetText(ctx));
    MqContextDelete(ctx);
    return rc;
}

static void *
parent_worker(void *arg)
{
    parent_job *job = arg;
    char error[256];
    while (__atomic_add_fetch(&job->started, 1, __ATOMIC_RELAXED) <= job->pc->num &&
           perf_now() < job->deadline) {
        if (one_parent(job->pc, error, sizeof error) != MK_OK) {
            if (__atomic_fetch_add(&job->failed, 1, __ATOMIC_RELAXED) == 0)
                memcpy(job->error, error, sizeof error);
            break;
        }
        __atomic_add_fetch(&job->done, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* Run the workers; without threads the one worker is this thread. */
static int
run_workers(parent_job *job, int wrk)
{
#ifdef MQ_HAVE_THREADS
    pthread_t *tid = calloc((size_t)wrk, sizeof *tid);
    int n = 0;
    if (!tid)
        return 0;
    for (; n < wrk; n++)
        if (pthread_create(&tid[n], NULL, parent_worker, job) != 0)
            break;
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    free(tid);
    return n;
#else
    (void)wrk;
    parent_worker(job);
    return 1;
#endif
}

MkErrorE
perf_parent(perf_client *pc, perf_result *res)
{
    parent_job job = {.pc = pc};
    if (one_parent(pc, job.error, sizeof job.error) != MK_OK)
        goto error;
    res->t0 = perf_now();
    job.deadline = res->t0 + pc->sec;
    if (run_workers(&job, pc->wrk) == 0) {
        snprintf(job.error, sizeof job.error, "no worker thread started");
        goto error;
    }
    perf_stop(res);
    res->count = job.done;
    if (job.failed)
        goto error;
    return MK_OK;
error:
    return MqErrorSet(pc->ctx, MK_ERR_USER, "parent: %s", job.error);
}
