/* tls_module.c — the TLS module's one export (tls.h), which tls_load.c
 * finds with dlsym in a shared build and links directly in a static one. */
#include "tls_int.h"

const mqi_tls_ops mqi_tls_module = {
    .head = {.version = PACKAGE_VERSION},
    .prepare = mqi_tls_ctx_prepare,
    .secure = mqi_tls_io_secure,
};
