/* persist_load.c — the core's side of persistent delivery (persist.h): the
 * hooks the core calls for every link, and mqlink.h's persistent calls,
 * forwarded to the persistence module.  A shared build loads the module
 * (and with it libsqlite3) on the first persistent need and keeps it; until
 * then each hook does what the module would do for a link that has no
 * storage (nothing), so a plain link never loads it.  A build without
 * shared libraries (configure --disable-shared) links the module's code in
 * instead (MQI_PERSIST_BUILTIN). */
#include "persist.h"

#ifdef MQI_PERSIST_BUILTIN
static const mqi_persist_ops *
ops_get(MqContextC *ctx, int load)
{
    (void)ctx;
    (void)load;
    return &mqi_persist_module;
}
#else
static const void *loaded; /* the module's table, once loaded */

/* The module's table.  Not loaded yet: with load, loaded now (NULL and
 * ctx's error set when that fails); without, NULL. */
static const mqi_persist_ops *
ops_get(MqContextC *ctx, int load)
{
    if (!load)
        return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
    return mqi_module_load(ctx, &loaded, MQI_PERSIST_MODULE, MQI_PERSIST_SYMBOL,
                           "persistent delivery (sqlite3 storage) needs this module");
}
#endif

static MqContextC *
parent_of(MqContextC *ctx)
{
    return ctx->parent ? ctx->parent : ctx;
}

/* A frame of the peer needs the module and it cannot be loaded: the link
 * ends with the reason (a sender keeps its calls and sends them again).
 * Said once: frames read with that one find the link down. */
static void
cannot_load(mqi_conn *c, MqContextC *ctx)
{
    if (c->up) {
        mqi_log(ctx, MK_LOG_ERROR, "%s", MqErrorGetText(ctx));
        mqi_conn_fail(c, MQ_ERR_STORAGE, "%s", MqErrorGetText(ctx));
    }
    MkErrorReset(ctx->err);
}

static MkErrorE
link_create(MqContextC *ctx)
{
    const mqi_persist_ops *ops = ops_get(ctx, ctx->cfg.storage != NULL);
    if (!ops)
        return ctx->cfg.storage ? MK_ERROR : MK_OK;
    return ops->hooks->link_create(ctx);
}

static MkErrorE
link_up(MqContextC *ctx)
{
    const mqi_persist_ops *ops = ops_get(ctx, 0);
    return ops ? ops->hooks->link_up(ctx) : MK_OK;
}

static void
context_delete(MqContextC *ctx)
{
    const mqi_persist_ops *ops = ops_get(ctx, 0);
    if (ops)
        ops->hooks->context_delete(ctx);
    if (ctx->txn_handler.free)
        ctx->txn_handler.free(ctx->txn_handler.data);
    ctx->txn_handler = (mqi_cb){0};
}

static void
call(MqContextC *ctx, const mqi_hdr *h, MkBufferStreamC *body)
{
    const mqi_persist_ops *ops = ops_get(ctx, 1);
    if (ops)
        ops->hooks->call(ctx, h, body);
    else
        cannot_load(ctx->conn, ctx);
}

static MkErrorE
answer(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body, uint64_t *key)
{
    const mqi_persist_ops *ops = ops_get(NULL, 0);
    if (ops)
        return ops->hooks->answer(c, h, body, key);
    *key = h->trans | MQI_PERSIST_KEY; /* answers nothing: no persistent call was sent */
    return MK_OK;
}

static MkErrorE
answer_write(MqContextC *ctx, mqi_hdr *r, const MkBufferStreamC *body)
{
    /* the call came with the flag: the call hook loaded the module */
    const mqi_persist_ops *ops = ops_get(ctx, 1);
    return ops ? ops->hooks->answer_write(ctx, r, body) : MK_ERROR;
}

/* _SID (a sender's identity: the receiver's storage opens with it) loads
 * the module; _LWM only matters to a storage that is open. */
static void
internal(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body)
{
    MqContextC *p = c->parent;
    if (!p)
        return;
    const mqi_persist_ops *ops = ops_get(p, !memcmp(h->token, "_SID", 4));
    if (ops)
        ops->hooks->internal(c, h, body);
    else if (!memcmp(h->token, "_SID", 4))
        cannot_load(c, p);
}

static const char *const tokens[] = {"_SID", "_LWM", NULL};

/* Registered in hooks.c. */
const mqi_hooks mqi_persist_hooks = {
    .name = "persistent delivery",
    .flag = MQI_F_PERSIST,
    .tokens = tokens,
    .link_create = link_create,
    .link_up = link_up,
    .context_delete = context_delete,
    .call = call,
    .answer = answer,
    .answer_write = answer_write,
    .internal = internal,
};

MkErrorE
MqSendEND_AND_TRANSACTION(MqContextC *ctx, const char *token, MK_I64 timeout_ms)
{
    const mqi_persist_ops *ops = ops_get(ctx, 1);
    if (ops)
        return ops->send_wait(ctx, token, timeout_ms);
    MkBufferStreamReset(&ctx->send);
    return MK_ERROR;
}

MkErrorE
MqSendEND_AND_TRANSACTION_CALLBACK(MqContextC *ctx, const char *token, MqServiceCallF fn,
                                   void *data, MqDataFreeF free_fn, MK_I64 timeout_ms)
{
    const mqi_persist_ops *ops = ops_get(ctx, 1);
    if (ops)
        return ops->send_callback(ctx, token, fn, data, free_fn, timeout_ms);
    MkBufferStreamReset(&ctx->send);
    return MK_ERROR;
}

void
MqConfigSetTransactionHandler(MqContextC *ctx, MqServiceCallF fn, void *data, MqDataFreeF free_fn)
{
    if (ctx->txn_handler.free)
        ctx->txn_handler.free(ctx->txn_handler.data);
    ctx->txn_handler = (mqi_cb){fn, data, free_fn};
}

/* An open storage means a loaded module. */
MK_BOL
MqStorageIsDurable(MqContextC *ctx)
{
    MqContextC *p = parent_of(ctx);
    const mqi_persist_ops *ops = ops_get(ctx, 0);
    return p->storage && ops ? ops->durable(p->storage) : p->cfg.storage != NULL;
}

MkErrorE
MqStoragePendingCount(MqContextC *ctx, MK_I64 *count)
{
    MqContextC *p = parent_of(ctx);
    const mqi_persist_ops *ops = ops_get(ctx, 0);
    *count = 0;
    return p->storage && ops ? ops->pending_count(p->storage, count, ctx->err) : MK_OK;
}
