/* floor.h — what the languages' floor programs (wrappers/LANG/perffloor.c:
 * perffloor-tcl, perffloor-ruby, perffloor-java) share: how long a figure
 * runs, when a timed loop is done, and the line it prints, in perfclient's
 * form.  Header-only, as clock.h: they link no perfclient code.  Each keeps
 * its own timed loop, calling into its language directly: an adapter would
 * add an indirect call to what the loop times. */
#ifndef PERF_FLOOR_H
#define PERF_FLOOR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

/* How long a figure runs: num calls when num > 0, else sec seconds. */
typedef struct {
    long num;
    double sec;
} floor_size;

/* --num N and --sec S into z, the last one given winning (so either alone
 * replaces the program's default); any other word into *rest, the last. */
static inline void
floor_options(floor_size *z, int argc, char **argv, const char **rest)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--num") && i + 1 < argc)
            z->num = atol(argv[++i]), z->sec = 0;
        else if (!strcmp(argv[i], "--sec") && i + 1 < argc)
            z->sec = atof(argv[++i]), z->num = 0;
        else
            *rest = argv[i];
    }
}

/* Whether n calls in t seconds complete a figure of size z. */
static inline int
floor_done(const floor_size *z, long n, double t)
{
    return z->num > 0 ? n >= z->num : t >= z->sec;
}

/* `NAME ops/s=X count=N sec=S EXTRA` on stdout. */
static inline void
floor_report(const char *name, double per_call, long count, const char *extra)
{
    printf("%s ops/s=%.0f count=%ld sec=%.3f%s\n", name, 1 / per_call, count, per_call * count,
           extra);
    fflush(stdout);
}

#endif
