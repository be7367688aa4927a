/* replay.c — the fuzz targets as an ordinary test: LLVMFuzzerTestOneInput
 * (FUZZ_TARGET's source, linked in) over every file of
 * fuzz/corpus/FUZZ_TARGET/ and fuzz/crashes/FUZZ_TARGET/, or over the files
 * and directories given as arguments.  Prints TAP, one case per input.
 *
 * Each input runs in its own child process, so one crash fails that input
 * only and the report names it; a sanitizer report ends the child with a
 * non-zero status.  testlib's mqt_main is not used: its cases are a fixed
 * table, these are the files found at run time.
 *
 * Limits per input: 10 s (SIGALRM), and no single allocation above
 * REPLAY_MAX_ALLOC — a peer-sized allocation must fail the test even where
 * it would succeed (overcommit) or where the library would handle its
 * failure.  Under AddressSanitizer its own max_allocation_size_mb says so;
 * otherwise malloc, calloc and realloc are interposed here. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

#define REPLAY_MAX_ALLOC_MB 256
#define REPLAY_TIMEOUT_S 10

#if defined(__SANITIZE_ADDRESS__)
#define REPLAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REPLAY_ASAN 1
#endif
#endif

#ifdef REPLAY_ASAN
#define STR_(x) #x
#define STR(x) STR_(x)
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
    return "max_allocation_size_mb=" STR(REPLAY_MAX_ALLOC_MB) ":allocator_may_return_null=0";
}
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static void
too_big(size_t n)
{
    char msg[128];
    int k = snprintf(msg, sizeof msg, "replay: allocation of %zu bytes exceeds the limit of %d MiB\n",
                     n, REPLAY_MAX_ALLOC_MB);
    if (write(2, msg, (size_t)k) < 0)
        _exit(98);
    abort();
}

void *
malloc(size_t n)
{
    if (n > (size_t)REPLAY_MAX_ALLOC_MB << 20)
        too_big(n);
    return __libc_malloc(n);
}

void *
calloc(size_t k, size_t n)
{
    if (n && k > ((size_t)REPLAY_MAX_ALLOC_MB << 20) / n)
        too_big(k * n);
    return __libc_calloc(k, n);
}

void *
realloc(void *p, size_t n)
{
    if (n > (size_t)REPLAY_MAX_ALLOC_MB << 20)
        too_big(n);
    return __libc_realloc(p, n);
}
#endif

static char **paths;
static size_t npaths, cappaths;

static void
add_path(const char *p)
{
    if (npaths == cappaths) {
        cappaths = cappaths ? 2 * cappaths : 64;
        paths = realloc(paths, cappaths * sizeof *paths);
        if (!paths)
            abort();
    }
    paths[npaths++] = strdup(p);
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or every regular file of a directory (sorted, hidden ones left
 * out); a missing directory adds nothing. */
static void
collect(const char *p)
{
    struct stat st;
    if (stat(p, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        add_path(p);
        return;
    }
    DIR *d = opendir(p);
    struct dirent *e;
    size_t first = npaths;
    char full[4096];
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(full, sizeof full, "%s/%s", p, e->d_name);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
            add_path(full);
    }
    if (d)
        closedir(d);
    qsort(paths + first, npaths - first, sizeof *paths, by_name);
}

static unsigned char *
read_file(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    if (!f)
        return NULL;
    for (;;) {
        if (*len == cap) {
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            if (!buf)
                abort();
        }
        size_t n = fread(buf + *len, 1, cap - *len, f);
        if (n == 0)
            break;
        *len += n;
    }
    fclose(f);
    return buf;
}

/* Run one input in a child; 1 when it passed. */
static int
replay(const char *p)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        size_t len;
        unsigned char *data = read_file(p, &len);
        if (!data) {
            fprintf(stderr, "replay: cannot read %s: %s\n", p, strerror(errno));
            _exit(97);
        }
        alarm(REPLAY_TIMEOUT_S);
        LLVMFuzzerTestOneInput(data, len);
        free(data);
        exit(0); /* exit, not _exit: LeakSanitizer runs at exit */
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(st)) {
        printf("#   %s: killed by signal %d%s\n", p, WTERMSIG(st),
               WTERMSIG(st) == SIGALRM ? " (time limit)" : "");
        return 0;
    }
    if (WEXITSTATUS(st) != 0) {
        printf("#   %s: exit status %d (see the sanitizer report above)\n", p, WEXITSTATUS(st));
        return 0;
    }
    return 1;
}

/* The path as the report shows it: from fuzz/ on. */
static const char *
shown(const char *p)
{
    const char *s = strstr(p, "fuzz/corpus/");
    if (!s)
        s = strstr(p, "fuzz/crashes/");
    return s ? s : p;
}

int
main(int argc, char **argv)
{
    char dir[4096];
    const char *top = getenv("top_srcdir");
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            collect(argv[i]);
    } else {
        snprintf(dir, sizeof dir, "%s/fuzz/corpus/%s", top ? top : ".", FUZZ_TARGET);
        collect(dir);
        snprintf(dir, sizeof dir, "%s/fuzz/crashes/%s", top ? top : ".", FUZZ_TARGET);
        collect(dir);
    }
    if (npaths == 0) {
        printf("1..0 # SKIP no inputs for %s\n", FUZZ_TARGET);
        return 0;
    }
    printf("1..%zu\n", npaths);
    int failed = 0;
    for (size_t i = 0; i < npaths; i++) {
        int ok = replay(paths[i]);
        printf("%s %zu - %s %s\n", ok ? "ok" : "not ok", i + 1, FUZZ_TARGET, shown(paths[i]));
        failed += !ok;
    }
    return failed ? 1 : 0;
}
