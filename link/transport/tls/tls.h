/* tls.h — TLS 1.3 on OpenSSL for the tcp transport, as the core sees it:
 * the transport's prepare and secure hooks (tls_load.c), which forward to
 * the TLS module.  The module (tls_ctx.c, tls_io.c, tls_module.c; its own
 * header tls_int.h) is the only code naming OpenSSL.  In a shared build it
 * is mqlink_tls.so, loaded by the first link that asks for TLS, so that a
 * process with plain links never maps libssl and libcrypto (their
 * relocations cost more than the rest of the link's start-up); without
 * shared libraries it is linked in. */
#ifndef MQ_TLS_H
#define MQ_TLS_H

#include "link_int.h"

/* The name of the option that hands a spawned instance the listener's key
 * material (an inherited memfd; hidden, set by the link). */
#define MQI_TLS_FD_OPTION "tls-fd"

/* TLS is on for this configuration (--tls-cert or --tls-ca given). */
static inline int
mqi_tls_wanted(const mqi_config *c)
{
    return c->tls_cert || c->tls_ca;
}

/* Build ctx's TLS state (cfg.secure) from its options, or from the
 * listener's memfd (--tls-fd) in a spawned instance; loads the module.  A
 * module that cannot be loaded is ctx's error, naming the file. */
MkErrorE mqi_tls_prepare(MqContextC *ctx);
/* The TLS handshake on c within timeout_ms (< 0: none), installing the
 * TLS I/O on success; the reason in c's error otherwise.  A plain link
 * (no cfg.secure state) passes untouched, without the module. */
MkErrorE mqi_tls_secure(MqContextC *ctx, mqi_conn *c, MK_I64 timeout_ms);

/* The module's one export (mqi_module_load): what the two hooks above do. */
#define MQI_TLS_MODULE "mqlink_tls"
#define MQI_TLS_SYMBOL "mqi_tls_module"
typedef struct mqi_tls_ops {
    mqi_module_head head;
    MkErrorE (*prepare)(MqContextC *ctx);
    MkErrorE (*secure)(MqContextC *ctx, mqi_conn *c, MK_I64 timeout_ms);
} mqi_tls_ops;
extern MQI_MODULE_TABLE const mqi_tls_ops mqi_tls_module;

#endif
