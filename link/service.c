/* service.c — services: registering them by token, running one for a
 * received call and answering for it, and the link-internal services that
 * create and delete child instances on the server. */
#include <stdlib.h>
#include <string.h>

#include "link_int.h"
#include "trace.h"

static uint32_t
token_word(const char *token)
{
    uint32_t w;
    memcpy(&w, token, 4);
    return w;
}

static mqi_service *
find(MqContextC *ctx, uint32_t word)
{
    for (int i = 0; i < ctx->nsvc; i++)
        if (ctx->svc[i].token == word)
            return &ctx->svc[i];
    return NULL;
}

/* Room for more services: the table in the context is full, so it moves
 * to the heap (doubling from there, mki_grow). */
static MkErrorE
grow(MqContextC *ctx)
{
    size_t cap = (size_t)ctx->capsvc;
    int inline_table = ctx->svc == ctx->svc_inline;
    mqi_service *t = mki_grow(inline_table ? NULL : ctx->svc, &cap, cap + 1, sizeof *t);
    if (!t)
        return MK_ERROR;
    if (inline_table)
        memcpy(t, ctx->svc_inline, sizeof ctx->svc_inline);
    ctx->svc = t;
    ctx->capsvc = (int)cap;
    return MK_OK;
}

/* Why ServiceCreate refuses token and fn (out of line: a server's setup
 * creates its services for every instance, one per parent). */
static __attribute__((noinline, cold)) MkErrorE
refused(MqContextC *ctx, const char *token, MqServiceCallF fn)
{
    if (!mqi_token_valid(token))
        return MkErrorSet(ctx->err, MK_ERR_ARGUMENT,
                          "ServiceCreate: token '%s' is not exactly 4 printable characters",
                          token ? token : "(null)");
    (void)fn;
    return MkErrorSet(ctx->err, MK_ERR_ARGUMENT, "ServiceCreate: no function for '%s'", token);
}

/* A service registered again: its old callback's data is freed. */
static __attribute__((noinline)) void
replace(mqi_service *s, const mqi_cb *cb)
{
    if (s->cb.free)
        s->cb.free(s->cb.data);
    s->cb = *cb;
}

/* The table full: it moves to the heap or doubles, then takes word. */
static __attribute__((noinline)) MkErrorE
append_grown(MqContextC *ctx, uint32_t word, const mqi_cb *cb)
{
    if (grow(ctx) != MK_OK)
        return MkErrorSet(ctx->err, MK_ERR_MEMORY, "ServiceCreate: out of memory");
    ctx->svc[ctx->nsvc++] = (mqi_service){word, *cb};
    return MK_OK;
}

MkErrorE
MqServiceCreate(MqContextC *ctx, const char *token, MqServiceCallF fn, void *data,
                MqDataFreeF free_fn)
{
    if (!mqi_token_valid(token) || !fn)
        return refused(ctx, token, fn);
    uint32_t word = token_word(token);
    mqi_cb cb = {fn, data, free_fn};
    mqi_service *s = find(ctx, word);
    if (s)
        replace(s, &cb);
    else if (ctx->nsvc == ctx->capsvc)
        return append_grown(ctx, word, &cb);
    else
        ctx->svc[ctx->nsvc++] = (mqi_service){word, cb};
    return MK_OK;
}

MkErrorE
MqServiceDelete(MqContextC *ctx, const char *token)
{
    mqi_service *s = mqi_token_valid(token) ? find(ctx, token_word(token)) : NULL;
    if (!s)
        return MkErrorSet(ctx->err, MQ_ERR_SERVICE, "ServiceDelete: no service '%s'",
                          token ? token : "(null)");
    if (s->cb.free)
        s->cb.free(s->cb.data);
    *s = ctx->svc[--ctx->nsvc];
    return MK_OK;
}

const char *
MqServiceGetToken(MqContextC *ctx)
{
    return ctx->call.kind ? ctx->call.token : NULL;
}

MkErrorE
mqi_send_error(MqContextC *ctx, uint64_t trans, MK_I32 code, const char *text)
{
    MkBufferStreamC *body = MkBufferStreamCreateTLS("mqlink-error");
    MkBufferStreamWriteI32(body, code ? code : MQ_ERR_SERVICE);
    MkBufferStreamWriteSTR(body, text);
    if (trans && ctx->call.kind && trans == ctx->call.trans)
        return mqi_answer_write(ctx, MQI_ERROR, body);
    mqi_hdr h = {.kind = MQI_ERROR, .child = ctx->child_id, .trans = trans};
    memcpy(h.token, ctx->call.kind ? ctx->call.token : "_ERR", 5);
    return mqi_conn_write_frame(ctx->conn, &h, body);
}

