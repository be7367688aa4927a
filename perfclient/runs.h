/* runs.h — how perfclient and perflimit report a test run several times
 * (--runs): the median run by rate, with the slowest and fastest rates.
 * Header-only, like clock.h, since perflimit links no mqlink code. */
#ifndef PERF_RUNS_H
#define PERF_RUNS_H

#include <stdio.h>
#include <stdlib.h>

/* --runs beyond this are taken as this many. */
#define PERF_MAX_RUNS 15

/* One run: count operations in sec seconds. */
typedef struct perf_run {
    long count;
    double sec;
} perf_run;

static inline double
perf_run_rate(const perf_run *r)
{
    return r->sec > 0 ? (double)r->count / r->sec : 0.0;
}

static inline int
perf_run_by_rate(const void *a, const void *b)
{
    double x = perf_run_rate(a), y = perf_run_rate(b);
    return (x > y) - (x < y);
}

/* Sort the n runs by rate and print the median one to out as
 *   NAME ops/s=X count=N sec=S[EXTRA][ runs=N min=X max=X] */
static inline void
perf_print_median(FILE *out, const char *name, perf_run *runs, int n, const char *extra)
{
    qsort(runs, (size_t)n, sizeof *runs, perf_run_by_rate);
    const perf_run *mid = &runs[n / 2];
    fprintf(out, "%s ops/s=%.0f count=%ld sec=%.3f%s", name, perf_run_rate(mid), mid->count,
            mid->sec, extra);
    if (n > 1)
        fprintf(out, " runs=%d min=%.0f max=%.0f", n, perf_run_rate(&runs[0]),
                perf_run_rate(&runs[n - 1]));
    fprintf(out, "\n");
}

#endif
