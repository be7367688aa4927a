/* storage_calls.c — the sender's pending calls and the receiver's processed
 * calls.  Every statement is prepared once (storage.c) and reset after use. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "storage_int.h"

/* sqlite binds a NULL pointer as SQL NULL; an empty body is an empty BLOB. */
static int
bind_body(sqlite3_stmt *s, int col, const void *body, size_t len)
{
    return sqlite3_bind_blob64(s, col, len ? body : "", len, SQLITE_STATIC);
}

/* Make sure next_id is reserved: the reservation is written in the open
 * transaction, so it is durable exactly when the call using it is. */
static MkErrorE
reserve_id(mqi_storage *st, MkErrorC *err)
{
    sqlite3_stmt *s = st->stmt[STMT_RESERVE];
    MK_I64 upto = st->next_id + MQI_STORAGE_ID_BLOCK;
    if (st->next_id < st->id_limit)
        return MK_OK;
    sqlite3_bind_int64(s, 1, upto);
    if (mqi_storage_exec(st, s, "reserving ids", err) != MK_OK)
        return MK_ERROR;
    st->id_limit = upto + 1;
    return MK_OK;
}

MkErrorE
mqi_storage_put(mqi_storage *st, const char *token, MK_I64 child, MK_I32 kind,
                const void *body, size_t len, MK_I64 *id, MkErrorC *err)
{
    sqlite3_stmt *s = st->stmt[STMT_PUT];
    if (!token || strlen(token) != 4)
        return MkErrorSet(err, MK_ERR_ARGUMENT, "storage %s: token must be 4 characters",
                          st->file);
    if (mqi_storage_need_txn(st, err) != MK_OK || reserve_id(st, err) != MK_OK)
        return MK_ERROR;
    sqlite3_bind_int64(s, 1, st->next_id);
    sqlite3_bind_text(s, 2, token, 4, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, child);
    sqlite3_bind_int(s, 4, kind);
    bind_body(s, 5, body, len);
    sqlite3_bind_int64(s, 6, mqi_storage_now_ms());
    MkErrorE rc = mqi_storage_exec(st, s, "storing a call", err);
    sqlite3_clear_bindings(s);
    if (rc == MK_OK && id)
        *id = st->next_id;
    if (rc == MK_OK)
        st->next_id++;
    return rc;
}

MkErrorE
mqi_storage_done(mqi_storage *st, MK_I64 id, MkErrorC *err)
{
    sqlite3_stmt *s = st->stmt[STMT_DONE];
    if (mqi_storage_need_txn(st, err) != MK_OK)
        return MK_ERROR;
    sqlite3_bind_int64(s, 1, id);
    return mqi_storage_exec(st, s, "removing an answered call", err);
}

/* Step a one-row, one-integer query into *out. */
static MkErrorE
query_i64(mqi_storage *st, sqlite3_stmt *s, const char *what, MK_I64 *out, MkErrorC *err)
{
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if (rc == SQLITE_ROW)
        return MK_OK;
    return mqi_storage_fail(st->file, st->db, sqlite3_extended_errcode(st->db), what, err);
}

MkErrorE
mqi_storage_pending_count(mqi_storage *st, MK_I64 *count, MkErrorC *err)
{
    return query_i64(st, st->stmt[STMT_COUNT], "counting pending calls", count, err);
}

MkErrorE
mqi_storage_low_water(mqi_storage *st, MK_I64 *id, MkErrorC *err)
{
    sqlite3_stmt *s = st->stmt[STMT_LOW];
    int rc = sqlite3_step(s);
    int none = rc == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_NULL;
    if (rc == SQLITE_ROW)
        *id = none ? st->next_id : sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if (rc == SQLITE_ROW)
        return MK_OK;
    return mqi_storage_fail(st->file, st->db, sqlite3_extended_errcode(st->db),
                            "reading the low-water mark", err);
}

/* Copy the row of a pending-call query (id, token, child, kind, body,
 * created) into c; c->body is NULL when out of memory. */
static void
call_of_row(mqi_storage *st, sqlite3_stmt *s, mqi_storage_call *c)
{
    c->id = sqlite3_column_int64(s, 0);
    snprintf(c->token, sizeof c->token, "%s", (const char *)sqlite3_column_text(s, 1));
    c->child = sqlite3_column_int64(s, 2);
    c->kind = sqlite3_column_int(s, 3);
    c->len = (size_t)sqlite3_column_bytes(s, 4);
    c->body = mqi_storage_keep(&st->pending, sqlite3_column_blob(s, 4), c->len);
    c->created_ms = sqlite3_column_int64(s, 5);
}