/* Run the service and make sure the caller gets exactly one answer: the
 * service's return, its error, or an empty return it forgot to send. */
void
mqi_serve_call(MqContextC *ctx, const mqi_hdr *h, MkBufferStreamC *body)
{
    mqi_call saved_call = ctx->call;
    mqi_service *s = find(ctx, token_word(h->token));
    MkErrorE rc;

    ctx->call = (mqi_call){.kind = h->kind, .trans = h->trans, .flags = h->flags};
    memcpy(ctx->call.token, h->token, 5);
    mqi_reading was = mqi_read_begin(ctx, body);
    if (!s)
        rc = MkErrorSet(ctx->err, MQ_ERR_SERVICE, "service '%s' not found on '%s'", h->token,
                        MqConfigGetName(ctx));
    else if (mqi_trace_services(ctx))
        rc = mqi_trace_service_call(ctx, h, s->cb.fn, s->cb.data);
    else
        rc = s->cb.fn(ctx, s->cb.data);
    if (ctx->conn && ctx->conn->up) {
        uint64_t trans = h->kind == MQI_ONEWAY ? 0 : h->trans;
        if (rc == MK_ERROR && !ctx->call.answered) {
            MkBufferStreamReset(&ctx->send);
            mqi_trace_service_failed(ctx, h);
            if (!trans)
                mqi_trace_oneway_error(ctx, "sent to the caller", h->token, ctx->err);
            mqi_send_error(ctx, trans, MqErrorGetCode(ctx), MqErrorGetText(ctx));
        } else if (rc == MK_ERROR) {
            mqi_log(ctx, MK_LOG_WARN, "service '%s' failed after answering: %s", h->token,
                    MqErrorGetText(ctx));
        } else if (h->kind != MQI_ONEWAY && !ctx->call.answered) {
            mqi_answer_write(ctx, MQI_RETURN, NULL);
        }
    }
    if (rc == MK_ERROR)
        MkErrorReset(ctx->err);
    ctx->call = saved_call;
    mqi_read_end(ctx, was);
}

/* _CHC: create the server instance for a new client child.  The id is the
 * client's name for it, checked before anything is made for it. */
static void
child_create(mqi_conn *c, const mqi_hdr *h)
{
    MqContextC *parent = c->parent, *child = NULL;
    mqi_hdr r = {.kind = MQI_RETURN, .child = h->child, .trans = h->trans, .flags = MQI_F_INTERNAL};
    memcpy(r.token, h->token, 5);
    if (!parent)
        return;
    if (h->child == 0) {
        MkErrorSet(parent->err, MQ_ERR_PROTOCOL, "child id 0 is the parent's");
    } else if (mqi_conn_child_check(c, h->child, parent->err) == MK_OK &&
               (child = mqi_instance_create(parent, 0)) != NULL) {
        child->parent = parent;
        if (mqi_conn_attach(c, child, h->child) == MK_OK &&
            (!child->setup.fn || child->setup.fn(child, child->setup.data) == MK_OK)) {
            mqi_conn_write_frame(c, &r, NULL);
            return;
        }
        MkErrorCopy(parent->err, child->err);
        MqContextDelete(child);
    }
    mqi_log(parent, MK_LOG_WARN, "child %u refused: %s", h->child, MqErrorGetText(parent));
    mqi_send_error(parent, h->trans, MqErrorGetCode(parent), MqErrorGetText(parent));
    MkErrorReset(parent->err);
}

void
mqi_serve_internal(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body)
{
    const mqi_hooks *layer;
    if (!memcmp(h->token, "_CHC", 4) && c->is_server) {
        child_create(c, h);
    } else if ((layer = mqi_hooks_for_token(h->token)) != NULL) {
        layer->internal(c, h, body);
    } else if (!memcmp(h->token, "_CLS", 4) && c->is_server) {
        /* the client is done and waits for us to close (transport/tcp) */
        mqi_conn_fail_fixed(c, MQ_ERR_LINK, "peer closed the connection");
        c->reset_on_close = 1;
    } else if (!memcmp(h->token, "_CHD", 4) && c->is_server) {
        MqContextC *child = h->child ? mqi_conn_context(c, h->child) : NULL;
        if (child && child->lib_owned)
            MqContextDelete(child);
    } else {
        mqi_conn_fail(c, MQ_ERR_PROTOCOL, "unknown internal call '%s'", h->token);
    }
}
