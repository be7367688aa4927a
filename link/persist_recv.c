/* persist_recv.c — the receiver of persistent calls: a duplicate is
 * answered from the record; a new call is served and its answer recorded in
 * the open transaction, committed before the answer leaves (conn.c flush). */
#include <string.h>

#include "link_int.h"
#include "storage/storage.h"

static mqi_storage *
storage_of(MqContextC *ctx)
{
    return (ctx->parent ? ctx->parent : ctx)->storage;
}

static void
refuse(MqContextC *ctx, const mqi_hdr *h, const char *why)
{
    MkBufferStreamC *body = MkBufferStreamCreateTLS("mqlink-error");
    mqi_hdr r = {.kind = MQI_ERROR, .child = h->child, .trans = h->trans, .flags = MQI_F_PERSIST};
    memcpy(r.token, h->token, 5);
    MkBufferStreamWriteI32(body, MQ_ERR_STORAGE);
    MkBufferStreamWriteSTR(body, why);
    mqi_conn_write_frame(ctx->conn, &r, body);
}

void
mqi_persist_serve(MqContextC *ctx, const mqi_hdr *h, MkBufferStreamC *body)
{
    mqi_conn *c = ctx->conn;
    mqi_storage *st = storage_of(ctx);
    int found = 0;
    MK_I32 kind = 0, items = 0;
    const void *answer = NULL;
    size_t len = 0;
    if (!c->peer_id || !st) {
        refuse(ctx, h, !c->peer_id ? "persistent call before the sender's identity"
                                   : "the receiver has no working storage (see its log)");
        return;
    }
    if (mqi_storage_lookup_processed(st, c->peer_id, (MK_I64)h->trans, &found, &kind, &answer,
                                     &len, ctx->err) != MK_OK) {
        refuse(ctx, h, MqErrorGetText(ctx));
        MkErrorReset(ctx->err);
        return;
    }
    if (!found) {
        mqi_serve_call(ctx, h, body);
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
    mqi_conn_write_raw(c, &r, answer);
}

MkErrorE
mqi_answer_write(MqContextC *ctx, uint8_t kind, const MkBufferStreamC *body)
{
    mqi_conn *c = ctx->conn;
    mqi_hdr r = {.kind = kind, .child = ctx->child_id, .trans = ctx->call.trans};
    memcpy(r.token, ctx->call.token, 5);
    if (ctx->call.persist) {
        r.flags = MQI_F_PERSIST;
        if (mqi_storage_record_processed(storage_of(ctx), c->peer_id, (MK_I64)ctx->call.trans,
                                         kind, body ? body->data : NULL, body ? body->len : 0,
                                         c->err) != MK_OK) {
            /* unrecorded answers must not leave: end the link, the sender re-sends */
            c->up = 0;
            return MK_ERROR;
        }
    }
    return mqi_conn_write_frame(c, &r, body);
}
