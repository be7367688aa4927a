/* perfstart.c — bin/perfstart: how many times per second a command can be
 * started and run to its end (fork + exec + waitpid, output to /dev/null),
 * for the start-up block of the table: a bare interpreter, the same loading
 * the mqlink binding, the perfserver's --version.
 *
 *   perfstart [--num N] [--sec S] [--runs N] NAME COMMAND [ARGS...]
 * prints `NAME ops/s=X count=N sec=S[ runs=N min=X max=X]` like perfclient
 * (the median of --runs, runs.h); exit status 1 when the command fails.
 * A run makes at least MIN_STARTS starts whatever --sec says: an
 * interpreter can take longer to start than a quick run lasts. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "runs.h"

#define MIN_STARTS 5

/* One start; 0 when the command exited with status 0. */
static int
start(char **argv, int null)
{
    int st;
    pid_t pid = fork();
    if (pid == 0) { /* only async-signal-safe calls before exec */
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
    long num = LONG_MAX;
    double sec = 0;
    int runs = 1, i = 1;
    perf_run r[PERF_MAX_RUNS];
    for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2)
        if (!strcmp(argv[i], "--num")) num = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--sec")) sec = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--runs")) runs = atoi(argv[i + 1]);
        else break;
    if (i + 2 > argc || num < 1 || runs < 1) {
        fprintf(stderr, "usage: perfstart [--num N] [--sec S] [--runs N] NAME COMMAND [ARGS...]\n");
        return 2;
    }
    if (sec <= 0)
        sec = num == LONG_MAX ? 1.0 : 1e9;
    if (runs > PERF_MAX_RUNS)
        runs = PERF_MAX_RUNS;
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || start(argv + i + 1, null) != 0) { /* warm-up: the files in the page cache */
        fprintf(stderr, "perfstart: %s: the command failed\n", argv[i]);
        printf("%s error: the command failed\n", argv[i]);
        return 1;
    }
    for (int k = 0; k < runs; k++) {
        long n = 0;
        double t0 = perf_now();
        while (n < num && (n < MIN_STARTS || perf_now() - t0 < sec)) {
            if (start(argv + i + 1, null) != 0) {
                printf("%s error: the command failed\n", argv[i]);
                return 1;
            }
            n++;
        }
        r[k] = (perf_run){n, perf_now() - t0};
    }
    perf_print_median(stdout, argv[i], r, runs, "");
    return 0;
}
