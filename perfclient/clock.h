/* clock.h — the one clock of perfclient and perflimit: monotonic seconds.
 * Header-only, since perflimit links no mqlink code. */
#ifndef PERF_CLOCK_H
#define PERF_CLOCK_H

#include <time.h>

static inline double
perf_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
