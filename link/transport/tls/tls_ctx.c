/* tls_ctx.c — the TLS state of a context, built once at link creation and
 * shared by all its links (one SSL_CTX; OpenSSL 3 lets threads share it,
 * a forked instance inherits it).  Key material is read as PEM text and
 * loaded from memory, so the same loader serves files and the memfd in
 * which a --spawn listener hands its text to the instances it starts: an
 * instance never reopens the files (they may be readable by the listener
 * only, or gone). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "start/start.h"
#include "tls_int.h"

#define PEM_MAX (1 << 20) /* a key file past this is not one */

/* The three PEM texts (NULL where the option is not given). */
typedef struct pem {
    char *text[3];
    size_t len[3];
} pem;
enum { CERT, KEY, CA };
static const char *const optname[3] = {"--tls-cert", "--tls-key", "--tls-ca"};

const char *
mqi_tls_reason(char *buf, size_t cap)
{
    unsigned long e = ERR_get_error(), last = e;
    while (e) { /* the last one queued is the most precise */
        last = e;
        e = ERR_get_error();
    }
    buf[0] = '\0';
    if (last) {
        const char *r = ERR_reason_error_string(last);
        if (r)
            snprintf(buf, cap, "%s", r);
        else
            ERR_error_string_n(last, buf, cap);
    }
    return buf;
}

static void
pem_free(pem *p)
{
    for (int i = 0; i < 3; i++) {
        if (p->text[i])
            OPENSSL_cleanse(p->text[i], p->len[i]);
        free(p->text[i]);
    }
}

static MkErrorE
slurp(MqContextC *ctx, int which, const char *path, pem *p)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "%s %s: cannot read it: %s", optname[which],
                          path, strerror(errno));
    char *buf = malloc(PEM_MAX + 1);
    size_t n = buf ? fread(buf, 1, PEM_MAX + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad || n == 0 || n > PEM_MAX) {
        free(buf);
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "%s %s: %s", optname[which], path,
                          !buf ? "out of memory" : bad ? "cannot read it" :
                          n == 0 ? "the file is empty" : "larger than 1 MiB, not a PEM file");
    }
    p->text[which] = buf;
    p->len[which] = n;
    return MK_OK;
}

/* The listener's texts from the memfd it passed: "len len len\n" and the
 * three texts one after another. */
static MkErrorE
from_memfd(MqContextC *ctx, int fd, pem *p)
{
    char head[64] = {0};
    size_t len[3];
    ssize_t n = pread(fd, head, sizeof head - 1, 0);
    char *nl = n > 0 ? memchr(head, '\n', (size_t)n) : NULL;
    if (!nl || sscanf(head, "%zu %zu %zu", &len[0], &len[1], &len[2]) != 3 ||
        len[0] > PEM_MAX || len[1] > PEM_MAX || len[2] > PEM_MAX)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "--%s %d: not the listener's TLS keys",
                          MQI_TLS_FD_OPTION, fd);
    off_t at = nl + 1 - head;
    for (int i = 0; i < 3; i++) {
        if (!len[i])
            continue;
        p->text[i] = malloc(len[i]);
        if (!p->text[i] || pread(fd, p->text[i], len[i], at) != (ssize_t)len[i])
            return MkErrorSet(ctx->err, MQ_ERR_OPTION, "--%s %d: cannot read the TLS keys",
                              MQI_TLS_FD_OPTION, fd);
        p->len[i] = len[i];
        at += (off_t)len[i];
    }
    return MK_OK;
}

/* A memfd holding the texts for the spawned instances: close-on-exec, so
 * only the exec of an instance (spawn.c clears the flag in its child)
 * passes it on, never a program a service starts. */
