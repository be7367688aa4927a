/* storage.h — the link's sqlite3 storage for persistent (guaranteed)
 * delivery: the sender's table of pending calls and the receiver's table of
 * processed calls with their answers.  Internal to libmqlink (mqi_ names).
 *
 * Ownership and lifetime, once for the whole file:
 *  - A handle (mqi_storage) comes from mqi_storage_open and is freed by
 *    mqi_storage_close.  It is used by one thread at a time (the link's).
 *  - A handle owns its file: it holds sqlite's exclusive lock from open to
 *    close, so a second process (or handle) opening the same file gets the
 *    error "storage FILE is locked by another process" after about a second.
 *    Each sending link and each receiving server instance needs a file of
 *    its own.
 *  - After fork() the child must neither use nor close the parent's handle
 *    (closing would checkpoint into the parent's file); it opens its own.
 *  - Inputs are borrowed.  Bodies handed out (mqi_storage_call.body, the
 *    answer of mqi_storage_lookup_processed) are borrowed from the handle
 *    until the next call of the same function on it.
 *  - Every MK_ERROR leaves the reason in err, naming the file and carrying
 *    sqlite's own message; nothing is ever dropped without such an error.
 *
 * Transactions (group commit): every call that writes opens a transaction
 * when none is open, and mqi_storage_commit makes everything since then
 * durable with one sync.  Put N calls, commit once.  Nothing written since
 * the last commit may be acknowledged to anyone: a sender writes a stored
 * call's frame to the wire only after the commit that stored it, a receiver
 * sends an answer only after the commit that recorded it.  A failing commit
 * rolls the whole transaction back and says so in err. */
#ifndef MQI_STORAGE_H
#define MQI_STORAGE_H

#include <stdint.h>

#include "mqlink.h"

/* Error code of storage failures: one code per failure class, so an
 * application tells a failing storage from a failing socket. */
#define MQI_ERR_STORAGE MQ_ERR_STORAGE

/* Storage handle; see the ownership notes above. */
typedef struct mqi_storage mqi_storage;

/* One stored outgoing call, as handed to a mqi_storage_foreach_pending callback. */
typedef struct mqi_storage_call {
    MK_I64 id;          /* persistent transaction id: increasing, never reused in
                         * the file's lifetime (gaps after a crash or rollback) */
    char token[5];      /* the 4-character service token, NUL-terminated */
    MK_I64 child;       /* child-context id the call was sent on */
    MK_I32 kind;        /* the frame kind / flags, as stored by mqi_storage_put */
    const void *body;   /* encoded message body, borrowed (see above) */
    size_t len;         /* body length in bytes */
    MK_I64 created_ms;  /* when it was stored, ms since the epoch */
} mqi_storage_call;

/* Called once per pending call; return MK_OK to go on, MK_CONTINUE to stop
 * early without error, MK_ERROR (with err set) to stop with that error.  The
 * callback may put, mark done or commit on the same handle. */
typedef MkErrorE (*mqi_storage_call_f)(const mqi_storage_call *call, void *data, MkErrorC *err);

/* Bit flags for mqi_storage_open. */
enum {
    MQI_STORAGE_SYNC_FULL = 1, /* synchronous=FULL: a commit survives power loss;
                                * without it NORMAL: survives a crash of the
                                * process, not of the machine (WAL semantics) */
    MQI_STORAGE_REMOVABLE = 2  /* the file may be removed by the handle that
                                * holds it (mqi_storage_close_if_empty) while
                                * others open it: see storage_dir.c */
};

/* ------------------------------------------------------------------ handle */

/* Open (creating when missing) the storage in file, or an in-memory storage
 * when file is NULL or ":memory:" (not durable: it dies with the handle).  Checks schema
 * version and integrity (quick_check).  On MK_OK *out is owned by the caller. */
MkErrorE mqi_storage_open(const char *file, int flags, mqi_storage **out, MkErrorC *err);
/* Commit what is open and free the handle (always freed, even on MK_ERROR,
 * which reports that the last transaction could not be committed). */
MkErrorE mqi_storage_close(mqi_storage *st, MkErrorC *err);
/* Commit what is open and close like mqi_storage_close; when the storage
 * then holds no call (mqi_storage_has_calls), remove its file too, so that
 * a receiver's idle senders leave no files behind.  Opened with
 * MQI_STORAGE_REMOVABLE, or nothing is removed.  *removed (may be NULL) is
 * 1 when the file went.  A handle opening the same name meanwhile gets
 * either this file before the removal is decided or a new one. */
MkErrorE mqi_storage_close_if_empty(mqi_storage *st, int *removed, MkErrorC *err);
/* The directory of file ("." when it names none), newly allocated; NULL
 * when out of memory. */
char *mqi_storage_dirname(const char *file);
/* True when committed data survives the process (a file, not memory). */
int mqi_storage_durable(const mqi_storage *st);
/* The file name, or ":memory:"; borrowed from the handle. */
const char *mqi_storage_file(const mqi_storage *st);
/* This storage's identity: 32 hex characters created with the file and kept
 * with it, so a peer can key processed calls by (identity, id) across
 * restarts.  An in-memory storage gets a fresh identity every time.  Borrowed. */
