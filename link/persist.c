/* persist.c — persistent delivery on the sqlite3 storage (storage/).
 *
 * Sender: a persistent call is put into the storage and committed before
 * anything is sent; its frame carries the storage id as transaction id and
 * MQI_F_PERSIST.  The answer deletes it (committed with the next commit).
 * After a (re)connect every call still stored is sent again.
 *
 * Receiver: the sender announces its storage identity once per connection
 * (_SID).  A persistent call whose (identity, id) is recorded is answered
 * from the record; otherwise the service runs and its answer is recorded in
 * the open transaction.  The transaction is committed before the write
 * buffer is flushed, so an answer never leaves before its record is durable
 * and one commit covers every call of a batch (group commit).  A crash
 * before the commit loses record and answer together: the sender re-sends
 * and the call is processed again; after it, never again. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "persist_int.h"

static MqContextC *
parent_of(MqContextC *ctx)
{
    return ctx->parent ? ctx->parent : ctx;
}

/* A receiver keeps one file per sender (--storage FILE names FILE.IDENTITY):
 * a storage file belongs to one process at a time, and a server may run
 * many instances at once (fork, thread, spawn, or one pipe server per
 * client) that must still find their records again after a restart. */
static int
per_peer_files(const MqContextC *ctx)
{
    return ctx->is_server;
}

/* A receiver's files appear with its first sender; what can be checked at
 * link creation is that they can be created where --storage points. */
static MkErrorE
check_directory(MqContextC *ctx)
{
    char *dir = mqi_storage_dirname(ctx->cfg.storage);
    const char *where = dir ? dir : ".";
    MkErrorE rc = MK_OK;
    if (access(where, W_OK | X_OK) != 0)
        rc = MkErrorSet(ctx->err, MQ_ERR_STORAGE, "storage %s: directory '%s' is not writable: %s",
                        ctx->cfg.storage, where, strerror(errno));
    free(dir);
    return rc;
}

void
mqi_persist_hook_flush(MqContextC *p)
{
    if (p->conn && p->storage)
        p->conn->before_flush = mqi_persist_commit;
}

static MkErrorE
open_file(MqContextC *ctx, const char *file)
{
    int flags = ctx->cfg.sync_full ? MQI_STORAGE_SYNC_FULL : 0;
    if (per_peer_files(ctx))
        flags |= MQI_STORAGE_REMOVABLE;
    if (mqi_storage_open(file, flags, &ctx->storage, ctx->err) == MK_OK) {
        mqi_persist_hook_flush(ctx);
        return MK_OK;
    }
    ctx->storage = NULL;
    MkErrorStack(ctx->err, "persistent delivery needs a working storage");
    return MK_ERROR;
}

MkErrorE
mqi_persist_open(MqContextC *ctx)
{
    if (ctx->storage || !ctx->cfg.storage)
        return MK_OK;
    if (per_peer_files(ctx))
        return check_directory(ctx);
    return open_file(ctx, ctx->cfg.storage);
}

/* The storage of ctx's parent, opened in memory when none is configured. */
static mqi_storage *
storage_of(MqContextC *ctx)
{
    MqContextC *p = parent_of(ctx);
    if (!p->storage && open_file(p, NULL) != MK_OK) {
        if (p != ctx)
            MkErrorCopy(ctx->err, p->err);
        return NULL;
    }
    return p->storage;
}

mqi_persist_state *
mqi_persist_state_of(MqContextC *ctx)
{
    if (!ctx->pst && (ctx->pst = calloc(1, sizeof *ctx->pst)))
        ctx->pst->last_lwm = -1;
    return ctx->pst;
}

/* A receiver's file whose sender has acknowledged every call (its last
 * low-water mark is above everything recorded) holds nothing: it goes when
 * the receiver closes it, so idle senders leave no files behind, even while
 * another instance of this server opens the same sender's file
 * (storage_dir.c). */
