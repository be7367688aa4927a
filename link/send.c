/* send.c — building a message and ending it as a one-way call, a waiting
 * call, a call with callback, or a service's answer.  Every message is
 * encoded straight into the context's send stream and from there copied
 * once into the connection's write buffer. */
#include <stdlib.h>
#include <string.h>

#include "link_int.h"

MkErrorE
MqSendSTART(MqContextC *ctx)
{
    MkBufferStreamReset(&ctx->send);
    return MK_OK;
}

#define SEND_VALUE(NAME, TYPE)                                \
    MkErrorE MqSend##NAME(MqContextC *ctx, TYPE v)            \
    {                                                         \
        return MkBufferStreamWrite##NAME(&ctx->send, v);      \
    }
SEND_VALUE(I8, MK_I8)
SEND_VALUE(I16, MK_I16)
SEND_VALUE(I32, MK_I32)
SEND_VALUE(I64, MK_I64)
SEND_VALUE(FLT, MK_FLT)
SEND_VALUE(DBL, MK_DBL)
SEND_VALUE(BOL, MK_BOL)
SEND_VALUE(STR, const char *)
SEND_VALUE(BUF, const MkBufferC *)
#undef SEND_VALUE

MkErrorE
MqSendBIN(MqContextC *ctx, const void *data, size_t size)
{
    return MkBufferStreamWriteBIN(&ctx->send, data, size);
}

MkErrorE
MqSendL_START(MqContextC *ctx)
{
    return MkBufferStreamWriteL_START(&ctx->send);
}

MkErrorE
MqSendL_END(MqContextC *ctx)
{
    return MkBufferStreamWriteL_END(&ctx->send);
}

/* Put the message on the wire as a frame of the given kind; a flush it
 * needs waits timeout_ms at most (MQ_TIMEOUT_DEFAULT: the context's). */
static MkErrorE
end(MqContextC *ctx, const char *what, const char *token, uint8_t kind, uint64_t trans,
    MK_I64 timeout_ms)
{
    mqi_conn *c = ctx->conn;
    if (!mqi_token_valid(token)) {
        MkBufferStreamReset(&ctx->send);
        return MkErrorSet(ctx->err, MK_ERR_ARGUMENT,
                          "%s: token '%s' is not exactly 4 printable characters", what,
                          token ? token : "(null)");
    }
    if (mqi_check_linked(ctx, what) != MK_OK)
        goto fail;
    if (ctx->send.wdepth) {
        MkErrorSet(ctx->err, MK_ERR_NESTING, "%s: %d list(s) still open", what, ctx->send.wdepth);
        goto fail;
    }
    if (ctx->send.len > c->max_frame) {
        MkErrorSet(ctx->err, MK_ERR_MEMORY, "%s: message of %zu bytes exceeds the maximum of %u",
                   what, ctx->send.len, c->max_frame);
        goto fail;
    }
    MkErrorE rc;
    if (kind == MQI_RETURN) {
        rc = mqi_answer_write(ctx, kind, &ctx->send);
    } else {
        mqi_hdr h = {.kind = kind, .child = ctx->child_id, .trans = trans};
        memcpy(h.token, token, 5);
        rc = mqi_conn_write_within(c, &h, &ctx->send,
                                   timeout_ms == MQ_TIMEOUT_DEFAULT ? c->timeout_ms : timeout_ms);
    }
    MkBufferStreamReset(&ctx->send);
    return rc == MK_OK ? MK_OK : mqi_link_error(ctx, what);
fail:
    MkBufferStreamReset(&ctx->send);
    return MK_ERROR;
}

MkErrorE
MqSendEND(MqContextC *ctx, const char *token, MK_I64 timeout_ms)
{
    return end(ctx, "SendEND", token, MQI_ONEWAY, 0, timeout_ms);
}