static int
to_memfd(const pem *p)
{
    int fd = memfd_create("mqlink-tls", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    char head[64];
    int h = snprintf(head, sizeof head, "%zu %zu %zu\n", p->len[0], p->len[1], p->len[2]);
    int ok = write(fd, head, (size_t)h) == h;
    for (int i = 0; i < 3 && ok; i++)
        ok = !p->len[i] || write(fd, p->text[i], p->len[i]) == (ssize_t)p->len[i];
    if (!ok) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A refusal by OpenSSL of what opt's file holds, with its reason. */
static MkErrorE
ssl_error(MqContextC *ctx, const char *opt, const char *path, const char *what)
{
    char why[256];
    mqi_tls_reason(why, sizeof why);
    return MkErrorSet(ctx->err, MQ_ERR_OPTION, "%s %s: %s (%s)", opt, path, what,
                      *why ? why : "refused by OpenSSL");
}

/* Certificate (and any chain after it) and key. */
static MkErrorE
use_cert(MqContextC *ctx, SSL_CTX *ssl, const pem *p)
{
    const char *cfile = ctx->cfg.tls_cert, *kfile = ctx->cfg.tls_key ? ctx->cfg.tls_key : cfile;
    BIO *b = BIO_new_mem_buf(p->text[CERT], (int)p->len[CERT]);
    X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    MkErrorE rc = MK_ERROR;
    if (!x || SSL_CTX_use_certificate(ssl, x) != 1) {
        ssl_error(ctx, "--tls-cert", cfile, "not a PEM certificate");
        goto out;
    }
    X509 *more;
    while ((more = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL)
        SSL_CTX_add0_chain_cert(ssl, more);
    ERR_clear_error(); /* the end of the file */
    BIO_free(b);
    b = BIO_new_mem_buf(p->text[KEY], (int)p->len[KEY]);
    EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
    if (!k) {
        ssl_error(ctx, "--tls-key", kfile, "not a PEM private key without a passphrase");
    } else if (SSL_CTX_use_PrivateKey(ssl, k) != 1 || SSL_CTX_check_private_key(ssl) != 1) {
        char why[256];
        MkErrorSet(ctx->err, MQ_ERR_OPTION, "--tls-key %s does not match the certificate of "
                   "--tls-cert %s (%s)", kfile, cfile, mqi_tls_reason(why, sizeof why));
    } else {
        rc = MK_OK;
    }
    EVP_PKEY_free(k);
out:
    X509_free(x);
    BIO_free(b);
    return rc;
}

/* The CA certificates the peer's certificate must chain to. */
static MkErrorE
use_ca(MqContextC *ctx, SSL_CTX *ssl, const pem *p, int is_server)
{
    BIO *b = BIO_new_mem_buf(p->text[CA], (int)p->len[CA]);
    X509_STORE *st = SSL_CTX_get_cert_store(ssl);
    X509 *x;
    int n = 0;
    while (b && (x = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL) {
        X509_STORE_add_cert(st, x);
        if (is_server)
            SSL_CTX_add_client_CA(ssl, x); /* named to clients choosing a certificate */
        X509_free(x);
        n++;
    }
    ERR_clear_error();
    BIO_free(b);
    if (!n)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "--tls-ca %s: no PEM certificate in it",
                          ctx->cfg.tls_ca);
    return MK_OK;
}

static SSL_CTX *
new_ssl_ctx(int is_server)
{
    SSL_CTX *ssl = SSL_CTX_new(is_server ? TLS_server_method() : TLS_client_method());
    if (!ssl)
        return NULL;
    SSL_CTX_set_min_proto_version(ssl, TLS1_3_VERSION);
    /* the connection's write buffer may move between retries of a write
     * (it grows), and a write may take part of it: as send(2) does */
    SSL_CTX_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* a peer that closes without close_notify ended its link as a plain
     * socket would (frames carry their own lengths: no truncation attack) */
    SSL_CTX_set_options(ssl, SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_read_ahead(ssl, 1); /* one read(2) per burst, not two per record */
    if (is_server)
        SSL_CTX_set_num_tickets(ssl, 0); /* no resumption: tickets would be written for nothing */
    return ssl;
}

static void
release(void *state)
{
    mqi_tls *t = state;
    if (!t)
        return;
    SSL_CTX_free(t->ssl);
    if (t->memfd >= 0)
        close(t->memfd);
    free(t);
}

/* The texts, from the files or the listener's memfd. */
static MkErrorE
read_pem(MqContextC *ctx, pem *p)
{
    const mqi_config *c = &ctx->cfg;
    if (c->tls_fd >= 0) {
        MkErrorE rc = from_memfd(ctx, c->tls_fd, p);
        close(c->tls_fd); /* read once; not passed further */
        ctx->cfg.tls_fd = -1;
        return rc;
    }
    if (c->tls_cert && slurp(ctx, CERT, c->tls_cert, p) != MK_OK)
        return MK_ERROR;
    if (c->tls_cert && slurp(ctx, KEY, c->tls_key ? c->tls_key : c->tls_cert, p) != MK_OK)
        return MK_ERROR;
    if (c->tls_ca && slurp(ctx, CA, c->tls_ca, p) != MK_OK)
        return MK_ERROR;
    return MK_OK;
}

static MkErrorE
build(MqContextC *ctx, mqi_tls *t, const pem *p)
{
    if (!(t->ssl = new_ssl_ctx(t->is_server)))
        return ssl_error(ctx, "TLS:", "SSL_CTX_new", "cannot create the OpenSSL context");
    if (p->text[CERT] && use_cert(ctx, t->ssl, p) != MK_OK)
        return MK_ERROR;
    if (p->text[CA] && use_ca(ctx, t->ssl, p, t->is_server) != MK_OK)
        return MK_ERROR;
    if (t->is_server && p->text[CA])
        SSL_CTX_set_verify(t->ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    else if (!t->is_server) {
        SSL_CTX_set_verify(t->ssl, SSL_VERIFY_PEER, NULL);
        if (!p->text[CA])
            SSL_CTX_set_default_verify_paths(t->ssl); /* the system's CAs */
    }
    return MK_OK;
}

MkErrorE
mqi_tls_ctx_prepare(MqContextC *ctx)
{
    mqi_config *c = &ctx->cfg;
    int is_server = ctx->is_server;
    if (c->secure.owned && c->secure.release)
        c->secure.release(c->secure.state); /* a context linked again */
    c->secure.state = NULL;
    c->secure.owned = 0;
    c->secure.pass_option = NULL;
    if (is_server && !c->tls_cert && c->tls_fd < 0)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "a TLS server needs --tls-cert FILE and "
                          "--tls-key FILE (--tls-ca alone is for clients)");
    if (!is_server && c->tls_key && !c->tls_cert)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "option '--tls-key' needs --tls-cert");
    mqi_tls *t = calloc(1, sizeof *t);
    if (!t)
        return MkErrorSet(ctx->err, MK_ERR_MEMORY, "out of memory");
    t->memfd = -1;
    t->is_server = is_server;
    c->secure.state = t;
    c->secure.release = release;
    c->secure.owned = 1;
    pem p;
    memset(&p, 0, sizeof p);
    MkErrorE rc = read_pem(ctx, &p);
    if (rc == MK_OK)
        rc = build(ctx, t, &p);
    /* a start mode that execs its instances gets the keys through a memfd */
    const mqi_start_mode *mode = mqi_start_get(c->start);
    if (rc == MK_OK && is_server && mode && mode->execs && c->socket_fd < 0 &&
        (t->memfd = to_memfd(&p)) < 0)
        rc = MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "--spawn: cannot hand the TLS keys to "
                        "instances (memfd): %s", strerror(errno));
    if (t->memfd >= 0) {
        c->secure.pass_option = MQI_TLS_FD_OPTION;
        c->secure.pass_fd = t->memfd;
    }
    pem_free(&p);
    if (rc != MK_OK)
        MkErrorStack(ctx->err, "LinkCreate: TLS setup failed");
    return rc;
}

