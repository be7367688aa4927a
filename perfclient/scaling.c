/* scaling.c — perfclient's --scale-threads and --scale-procs: WAIT round
 * trips per second from pc->wrk clients at once, each with a parent link of
 * its own, the clients being threads of this process or processes forked
 * from it (performance/scaling.bash sweeps pc->wrk).
 *
 * Every client opens its link first; the clock starts when all are open (a
 * barrier), so link creation is not measured, and stops when the last one
 * is done.  The clients share one counter of calls begun, so --num bounds
 * the calls of all of them together, as --parent's workers do. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef MQ_HAVE_THREADS
#include <pthread.h>
#endif

#include "perfclient.h"

/* What the clients share: in plain memory for threads, in a shared mapping
 * for processes.  deadline is set by each client when it is released. */
typedef struct scale_job {
    long num;
    double sec;
    long started;
    long done;
    int failed;
    char error[256];
} scale_job;

static void
fail(scale_job *job, const char *text)
{
    if (__atomic_fetch_add(&job->failed, 1, __ATOMIC_RELAXED) == 0)
        snprintf(job->error, sizeof job->error, "%s", text);
}

/* One client's calls, from its release to its deadline or the shared --num. */
static void
client_calls(scale_job *job, MqContextC *ctx)
{
    double deadline = perf_now() + job->sec;
    MK_I32 seq = 0;
    while (__atomic_add_fetch(&job->started, 1, __ATOMIC_RELAXED) <= job->num &&
           perf_now() < deadline) {
        if (perf_wait_call(ctx, ++seq) != MK_OK) {
            fail(job, MqErrorGetText(ctx));
            return;
        }
        __atomic_add_fetch(&job->done, 1, __ATOMIC_RELAXED);
    }
}

/* A client's own link; NULL (and the job failed) when it cannot open. */
static MqContextC *
client_link(perf_client *pc, scale_job *job)
{
    MqContextC *ctx = MqContextCreate();
    MqConfigSetName(ctx, "perfclient");
    if (perf_link_create(pc, ctx) == MK_OK)
        return ctx;
    fail(job, MqErrorGetText(ctx));
    MqContextDelete(ctx);
    return NULL;
}

static MkErrorE
finish(perf_client *pc, scale_job *job, perf_result *res, const char *what)
{
    res->count = job->done;
    if (job->failed)
        return MqErrorSet(pc->ctx, MK_ERR_USER, "%s: %s", what, job->error);
    return MK_OK;
}

/* ------------------------------------------------------------- threads */

#ifdef MQ_HAVE_THREADS
/* The threads' barrier: opened counts open links, go releases them all.
 * A counter, not a pthread barrier, so a thread that did not start is
 * simply not waited for. */
typedef struct thread_gate {
    perf_client *pc;
    scale_job *job;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int opened, go;
} thread_gate;

static void *
thread_client(void *p)
{
    thread_gate *g = p;
    MqContextC *ctx = client_link(g->pc, g->job);
    pthread_mutex_lock(&g->lock);
    g->opened++;
    pthread_cond_broadcast(&g->cond);
    while (!g->go)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
    if (ctx && !g->job->failed)
        client_calls(g->job, ctx);
    if (ctx)
        MqContextDelete(ctx);
    return NULL;
}

MkErrorE
perf_scale_threads(perf_client *pc, perf_result *res)
{
    scale_job job = {.num = pc->num, .sec = pc->sec};
    thread_gate g = {.pc = pc, .job = &job};
    pthread_t *tid = calloc((size_t)pc->wrk, sizeof *tid);
    int n = 0;
    if (!tid)
        return MqErrorSet(pc->ctx, MK_ERR_MEMORY, "out of memory");
    pthread_mutex_init(&g.lock, NULL);
    pthread_cond_init(&g.cond, NULL);
    for (; n < pc->wrk; n++)
        if (pthread_create(&tid[n], NULL, thread_client, &g) != 0) {
            fail(&job, "a client thread did not start");
            break;
        }
    pthread_mutex_lock(&g.lock);
    while (g.opened < n)
        pthread_cond_wait(&g.cond, &g.lock);
    res->t0 = perf_now();
    g.go = 1;
    pthread_cond_broadcast(&g.cond);
    pthread_mutex_unlock(&g.lock);
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    perf_stop(res);
    pthread_cond_destroy(&g.cond);
    pthread_mutex_destroy(&g.lock);
    free(tid);
    return finish(pc, &job, res, "scale-threads");
}
#else
MkErrorE
perf_scale_threads(perf_client *pc, perf_result *res)
{
    (void)res;
    return MqErrorSet(pc->ctx, MK_ERR_USER, "scale-threads: this build has no threads");
}
#endif

/* ----------------------------------------------------------- processes */

/* A forked client: open the link, say so (one byte on ready), wait for the
 * release (end of file on go), call, say done (a second byte), leave.  It
 * never returns into perfclient, and _exit leaves the parent's streams and
 * link (copies in this process) untouched. */
static void
process_client(perf_client *pc, scale_job *job, int ready, int go)
{
    char c;
    MqContextC *ctx = client_link(pc, job);
    ssize_t r;
    (void)!write(ready, "r", 1);
    while ((r = read(go, &c, 1)) < 0 && errno == EINTR)
        ;
    if (ctx && !job->failed)
        client_calls(job, ctx);
    (void)!write(ready, "d", 1);
    if (ctx)
        MqContextDelete(ctx);
    _exit(0);
}

/* Read n bytes from fd (one per client); fewer: a client died first. */
static int
read_bytes(int fd, int n)
{
    char buf[64];
    int got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf, (size_t)(n - got) < sizeof buf ? (size_t)(n - got) : sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (int)r;
    }
    return got;
}

MkErrorE
perf_scale_procs(perf_client *pc, perf_result *res)
{
    scale_job *job = mmap(NULL, sizeof *job, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int ready[2], go[2], n = 0;
    if (job == MAP_FAILED)
        return MqErrorSet(pc->ctx, MQ_ERR_SYSTEM, "scale-procs: mmap: %s", strerror(errno));
    *job = (scale_job){.num = pc->num, .sec = pc->sec};
    if (pipe(ready) != 0 || pipe(go) != 0) {
        munmap(job, sizeof *job);
        return MqErrorSet(pc->ctx, MQ_ERR_SYSTEM, "scale-procs: pipe: %s", strerror(errno));
    }
    fflush(NULL); /* the children must not write what the parent buffered */
    for (; n < pc->wrk; n++) {
        pid_t pid = fork();
        if (pid < 0) {
            fail(job, "fork failed");
            break;
        }
        if (pid == 0) {
            close(ready[0]);
            close(go[1]);
            process_client(pc, job, ready[1], go[0]);
        }
    }
    close(ready[1]);
    close(go[0]);
    if (read_bytes(ready[0], n) < n)
        fail(job, "a client process ended before its link was open");
    res->t0 = perf_now();
    close(go[1]);
    if (read_bytes(ready[0], n) < n)
        fail(job, "a client process ended before its calls were done");
    perf_stop(res);
    close(ready[0]);
    while (n > 0)
        if (wait(NULL) > 0)
            n--;
        else if (errno != EINTR)
            break;
    MkErrorE rc = finish(pc, job, res, "scale-procs");
    munmap(job, sizeof *job);
    return rc;
}