void
mqi_persist_close(MqContextC *ctx)
{
    int removed = 0;
    char *file = ctx->storage ? strdup(mqi_storage_file(ctx->storage)) : NULL;
    if (ctx->storage && mqi_storage_close_if_empty(ctx->storage, &removed, ctx->err) != MK_OK)
        mqi_log(ctx, MK_LOG_ERROR, "%s", MqErrorGetText(ctx));
    if (removed)
        mqi_log(ctx, MK_LOG_INFO, "removed storage %s: its sender has acknowledged every call",
                file);
    free(file);
    ctx->storage = NULL;
    if (ctx->pst) {
        free(ctx->pst->answers);
        free(ctx->pst->refusal);
        free(ctx->pst);
        ctx->pst = NULL;
    }
}

/* Commit p's storage; when that fails, the answers it would have recorded
 * become refusals and the link stays up (persist_recv.c). */
typedef struct {
    MqContextC *p;
    MkErrorC *err;
    MkErrorE rc;
    int done;
} commit_args;

static void *
commit_fn(void *v)
{
    commit_args *a = v;
    a->rc = mqi_storage_commit(a->p->storage, a->err);
    a->done = 1;
    return NULL;
}

static MkErrorE
commit(mqi_conn *c, MqContextC *p, MkErrorC *err)
{
    commit_args a = {p, err, MK_ERROR, 0};
    mqi_block_run(commit_fn, &a); /* a commit waits for the disk */
    if (!a.done)
        commit_fn(&a); /* interrupted before it ran: the commit must happen */
    MkErrorE rc = a.rc;
    if (p->pst && rc == MK_OK) {
        p->pst->nanswers = 0;
        p->pst->open_bytes = 0;
    }
    if (rc == MK_OK || !c || mqi_persist_records_lost(c, p, err) != MK_OK)
        return rc;
    return MK_CONTINUE;
}

MkErrorE
mqi_persist_commit(mqi_conn *c)
{
    MqContextC *p = c->parent;
    if (!p || !p->storage)
        return MK_OK;
    if (!mqi_storage_in_transaction(p->storage)) {
        if (p->pst)
            p->pst->nanswers = 0; /* answers from committed records */
        return MK_OK;
    }
    MkErrorE rc = commit(c, p, c->err);
    if (rc == MK_CONTINUE)
        MkErrorReset(c->err); /* refusals instead of answers: the link goes on */
    if (rc != MK_ERROR)
        return MK_OK;
    /* What is buffered must not leave: the link ends, the sender re-sends. */
    c->wbuf.off = c->wbuf.len = 0;
    c->up = 0;
    return MK_ERROR;
}

MkErrorE
mqi_persist_announce(MqContextC *ctx, struct mqi_storage *st)
{
    mqi_conn *c = ctx->conn;
    if (c->sid_sent)
        return MK_OK;
    MkBufferStreamC *body = MkBufferStreamCreateTLS("mqlink-persist");
    MkBufferStreamWriteSTR(body, mqi_storage_identity(st));
    mqi_hdr h = {.kind = MQI_ONEWAY, .flags = MQI_F_INTERNAL};
    memcpy(h.token, "_SID", 5);
    c->sid_sent = 1;
    return mqi_conn_write_frame(c, &h, body);
}

/* Store the message built on ctx and commit; sets *id. */
static MkErrorE
store(MqContextC *ctx, const char *what, const char *token, uint8_t kind, MK_I64 *id)
{
    mqi_storage *st = NULL;
    MkErrorE rc = MK_ERROR;
    if (!mqi_token_valid(token))
        MkErrorSet(ctx->err, MK_ERR_ARGUMENT, "%s: token '%s' is not exactly 4 printable characters",
                   what, token ? token : "(null)");
    else if (mqi_check_linked(ctx, what) == MK_OK && (st = storage_of(ctx)) &&
             mqi_persist_announce(ctx, st) == MK_OK &&
             mqi_storage_put(st, token, ctx->child_id, kind, ctx->send.data, ctx->send.len, id,
                             ctx->err) == MK_OK &&
             commit(ctx->conn, parent_of(ctx), ctx->err) == MK_OK)
        rc = MK_OK;
    if (rc != MK_OK && st)
        MkErrorStack(ctx->err, "%s: the call was not stored and not sent", what);
    return rc;
}

