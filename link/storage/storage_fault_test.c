/* storage_fault_test.c — a storage that cannot be used says why at open
 * (corrupt, foreign, newer, locked, unwritable), and a process killed in the
 * middle of a stream of commits loses nothing it committed. */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "storage.h"
#include "testlib.h"

static MkErrorC *err;

/* Open must fail, the text must name the file and contain `why`. */
static void
expect_open_error(const char *file, const char *why)
{
    mqi_storage *st = NULL;
    MQT_CHECK(mqi_storage_open(file, 0, &st, err) == MK_ERROR);
    MQT_CHECK(st == NULL);
    const char *t = MkErrorGetText(err);
    MQT_CHECK_MSG(strstr(t, file) && strstr(t, why), "error text '%s' lacks '%s'", t, why);
    mqi_storage_close(st, err);
}

static void
write_file(const char *file, const void *data, size_t len, off_t at)
{
    int fd = open(file, O_WRONLY | O_CREAT, 0644);
    MQT_CHECK(fd >= 0 && pwrite(fd, data, len, at) == (ssize_t)len);
    close(fd);
}

static void
make_storage(const char *file, int ncalls)
{
    mqi_storage *st = NULL;
    char body[100];
    memset(body, 'b', sizeof body);
    MQT_OK(mqi_storage_open(file, 0, &st, err), MkErrorGetText(err));
    for (int i = 0; i < ncalls; i++)
        MQT_OK(mqi_storage_put(st, "ECUL", 0, 0, body, sizeof body, NULL, err),
               MkErrorGetText(err));
    MQT_OK(mqi_storage_close(st, err), MkErrorGetText(err));
}

/* mqt_cleanup removes the file; sqlite's side files are ours to remove. */
static void
unlink_side_files(const char *file)
{
    char p[4096];
    snprintf(p, sizeof p, "%s-wal", file);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", file);
    unlink(p);
}

static void
raw_exec(const char *file, const char *sql)
{
    sqlite3 *db = NULL;
    MQT_CHECK(sqlite3_open(file, &db) == SQLITE_OK);
    MQT_CHECK_MSG(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
    sqlite3_close(db);
}

static void
test_corrupt(void)
{
    const char *garbage = mqt_temp_path("st-garbage");
    unsigned char junk[16384];
    srand((unsigned)getpid());
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)rand();
    write_file(garbage, junk, sizeof junk, 0);
    expect_open_error(garbage, "is corrupt or not a database");

    /* Valid header and schema, destroyed table pages: quick_check finds it. */
    const char *damaged = mqt_temp_path("st-damaged");
    make_storage(damaged, 2000);
    memset(junk, 0xa5, sizeof junk);
    write_file(damaged, junk, sizeof junk, 3 * 4096);
    expect_open_error(damaged, "corrupt");
}

static void
test_foreign_or_newer(void)
{
    const char *foreign = mqt_temp_path("st-foreign");
    raw_exec(foreign, "CREATE TABLE t(x)");
    expect_open_error(foreign, "not an mqlink storage");
    const char *newer = mqt_temp_path("st-newer");
    make_storage(newer, 1);
    raw_exec(newer, "PRAGMA user_version=99");
    expect_open_error(newer, "schema version 99");
}

/* In a child: hold the file (as a storage, or raw with BEGIN EXCLUSIVE),
 * tell the parent through fd, then wait to be killed. */
