/* context.c — creating and deleting contexts, their configuration setters,
 * errors and logging. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "link_int.h"

MqContextC *
MqContextCreate(void)
{
    MqContextC *ctx = mki_zalloc(sizeof *ctx);
    if (!ctx)
        return NULL;
    /* zeroed: the configuration needs only its defaults, the send stream
     * and the error nothing (mk_internal.h) */
    mqi_config_defaults(&ctx->cfg);
    ctx->err = &ctx->err_store;
    ctx->send.err = ctx->err;
    ctx->svc = ctx->svc_inline;
    ctx->capsvc = (int)(sizeof ctx->svc_inline / sizeof *ctx->svc_inline);
    return ctx;
}

static void
cb_release(mqi_cb *cb, int owned)
{
    if (owned && cb->free)
        cb->free(cb->data);
    memset(cb, 0, sizeof *cb);
}

void
MqContextDelete(MqContextC *ctx)
{
    if (!ctx)
        return;
    if (ctx->destroy_fn) {
        void (*fn)(MqContextC *, void *) = ctx->destroy_fn;
        ctx->destroy_fn = NULL;
        fn(ctx, ctx->destroy_data);
    }
    MqLinkDelete(ctx);
    mqi_hooks_context_delete(ctx);
    /* the context goes: its callbacks' data freed, nothing cleared */
    for (int i = 0; i < ctx->nsvc; i++)
        if (ctx->svc[i].cb.free)
            ctx->svc[i].cb.free(ctx->svc[i].cb.data);
    if (ctx->svc != ctx->svc_inline)
        free(ctx->svc);
    if (ctx->setup_owned && ctx->setup.free)
        ctx->setup.free(ctx->setup.data);
    if (ctx->factory.owned && ctx->factory.free)
        ctx->factory.free(ctx->factory.data);
    mki_stream_release(&ctx->send);
    MkBufferStreamDelete(ctx->ret);
    mqi_config_release(&ctx->cfg);
    mki_error_release(ctx->err);
    MkErrorDelete(ctx->async_err);
    free(ctx->spawn_cmd);
    free(ctx);
}

void
MqContextSetUserData(MqContextC *ctx, void *data)
{
    ctx->userdata = data;
}

void *
MqContextGetUserData(MqContextC *ctx)
{
    return ctx->userdata;
}

void
MqContextSetDestroyCallback(MqContextC *ctx, void (*fn)(MqContextC *, void *), void *data)
{
    ctx->destroy_fn = fn;
    ctx->destroy_data = data;
}

void
MqConfigSetServerSetup(MqContextC *ctx, MqServiceCallF fn, void *data, MqDataFreeF free)
{
    cb_release(&ctx->setup, ctx->setup_owned);
    ctx->setup = (mqi_cb){fn, data, free};
    ctx->setup_owned = 1;
    ctx->is_server = fn != NULL;
}

void
MqConfigSetFactory(MqContextC *ctx, MqFactoryF fn, void *data, MqDataFreeF free)
{
    if (ctx->factory.owned && ctx->factory.free)
        ctx->factory.free(ctx->factory.data);
    ctx->factory.fn = fn;
    ctx->factory.data = data;
    ctx->factory.free = free;
    ctx->factory.owned = 1;
}

void
MqConfigSetName(MqContextC *ctx, const char *name)
{
    mqi_config_own(&ctx->cfg);
    char *old = ctx->cfg.name; /* name may be it */
    ctx->cfg.name = name ? mqi_config_strdup(&ctx->cfg, name) : NULL;
    mqi_config_strfree(&ctx->cfg, old);
}

const char *
MqConfigGetName(MqContextC *ctx)
{
    return ctx->cfg.name ? ctx->cfg.name : "";
}

void
MqConfigSetTimeout(MqContextC *ctx, MK_I64 timeout_ms)
{
    ctx->cfg.timeout_ms = timeout_ms;
}

MK_I64
MqConfigGetTimeout(MqContextC *ctx)
{
    return ctx->cfg.timeout_ms;
}

MK_BOL
MqConfigGetIsServer(MqContextC *ctx)
{
    return ctx->is_server;
}

/* ------------------------------------------------------------------ errors */

const char *
MqErrorGetText(MqContextC *ctx)
{
    return MkErrorGetText(ctx->err);
}

MK_I32
MqErrorGetCode(MqContextC *ctx)
{
    return MkErrorGetCode(ctx->err);
}

MkErrorE
MqErrorSet(MqContextC *ctx, MK_I32 code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    MkErrorSetV(ctx->err, code, fmt, ap);
    va_end(ap);
    return MK_ERROR;
}

void
MqErrorReset(MqContextC *ctx)
{
    MkErrorReset(ctx->err);
}

MkErrorE
mqi_check_linked(MqContextC *ctx, const char *what)
{
    if (ctx->conn && ctx->conn->up)
        return MK_OK;
    if (ctx->conn)
        return mqi_link_error(ctx, what);
    return MkErrorSet(ctx->err, MQ_ERR_LINK, "%s: context '%s' is not linked", what,
                      MqConfigGetName(ctx));
}

MkErrorE
mqi_link_error(MqContextC *ctx, const char *what)
{
    const MkErrorC *reason = ctx->conn ? ctx->conn->err : NULL;
    MK_I32 code = reason && MkErrorGetCode(reason) ? MkErrorGetCode(reason) : MQ_ERR_LINK;
    return MkErrorSet(ctx->err, code, "%s: link of '%s' is down: %s", what, MqConfigGetName(ctx),
                      reason && MkErrorIsSet(reason) ? MkErrorGetText(reason) : "closed");
}

/* ----------------------------------------------------------------- logging */

void
mqi_log(MqContextC *ctx, int level, const char *fmt, ...)
{
    if (!mqi_log_on(ctx, level))
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    (void)n;
    /* one fprintf, so lines of concurrent processes do not interleave */
    fprintf(stderr, "[%s] %s\n", MqConfigGetName(ctx)[0] ? MqConfigGetName(ctx) : "mqlink", line);
}

MK_I64
mqi_deadline(MqContextC *ctx, MK_I64 timeout_ms)
{
    if (timeout_ms == MQ_TIMEOUT_DEFAULT)
        timeout_ms = ctx->cfg.timeout_ms;
    return timeout_ms < 0 ? -1 : mqi_now_ms() + timeout_ms;
}
