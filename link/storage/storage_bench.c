/* storage_bench.c — the limit row for persistent calls: how many single-row
 * insert+commit transactions sqlite3 manages on this machine in the same
 * durability mode as a storage (WAL, exclusive lock, synchronous FULL or
 * NORMAL).  Raw sqlite3, no mqlink code in the loop. */
#include "config.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "storage_int.h"

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
remove_files(const char *file)
{
    char p[4096];
    unlink(file);
    snprintf(p, sizeof p, "%s-wal", file);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", file);
    unlink(p);
}

static int
setup(sqlite3 *db, int flags)
{
    int rc = sqlite3_exec(db, "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL;",
                          NULL, NULL, NULL);
    if (!rc)
        rc = sqlite3_exec(db, flags & MQI_STORAGE_SYNC_FULL ? "PRAGMA synchronous=FULL"
                                                            : "PRAGMA synchronous=NORMAL",
                          NULL, NULL, NULL);
    if (!rc)
        rc = sqlite3_exec(db, "CREATE TABLE bench(id INTEGER PRIMARY KEY, body BLOB)", NULL,
                          NULL, NULL);
    return rc;
}

/* Insert one row per transaction (autocommit: the INSERT is its own
 * transaction) until `seconds` have passed. */
static int
run(sqlite3 *db, sqlite3_stmt *ins, double seconds, double *rate)
{
    static const unsigned char body[64];
    double t0 = now_s(), t = t0;
    long n = 0;
    int rc = SQLITE_OK;
    sqlite3_bind_blob(ins, 1, body, sizeof body, SQLITE_STATIC);
    while (t - t0 < seconds) {
        if (sqlite3_step(ins) != SQLITE_DONE) {
            rc = sqlite3_extended_errcode(db);
            break;
        }
        sqlite3_reset(ins);
        if ((++n & 15) == 0)
            t = now_s();
    }
    t = now_s();
    *rate = t > t0 ? (double)n / (t - t0) : 0.0;
    return rc;
}

MkErrorE
mqi_storage_bench_commit_rate(const char *file, int flags, double seconds, double *rate,
                              MkErrorC *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *ins = NULL;
    MkErrorE ret = MK_OK;
    *rate = 0.0;
    remove_files(file);
    int rc = sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (!rc)
        rc = setup(db, flags);
    if (!rc)
        rc = sqlite3_prepare_v2(db, "INSERT INTO bench(body) VALUES(?)", -1, &ins, NULL);
    if (!rc)
        rc = run(db, ins, seconds, rate);
    if (rc)
        ret = mqi_storage_fail(file, db, rc, "commit-rate benchmark", err);
    sqlite3_finalize(ins);
    sqlite3_close_v2(db);
    remove_files(file);
    return ret;
}
