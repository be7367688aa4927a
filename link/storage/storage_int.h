/* storage_int.h — what storage.c and storage_calls.c share: the handle and
 * its cached statements.  Never included outside link/storage/. */
#ifndef MQI_STORAGE_INT_H
#define MQI_STORAGE_INT_H

#include <sqlite3.h>

#include "storage.h"

/* The schema this code writes and understands (PRAGMA user_version). */
#define MQI_STORAGE_SCHEMA 2
/* Marks a file as an mqlink storage (PRAGMA application_id, "MQLK"). */
#define MQI_STORAGE_APP_ID 0x4d514c4b
/* Ids are reserved in meta this many at a time: one extra write per block
 * instead of AUTOINCREMENT's extra write per call. */
#define MQI_STORAGE_ID_BLOCK 1000
/* How long a call waits for a lock held by someone else. */
#define MQI_STORAGE_BUSY_MS 1000

/* Statements prepared once at open, reused on every call. */
typedef enum mqi_stmt {
    STMT_BEGIN,
    STMT_COMMIT,
    STMT_ROLLBACK,
    STMT_PUT,
    STMT_DONE,
    STMT_NEXT,
    STMT_COUNT,
    STMT_LOW,
    STMT_RESERVE,
    STMT_LOOKUP,
    STMT_RECORD,
    STMT_FORGET,
    STMT_PRUNE_AGE,
    STMT_PRUNE_KEEP,
    STMT_GET,
    STMT_PROBE,
    STMT_UNPROBE,
    STMT_PAGES,
    STMT_FREE_PAGES,
    STMT_PAGE_SIZE,
    STMT_ANY_PROCESSED,
    STMT_ANY_PENDING,
    STMT__N
} mqi_stmt;

/* A growable byte buffer for copies handed out as borrowed. */
typedef struct mqi_bytes {
    unsigned char *data;
    size_t cap;
} mqi_bytes;

struct mqi_storage {
    sqlite3 *db;
    char *file;                  /* as given, or ":memory:" */
    int durable;
    int in_txn;                  /* a BEGIN of ours is open */
    int busy;                    /* the open found the file locked */
    int removable;               /* opened under storage_dir.c's turns */
    sqlite3_stmt *stmt[STMT__N];
    char identity[33];
    MK_I64 next_id;              /* the id the next put gives */
    MK_I64 id_limit;             /* ids below it are reserved in the open
                                  * transaction or a committed one */
    mqi_bytes answer;            /* last lookup_processed body */
    mqi_bytes pending;           /* body of the call in foreach_pending */
};

/* The SQL text of each statement, indexed by mqi_stmt. */
extern const char *const mqi_storage_sql[STMT__N];

/* Open file waiting up to wait_ms for a lock held by someone else; with
 * wait_ms 0 not at all, and then *busy (may be NULL) is 1 when that was why
 * the open failed. */
MkErrorE mqi_storage_open_once(const char *file, int flags, int wait_ms, mqi_storage **out,
                               int *busy, MkErrorC *err);
/* mqi_storage_open of a MQI_STORAGE_REMOVABLE file (storage_dir.c). */
MkErrorE mqi_storage_open_removable(const char *file, int flags, mqi_storage **out,
                                    MkErrorC *err);

/* Set err to "storage FILE: what: sqlite's reason", phrased for the common
 * causes (locked, corrupt, read-only, cannot open, disk full); MK_ERROR. */
MkErrorE mqi_storage_fail(const char *file, sqlite3 *db, int rc, const char *what,
                          MkErrorC *err);
/* Open a transaction when none is open. */
MkErrorE mqi_storage_need_txn(mqi_storage *st, MkErrorC *err);
/* Step a statement that returns no row and reset it; MK_ERROR names what. */
MkErrorE mqi_storage_exec(mqi_storage *st, sqlite3_stmt *s, const char *what, MkErrorC *err);
/* Milliseconds since the epoch. */
MK_I64 mqi_storage_now_ms(void);
/* Copy len bytes into b (grown when needed); NULL when out of memory. */
void *mqi_storage_keep(mqi_bytes *b, const void *data, size_t len);

#endif /* MQI_STORAGE_INT_H */