static MkErrorE
send_stored(MqContextC *ctx, const char *what, const char *token, uint8_t kind, MK_I64 id)
{
    mqi_hdr h = {.kind = kind, .child = ctx->child_id, .flags = MQI_F_PERSIST,
                 .trans = (uint64_t)id};
    memcpy(h.token, token, 5);
    MkErrorE rc = mqi_conn_write_frame(ctx->conn, &h, &ctx->send);
    MkBufferStreamReset(&ctx->send);
    return rc == MK_OK ? MK_OK : mqi_link_error(ctx, what);
}

/* MqSendEND_AND_TRANSACTION (persist_load.c) */
static MkErrorE
send_wait(MqContextC *ctx, const char *token, MK_I64 timeout_ms)
{
    const char *what = "SendEND_AND_TRANSACTION";
    MK_I64 id;
    if (store(ctx, what, token, MQI_CALL_WAIT, &id) != MK_OK) {
        MkBufferStreamReset(&ctx->send);
        return MK_ERROR;
    }
    mqi_pending w = {.trans = (uint64_t)id | MQI_PERSIST_KEY, .ctx = ctx};
    if (mqi_pend_add(&ctx->conn->pend, &w) != MK_OK)
        return MkErrorSet(ctx->err, MK_ERR_MEMORY, "%s: out of memory", what);
    if (send_stored(ctx, what, token, MQI_CALL_WAIT, id) != MK_OK) {
        mqi_pend_take(&ctx->conn->pend, w.trans);
        return MK_ERROR;
    }
    return mqi_wait_answer(ctx, &w, what, token, timeout_ms);
}

/* MqSendEND_AND_TRANSACTION_CALLBACK (persist_load.c) */
static MkErrorE
send_callback(MqContextC *ctx, const char *token, MqServiceCallF fn, void *data,
              MqDataFreeF free_fn, MK_I64 timeout_ms)
{
    const char *what = "SendEND_AND_TRANSACTION_CALLBACK";
    MK_I64 id;
    if (!fn || store(ctx, what, token, MQI_CALL_CB, &id) != MK_OK) {
        MkBufferStreamReset(&ctx->send);
        return fn ? MK_ERROR : MkErrorSet(ctx->err, MK_ERR_ARGUMENT, "%s: no callback", what);
    }
    mqi_conn *c = ctx->conn;
    mqi_pending *p = mqi_pend_alloc(c);
    if (!p)
        return MkErrorSet(ctx->err, MK_ERR_MEMORY, "%s: out of memory (the call is stored)", what);
    *p = (mqi_pending){.trans = (uint64_t)id | MQI_PERSIST_KEY, .ctx = ctx,
                       .cb = {fn, data, free_fn}, .deadline = mqi_deadline(ctx, timeout_ms)};
    if (mqi_pend_add(&c->pend, p) != MK_OK) {
        mqi_pend_release(c, p);
        return MkErrorSet(ctx->err, MK_ERR_MEMORY, "%s: out of memory (the call is stored)", what);
    }
    if (p->deadline >= 0 && (c->cb_deadline < 0 || p->deadline < c->cb_deadline))
        c->cb_deadline = p->deadline;
    if (send_stored(ctx, what, token, MQI_CALL_CB, id) == MK_OK)
        return MK_OK;
    /* An error leaves data with the caller; the stored call's answer, after
     * the next link, goes to the transaction handler. */
    mqi_pend_release(c, mqi_pend_take(&c->pend, p->trans));
    return MK_ERROR;
}

/* Is name FILE.IDENTITY of base (the last part of --storage)? */
static int
sender_file(const char *name, const char *base, size_t blen)
{
    return !strncmp(name, base, blen) && name[blen] == '.' && strlen(name + blen + 1) == 32 &&
           strspn(name + blen + 1, "0123456789abcdef") == 32;
}

/* Count the senders the receiver keeps files for and the bytes of their
 * files (with their -wal), leaving out the file of skip. */
