/* storage_txn.c — transactions, the statement table and error reporting. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "storage_int.h"

const char *const mqi_storage_sql[STMT__N] = {
    [STMT_BEGIN] = "BEGIN IMMEDIATE",
    [STMT_COMMIT] = "COMMIT",
    [STMT_ROLLBACK] = "ROLLBACK",
    [STMT_PUT] = "INSERT INTO pending(id, token, child, kind, body, created)"
                 " VALUES(?,?,?,?,?,?)",
    [STMT_DONE] = "DELETE FROM pending WHERE id=?",
    [STMT_NEXT] = "SELECT id, token, child, kind, body, created FROM pending"
                  " WHERE id>? ORDER BY id LIMIT 1",
    [STMT_COUNT] = "SELECT count(*) FROM pending",
    [STMT_LOW] = "SELECT min(id) FROM pending",
    [STMT_RESERVE] = "UPDATE meta SET value=? WHERE key='reserved'",
    [STMT_LOOKUP] = "SELECT kind, body, digest FROM processed WHERE peer=? AND id=?",
    [STMT_RECORD] = "INSERT INTO processed(peer, id, kind, body, created, digest)"
                    " VALUES(?,?,?,?,?,?)",
    [STMT_FORGET] = "DELETE FROM processed WHERE peer=? AND id<?",
    [STMT_PRUNE_AGE] = "DELETE FROM processed WHERE created<?",
    /* rowids grow with insertion, and the newest row is never deleted here */
    [STMT_PRUNE_KEEP] = "DELETE FROM processed WHERE rowid<="
                        " (SELECT rowid FROM processed ORDER BY rowid DESC LIMIT 1 OFFSET ?)",
    [STMT_GET] = "SELECT id, token, child, kind, body, created FROM pending WHERE id=?",
    [STMT_PROBE] = "INSERT OR REPLACE INTO meta VALUES('probe', zeroblob(?))",
    [STMT_UNPROBE] = "DELETE FROM meta WHERE key='probe'",
    [STMT_PAGES] = "PRAGMA page_count",
    [STMT_FREE_PAGES] = "PRAGMA freelist_count",
    [STMT_PAGE_SIZE] = "PRAGMA page_size",
    [STMT_ANY_PROCESSED] = "SELECT (SELECT count(*) FROM (SELECT 1 FROM processed LIMIT 1))"
                           " + (SELECT count(*) FROM (SELECT 1 FROM pending LIMIT 1))",
    [STMT_ANY_PENDING] = "SELECT count(*) FROM (SELECT 1 FROM pending LIMIT 1)",
};

static const char *
cause(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return " is locked by another process";
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return " is corrupt or not a database";
    case SQLITE_READONLY:
        return " is read-only";
    case SQLITE_CANTOPEN:
        return " cannot be opened";
    case SQLITE_FULL:
        return ": disk full";
    case SQLITE_IOERR:
        return ": I/O error";
    default:
        return ":";
    }
}

MkErrorE
mqi_storage_fail(const char *file, sqlite3 *db, int rc, const char *what, MkErrorC *err)
{
    const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    int sys = db ? sqlite3_system_errno(db) : 0;
    if (sys && ((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_IOERR))
        return MkErrorSet(err, MQI_ERR_STORAGE, "storage %s%s (%s: %s: %s)", file, cause(rc),
                          what, msg, strerror(sys));
    return MkErrorSet(err, MQI_ERR_STORAGE, "storage %s%s (%s: %s)", file, cause(rc), what,
                      msg);
}

/* The open transaction is gone, and with it any id reservation it wrote:
 * the next put reserves again (above next_id, so ids stay unique). */
static void
txn_lost(mqi_storage *st)
{
    st->in_txn = 0;
    st->id_limit = st->next_id;
}

/* A failed statement; sqlite rolls the transaction back on some errors
 * (disk full, I/O): then say that nothing since the last commit is stored. */
static MkErrorE
fail_in_txn(mqi_storage *st, int rc, const char *what, MkErrorC *err)
{
    mqi_storage_fail(st->file, st->db, rc, what, err);
    if (st->in_txn && sqlite3_get_autocommit(st->db)) {
        txn_lost(st);
        MkErrorStack(err, "the transaction was rolled back: nothing since the last commit "
                          "is stored");
    }
    return MK_ERROR;
}

MkErrorE
mqi_storage_exec(mqi_storage *st, sqlite3_stmt *s, const char *what, MkErrorC *err)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc == SQLITE_DONE || rc == SQLITE_ROW)
        return MK_OK;
    return fail_in_txn(st, sqlite3_extended_errcode(st->db), what, err);
}

MkErrorE
mqi_storage_need_txn(mqi_storage *st, MkErrorC *err)
{
    return st->in_txn ? MK_OK : mqi_storage_begin(st, err);
}

MkErrorE
mqi_storage_begin(mqi_storage *st, MkErrorC *err)
{
    if (st->in_txn)
        return MK_OK;
    if (mqi_storage_exec(st, st->stmt[STMT_BEGIN], "begin", err) != MK_OK)
        return MK_ERROR;
    st->in_txn = 1;
    return MK_OK;
}

MkErrorE
mqi_storage_commit(mqi_storage *st, MkErrorC *err)
{
    if (!st->in_txn)
        return MK_OK;
    int rc = sqlite3_step(st->stmt[STMT_COMMIT]);
    sqlite3_reset(st->stmt[STMT_COMMIT]);
    if (rc == SQLITE_DONE) {
        st->in_txn = 0;
        return MK_OK;
    }
    /* Never leave it half-open: report, then roll back what is left. */
    mqi_storage_fail(st->file, st->db, sqlite3_extended_errcode(st->db), "commit", err);
    if (!sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    txn_lost(st);
    MkErrorStack(err, "the transaction was rolled back: nothing since the last commit is stored");
    return MK_ERROR;
}

MkErrorE
mqi_storage_rollback(mqi_storage *st, MkErrorC *err)
{
    if (!st->in_txn)
        return MK_OK;
    txn_lost(st);
    if (sqlite3_get_autocommit(st->db))
        return MK_OK; /* sqlite already rolled back */
    return mqi_storage_exec(st, st->stmt[STMT_ROLLBACK], "rollback", err);
}

MK_I64
mqi_storage_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (MK_I64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void *
mqi_storage_keep(mqi_bytes *b, const void *data, size_t len)
{
    if (len > b->cap || !b->data) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < len)
            cap *= 2;
        unsigned char *p = realloc(b->data, cap);
        if (!p)
            return NULL;
        b->data = p;
        b->cap = cap;
    }
    if (len)
        memcpy(b->data, data, len);
    return b->data;
}
