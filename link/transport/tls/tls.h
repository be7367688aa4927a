/* tls.h — TLS 1.3 on OpenSSL for the tcp transport: the state built from
 * --tls-cert/--tls-key/--tls-ca (tls_ctx.c) and the byte I/O and handshake
 * of one connection (tls_io.c).  Nothing outside this folder names OpenSSL:
 * the transport reaches it through its prepare and secure hooks, the
 * connection through its table of I/O operations (link_int.h). */
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
 * listener's memfd (--tls-fd) in a spawned instance. */
MkErrorE mqi_tls_prepare(MqContextC *ctx);
/* The TLS handshake on c within timeout_ms (< 0: none), installing the
 * TLS I/O on success; the reason in c's error otherwise. */
MkErrorE mqi_tls_secure(MqContextC *ctx, mqi_conn *c, MK_I64 timeout_ms);

/* tls_ctx.c's state, for tls_io.c. */
typedef struct ssl_ctx_st SSL_CTX;
typedef struct mqi_tls {
    SSL_CTX *ssl;
    int memfd;   /* --spawn listener: the PEM texts for its instances (-1) */
    int is_server;
    int verify_peer_name; /* client: check the server's name (always, today) */
} mqi_tls;

/* The most recent OpenSSL error as text (its reason), "" when none; clears
 * the thread's error queue. */
const char *mqi_tls_reason(char *buf, size_t cap);

#endif
