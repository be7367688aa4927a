/* persist_resume.c — the sender after a (re)connect: every call still in
 * its storage is sent again, in the order it was stored, and its answer
 * goes to the transaction handler (its original waiter or callback is
 * gone).  Answers delete stored calls; now and then the receiver learns
 * below which id it may forget its records. */
#include <string.h>
#include <stdlib.h>

#include "persist_int.h"

#define LWM_EVERY 256
/* A refused call is sent again after RETRY_FIRST_MS, doubling up to RETRY_MAX_MS. */
#define RETRY_FIRST_MS 50
#define RETRY_MAX_MS 5000
/* Timer keys of calls waiting to be sent again, beside their pending key. */
#define RETRY_KEY (1ull << 62)

static MkErrorE
discard_answer(MqContextC *ctx, void *data)
{
    return MK_OK;
}

static MkErrorE
resend(const mqi_storage_call *call, void *data, MkErrorC *err)
{
    MqContextC *ctx = data;
    mqi_conn *c = ctx->conn;
    MK_I32 items = 0;
    if (mki_stream_validate(call->body, call->len, 0, MK_STREAM_MAX_DEPTH, &items, err) != MK_OK)
        return MK_ERROR;
    mqi_pending *p = mqi_pend_alloc(c);
    if (!p)
        return MkErrorSet(err, MK_ERR_MEMORY, "out of memory re-sending stored calls");
    mqi_cb cb = ctx->txn_handler.fn ? ctx->txn_handler : (mqi_cb){discard_answer, NULL, NULL};
    cb.free = NULL; /* the handler stays the context's */
    *p = (mqi_pending){.trans = (uint64_t)call->id | MQI_PERSIST_KEY, .ctx = ctx, .cb = cb,
                       .deadline = -1};
    if (mqi_pend_add(&c->pend, p) != MK_OK) {
        mqi_pend_release(c, p);
        return MkErrorSet(err, MK_ERR_MEMORY, "out of memory re-sending stored calls");
    }
    mqi_hdr h = {.kind = MQI_CALL_CB, .flags = MQI_F_PERSIST, .trans = (uint64_t)call->id,
                 .items = (uint32_t)items, .len = (uint32_t)call->len};
    memcpy(h.token, call->token, 5);
    return mqi_conn_write_raw(c, &h, call->body);
}

MkErrorE
mqi_persist_resume(MqContextC *ctx)
{
    MK_I64 n = 0;
    if (!ctx->storage)
        return MK_OK;
    mqi_persist_hook_flush(ctx);
    if (mqi_storage_pending_count(ctx->storage, &n, ctx->err) != MK_OK)
        return MK_ERROR;
    if (n == 0)
        return MK_OK;
    mqi_log(ctx, MK_LOG_INFO, "re-sending %lld stored call(s)", (long long)n);
    if (mqi_persist_announce(ctx, ctx->storage) != MK_OK ||
        mqi_storage_foreach_pending(ctx->storage, resend, ctx, ctx->err) != MK_OK)
        return MK_ERROR;
    return mqi_conn_flush(ctx->conn) == MK_OK ? MK_OK : mqi_link_error(ctx, "LinkCreate");
}

/* A refused call's timer ran out: send it again, if it is still stored
 * and the link is up (else the next link re-sends it). */
static MkErrorE
retry_now(MqContextC *ctx, void *data)
{
    mqi_conn *c = ctx->conn;
    MK_I64 id = *(MK_I64 *)data;
    mqi_storage_call call;
    int found = 0;
    MK_I32 items = 0;
    MkErrorReset(ctx->err); /* the timer "expired": that is no error */
    if (!c || !c->up || !ctx->storage ||
        mqi_storage_get(ctx->storage, id, &call, &found, ctx->err) != MK_OK || !found ||
        mki_stream_validate(call.body, call.len, 0, MK_STREAM_MAX_DEPTH, &items, ctx->err) !=
            MK_OK) {
        MkErrorReset(ctx->err);
        return MK_OK;
    }
    uint32_t child = call.child > 0 && call.child <= UINT32_MAX &&
                             mqi_conn_context(c, (uint32_t)call.child)
                         ? (uint32_t)call.child : 0;
    mqi_hdr h = {.kind = (uint8_t)call.kind, .child = child, .flags = MQI_F_PERSIST,
                 .trans = (uint64_t)id, .items = (uint32_t)items, .len = (uint32_t)call.len};
    if (h.kind != MQI_CALL_WAIT && h.kind != MQI_CALL_CB)
        h.kind = MQI_CALL_CB;
    memcpy(h.token, call.token, 5);
    mqi_conn_write_raw(c, &h, call.body);
    return MK_OK;
}