/* Fetch the first pending call after `after` into c; *got is 0 at the end.
 * One row per query, copied out and the statement reset, so the callback is
 * free to write to the same tables. */
static MkErrorE
next_pending(mqi_storage *st, MK_I64 after, mqi_storage_call *c, int *got, MkErrorC *err)
{
    sqlite3_stmt *s = st->stmt[STMT_NEXT];
    sqlite3_bind_int64(s, 1, after);
    int rc = sqlite3_step(s);
    *got = rc == SQLITE_ROW;
    if (*got)
        call_of_row(st, s, c);
    sqlite3_reset(s);
    if (*got && !c->body)
        return MkErrorSet(err, MK_ERR_MEMORY, "storage %s: out of memory", st->file);
    if (*got || rc == SQLITE_DONE)
        return MK_OK;
    return mqi_storage_fail(st->file, st->db, sqlite3_extended_errcode(st->db),
                            "reading pending calls", err);
}

MkErrorE
mqi_storage_foreach_pending(mqi_storage *st, mqi_storage_call_f fn, void *data, MkErrorC *err)
{
    mqi_storage_call c = {0};
    MK_I64 after = 0;
    int got;
    for (;;) {
        if (next_pending(st, after, &c, &got, err) != MK_OK)
            return MK_ERROR;
        if (!got)
            return MK_OK;
        after = c.id;
        MkErrorE rc = fn(&c, data, err);
        if (rc != MK_OK)
            return rc == MK_CONTINUE ? MK_OK : MK_ERROR;
    }
}

/* FNV-1a, 64 bits: small, well known, and enough to tell two different
 * calls apart (it is no defence against a sender forging collisions with
 * its own calls, which would only hurt that sender). */
uint64_t
mqi_storage_digest(const char *token, const void *body, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *p = body;
    for (size_t i = 0; i < 4 && token && token[i]; i++)
        h = (h ^ (unsigned char)token[i]) * 0x100000001b3ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h ? h : 1; /* 0 means "not known" (records of schema 1) */
}

