/* storage_test.c — the storage's calls: pending calls round trip and
 * survive a reopen, ids are never reused, processed calls give back their
 * answer, group commit, pruning.  Faults are in storage_fault_test.c. */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage.h"
#include "testlib.h"

static MkErrorC *err;

static mqi_storage *
open_ok(const char *file, int flags)
{
    mqi_storage *st = NULL;
    MQT_OK(mqi_storage_open(file, flags, &st, err), MkErrorGetText(err));
    return st;
}

static void
close_ok(mqi_storage *st)
{
    MQT_OK(mqi_storage_close(st, err), MkErrorGetText(err));
}

static MK_I64
count(mqi_storage *st)
{
    MK_I64 n = -1;
    MQT_OK(mqi_storage_pending_count(st, &n, err), MkErrorGetText(err));
    return n;
}

/* Collects what foreach_pending hands out. */
typedef struct seen {
    int n;
    MK_I64 id[16];
    char token[16][5];
    char body[16][32];
    MK_I64 child[16];
    MK_I32 kind[16];
    int drop_each; /* mark every call done while iterating */
    int stop_at;   /* return MK_CONTINUE after this many (0: never) */
    mqi_storage *st;
} seen;

static MkErrorE
collect(const mqi_storage_call *c, void *data, MkErrorC *e)
{
    seen *s = data;
    if (s->n >= 16)
        return MkErrorSet(e, MK_ERR_GENERIC, "too many calls");
    s->id[s->n] = c->id;
    memcpy(s->token[s->n], c->token, 5);
    snprintf(s->body[s->n], sizeof s->body[0], "%.*s", (int)c->len, (const char *)c->body);
    s->child[s->n] = c->child;
    s->kind[s->n] = c->kind;
    s->n++;
    if (s->drop_each && mqi_storage_done(s->st, c->id, e) != MK_OK)
        return MK_ERROR;
    return s->stop_at && s->n >= s->stop_at ? MK_CONTINUE : MK_OK;
}

static MK_I64
put(mqi_storage *st, const char *token, const char *body)
{
    MK_I64 id = -1;
    MQT_OK(mqi_storage_put(st, token, 7, 3, body, strlen(body), &id, err), MkErrorGetText(err));
    return id;
}

