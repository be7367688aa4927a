/* storage.c — opening, checking and closing a storage; transactions.
 * The calls themselves are in storage_calls.c. */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "storage_int.h"

static const char schema_sql[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value NOT NULL);"
    "CREATE TABLE pending(id INTEGER PRIMARY KEY, token TEXT NOT NULL,"
    " child INTEGER NOT NULL, kind INTEGER NOT NULL, body BLOB NOT NULL,"
    " created INTEGER NOT NULL);"
    "CREATE TABLE processed(peer TEXT NOT NULL, id INTEGER NOT NULL, kind INTEGER NOT NULL,"
    " body BLOB NOT NULL, created INTEGER NOT NULL, digest INTEGER, PRIMARY KEY(peer, id));";

/* Schema 1 to 2: processed calls get the digest of the call (NULL for the
 * calls recorded before: those are answered from the record unchecked). */
static const char upgrade_1_sql[] =
    "ALTER TABLE processed ADD COLUMN digest INTEGER; PRAGMA user_version=2;";

/* Run sql and copy the first column of its first row (if any) into out. */
static int
query_text(sqlite3 *db, const char *sql, char *out, size_t n)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    out[0] = '\0';
    if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 0);
        snprintf(out, n, "%s", t ? (const char *)t : "");
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
        rc = sqlite3_extended_errcode(db); /* before finalize resets it */
    sqlite3_finalize(s);
    return rc;
}

static MkErrorE
pragmas(mqi_storage *st, int flags, MkErrorC *err)
{
    char mode[32];
    int rc;
    if (!st->durable)
        return MK_OK;
    /* Exclusive before the first access: the handle owns the file, and the
     * WAL index lives in heap memory (no -shm file). */
    if ((rc = query_text(st->db, "PRAGMA locking_mode=EXCLUSIVE", mode, sizeof mode)) ||
        (rc = query_text(st->db, "PRAGMA journal_mode=WAL", mode, sizeof mode)))
        return mqi_storage_fail(st->file, st->db, rc, "opening", err);
    if (strcmp(mode, "wal") != 0)
        return MkErrorSet(err, MQI_ERR_STORAGE, "storage %s: cannot switch to WAL mode (got %s)",
                          st->file, mode);
    rc = query_text(st->db, flags & MQI_STORAGE_SYNC_FULL ? "PRAGMA synchronous=FULL"
                                                          : "PRAGMA synchronous=NORMAL",
                    mode, sizeof mode);
    if (rc)
        return mqi_storage_fail(st->file, st->db, rc, "setting synchronous", err);
    if (sqlite3_db_readonly(st->db, "main") == 1)
        return MkErrorSet(err, MQI_ERR_STORAGE, "storage %s is read-only", st->file);
    return MK_OK;
}

/* A new file: tables, marks and an identity nobody else has (getrandom, not
 * sqlite's generator, whose state a forked child shares with its parent). */
static MkErrorE
create_schema(mqi_storage *st, MkErrorC *err)
{
    unsigned char rnd[16];
    char sql[160];
    int rc;
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return MkErrorSet(err, MQI_ERR_STORAGE, "storage %s: getrandom failed", st->file);
    for (size_t i = 0; i < sizeof rnd; i++)
        sprintf(st->identity + 2 * i, "%02x", rnd[i]);
    snprintf(sql, sizeof sql,
             "INSERT INTO meta VALUES('identity','%s'), ('reserved', 0);"
             "PRAGMA application_id=%d; PRAGMA user_version=%d;",
             st->identity, MQI_STORAGE_APP_ID, MQI_STORAGE_SCHEMA);
    if ((rc = sqlite3_exec(st->db, schema_sql, NULL, NULL, NULL)) ||
        (rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL)))
        return mqi_storage_fail(st->file, st->db, rc, "creating the tables", err);
    return MK_OK;
}

/* Inside the open transaction: create the schema or check that it is ours. */
static MkErrorE
check_schema(mqi_storage *st, MkErrorC *err)
{
    char app[32], ver[32], ntab[32];
    int rc;
    if ((rc = query_text(st->db, "PRAGMA application_id", app, sizeof app)) ||
        (rc = query_text(st->db, "PRAGMA user_version", ver, sizeof ver)) ||
        (rc = query_text(st->db, "SELECT count(*) FROM sqlite_master", ntab, sizeof ntab)))
        return mqi_storage_fail(st->file, st->db, rc, "reading the schema", err);
    if (atoi(app) == 0 && atoi(ver) == 0 && atoi(ntab) == 0)
        return create_schema(st, err);
    if (atoi(app) != MQI_STORAGE_APP_ID)
        return MkErrorSet(err, MQI_ERR_STORAGE,
                          "storage %s is an sqlite database of another program, "
                          "not an mqlink storage", st->file);
    if (atoi(ver) == 1 && (rc = sqlite3_exec(st->db, upgrade_1_sql, NULL, NULL, NULL)))
        return mqi_storage_fail(st->file, st->db, rc, "upgrading the schema to version 2", err);
    if (atoi(ver) != MQI_STORAGE_SCHEMA && atoi(ver) != 1)
        return MkErrorSet(err, MQI_ERR_STORAGE,
                          "storage %s has schema version %s; this mqlink reads version %d",
                          st->file, ver, MQI_STORAGE_SCHEMA);
    rc = query_text(st->db, "SELECT value FROM meta WHERE key='identity'", st->identity,
                    sizeof st->identity);
    if (rc || strlen(st->identity) != 32)
        return mqi_storage_fail(st->file, st->db, rc ? rc : SQLITE_CORRUPT,
                                "reading the identity", err);
    return MK_OK;
}