MkErrorE
mqi_storage_lookup_processed(mqi_storage *st, const char *peer, MK_I64 id, int *found,
                             uint64_t *digest, MK_I32 *kind, const void **body, size_t *len,
                             MkErrorC *err)
{
    sqlite3_stmt *s = st->stmt[STMT_LOOKUP];
    sqlite3_bind_text(s, 1, peer, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, id);
    int rc = sqlite3_step(s);
    *found = rc == SQLITE_ROW;
    if (*found) {
        *kind = sqlite3_column_int(s, 0);
        *len = (size_t)sqlite3_column_bytes(s, 1);
        *body = mqi_storage_keep(&st->answer, sqlite3_column_blob(s, 1), *len);
        *digest = (uint64_t)sqlite3_column_int64(s, 2); /* NULL reads as 0 */
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    if (*found && !*body)
        return MkErrorSet(err, MK_ERR_MEMORY, "storage %s: out of memory", st->file);
    if (*found || rc == SQLITE_DONE)
        return MK_OK;
    return mqi_storage_fail(st->file, st->db, sqlite3_extended_errcode(st->db),
                            "looking up a processed call", err);
}

MkErrorE
mqi_storage_record_processed(mqi_storage *st, const char *peer, MK_I64 id, uint64_t digest,
                             MK_I32 kind, const void *body, size_t len, MkErrorC *err)
{
    sqlite3_stmt *s = st->stmt[STMT_RECORD];
    if (mqi_storage_need_txn(st, err) != MK_OK)
        return MK_ERROR;
    sqlite3_bind_text(s, 1, peer, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, id);
    sqlite3_bind_int(s, 3, kind);
    bind_body(s, 4, body, len);
    sqlite3_bind_int64(s, 5, mqi_storage_now_ms());
    if (digest)
        sqlite3_bind_int64(s, 6, (sqlite3_int64)digest);
    MkErrorE rc = mqi_storage_exec(st, s, "recording a processed call", err);
    sqlite3_clear_bindings(s);
    return rc;
}

MkErrorE
mqi_storage_forget_below(mqi_storage *st, const char *peer, MK_I64 id, MkErrorC *err)
{
    sqlite3_stmt *s = st->stmt[STMT_FORGET];
    if (mqi_storage_need_txn(st, err) != MK_OK)
        return MK_ERROR;
    sqlite3_bind_text(s, 1, peer, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, id);
    MkErrorE rc = mqi_storage_exec(st, s, "forgetting processed calls", err);
    sqlite3_clear_bindings(s);
    return rc;
}

MkErrorE
mqi_storage_prune_processed(mqi_storage *st, MK_I64 max_age_ms, MK_I64 max_keep,
                            MK_I64 *removed, MkErrorC *err)
{
    MK_I64 n = 0;
    if (mqi_storage_need_txn(st, err) != MK_OK)
        return MK_ERROR;
    if (max_age_ms > 0) {
        sqlite3_bind_int64(st->stmt[STMT_PRUNE_AGE], 1, mqi_storage_now_ms() - max_age_ms);
        if (mqi_storage_exec(st, st->stmt[STMT_PRUNE_AGE], "pruning", err) != MK_OK)
            return MK_ERROR;
        n += sqlite3_changes64(st->db);
    }
    if (max_keep > 0) {
        sqlite3_bind_int64(st->stmt[STMT_PRUNE_KEEP], 1, max_keep);
        if (mqi_storage_exec(st, st->stmt[STMT_PRUNE_KEEP], "pruning", err) != MK_OK)
            return MK_ERROR;
        n += sqlite3_changes64(st->db);
    }
    if (removed)
        *removed = n;
    return MK_OK;
}

MkErrorE
mqi_storage_get(mqi_storage *st, MK_I64 id, mqi_storage_call *c, int *found, MkErrorC *err)
{
    sqlite3_stmt *s = st->stmt[STMT_GET];
    sqlite3_bind_int64(s, 1, id);
    int rc = sqlite3_step(s);
    *found = rc == SQLITE_ROW;
    if (*found)
        call_of_row(st, s, c);
    sqlite3_reset(s);
    if (*found && !c->body)
        return MkErrorSet(err, MK_ERR_MEMORY, "storage %s: out of memory", st->file);
    if (*found || rc == SQLITE_DONE)
        return MK_OK;
    return mqi_storage_fail(st->file, st->db, sqlite3_extended_errcode(st->db),
                            "reading a pending call", err);
}

MkErrorE
mqi_storage_probe(mqi_storage *st, size_t bytes, MkErrorC *err)
{
    sqlite3_stmt *s = st->stmt[STMT_PROBE];
    if (mqi_storage_need_txn(st, err) != MK_OK)
        return MK_ERROR;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)bytes);
    if (mqi_storage_exec(st, s, "probing whether the storage can be written", err) != MK_OK ||
        mqi_storage_commit(st, err) != MK_OK)
        return MK_ERROR;
    /* the room stays taken until the next commit: the records that follow reuse it */
    return mqi_storage_need_txn(st, err) == MK_OK
               ? mqi_storage_exec(st, st->stmt[STMT_UNPROBE], "probing", err) : MK_ERROR;
}

MkErrorE
mqi_storage_used_bytes(mqi_storage *st, MK_I64 *bytes, MkErrorC *err)
{
    MK_I64 pages = 0, free_pages = 0, size = 0;
    if (query_i64(st, st->stmt[STMT_PAGES], "measuring the storage", &pages, err) != MK_OK ||
        query_i64(st, st->stmt[STMT_FREE_PAGES], "measuring the storage", &free_pages, err) !=
            MK_OK ||
        query_i64(st, st->stmt[STMT_PAGE_SIZE], "measuring the storage", &size, err) != MK_OK)
        return MK_ERROR;
    *bytes = (pages - free_pages) * size;
    return MK_OK;
}

MkErrorE
mqi_storage_has_calls(mqi_storage *st, int *any, MkErrorC *err)
{
    MK_I64 n = 0;
    if (query_i64(st, st->stmt[STMT_ANY_PROCESSED], "counting stored calls", &n, err) != MK_OK)
        return MK_ERROR;
    *any = n > 0;
    return MK_OK;
}

MkErrorE
mqi_storage_pending_any(mqi_storage *st, int *any, MkErrorC *err)
{
    MK_I64 n = 0;
    if (query_i64(st, st->stmt[STMT_ANY_PENDING], "looking for pending calls", &n, err) != MK_OK)
        return MK_ERROR;
    *any = n > 0;
    return MK_OK;
}