MkErrorE
MqSendEND_AND_WAIT(MqContextC *ctx, const char *token, MK_I64 timeout_ms)
{
    mqi_conn *c = ctx->conn;
    if (!c || !c->up)
        return end(ctx, "SendEND_AND_WAIT", token, MQI_CALL_WAIT, 0, MQ_TIMEOUT_DEFAULT);
    mqi_pending w = {.trans = c->next_trans++, .ctx = ctx};
    if (end(ctx, "SendEND_AND_WAIT", token, MQI_CALL_WAIT, w.trans, MQ_TIMEOUT_DEFAULT) != MK_OK)
        return MK_ERROR;
    if (mqi_pend_add(&c->pend, &w) != MK_OK)
        return MkErrorSet(ctx->err, MK_ERR_MEMORY, "SendEND_AND_WAIT: out of memory");
    return mqi_wait_answer(ctx, &w, "SendEND_AND_WAIT", token, timeout_ms);
}

MkErrorE
mqi_wait_answer(MqContextC *ctx, mqi_pending *w, const char *what, const char *token,
                MK_I64 timeout_ms)
{
    mqi_conn *c = ctx->conn;
    MkErrorE rc = mqi_loop(ctx, w, mqi_deadline(ctx, timeout_ms), 0);
    if (!w->done) {
        mqi_pend_take(&c->pend, w->trans);
        if (rc == MK_CONTINUE)
            return MkErrorSet(ctx->err, MQ_ERR_TIMEOUT, "%s: no answer from '%s' within %lld ms",
                              what, token,
                              (long long)(timeout_ms == MQ_TIMEOUT_DEFAULT ? ctx->cfg.timeout_ms
                                                                           : timeout_ms));
        return mqi_link_error(ctx, what);
    }
    if (w->failed)
        return MK_ERROR;
    ctx->rd = ctx->ret; /* its answer, handed over (link_int.h) */
    return MK_OK;
}

MkErrorE
MqSendEND_AND_CALLBACK(MqContextC *ctx, const char *token, MqServiceCallF fn, void *data,
                       MqDataFreeF free_fn, MK_I64 timeout_ms)
{
    mqi_conn *c = ctx->conn;
    mqi_pending *p = NULL;
    if (!fn) {
        MkBufferStreamReset(&ctx->send);
        return MkErrorSet(ctx->err, MK_ERR_ARGUMENT, "SendEND_AND_CALLBACK: no callback");
    }
    if (c && c->up) {
        p = mqi_pend_alloc(c);
        if (!p)
            return MkErrorSet(ctx->err, MK_ERR_MEMORY, "SendEND_AND_CALLBACK: out of memory");
        *p = (mqi_pending){.trans = c->next_trans++, .ctx = ctx, .cb = {fn, data, free_fn},
                           .deadline = mqi_deadline(ctx, timeout_ms)};
        if (p->deadline >= 0 && (c->cb_deadline < 0 || p->deadline < c->cb_deadline))
            c->cb_deadline = p->deadline;
    }
    if (end(ctx, "SendEND_AND_CALLBACK", token, MQI_CALL_CB, p ? p->trans : 0,
            MQ_TIMEOUT_DEFAULT) != MK_OK) {
        if (p)
            mqi_pend_release(c, p);
        return MK_ERROR;
    }
    if (mqi_pend_add(&c->pend, p) != MK_OK) {
        mqi_pend_release(c, p);
        return MkErrorSet(ctx->err, MK_ERR_MEMORY, "SendEND_AND_CALLBACK: out of memory");
    }
    return MK_OK;
}

MkErrorE
MqSendRETURN(MqContextC *ctx)
{
    if (!ctx->call.kind) {
        MkBufferStreamReset(&ctx->send);
        return MkErrorSet(ctx->err, MK_ERR_ARGUMENT, "SendRETURN: not inside a service");
    }
    if (ctx->call.answered) {
        MkBufferStreamReset(&ctx->send);
        return MkErrorSet(ctx->err, MK_ERR_ARGUMENT, "SendRETURN: '%s' was already answered",
                          ctx->call.token);
    }
    ctx->call.answered = 1;
    if (ctx->call.kind == MQI_ONEWAY) {
        /* nobody waits for the answer of a one-way call */
        MkBufferStreamReset(&ctx->send);
        return MK_OK;
    }
    return end(ctx, "SendRETURN", ctx->call.token, MQI_RETURN, ctx->call.trans,
               MQ_TIMEOUT_DEFAULT);
}