static void
hold_lock(const char *file, int raw, int fd)
{
    mqi_storage *st = NULL;
    sqlite3 *db = NULL;
    if (raw) {
        if (sqlite3_open(file, &db) || sqlite3_exec(db, "BEGIN EXCLUSIVE;"
                                                    " DELETE FROM pending;", NULL, NULL, NULL))
            _exit(1);
    } else if (mqi_storage_open(file, 0, &st, err) != MK_OK) {
        _exit(1);
    }
    if (write(fd, "r", 1) != 1)
        _exit(1);
    pause();
    _exit(0);
}

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
locked_by(int raw)
{
    const char *file = mqt_temp_path("st-locked");
    int p[2];
    char c;
    make_storage(file, 3);
    MQT_CHECK(pipe(p) == 0);
    pid_t pid = fork();
    if (pid == 0)
        hold_lock(file, raw, p[1]);
    MQT_CHECK(read(p[0], &c, 1) == 1);
    double t0 = now_s();
    expect_open_error(file, "is locked by another process");
    MQT_CHECK_MSG(now_s() - t0 < 3.0, "locked open took %.1f s", now_s() - t0);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    /* The holder is gone: the file is usable again, nothing lost. */
    mqi_storage *st = NULL;
    MK_I64 n = 0;
    MQT_OK(mqi_storage_open(file, 0, &st, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_pending_count(st, &n, err), MkErrorGetText(err));
    MQT_CHECK(n == 3);
    mqi_storage_close(st, err);
    unlink_side_files(file);
}

static void
test_locked_by_storage(void)
{
    locked_by(0);
}

static void
test_locked_by_writer(void)
{
    locked_by(1);
}

static void
test_unwritable(void)
{
    expect_open_error("/nonexistent-mqlink-dir/calls.db", "cannot be opened");
    expect_open_error("/tmp", "cannot be opened");
    if (geteuid() == 0) {
        /* root writes through chmod 0444; /proc refuses everyone */
        expect_open_error("/proc/mqlink-storage-test.db", "cannot be opened");
        return;
    }
    const char *ro = mqt_temp_path("st-readonly");
    make_storage(ro, 1);
    MQT_CHECK(chmod(ro, 0444) == 0);
    expect_open_error(ro, "read-only");
}

/* The child stores 1000 calls (body = its number), committing every 100 and
 * reporting each commit on fd; the parent kills it at a random point. */
static void
crash_child(const char *file, int flags, int fd)
{
    mqi_storage *st = NULL;
    char body[32];
    if (mqi_storage_open(file, flags, &st, err) != MK_OK)
        _exit(1);
    for (int i = 0; i < 1000; i++) {
        int n = snprintf(body, sizeof body, "%d", i);
        if (mqi_storage_put(st, "ECUL", 0, 0, body, (size_t)n, NULL, err) != MK_OK)
            _exit(1);
        usleep(20); /* a batch takes a few ms: room for the kill to land inside it */
        if (i % 100 == 99 && (mqi_storage_commit(st, err) != MK_OK || write(fd, "c", 1) != 1))
            _exit(1);
    }
    pause();
    _exit(0);
}

typedef struct crash_seen {
    int n;
    int bad;
} crash_seen;

/* Every committed call, exactly once, in order: body i at position i. */
static MkErrorE
check_call(const mqi_storage_call *c, void *data, MkErrorC *e)
{
    crash_seen *s = data;
    char want[32];
    int n = snprintf(want, sizeof want, "%d", s->n);
    if ((size_t)n != c->len || memcmp(want, c->body, c->len) != 0 || c->id != s->n + 1)
        s->bad++;
    s->n++;
    return MK_OK;
}

static void
check_integrity(const char *file)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    MQT_CHECK(sqlite3_open(file, &db) == SQLITE_OK);
    MQT_CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) == SQLITE_OK);
    MQT_CHECK(sqlite3_step(s) == SQLITE_ROW);
    MQT_CHECK_MSG(!strcmp((const char *)sqlite3_column_text(s, 0), "ok"), "integrity: %s",
                  sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
}

static void
crash_once(int flags, unsigned seed)
{
    const char *file = mqt_temp_path("st-crash");
    int p[2], commits = 0, wait_for = (int)(seed % 9);
    char c;
    MQT_CHECK(pipe(p) == 0);
    pid_t pid = fork();
    if (pid == 0)
        crash_child(file, flags, p[1]);
    close(p[1]);
    while (commits < wait_for && read(p[0], &c, 1) == 1)
        commits++;
    usleep(seed % 4000); /* land somewhere inside the next batch */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    while (read(p[0], &c, 1) == 1) /* commits reported before the kill */
        commits++;
    close(p[0]);
    mqi_storage *st = NULL;
    crash_seen s = {0};
    MQT_OK(mqi_storage_open(file, flags, &st, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_foreach_pending(st, check_call, &s, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_close(st, err), MkErrorGetText(err));
    printf("# %s: killed after %d reported commits, %d calls back\n",
           flags ? "full" : "normal", commits, s.n);
    /* A commit may be durable before it was reported, never the reverse. */
    MQT_CHECK_MSG(s.bad == 0 && s.n % 100 == 0 && s.n >= commits * 100,
                  "seed %u: %d calls back (%d wrong), %d commits reported", seed, s.n, s.bad,
                  commits);
    check_integrity(file);
    unlink_side_files(file);
}

static void
test_crash(void)
{
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    printf("# crash seed %u\n", seed);
    for (int i = 0; i < 6; i++)
        crash_once(i % 2 ? MQI_STORAGE_SYNC_FULL : 0, seed + (unsigned)i * 7919u);
}

static const mqt_case cases[] = {
    {"corrupt file is a clear error", test_corrupt},
    {"foreign or newer database is a clear error", test_foreign_or_newer},
    {"file held by another storage is a clear error", test_locked_by_storage},
    {"file locked by a writer is a clear error", test_locked_by_writer},
    {"unwritable path is a clear error", test_unwritable},
    {"kill -9 keeps every committed call once", test_crash},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    err = MkErrorCreate();
    return mqt_main(argc, argv, cases);
}
