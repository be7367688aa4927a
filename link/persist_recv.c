/* persist_recv.c — the receiver of persistent calls: a duplicate is
 * answered from the record; a new call is served and its answer recorded in
 * the open transaction, committed before the answer leaves (conn.c flush).
 *
 * A duplicate is the same (sender identity, id) and the same call: the
 * record keeps the call's digest, and a different call under a recorded
 * id (a sender storage copied or restored from a backup) is refused, never
 * answered with another call's answer.
 *
 * A receiver that cannot record (disk full, I/O error) refuses new calls
 * before their service runs, with a refusal the sender retries later, until
 * a probe shows the storage takes writes again: a call runs once per
 * commit that failed, not once per retry.  The link stays up; answers that
 * lost their record become such refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "persist_int.h"

static mqi_storage *
storage_of(MqContextC *ctx)
{
    return (ctx->parent ? ctx->parent : ctx)->storage;
}

static MqContextC *
parent_of(MqContextC *ctx)
{
    return ctx->parent ? ctx->parent : ctx;
}

/* The error answer of a refused persistent call; with retry the sender
 * keeps the call and sends it again after a while. */
static void
refuse(MqContextC *ctx, const mqi_hdr *h, int retry, const char *why)
{
    MkBufferStreamC *body = MkBufferStreamCreateTLS("mqlink-error");
    mqi_hdr r = {.kind = MQI_ERROR, .child = h->child, .trans = h->trans,
                 .flags = MQI_F_PERSIST | (retry ? MQI_F_RETRY : 0)};
    memcpy(r.token, h->token, 5);
    MkBufferStreamWriteI32(body, MQ_ERR_STORAGE);
    MkBufferStreamWriteSTR(body, why);
    mqi_conn_write_frame(ctx->conn, &r, body);
}

/* Remember where a persistent answer starts in the write buffer (see
 * mqi_persist_records_lost); 0 when it could not be remembered. */
static int
track_answer(mqi_conn *c, mqi_persist_state *s)
{
    if (s->nanswers == s->capanswers) {
        size_t cap = s->capanswers;
        size_t *t = mki_grow(s->answers, &cap, s->nanswers + 1, sizeof *t);
        if (!t)
            return 0;
        s->answers = t;
        s->capanswers = cap;
    }
    s->answers[s->nanswers++] = c->wbuf.len;
    return 1;
}

/* Rewrite the write buffer with every tracked answer replaced by text. */
static MkErrorE
rewrite_answers(mqi_conn *c, mqi_persist_state *s, const char *text)
{
    mqi_bytes *b = &c->wbuf;
    MkBufferStreamC *body = MkBufferStreamCreateTLS("mqlink-error");
    MkBufferStreamReset(body);
    MkBufferStreamWriteI32(body, MQ_ERR_STORAGE);
    MkBufferStreamWriteSTR(body, text);
    size_t room = b->len - b->off + s->nanswers * (MQI_HDR_SIZE + body->len), n = 0;
    unsigned char *out = malloc(room ? room : 1);
    if (!out)
        return MK_ERROR;
    size_t pos = b->off;
    for (size_t i = 0; i < s->nanswers; i++) {
        size_t at = s->answers[i];
        uint32_t len;
        if (at < pos || at + MQI_HDR_SIZE > b->len)
            continue; /* not (or no longer) in the buffer */
        memcpy(&len, b->p + at + 28, 4); /* our own frames: our byte order */
        mqi_hdr r = {.kind = MQI_ERROR, .flags = MQI_F_PERSIST | MQI_F_RETRY,
                     .items = (uint32_t)body->count, .len = (uint32_t)body->len};
        memcpy(r.token, b->p + at + 4, 4);
        memcpy(&r.child, b->p + at + 8, 4);
        memcpy(&r.trans, b->p + at + 16, 8);
        memcpy(out + n, b->p + pos, at - pos);
        n += at - pos;
        mqi_hdr_encode(out + n, &r);
        memcpy(out + n + MQI_HDR_SIZE, body->data, body->len);
        n += MQI_HDR_SIZE + body->len;
        pos = at + MQI_HDR_SIZE + len;
    }
    memcpy(out + n, b->p + pos, b->len - pos);
    n += b->len - pos;
    free(b->p);
    b->p = out;
    b->cap = room ? room : 1;
    b->off = 0;
    b->len = n;
    s->nanswers = 0;
    return MK_OK;
}

