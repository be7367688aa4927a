/* tls_int.h — inside the TLS module: the state built from --tls-cert,
 * --tls-key, --tls-ca (tls_ctx.c) and the byte I/O and handshake of one
 * connection (tls_io.c).  The connection reaches the I/O through its table
 * of operations (link_int.h), the core the rest through tls.h. */
#ifndef MQ_TLS_INT_H
#define MQ_TLS_INT_H

#include "tls.h"

/* tls.h's prepare and secure, as the module implements them. */
MkErrorE mqi_tls_ctx_prepare(MqContextC *ctx);
MkErrorE mqi_tls_io_secure(MqContextC *ctx, mqi_conn *c, MK_I64 timeout_ms);

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
