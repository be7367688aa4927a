/* persist_resume.c — the sender after a (re)connect: every call still in
 * its storage is sent again, in the order it was stored, and its answer
 * goes to the transaction handler (its original waiter or callback is
 * gone).  Answers delete stored calls; now and then the receiver learns
 * below which id it may forget its records. */
#include <string.h>
#include <stdlib.h>

#include "link_int.h"
#include "storage/storage.h"

#define LWM_EVERY 256

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

void
mqi_persist_answered(mqi_conn *c, uint64_t id)
{
    MqContextC *p = c->parent;
    MK_I64 low = 0;
    if (!p || !p->storage)
        return;
    if (mqi_storage_done(p->storage, (MK_I64)id, c->err) != MK_OK) {
        mqi_log(p, MK_LOG_ERROR, "%s", MkErrorGetText(c->err));
        return;
    }
    if (++c->answers_since_lwm < LWM_EVERY ||
        mqi_storage_low_water(p->storage, &low, c->err) != MK_OK)
        return;
    c->answers_since_lwm = 0;
    MkBufferStreamC *body = MkBufferStreamCreateTLS("mqlink-persist");
    MkBufferStreamWriteI64(body, low);
    mqi_hdr h = {.kind = MQI_ONEWAY, .flags = MQI_F_INTERNAL};
    memcpy(h.token, "_LWM", 5);
    mqi_conn_write_frame(c, &h, body);
}