MkErrorE
mqi_persist_records_lost(mqi_conn *c, MqContextC *p, MkErrorC *err)
{
    mqi_persist_state *s = mqi_persist_state_of(p);
    char text[1024];
    if (!s)
        return MK_ERROR;
    mqi_storage_rollback(p->storage, NULL);
    snprintf(text, sizeof text,
             "the receiver cannot record persistent calls now (%s); the sender keeps the call "
             "and sends it again", MkErrorGetText(err));
    if (!s->cannot_record)
        mqi_log(p, MK_LOG_ERROR, "%s: persistent calls are refused until it can record again",
                MkErrorGetText(err));
    s->cannot_record = 1;
    /* the probe asks for room for twice what failed, and a little more */
    size_t want = s->open_bytes > (128u << 20) ? (256u << 20) : 2 * s->open_bytes + (64u << 10);
    s->probe_bytes = want > s->probe_bytes ? want : s->probe_bytes;
    s->open_bytes = 0;
    return rewrite_answers(c, s, text);
}

/* While the storage cannot record: MK_OK when a probe now commits. */
static MkErrorE
can_record(MqContextC *ctx, mqi_persist_state *s)
{
    MqContextC *p = parent_of(ctx);
    if (!s->cannot_record)
        return MK_OK;
    if (mqi_storage_probe(p->storage, s->probe_bytes, ctx->err) != MK_OK) {
        /* the probe committed what was open with it: that is lost too */
        mqi_persist_records_lost(ctx->conn, p, ctx->err);
        MkErrorReset(ctx->err);
        return MK_ERROR;
    }
    s->nanswers = 0; /* the probe committed their records */
    s->open_bytes = 0;
    s->cannot_record = 0;
    mqi_log(p, MK_LOG_INFO, "storage %s records again", mqi_storage_file(p->storage));
    return MK_OK;
}

/* --max-storage: the sender's file, the others' and this call's body. */
static int
over_limit(MqContextC *ctx, mqi_persist_state *s, size_t len, char *why, size_t n)
{
    MqContextC *p = parent_of(ctx);
    MK_I64 used = 0, max = p->cfg.max_storage;
    if (max <= 0 || mqi_storage_used_bytes(p->storage, &used, ctx->err) != MK_OK) {
        MkErrorReset(ctx->err);
        return 0;
    }
    if (used + s->others_bytes + (MK_I64)len <= max)
        return 0;
    snprintf(why, n, "persistent call refused: the receiver's storage holds %lld bytes, "
             "its limit is %lld (--max-storage)", (long long)(used + s->others_bytes),
             (long long)max);
    mqi_log(p, MK_LOG_WARN, "sender %s: %s", ctx->conn->peer_id, why);
    return 1;
}

/* Serve a call that has no record yet. */
static void
serve_new(MqContextC *ctx, mqi_persist_state *s, const mqi_hdr *h, MkBufferStreamC *body,
          uint64_t digest)
{
    char why[512];
    if (over_limit(ctx, s, body->len, why, sizeof why)) {
        refuse(ctx, h, 0, why);
        return;
    }
    if (can_record(ctx, s) != MK_OK) {
        snprintf(why, sizeof why, "persistent call %llu refused for now: the receiver cannot "
                 "record (storage %s, see its log); the sender keeps the call and sends it "
                 "again", (unsigned long long)h->trans, mqi_storage_file(storage_of(ctx)));
        refuse(ctx, h, 1, why);
        return;
    }
    if (s->nserving >= MQI_MAX_NEST) {
        refuse(ctx, h, 1, "persistent calls nested too deep");
        return;
    }
    s->serving[s->nserving].trans = h->trans;
    s->serving[s->nserving++].digest = digest;
    mqi_serve_call(ctx, h, body);
    s->nserving--;
}

