/* testlib.c — see testlib.h. */
#define _GNU_SOURCE
#include "testlib.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_LAUNCHED 64
#define MAX_TEMPS 64

static int failures;
static pid_t launched[MAX_LAUNCHED];
static int nlaunched;
static char *temps[MAX_TEMPS];
static int ntemps;
/* Directories of mqt_temp_dir and the process that made each: only that
 * process removes it (a case's forked child inherits its runner's list). */
static char *dirs[MAX_TEMPS];
static pid_t dir_owner[MAX_TEMPS];
static int ndirs;

void
mqt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    failures++;
    printf("#   %s:%d: ", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

int
mqt_failures(void)
{
    return failures;
}

static int
case_timeout(void)
{
    const char *s = getenv("MQT_TIMEOUT");
    int t = s ? atoi(s) : 0;
    return t > 0 ? t : 60;
}

/* Run one case in a child so a crash or hang fails that case only. */
static int
run_case(const mqt_case *c)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm((unsigned)case_timeout());
        failures = 0;
        c->fn();
        mqt_cleanup();
        fflush(stdout);
        _exit(failures ? 1 : 0);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(st)) {
        printf("#   killed by signal %d%s\n", WTERMSIG(st),
               WTERMSIG(st) == SIGALRM ? " (time limit)" : "");
        return 0;
    }
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int
mqt_main(int argc, char **argv, const mqt_case *cases)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int n = 0, failed = 0;
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (const mqt_case *c = cases; c->name; c++)
        if (!filter || strstr(c->name, filter))
            n++;
    printf("1..%d\n", n);
    int i = 0;
    for (const mqt_case *c = cases; c->name; c++) {
        if (filter && !strstr(c->name, filter))
            continue;
        int ok = run_case(c);
        printf("%s %d - %s\n", ok ? "ok" : "not ok", ++i, c->name);
        failed += !ok;
    }
    return failed ? 1 : 0;
}

const char *
mqt_build_path(const char *rel)
{
    static char path[4096];
    const char *top = getenv("top_builddir");
    snprintf(path, sizeof path, "%s/%s", top ? top : ".", rel);
    return path;
}

const char *
mqt_temp_path(const char *stem)
{
    static unsigned seq;
    char *p = NULL;
    const char *dir = getenv("TMPDIR");
    if (asprintf(&p, "%s/mqt-%s-%d-%u", dir ? dir : "/tmp", stem, (int)getpid(), seq++) < 0)
        abort();
    unlink(p);
    if (ntemps < MAX_TEMPS)
        temps[ntemps++] = p;
    return p;
}

static void remove_dir(const char *dir);

/* At exit, the directories this process made that no mqt_cleanup removed:
 * a test's main makes some for all its cases (a case's child, which ends
 * in _exit, leaves them to it). */
static void
remove_own_dirs(void)
{
    for (int i = 0; i < ndirs; i++)
        if (dir_owner[i] == getpid())
            remove_dir(dirs[i]);
}

const char *
mqt_temp_dir(const char *stem)
{
    static int at_exit;
    const char *p = mqt_temp_path(stem);
    if (mkdir(p, 0700) != 0 || ndirs == MAX_TEMPS || !(dirs[ndirs] = strdup(p)))
        abort();
    dir_owner[ndirs++] = getpid();
    if (!at_exit++)
        atexit(remove_own_dirs);
    return p;
}

int
mqt_dir_each(const char *dir, void (*fn)(const char *path, const char *name, void *arg), void *arg)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char *p;
    int n = 0;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        if (fn && asprintf(&p, "%s/%s", dir, e->d_name) >= 0) {
            fn(p, e->d_name, arg);
            free(p);
        }
    }
    if (d)
        closedir(d);
    return n;
}

static void
unlink_entry(const char *path, const char *name, void *arg)
{
    (void)name, (void)arg;
    unlink(path);
}

/* Whether name is a companion of the temporary path whose last part is
 * base: base-wal, base-shm, base-journal (SQLite beside a database) or
 * base.SUFFIX (a receiver's file per sender, link/persist.c). */
static int
companion_of(const char *base, const char *name)
{
    size_t n = strlen(base);
    if (strncmp(name, base, n) != 0)
        return 0;
    name += n;
    return (name[0] == '.' && name[1]) || !strcmp(name, "-wal") || !strcmp(name, "-shm") ||
           !strcmp(name, "-journal");
}

static void
unlink_companion(const char *path, const char *name, void *base)
{
    if (companion_of(base, name))
        unlink(path);
}

/* A temporary path and its companions: a case that ends with a server's
 * or client's storage open (one killed on purpose, or one still ending when
 * the case did) leaves SQLite's log and a receiver's per-sender files. */
static void
unlink_temp(char *path)
{
    char *slash = strrchr(path, '/');
    unlink(path);
    if (!slash)
        return;
    *slash = '\0';
    mqt_dir_each(path, unlink_companion, slash + 1);
    *slash = '/';
}

/* A temporary directory's files (it has no subdirectories), then itself. */
static void
remove_dir(const char *dir)
{
    mqt_dir_each(dir, unlink_entry, NULL);
    rmdir(dir);
}

int
mqt_free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0)
        abort();
    close(fd);
    return ntohs(a.sin_port);
}

pid_t
mqt_launch(const char *const *argv, int timeout_s)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        /* A watchdog: the time limit holds even if the test forgets to stop us. */
        alarm((unsigned)timeout_s);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "mqt_launch: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (pid > 0 && nlaunched < MAX_LAUNCHED)
        launched[nlaunched++] = pid;
    return pid;
}

static void
sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int
mqt_wait_for_file(const char *path, int timeout_ms)
{
    struct stat st;
    for (int t = 0; t < timeout_ms; t += 5) {
        if (stat(path, &st) == 0)
            return 0;
        sleep_ms(5);
    }
    return -1;
}

int
mqt_wait_for_port(int port, int timeout_ms)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (int t = 0; t < timeout_ms; t += 5) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
        close(fd);
        if (ok)
            return 0;
        sleep_ms(5);
    }
    return -1;
}

int
mqt_stop(pid_t pid)
{
    int st = 0;
    if (pid <= 0)
        return -1;
    kill(pid, SIGTERM);
    for (int t = 0; t < 2000; t += 5) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            goto reaped;
        sleep_ms(5);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
reaped:
    for (int i = 0; i < nlaunched; i++)
        if (launched[i] == pid)
            launched[i] = 0;
    return st;
}

void
mqt_cleanup(void)
{
    for (int i = 0; i < nlaunched; i++)
        if (launched[i] > 0)
            mqt_stop(launched[i]);
    nlaunched = 0;
    for (int i = 0; i < ntemps; i++) {
        unlink_temp(temps[i]);
        free(temps[i]);
    }
    ntemps = 0;
    for (int i = 0; i < ndirs; i++) {
        if (dir_owner[i] == getpid())
            remove_dir(dirs[i]);
        free(dirs[i]);
    }
    ndirs = 0;
}
