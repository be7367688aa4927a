/* trace.c — the lines trace.h's helpers print, through mqi_log (one line
 * each, prefixed with the context's name).  Only called when the level is
 * on: formatting costs nothing otherwise. */
#include <stdio.h>
#include <time.h>

#include "trace.h"

/* Services are timed in microseconds: mqi_now_ms's coarse clock would show
 * most of them as 0. */
static MK_I64
now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (MK_I64)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static const char *const kind_name[] = {"?", "call-wait", "call-callback", "one-way", "return",
                                        "error"};

int
mqi_trace_level(MqContextC *ctx)
{
    int level = ctx->cfg.silent ? MK_LOG_ERROR : MkLogGetLevel();
    return ctx->cfg.debug > level ? ctx->cfg.debug : level;
}

/* "pipe (server pid 123)", "uds /tmp/s", "tcp 127.0.0.1:4000" */
static void
describe_peer(MqContextC *ctx, const mqi_conn *c, char *out, size_t cap)
{
    const mqi_config *cfg = &ctx->cfg;
    if (cfg->tp == MQI_TP_UDS)
        snprintf(out, cap, "uds %s", cfg->file ? cfg->file : "?");
    else if (cfg->tp == MQI_TP_TCP)
        snprintf(out, cap, "tcp %s:%s", cfg->host ? cfg->host : "127.0.0.1",
                 cfg->port ? cfg->port : "?");
    else if (c->pid > 0)
        snprintf(out, cap, "pipe, server pid %ld", (long)c->pid);
    else
        snprintf(out, cap, "%s fd %d", cfg->socket_fd >= 0 ? "socket" : "pipe", c->fd);
}

void
mqi_trace_link_(MqContextC *ctx, const mqi_conn *c, int up)
{
    char peer[300];
    describe_peer(ctx, c, peer, sizeof peer);
    if (up)
        mqi_log(ctx, MK_LOG_INFO, "link up: %s with the %s over %s",
                c->is_server ? "server" : "client", c->is_server ? "client" : "server", peer);
    else
        mqi_log(ctx, MK_LOG_INFO, "link down: %s over %s: %s", c->is_server ? "server" : "client",
                peer, MkErrorIsSet(c->err) ? MkErrorGetText(c->err) : "closed");
}

void
mqi_trace_frame_(const mqi_conn *c, const char *dir, const mqi_hdr *h)
{
    MqContextC *ctx = c->parent;
    if (!ctx)
        return;
    mqi_log(ctx, MK_LOG_TRACE, "frame %-3s %-13s %.4s child %u trans %llu items %u bytes %u%s",
            dir, h->kind < sizeof kind_name / sizeof *kind_name ? kind_name[h->kind] : "?",
            h->token, h->child, (unsigned long long)h->trans, h->items, h->len,
            h->flags & MQI_F_INTERNAL ? " (internal)" : h->flags & MQI_F_PERSIST ? " (persistent)"
                                                                                 : "");
}

MkErrorE
mqi_trace_service_call(MqContextC *ctx, const mqi_hdr *h, MqServiceCallF fn, void *data)
{
    mqi_log(ctx, MK_LOG_DEBUG, "service %.4s: enter (%s, child %u, trans %llu, %u items)",
            h->token, h->kind < sizeof kind_name / sizeof *kind_name ? kind_name[h->kind] : "?",
            h->child, (unsigned long long)h->trans, h->items);
    MK_I64 t0 = now_us();
    MkErrorE rc = fn(ctx, data);
    mqi_log(ctx, MK_LOG_DEBUG, "service %.4s: exit %s after %lld us", h->token,
            rc == MK_ERROR ? "with an error" : "ok", (long long)(now_us() - t0));
    return rc;
}

void
mqi_trace_service_failed(MqContextC *ctx, const mqi_hdr *h)
{
    mqi_log(ctx, MK_LOG_WARN, "service %.4s failed (error sent to the caller): %s", h->token,
            MqErrorGetText(ctx));
}

void
mqi_trace_oneway_error_(MqContextC *ctx, const char *side, const char *token, const MkErrorC *err)
{
    mqi_log(ctx, MK_LOG_DEBUG, "one-way error (%.4s) %s: %s", token, side, MkErrorGetText(err));
}