static void
survey(const char *storage, const char *skip, MK_I64 *files, MK_I64 *bytes)
{
    char *dir = mqi_storage_dirname(storage), path[4096];
    const char *slash = strrchr(storage, '/');
    const char *base = slash ? slash + 1 : storage;
    size_t blen = strlen(base);
    struct stat sb;
    struct dirent *e;
    DIR *d = dir ? opendir(dir) : NULL;
    *files = *bytes = 0;
    while (d && (e = readdir(d))) {
        if (!sender_file(e->d_name, base, blen) || !strcmp(e->d_name + blen + 1, skip))
            continue;
        ++*files;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &sb) == 0)
            *bytes += sb.st_size;
        snprintf(path, sizeof path, "%s/%s-wal", dir, e->d_name);
        if (stat(path, &sb) == 0)
            *bytes += sb.st_size;
    }
    if (d)
        closedir(d);
    free(dir);
}

/* --max-senders: a new sender gets a file only below the limit.  Sets the
 * refusal its persistent calls get (and logs it) when not. */
static int
sender_allowed(MqContextC *p, mqi_persist_state *s, const char *file, const char *id)
{
    MK_I64 files = 0;
    struct stat sb;
    survey(p->cfg.storage, id, &files, &s->others_bytes);
    if (stat(file, &sb) == 0 || p->cfg.max_senders <= 0 || files < p->cfg.max_senders)
        return 1;
    free(s->refusal);
    if (asprintf(&s->refusal, "persistent calls refused: the receiver keeps storage for at most "
                 "%lld senders (--max-senders) and has %lld", (long long)p->cfg.max_senders,
                 (long long)files) < 0)
        s->refusal = NULL;
    mqi_log(p, MK_LOG_WARN, "sender %s: %s", id,
            s->refusal ? s->refusal : "too many senders (--max-senders)");
    return 0;
}

/* _SID: the sender's identity; the receiver's storage opens with it.  The
 * identity is 32 hex digits, nothing else: it names a file. */
static void
peer_identity(mqi_conn *c, MqContextC *p, MkBufferStreamC *body)
{
    const char *id = NULL;
    char *file = NULL;
    mqi_persist_state *s = NULL;
    if (MkBufferStreamReadSTR(body, &id) != MK_OK || strlen(id) != 32 ||
        strspn(id, "0123456789abcdef") != 32) {
        mqi_conn_fail(c, MQ_ERR_PROTOCOL, "malformed storage identity from the peer");
        return;
    }
    free(c->peer_id);
    c->peer_id = strdup(id);
    if (p->storage)
        return;
    if (p->cfg.storage && per_peer_files(p) &&
        asprintf(&file, "%s.%s", p->cfg.storage, id) < 0)
        file = NULL;
    if (file && (!(s = mqi_persist_state_of(p)) || !sender_allowed(p, s, file, id))) {
        free(file);
        return;
    }
    if (open_file(p, file) != MK_OK)
        mqi_log(p, MK_LOG_ERROR, "%s", MqErrorGetText(p));
    free(file);
}

void
mqi_persist_internal(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body)
{
    MqContextC *p = c->parent;
    MK_I64 low = 0;
    if (!p)
        return;
    if (!memcmp(h->token, "_SID", 4)) {
        peer_identity(c, p, body);
    } else if (p->storage && c->peer_id && MkBufferStreamReadI64(body, &low) == MK_OK &&
               mqi_storage_forget_below(p->storage, c->peer_id, low, p->err) != MK_OK) {
        mqi_log(p, MK_LOG_ERROR, "%s", MqErrorGetText(p));
    }
}

/* What persist_load.c's hooks forward to (flag and tokens are theirs). */
static const mqi_hooks hooks = {
    .name = "persistent delivery",
    .link_create = mqi_persist_open,
    .link_up = mqi_persist_resume,
    .context_delete = mqi_persist_close,
    .call = mqi_persist_serve,
    .answer = mqi_persist_answered,
    .answer_write = mqi_persist_answer_write,
    .internal = mqi_persist_internal,
};

/* The module's one export (persist.h). */
const mqi_persist_ops mqi_persist_module = {
    .head = {.version = PACKAGE_VERSION},
    .hooks = &hooks,
    .send_wait = send_wait,
    .send_callback = send_callback,
    .durable = mqi_storage_durable,
    .pending_count = mqi_storage_pending_count,
};