const char *mqi_storage_identity(const mqi_storage *st);

/* ------------------------------------------------------------ transactions */

/* Open a transaction now (the writing calls do it themselves when needed). */
MkErrorE mqi_storage_begin(mqi_storage *st, MkErrorC *err);
/* Make everything written since the transaction began durable; MK_OK and
 * nothing done when no transaction is open. */
MkErrorE mqi_storage_commit(mqi_storage *st, MkErrorC *err);
/* Undo everything written since the transaction began (nothing when none). */
MkErrorE mqi_storage_rollback(mqi_storage *st, MkErrorC *err);
/* True while a transaction is open. */
int mqi_storage_in_transaction(const mqi_storage *st);

/* ------------------------------------------------- sender: pending calls */

/* Store one outgoing call (token: 4 characters) and set *id to its
 * persistent transaction id.  Durable only after mqi_storage_commit. */
MkErrorE mqi_storage_put(mqi_storage *st, const char *token, MK_I64 child, MK_I32 kind,
                         const void *body, size_t len, MK_I64 *id, MkErrorC *err);
/* Forget the call id: its answer has arrived (a missing id is no error). */
MkErrorE mqi_storage_done(mqi_storage *st, MK_I64 id, MkErrorC *err);
/* Call fn for each pending call in id order (the order they were put). */
MkErrorE mqi_storage_foreach_pending(mqi_storage *st, mqi_storage_call_f fn, void *data,
                                     MkErrorC *err);
/* The pending call id into *c (borrowed as in foreach_pending); *found is
 * 0 when it is no longer pending. */
MkErrorE mqi_storage_get(mqi_storage *st, MK_I64 id, mqi_storage_call *c, int *found,
                         MkErrorC *err);
/* *any is 1 when a call is pending (cheaper than counting them). */
MkErrorE mqi_storage_pending_any(mqi_storage *st, int *any, MkErrorC *err);
/* Number of pending calls. */
MkErrorE mqi_storage_pending_count(mqi_storage *st, MK_I64 *count, MkErrorC *err);
/* The lowest id still pending, or the next id to be given when none is:
 * every id below it is answered, so the receiver may forget them. */
MkErrorE mqi_storage_low_water(mqi_storage *st, MK_I64 *id, MkErrorC *err);

/* ---------------------------------------------- receiver: processed calls */

/* The digest of a call (its token and body bytes) kept with its record, so
 * that a call under a recorded (peer, id) can be told from a different call
 * that reuses the id (a copied or restored sender storage).  Never 0. */
uint64_t mqi_storage_digest(const char *token, const void *body, size_t len);
/* Look up call id of peer (the sender's identity).  *found is 1 when it was
 * processed (committed or in the open transaction); then *digest is the
 * recorded call's digest (0 when recorded without one) and *kind, *body
 * and *len its stored answer, the body borrowed until the next lookup. */
MkErrorE mqi_storage_lookup_processed(mqi_storage *st, const char *peer, MK_I64 id,
                                      int *found, uint64_t *digest, MK_I32 *kind,
                                      const void **body, size_t *len, MkErrorC *err);
/* Record call id of peer, whose digest is digest, as processed with its
 * answer, in the open transaction; recording the same (peer, id) twice is
 * an error. */
MkErrorE mqi_storage_record_processed(mqi_storage *st, const char *peer, MK_I64 id,
                                      uint64_t digest, MK_I32 kind, const void *body,
                                      size_t len, MkErrorC *err);
/* Forget peer's processed calls below id (peer's low-water mark). */
MkErrorE mqi_storage_forget_below(mqi_storage *st, const char *peer, MK_I64 id,
                                  MkErrorC *err);
/* Bound the processed table: drop records older than max_age_ms (0: no age
 * limit), then all but the newest max_keep (0: no count limit).  *removed
 * (may be NULL) gets the number dropped. */
MkErrorE mqi_storage_prune_processed(mqi_storage *st, MK_I64 max_age_ms, MK_I64 max_keep,
                                     MK_I64 *removed, MkErrorC *err);

/* ------------------------------------------------------- bounds and health */

/* Commit what is open together with a write of bytes, and take the write
 * back in a new open transaction: MK_OK says the storage can take about
 * that much now (a full disk, an I/O error fail here, with nothing else
 * lost than what the failing commit rolls back, as any commit). */
MkErrorE mqi_storage_probe(mqi_storage *st, size_t bytes, MkErrorC *err);
/* Bytes the storage's tables take (pages in use, not free pages). */
MkErrorE mqi_storage_used_bytes(mqi_storage *st, MK_I64 *bytes, MkErrorC *err);
/* *any is 0 when the storage holds neither a pending nor a processed call. */
MkErrorE mqi_storage_has_calls(mqi_storage *st, int *any, MkErrorC *err);

#endif /* MQI_STORAGE_H */
