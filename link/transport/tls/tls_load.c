/* tls_load.c — the core's side of TLS (tls.h): the tcp transport's prepare
 * and secure hooks, forwarded to the TLS module.  A shared build loads the
 * module (and with it libssl and libcrypto) on the first link that asks
 * for TLS and keeps it; forked instances inherit it, a spawned instance
 * loads it when its --tls-fd is read.  A build without shared libraries
 * (configure --disable-shared: perf-aggressive, ASan, fuzz) links the
 * module's code in instead (MQI_TLS_BUILTIN): a static program has no
 * libmqlink.so for the module to call back into. */
#include "tls.h"

#ifdef MQI_TLS_BUILTIN
static const mqi_tls_ops *
tls_ops(MqContextC *ctx)
{
    (void)ctx;
    return &mqi_tls_module;
}
#else
static const void *loaded; /* the module's table, once loaded */

static const mqi_tls_ops *
tls_ops(MqContextC *ctx)
{
    return mqi_module_load(ctx, &loaded, MQI_TLS_MODULE, MQI_TLS_SYMBOL,
                           "LinkCreate: TLS (--tls-cert, --tls-ca) needs this module");
}
#endif

MkErrorE
mqi_tls_prepare(MqContextC *ctx)
{
    const mqi_tls_ops *ops = tls_ops(ctx);
    return ops ? ops->prepare(ctx) : MK_ERROR;
}

MkErrorE
mqi_tls_secure(MqContextC *ctx, mqi_conn *c, MK_I64 timeout_ms)
{
    if (!ctx->cfg.secure.state)
        return MK_OK; /* a plain link */
    /* the state comes from prepare, so the module is loaded already */
    const mqi_tls_ops *ops = tls_ops(ctx);
    if (!ops) {
        mqi_conn_fail(c, MQ_ERR_SYSTEM, "TLS: the module is not loaded");
        return MK_ERROR;
    }
    return ops->secure(ctx, c, timeout_ms);
}
