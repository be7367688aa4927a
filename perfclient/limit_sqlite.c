/* limit_sqlite.c — the limit of persistent delivery: raw sqlite3 insert of
 * one small row plus its commit, in WAL mode with the durability the link's
 * storage uses (--sync full|normal), on a scratch file. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "perflimit.h"

static void
remove_db(const char *file)
{
    char aux[4096];
    unlink(file);
    snprintf(aux, sizeof aux, "%s-wal", file);
    unlink(aux);
    snprintf(aux, sizeof aux, "%s-shm", file);
    unlink(aux);
}

static int
prepare(sqlite3 *db, int full)
{
    char pragmas[256];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL; PRAGMA synchronous=%s;"
             "CREATE TABLE t(id INTEGER PRIMARY KEY, body BLOB NOT NULL);",
             full ? "FULL" : "NORMAL");
    return sqlite3_exec(db, pragmas, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int
lim_persist(const lim_opts *o, lim_result *res)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *ins = NULL;
    unsigned char body[88] = {0};
    int rc = -1;
    long n = 0;
    remove_db(o->db);
    if (sqlite3_open(o->db, &db) != SQLITE_OK || prepare(db, o->sync_full) != 0 ||
        sqlite3_prepare_v2(db, "INSERT INTO t(body) VALUES(?)", -1, &ins, NULL) != SQLITE_OK)
        goto done;
    double t0 = perf_now();
    /* autocommit: every insert is its own transaction and commit */
    while (lim_more(o, n, t0)) {
        sqlite3_bind_blob(ins, 1, body, (int)(o->size < sizeof body ? o->size : sizeof body),
                          SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE)
            goto done;
        sqlite3_reset(ins);
        n++;
    }
    res->count = n;
    res->sec = perf_now() - t0;
    rc = 0;
done:
    if (rc != 0 && db)
        fprintf(stderr, "perflimit: sqlite3 on %s: %s\n", o->db, sqlite3_errmsg(db));
    sqlite3_finalize(ins);
    sqlite3_close(db);
    remove_db(o->db);
    return rc;
}
