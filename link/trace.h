/* trace.h — what --debug N (or MK_LOG_LEVEL) shows, one helper per kind of
 * event, all formatted in trace.c:
 *   MK_LOG_WARN  (the default) a service that failed, with its error text
 *                (a wrapper puts the exception's traceback there)
 *   MK_LOG_INFO  link up and down, with the peer and the transport
 *   MK_LOG_DEBUG service entry and exit with its duration; the errors of
 *                one-way calls, with their token, on both sides
 *   MK_LOG_TRACE every frame in and out: kind, token, child id,
 *                transaction id, item count and body size
 * The connection caches the level when the link is made (c->trace); each
 * inline helper compares it before any call, so a level that is off costs
 * one load and one compare on the hot path.  The byte layer calls nothing
 * above it: it prints the frames it writes through c->trace_frame (link.c
 * sets it to mqi_trace_frame_ at MK_LOG_TRACE). */
#ifndef MQI_TRACE_H
#define MQI_TRACE_H

#include "link_int.h"

/* The level a new connection of ctx traces at: --debug or the process's. */
int mqi_trace_level(MqContextC *ctx);

void mqi_trace_link_(MqContextC *ctx, const mqi_conn *c, int up);
void mqi_trace_frame_(const mqi_conn *c, const char *dir, const mqi_hdr *h);
void mqi_trace_oneway_error_(MqContextC *ctx, const char *side, const char *token,
                             const MkErrorC *err);

static inline void
mqi_trace_link(MqContextC *ctx, const mqi_conn *c, int up)
{
    if (c->trace >= MK_LOG_INFO)
        mqi_trace_link_(ctx, c, up);
}

/* dir: "in" or "out" */
static inline void
mqi_trace_frame(const mqi_conn *c, const char *dir, const mqi_hdr *h)
{
    if (c->trace >= MK_LOG_TRACE)
        mqi_trace_frame_(c, dir, h);
}

/* Whether services are traced: then mqi_trace_service_call runs them. */
static inline int
mqi_trace_services(const MqContextC *ctx)
{
    return ctx->conn->trace >= MK_LOG_DEBUG;
}

/* Run fn for the call h between its entry and exit lines (with the
 * duration); its result. */
MkErrorE mqi_trace_service_call(MqContextC *ctx, const mqi_hdr *h, MqServiceCallF fn, void *data);

/* A service failed and its error goes to the caller: logged at MK_LOG_WARN,
 * the default level, with the error's text. */
void mqi_trace_service_failed(MqContextC *ctx, const mqi_hdr *h);

/* side: "sent to the caller" or "received" */
static inline void
mqi_trace_oneway_error(MqContextC *ctx, const char *side, const char *token,
                       const MkErrorC *err)
{
    if (ctx->conn && ctx->conn->trace >= MK_LOG_DEBUG)
        mqi_trace_oneway_error_(ctx, side, token, err);
}

#endif