/* The receiver refused call id for now: keep it stored and its waiter
 * waiting, and send it again after a backoff.  The timer is a callback
 * with a deadline in the pending table, so the event loop wakes for it. */
static void
retry_later(mqi_conn *c, MqContextC *p, const mqi_hdr *h, MkBufferStreamC *body)
{
    mqi_persist_state *s = mqi_persist_state_of(p);
    uint64_t key = h->trans | MQI_PERSIST_KEY | RETRY_KEY;
    MK_I32 code = 0;
    const char *text = "";
    MkBufferStreamReadI32(body, &code);
    MkBufferStreamReadSTR(body, &text);
    mqi_pending *timer = mqi_pend_take(&c->pend, key);
    if (timer) { /* one timer per call is enough: put it back */
        if (mqi_pend_add(&c->pend, timer) != MK_OK)
            mqi_pend_release(c, timer);
        return;
    }
    if (!s)
        return;
    s->backoff_ms = s->backoff_ms ? s->backoff_ms * 2 : RETRY_FIRST_MS;
    if (s->backoff_ms > RETRY_MAX_MS)
        s->backoff_ms = RETRY_MAX_MS;
    mqi_log(p, MK_LOG_WARN, "%s (sent again in %lld ms)", text, (long long)s->backoff_ms);
    MK_I64 *id = malloc(sizeof *id);
    mqi_pending *t = id ? mqi_pend_alloc(c) : NULL;
    if (!t) {
        free(id);
        return; /* the next link re-sends it */
    }
    *id = (MK_I64)h->trans;
    *t = (mqi_pending){.trans = key, .ctx = p, .cb = {retry_now, id, free},
                       .deadline = mqi_now_ms() + s->backoff_ms};
    if (mqi_pend_add(&c->pend, t) != MK_OK) {
        free(id);
        mqi_pend_release(c, t);
        return;
    }
    if (c->cb_deadline < 0 || t->deadline < c->cb_deadline)
        c->cb_deadline = t->deadline;
}

/* Tell the receiver below which id it may forget its records: every
 * LWM_EVERY answers, and whenever nothing is left pending, so that a
 * receiver can drop the file of a sender that has everything answered. */
static void
send_low_water(mqi_conn *c, MqContextC *p)
{
    mqi_persist_state *s = mqi_persist_state_of(p);
    MK_I64 low = 0;
    int left = 1;
    if (mqi_storage_low_water(p->storage, &low, c->err) != MK_OK) {
        MkErrorReset(c->err);
        return;
    }
    if (++c->answers_since_lwm < LWM_EVERY &&
        (mqi_storage_pending_any(p->storage, &left, c->err) != MK_OK || left)) {
        MkErrorReset(c->err);
        return;
    }
    if (s && s->last_lwm == low)
        return;
    if (s)
        s->last_lwm = low;
    c->answers_since_lwm = 0;
    MkBufferStreamC *body = MkBufferStreamCreateTLS("mqlink-persist");
    MkBufferStreamReset(body);
    MkBufferStreamWriteI64(body, low);
    mqi_hdr h = {.kind = MQI_ONEWAY, .flags = MQI_F_INTERNAL};
    memcpy(h.token, "_LWM", 5);
    mqi_conn_write_frame(c, &h, body);
}

MkErrorE
mqi_persist_answered(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body, uint64_t *key)
{
    MqContextC *p = c->parent;
    *key = h->trans | MQI_PERSIST_KEY;
    if (!p || !p->storage)
        return MK_OK;
    if (h->kind == MQI_ERROR && (h->flags & MQI_F_RETRY)) {
        retry_later(c, p, h, body);
        return MK_CONTINUE;
    }
    if (p->pst)
        p->pst->backoff_ms = 0;
    if (mqi_storage_done(p->storage, (MK_I64)h->trans, c->err) != MK_OK) {
        mqi_log(p, MK_LOG_ERROR, "%s", MkErrorGetText(c->err));
        return MK_OK;
    }
    send_low_water(c, p);
    return MK_OK;
}