void
mqi_persist_serve(MqContextC *ctx, const mqi_hdr *h, MkBufferStreamC *body)
{
    mqi_conn *c = ctx->conn;
    mqi_storage *st = storage_of(ctx);
    mqi_persist_state *s = mqi_persist_state_of(parent_of(ctx));
    int found = 0;
    MK_I32 kind = 0, items = 0;
    const void *answer = NULL;
    size_t len = 0;
    uint64_t recorded = 0, digest;
    char why[512];
    if (!c->peer_id || !st || !s) {
        /* a limit is final; a storage that would not open may work later */
        refuse(ctx, h, c->peer_id && !(s && s->refusal),
               !c->peer_id ? "persistent call before the sender's identity"
               : s && s->refusal ? s->refusal
                                 : "the receiver has no working storage (see its log)");
        return;
    }
    digest = mqi_storage_digest(h->token, body->data, body->len);
    if (mqi_storage_lookup_processed(st, c->peer_id, (MK_I64)h->trans, &found, &recorded, &kind,
                                     &answer, &len, ctx->err) != MK_OK) {
        refuse(ctx, h, 1, MqErrorGetText(ctx));
        MkErrorReset(ctx->err);
        return;
    }
    if (!found) {
        serve_new(ctx, s, h, body, digest);
        return;
    }
    if (recorded && recorded != digest) {
        snprintf(why, sizeof why, "persistent call %llu from sender %s was recorded for a "
                 "different call: sender identities must be unique (copied or restored "
                 "storage file?)", (unsigned long long)h->trans, c->peer_id);
        mqi_log(parent_of(ctx), MK_LOG_ERROR, "%s", why);
        refuse(ctx, h, 0, why);
        return;
    }
    /* processed before: the same answer again, the service does not run */
    if (mki_stream_validate(answer, len, 0, MK_STREAM_MAX_DEPTH, &items, c->err) != MK_OK) {
        c->up = 0;
        return;
    }
    mqi_hdr r = {.kind = (uint8_t)kind, .child = h->child, .trans = h->trans,
                 .flags = MQI_F_PERSIST, .items = (uint32_t)items, .len = (uint32_t)len};
    memcpy(r.token, h->token, 5);
    if (!track_answer(c, s)) {
        refuse(ctx, h, 1, "out of memory");
        return;
    }
    mqi_conn_write_raw(c, &r, answer);
}

/* The digest of the persistent call trans being served (0: unknown). */
static uint64_t
digest_of(mqi_persist_state *s, uint64_t trans)
{
    for (int i = s->nserving - 1; i >= 0; i--)
        if (s->serving[i].trans == trans)
            return s->serving[i].digest;
    return 0;
}

MkErrorE
mqi_persist_answer_write(MqContextC *ctx, mqi_hdr *r, const MkBufferStreamC *body)
{
    mqi_conn *c = ctx->conn;
    MqContextC *p = parent_of(ctx);
    mqi_persist_state *s = mqi_persist_state_of(p);
    size_t len = body ? body->len : 0;
    r->flags = MQI_F_PERSIST;
    if (!s || mqi_storage_record_processed(p->storage, c->peer_id, (MK_I64)ctx->call.trans,
                                           digest_of(s, ctx->call.trans), r->kind,
                                           body ? body->data : NULL, len, c->err) != MK_OK) {
        /* an unrecorded answer must not leave: it becomes a refusal,
         * with every other answer of the lost transaction */
        s = s ? s : mqi_persist_state_of(p);
        if (!s || mqi_persist_records_lost(c, p, c->err) != MK_OK) {
            c->up = 0; /* the link ends; the sender re-sends */
            return MK_ERROR;
        }
        MkErrorReset(c->err);
        mqi_hdr q = {.kind = MQI_CALL_WAIT, .child = ctx->child_id, .trans = ctx->call.trans};
        memcpy(q.token, ctx->call.token, 5);
        refuse(ctx, &q, 1, "the receiver could not record the answer; the sender keeps "
                           "the call and sends it again");
        return MK_OK;
    }
    s->open_bytes += len;
    if (!track_answer(c, s)) {
        c->up = 0;
        return MK_ERROR;
    }
    return mqi_conn_write_frame(c, r, body);
}
