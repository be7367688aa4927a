/* links.c — perfclient --links FILE: the links a side-by-side run measures
 * (perfclient.c takes each test's warm-up and runs on every link in turn).
 * One line per link, its fields separated by tabs:
 *
 *   OUT  STORAGE  LINK-ARG...
 *
 * OUT is the file the link's lines are appended to, STORAGE its
 * --send-persistent storage (- for none), the LINK-ARGs MqLinkCreate's
 * arguments as they would follow perfclient's options. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfclient.h"

/* Split line at tabs into pc's link arguments (after argv[0]), its out file
 * name and storage; 0, or -1 with err set. */
static int
split_line(perf_client *pc, char *line, const char **out, char *err, size_t errsize)
{
    int n = 0, cap = 8;
    const char **argv = malloc((size_t)cap * sizeof *argv);
    if (!argv) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    argv[n++] = "perfclient";
    for (char *f = strtok(line, "\t\n"); f; f = strtok(NULL, "\t\n")) {
        if (n + 1 >= cap) {
            const char **more = realloc(argv, (size_t)(cap *= 2) * sizeof *argv);
            if (!more) {
                free(argv);
                snprintf(err, errsize, "out of memory");
                return -1;
            }
            argv = more;
        }
        argv[n++] = f;
    }
    argv[n] = NULL;
    if (n < 4) {
        free(argv);
        return snprintf(err, errsize, "a line needs OUT, STORAGE and link arguments"), -1;
    }
    *out = argv[1];
    pc->storage = strcmp(argv[2], "-") == 0 ? NULL : argv[2];
    argv[2] = argv[0]; /* link_argv starts at the program name */
    pc->link_argv = argv + 2;
    pc->link_argc = n - 2;
    return 0;
}

/* The link of one line, a copy of tmpl's options; 0, or -1 with err set. */
static int
one_link(const perf_client *tmpl, char *line, perf_client *pc, char *err, size_t errsize)
{
    const char *out;
    *pc = *tmpl;
    pc->line = line;
    if (split_line(pc, line, &out, err, errsize) != 0)
        return -1;
    pc->out = fopen(out, "a");
    if (!pc->out) {
        snprintf(err, errsize, "cannot open %s", out);
        free(pc->link_argv - 2);
        return -1;
    }
    setvbuf(pc->out, NULL, _IOLBF, 0);
    return 0;
}

int
perf_links_read(const perf_client *tmpl, const char *path, perf_client *pcs, int max,
                char *err, size_t errsize)
{
    FILE *f = fopen(path, "r");
    int n = 0, failed = 0;
    char *line = NULL;
    size_t size = 0;
    if (!f) {
        snprintf(err, errsize, "cannot read %s", path);
        return -1;
    }
    while (!failed && getline(&line, &size, f) > 0) {
        if (n == max) {
            snprintf(err, errsize, "%s: more than %d links", path, max);
            failed = 1;
        } else if (one_link(tmpl, line, &pcs[n], err, errsize) != 0)
            failed = 1;
        else
            n++, line = NULL, size = 0; /* pcs[n].line owns it */
    }
    free(line);
    fclose(f);
    if (!failed && n == 0) {
        snprintf(err, errsize, "%s names no link", path);
        failed = 1;
    }
    if (failed) {
        perf_links_free(pcs, n);
        return -1;
    }
    return n;
}

void
perf_links_free(perf_client *pcs, int n)
{
    for (int i = 0; i < n; i++) {
        fclose(pcs[i].out);
        free(pcs[i].link_argv - 2);
        free(pcs[i].line);
    }
}