static void
test_round_trip(void)
{
    mqi_storage *st = open_ok(mqt_temp_path("st-rt"), 0);
    MK_I64 a = put(st, "ECUL", "one"), b = put(st, "RDUL", ""), c = put(st, "BUST", "three");
    MQT_CHECK(mqi_storage_in_transaction(st));
    MQT_OK(mqi_storage_commit(st, err), MkErrorGetText(err));
    MQT_CHECK(!mqi_storage_in_transaction(st));
    MQT_CHECK(a == 1 && b == 2 && c == 3);
    MQT_CHECK(count(st) == 3);
    seen s = {0};
    MQT_OK(mqi_storage_foreach_pending(st, collect, &s, err), MkErrorGetText(err));
    MQT_CHECK(s.n == 3 && s.id[0] == a && s.id[1] == b && s.id[2] == c);
    MQT_CHECK(!strcmp(s.token[1], "RDUL") && !strcmp(s.body[1], "") && !strcmp(s.body[2], "three"));
    MQT_CHECK(s.child[0] == 7 && s.kind[0] == 3);
    MQT_OK(mqi_storage_done(st, b, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_commit(st, err), MkErrorGetText(err));
    s = (seen){0};
    MQT_OK(mqi_storage_foreach_pending(st, collect, &s, err), MkErrorGetText(err));
    MQT_CHECK(s.n == 2 && s.id[0] == a && s.id[1] == c);
    close_ok(st);
}

static void
test_reopen(void)
{
    const char *file = mqt_temp_path("st-reopen");
    char ident[33];
    mqi_storage *st = open_ok(file, MQI_STORAGE_SYNC_FULL);
    MQT_CHECK(mqi_storage_durable(st));
    snprintf(ident, sizeof ident, "%s", mqi_storage_identity(st));
    MQT_CHECK(strlen(ident) == 32);
    for (int i = 0; i < 5; i++)
        put(st, "NTHT", "x");
    put(st, "LAST", "not committed, close commits");
    close_ok(st);
    st = open_ok(file, MQI_STORAGE_SYNC_FULL);
    MQT_CHECK(!strcmp(ident, mqi_storage_identity(st)));
    seen s = {0};
    MQT_OK(mqi_storage_foreach_pending(st, collect, &s, err), MkErrorGetText(err));
    MQT_CHECK(s.n == 6 && s.id[0] == 1 && s.id[5] == 6 && !strcmp(s.token[5], "LAST"));
    MQT_CHECK(put(st, "NEXT", "y") > 6);
    MQT_OK(mqi_storage_rollback(st, err), MkErrorGetText(err));
    MQT_CHECK(count(st) == 6);
    close_ok(st);
}

/* A receiver keys answers by (identity, id): an id given twice would
 * answer a new call with an old answer. */
static void
test_ids_not_reused(void)
{
    const char *file = mqt_temp_path("st-ids");
    MK_I64 low = 0;
    mqi_storage *st = open_ok(file, 0);
    MQT_OK(mqi_storage_low_water(st, &low, err), MkErrorGetText(err));
    MQT_CHECK(low == 1);
    MK_I64 a = put(st, "ECUL", "a"), b = put(st, "ECUL", "b");
    MQT_OK(mqi_storage_low_water(st, &low, err), MkErrorGetText(err));
    MQT_CHECK(low == a);
    MQT_OK(mqi_storage_done(st, a, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_done(st, b, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_low_water(st, &low, err), MkErrorGetText(err));
    MQT_CHECK(low == b + 1);
    close_ok(st);
    st = open_ok(file, 0);
    MQT_CHECK(count(st) == 0);
    MK_I64 c = put(st, "ECUL", "c");
    MQT_CHECK(c > b);
    MQT_OK(mqi_storage_low_water(st, &low, err), MkErrorGetText(err));
    MQT_CHECK(low == c);
    /* a rolled-back reservation must not let a later id repeat one */
    MQT_OK(mqi_storage_rollback(st, err), MkErrorGetText(err));
    MK_I64 d = put(st, "ECUL", "d");
    MQT_CHECK(d > c);
    close_ok(st);
    st = open_ok(file, 0);
    MQT_CHECK(put(st, "ECUL", "e") > d);
    close_ok(st);
}

static void
test_foreach_callback_writes(void)
{
    mqi_storage *st = open_ok(NULL, 0);
    for (int i = 0; i < 5; i++)
        put(st, "ECUL", "z");
    seen s = {.drop_each = 1, .st = st};
    MQT_OK(mqi_storage_foreach_pending(st, collect, &s, err), MkErrorGetText(err));
    MQT_CHECK(s.n == 5 && count(st) == 0);
    for (int i = 0; i < 5; i++)
        put(st, "ECUL", "z");
    s = (seen){.stop_at = 2};
    MQT_OK(mqi_storage_foreach_pending(st, collect, &s, err), MkErrorGetText(err));
    MQT_CHECK(s.n == 2);
    MQT_CHECK(mqi_storage_put(st, "TOOLONG", 0, 0, "", 0, NULL, err) == MK_ERROR);
    MQT_CHECK(strstr(MkErrorGetText(err), "4 characters") != NULL);
    close_ok(st);
}

static void
test_processed(void)
{
    const char *file = mqt_temp_path("st-proc");
    const char *peer = "0123456789abcdef0123456789abcdef";
    const void *body = NULL;
    size_t len = 0;
    MK_I32 kind = 0;
    uint64_t digest = 0;
    int found = -1;
    mqi_storage *st = open_ok(file, 0);
    MQT_OK(mqi_storage_lookup_processed(st, peer, 7, &found, &digest, &kind, &body, &len, err),
           MkErrorGetText(err));
    MQT_CHECK(found == 0);
    MQT_OK(mqi_storage_record_processed(st, peer, 7, 0, 4, "answer", 6, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_lookup_processed(st, peer, 7, &found, &digest, &kind, &body, &len, err),
           MkErrorGetText(err));
    MQT_CHECK(found == 1 && kind == 4 && len == 6 && !memcmp(body, "answer", 6));
    MQT_OK(mqi_storage_commit(st, err), MkErrorGetText(err));
    MQT_CHECK(mqi_storage_record_processed(st, peer, 7, 0, 4, "again", 5, err) == MK_ERROR);
    MQT_CHECK(strstr(MkErrorGetText(err), file) != NULL);
    MQT_OK(mqi_storage_rollback(st, err), MkErrorGetText(err));
    close_ok(st);
    st = open_ok(file, 0);
    MQT_OK(mqi_storage_lookup_processed(st, peer, 7, &found, &digest, &kind, &body, &len, err),
           MkErrorGetText(err));
    MQT_CHECK(found == 1 && len == 6 && !memcmp(body, "answer", 6));
    MQT_OK(mqi_storage_lookup_processed(st, "other", 7, &found, &digest, &kind, &body, &len, err),
           MkErrorGetText(err));
    MQT_CHECK(found == 0);
    close_ok(st);
}

static int
processed_left(mqi_storage *st, const char *peer, int upto)
{
    int n = 0, found;
    uint64_t digest;
    const void *body;
    size_t len;
    MK_I32 kind;
    for (int i = 1; i <= upto; i++) {
        MQT_OK(mqi_storage_lookup_processed(st, peer, i, &found, &digest, &kind, &body, &len, err),
               MkErrorGetText(err));
        n += found;
    }
    return n;
}

static void
test_prune(void)
{
    mqi_storage *st = open_ok(NULL, 0);
    MK_I64 removed = 0;
    for (int i = 1; i <= 100; i++)
        MQT_OK(mqi_storage_record_processed(st, "p", i, 0, 0, "r", 1, err), MkErrorGetText(err));
    for (int i = 1; i <= 100; i++)
        MQT_OK(mqi_storage_record_processed(st, "q", i, 0, 0, "r", 1, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_forget_below(st, "p", 51, err), MkErrorGetText(err));
    MQT_CHECK(processed_left(st, "p", 100) == 50 && processed_left(st, "q", 100) == 100);
    MQT_OK(mqi_storage_prune_processed(st, 0, 10, &removed, err), MkErrorGetText(err));
    MQT_CHECK(removed == 140);
    MQT_CHECK(processed_left(st, "q", 100) == 10 && processed_left(st, "p", 100) == 0);
    MQT_OK(mqi_storage_commit(st, err), MkErrorGetText(err));
    usleep(20000);
    MQT_OK(mqi_storage_prune_processed(st, 5, 0, &removed, err), MkErrorGetText(err));
    MQT_CHECK(removed == 10);
    close_ok(st);
}

static void
test_group_commit(void)
{
    const char *file = mqt_temp_path("st-group");
    char body[64];
    mqi_storage *st = open_ok(file, MQI_STORAGE_SYNC_FULL);
    for (int i = 0; i < 10000; i++) {
        int n = snprintf(body, sizeof body, "payload %d", i);
        MQT_OK(mqi_storage_put(st, "BUST", 0, 1, body, (size_t)n, NULL, err),
               MkErrorGetText(err));
    }
    MQT_OK(mqi_storage_commit(st, err), MkErrorGetText(err));
    close_ok(st);
    st = open_ok(file, MQI_STORAGE_SYNC_FULL);
    MQT_CHECK(count(st) == 10000);
    close_ok(st);
}

static void
test_memory(void)
{
    mqi_storage *a = open_ok(NULL, 0), *b = open_ok(NULL, 0);
    MQT_CHECK(!mqi_storage_durable(a));
    MQT_CHECK(!strcmp(mqi_storage_file(a), ":memory:"));
    MQT_CHECK(strlen(mqi_storage_identity(a)) == 32);
    MQT_CHECK(strcmp(mqi_storage_identity(a), mqi_storage_identity(b)) != 0);
    put(a, "ECUL", "m");
    MQT_OK(mqi_storage_commit(a, err), MkErrorGetText(err));
    MQT_CHECK(count(a) == 1 && count(b) == 0);
    close_ok(a);
    close_ok(b);
    a = open_ok(":memory:", 0);
    MQT_CHECK(!mqi_storage_durable(a));
    close_ok(a);
    MQT_CHECK(mqi_storage_open("", 0, &a, err) == MK_ERROR);
}


/* A file of schema 1 (no digest column) still opens; its records answer
 * unchecked (digest 0), new ones keep their digest. */
static void
test_schema_1_upgrade(void)
{
    const char *file = mqt_temp_path("st-v1");
    const char *peer = "0123456789abcdef0123456789abcdef";
    sqlite3 *db = NULL;
    MQT_CHECK(sqlite3_open(file, &db) == SQLITE_OK);
    MQT_CHECK(sqlite3_exec(db,
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value NOT NULL);"
        "CREATE TABLE pending(id INTEGER PRIMARY KEY, token TEXT NOT NULL,"
        " child INTEGER NOT NULL, kind INTEGER NOT NULL, body BLOB NOT NULL,"
        " created INTEGER NOT NULL);"
        "CREATE TABLE processed(peer TEXT NOT NULL, id INTEGER NOT NULL, kind INTEGER NOT NULL,"
        " body BLOB NOT NULL, created INTEGER NOT NULL, PRIMARY KEY(peer, id));"
        "INSERT INTO meta VALUES('identity','00112233445566778899aabbccddeeff'),('reserved',0);"
        "INSERT INTO processed VALUES('0123456789abcdef0123456789abcdef', 1, 4, x'6f6c64', 0);"
        "PRAGMA application_id=1297173579; PRAGMA user_version=1;", NULL, NULL, NULL) ==
              SQLITE_OK);
    sqlite3_close(db);
    mqi_storage *st = open_ok(file, 0);
    const void *body = NULL;
    size_t len = 0;
    MK_I32 kind = 0;
    uint64_t digest = 99, d = mqi_storage_digest("PERS", "abc", 3);
    int found = 0;
    MQT_OK(mqi_storage_lookup_processed(st, peer, 1, &found, &digest, &kind, &body, &len, err),
           MkErrorGetText(err));
    MQT_CHECK(found && digest == 0 && len == 3 && !memcmp(body, "old", 3));
    MQT_CHECK(d != 0 && d != mqi_storage_digest("PERS", "abd", 3) &&
              d != mqi_storage_digest("PERT", "abc", 3));
    MQT_OK(mqi_storage_record_processed(st, peer, 2, d, 4, "new", 3, err), MkErrorGetText(err));
    close_ok(st);
    st = open_ok(file, 0);
    MQT_OK(mqi_storage_lookup_processed(st, peer, 2, &found, &digest, &kind, &body, &len, err),
           MkErrorGetText(err));
    MQT_CHECK(found && digest == d);
    int any = 0;
    MK_I64 used = 0;
    MQT_OK(mqi_storage_has_calls(st, &any, err), MkErrorGetText(err));
    MQT_CHECK(any);
    MQT_OK(mqi_storage_used_bytes(st, &used, err), MkErrorGetText(err));
    MQT_CHECK(used > 0);
    MQT_OK(mqi_storage_probe(st, 100000, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_forget_below(st, peer, 3, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_commit(st, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_has_calls(st, &any, err), MkErrorGetText(err));
    MQT_CHECK(!any);
    close_ok(st);
}

/* One code per failure class: a storage that fails says MQ_ERR_STORAGE, not
 * the operating-system code an application would take for a socket error. */
static void
test_failure_code(void)
{
    const char *file = mqt_temp_path("st-garbage");
    FILE *f = fopen(file, "w");
    mqi_storage *st = NULL;
    MQT_CHECK(f != NULL);
    for (int i = 0; i < 512; i++)
        fputs("not a database ", f);
    fclose(f);
    MQT_CHECK(mqi_storage_open(file, 0, &st, err) == MK_ERROR);
    MQT_CHECK_MSG(MkErrorGetCode(err) == MQ_ERR_STORAGE, "code %d for '%s'",
                  (int)MkErrorGetCode(err), MkErrorGetText(err));
}

static const mqt_case cases[] = {
    {"put commit foreach done", test_round_trip},
    {"reopen finds pending calls", test_reopen},
    {"ids are never reused", test_ids_not_reused},
    {"foreach callback may write and stop", test_foreach_callback_writes},
    {"processed lookup returns the stored answer", test_processed},
    {"forget and prune processed calls", test_prune},
    {"group commit of 10000 puts", test_group_commit},
    {"in-memory storage is not durable", test_memory},
    {"schema 1 files open, digests kept, probe and size", test_schema_1_upgrade},
    {"a storage failure is MQ_ERR_STORAGE", test_failure_code},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    err = MkErrorCreate();
    return mqt_main(argc, argv, cases);
}