/* Ids continue above every id ever reserved, even when no call is pending. */
static MkErrorE
load_next_id(mqi_storage *st, MkErrorC *err)
{
    char v[32];
    int rc = query_text(st->db,
                        "SELECT max((SELECT value FROM meta WHERE key='reserved'),"
                        " coalesce((SELECT max(id) FROM pending), 0))", v, sizeof v);
    if (rc)
        return mqi_storage_fail(st->file, st->db, rc, "reading the next id", err);
    st->next_id = atoll(v) + 1;
    st->id_limit = st->next_id; /* nothing reserved by this handle yet */
    return MK_OK;
}

/* Take the write lock (a locked file fails here), check and commit. */
static MkErrorE
setup(mqi_storage *st, MkErrorC *err)
{
    char res[256];
    int rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc)
        return mqi_storage_fail(st->file, st->db, rc, "opening", err);
    if (check_schema(st, err) != MK_OK || load_next_id(st, err) != MK_OK) {
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
        return MK_ERROR;
    }
    if ((rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL)))
        return mqi_storage_fail(st->file, st->db, rc, "opening", err);
    if ((rc = query_text(st->db, "PRAGMA quick_check", res, sizeof res)))
        return mqi_storage_fail(st->file, st->db, rc, "checking integrity", err);
    for (char *c = res; *c; c++)
        *c = *c == '\n' ? ' ' : *c;
    if (strcmp(res, "ok") != 0)
        return MkErrorSet(err, MQI_ERR_STORAGE, "storage %s is corrupt (quick_check: %s)",
                          st->file, res);
    for (int i = 0; i < STMT__N; i++) {
        rc = sqlite3_prepare_v3(st->db, mqi_storage_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                                &st->stmt[i], NULL);
        if (rc)
            return mqi_storage_fail(st->file, st->db, rc, "preparing statements", err);
    }
    return MK_OK;
}

/* With wait_ms 0 a lock held by someone else fails the open at once, and
 * *busy says that was the reason (storage_dir.c tries again). */
static int
busy_fails(void *st, int tries)
{
    (void)tries;
    ((mqi_storage *)st)->busy = 1;
    return 0;
}

MkErrorE
mqi_storage_open_once(const char *file, int flags, int wait_ms, mqi_storage **out, int *busy,
                      MkErrorC *err)
{
    int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
                 SQLITE_OPEN_EXRESCODE;
    mqi_storage *st;
    *out = NULL;
    if (busy)
        *busy = 0;
    if (file && !*file) /* sqlite would make a temporary file, gone at close */
        return MkErrorSet(err, MK_ERR_ARGUMENT, "storage: empty file name");
    if (file && !strcmp(file, ":memory:"))
        file = NULL;
    st = calloc(1, sizeof *st);
    if (!st || !(st->file = strdup(file ? file : ":memory:"))) {
        free(st);
        return MkErrorSet(err, MK_ERR_MEMORY, "storage: out of memory");
    }
    st->durable = file != NULL;
    int rc = sqlite3_open_v2(st->file, &st->db, oflags, NULL);
    if (rc) {
        mqi_storage_fail(st->file, st->db, rc, "opening", err);
        goto error;
    }
    if (wait_ms > 0)
        sqlite3_busy_timeout(st->db, wait_ms);
    else
        sqlite3_busy_handler(st->db, busy_fails, st);
    if (pragmas(st, flags, err) != MK_OK || setup(st, err) != MK_OK)
        goto error;
    sqlite3_busy_timeout(st->db, MQI_STORAGE_BUSY_MS);
    *out = st;
    return MK_OK;
error:
    if (busy)
        *busy = st->busy;
    mqi_storage_close(st, NULL);
    return MK_ERROR;
}

MkErrorE
mqi_storage_open(const char *file, int flags, mqi_storage **out, MkErrorC *err)
{
    if ((flags & MQI_STORAGE_REMOVABLE) && file && *file && strcmp(file, ":memory:"))
        return mqi_storage_open_removable(file, flags, out, err);
    return mqi_storage_open_once(file, flags, MQI_STORAGE_BUSY_MS, out, NULL, err);
}

MkErrorE
mqi_storage_close(mqi_storage *st, MkErrorC *err)
{
    MkErrorE rc = MK_OK;
    if (!st)
        return MK_OK;
    if (st->in_txn)
        rc = mqi_storage_commit(st, err);
    for (int i = 0; i < STMT__N; i++)
        sqlite3_finalize(st->stmt[i]);
    sqlite3_close_v2(st->db);
    free(st->answer.data);
    free(st->pending.data);
    free(st->file);
    free(st);
    return rc;
}

int
mqi_storage_durable(const mqi_storage *st)
{
    return st->durable;
}

const char *
mqi_storage_file(const mqi_storage *st)
{
    return st->file;
}

const char *
mqi_storage_identity(const mqi_storage *st)
{
    return st->identity;
}

int
mqi_storage_in_transaction(const mqi_storage *st)
{
    return st->in_txn;
}
