/* tls_io.c — one connection over TLS: the handshake, bounded in time, and
 * the table of I/O operations the connection then moves its bytes with.
 * OpenSSL's wants (read, write) become poll events or EAGAIN, and what
 * OpenSSL took from the socket but the link has not yet is reported as
 * buffered, since poll cannot see it. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "tls_int.h"

static const char *
peer_of(const mqi_conn *c)
{
    return c->is_server ? "client" : "server";
}

/* Why the TLS layer of c failed, in words that name the side at fault. */
static void
describe(mqi_conn *c, SSL *s, char *out, size_t cap)
{
    unsigned long e = ERR_peek_last_error();
    int r = ERR_GET_REASON(e);
    long v = SSL_get_verify_result(s);
    char why[256];
    mqi_tls_reason(why, sizeof why);
    if (v != X509_V_OK)
        snprintf(out, cap, "TLS: the %s's certificate is not accepted: %s", peer_of(c),
                 X509_verify_cert_error_string(v));
    else if (r == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE)
        snprintf(out, cap, "TLS: the client sent no certificate, and the server's --tls-ca "
                 "requires one");
    else if (r >= SSL_AD_REASON_OFFSET && r < SSL_AD_REASON_OFFSET + 256)
        snprintf(out, cap, "TLS: the %s refused the link: %s", peer_of(c), why);
    else if (r == SSL_R_WRONG_VERSION_NUMBER || r == SSL_R_HTTP_REQUEST ||
             r == SSL_R_PACKET_LENGTH_TOO_LONG || r == SSL_R_UNKNOWN_PROTOCOL)
        snprintf(out, cap, "TLS: the %s does not speak TLS (%s): a plaintext %s", peer_of(c),
                 why, c->is_server ? "client on this TLS port" : "server");
    else
        snprintf(out, cap, "TLS: %s", *why ? why : "failed without a reason from OpenSSL");
}

/* A write failed because the peer closed: in TLS 1.3 a server refuses a
 * client's certificate after the client's handshake is done, so the reason
 * (an alert) may be waiting in the other direction.  Looks without taking
 * application data (SSL_peek); when an alert was there, c fails with it
 * and errno is MQI_IO_FAILED. */
static int
alert_waiting(mqi_conn *c, SSL *s)
{
    char b;
    int e = errno;
    int r = SSL_peek(s, &b, 1);
    if (r > 0 || SSL_get_error(s, r) != SSL_ERROR_SSL) {
        ERR_clear_error();
        errno = e;
        return 0;
    }
    char text[512];
    describe(c, s, text, sizeof text);
    mqi_conn_fail(c, MQ_ERR_PROTOCOL, "%s", text);
    errno = MQI_IO_FAILED;
    return 1;
}

/* An SSL call on c returned rc: map it onto the errno convention of
 * mqi_io (EAGAIN for a want, 0 for the end, MQI_IO_FAILED with c's error
 * set for a TLS failure). */
static ssize_t
io_result(mqi_conn *c, SSL *s, int rc)
{
    int e = SSL_get_error(s, rc);
    char text[512];
    switch (e) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_SYSCALL:
        ERR_clear_error();
        if (errno == 0 || errno == EAGAIN)
            return 0; /* an end without close_notify: as the plain socket's */
        if ((errno == EPIPE || errno == ECONNRESET) && alert_waiting(c, s))
            return -1; /* the peer's reason, not the socket's */
        return -1;    /* errno from the socket: conn.c reports it */
    default:
        describe(c, s, text, sizeof text);
        mqi_conn_fail(c, MQ_ERR_PROTOCOL, "%s", text);
        errno = MQI_IO_FAILED;
        return -1;
    }
}

/* A connection's TLS state.  OpenSSL reads ahead (one read(2) takes what
 * the socket has, not a record header and then its body), so whole records
 * may wait inside it that poll cannot see: recv takes every complete one
 * while there is room, and `more` remembers when room ran out first. */
typedef struct tls_conn {
    SSL *ssl;
    int fd;
    int more; /* recv stopped with a full buffer and OpenSSL holding input */
    int wait; /* the next socket read may block (up to SO_RCVTIMEO) */
} tls_conn;

/* OpenSSL's own socket BIO writes with write(2): a peer gone would raise
 * SIGPIPE, and every read would need the socket non-blocking, so a wait
 * would cost a poll more than the plain socket's.  This BIO moves the
 * bytes as conn.c's plain I/O does: send with MSG_NOSIGNAL, recv with
 * MSG_DONTWAIT unless the caller waits.  (It gives up kernel TLS, which
 * needs OpenSSL's socket BIO; the kernel here has no tls module.) */
static int
bio_read(BIO *b, char *buf, int len)
{
    tls_conn *t = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    ssize_t n = recv(t->fd, buf, (size_t)len, t->wait ? 0 : MSG_DONTWAIT);
    t->wait = 0; /* one blocking read at most per call of recv */
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_read(b);
    return (int)n;
}

static int
bio_write(BIO *b, const char *buf, int len)
{
    tls_conn *t = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    ssize_t n = send(t->fd, buf, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_write(b);
    return (int)n;
}

static long
bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    (void)b;
    (void)num;
    (void)ptr;
    return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static BIO_METHOD *bio_method;
static CRYPTO_ONCE bio_once = CRYPTO_ONCE_STATIC_INIT;

static void
bio_init(void)
{
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "mqlink socket");
    if (m && BIO_meth_set_read(m, bio_read) && BIO_meth_set_write(m, bio_write) &&
        BIO_meth_set_ctrl(m, bio_ctrl))
        bio_method = m;
}

static ssize_t
tls_recv(mqi_conn *c, void *p, size_t cap, int wait)
{
    tls_conn *t = c->io_state;
    SSL *s = t->ssl;
    /* as a blocking read of the plain socket: at most its receive timeout */
    t->wait = wait && !SSL_pending(s) && !t->more;
    size_t got = 0;
    int n = 0;
    t->more = 0;
    while (got < cap) {
        errno = 0;
        n = SSL_read(s, (char *)p + got, cap - got > INT_MAX ? INT_MAX : (int)(cap - got));
        if (n <= 0)
            break;
        got += (size_t)n;
        if (!SSL_has_pending(s))
            break;
    }
    t->wait = 0;
    if (got > 0) {
        if (n <= 0)
            ERR_clear_error(); /* a failure after data is seen by the next call */
        t->more = got == cap && SSL_has_pending(s);
        return (ssize_t)got;
    }
    return io_result(c, s, n);
}

static ssize_t
tls_send(mqi_conn *c, const void *p, size_t len)
{
    SSL *s = ((tls_conn *)c->io_state)->ssl;
    errno = 0;
    int n = SSL_write(s, p, len > INT_MAX ? INT_MAX : (int)len);
    return n > 0 ? n : io_result(c, s, n);
}

static size_t
tls_buffered(const mqi_conn *c)
{
    const tls_conn *t = c->io_state;
    return SSL_pending(t->ssl) > 0 || t->more;
}

static void
tls_close(mqi_conn *c)
{
    tls_conn *t = c->io_state;
    if (c->up)
        SSL_shutdown(t->ssl); /* one try, never waits: the close_notify goes or not */
    ERR_clear_error();
    SSL_free(t->ssl);
    free(t);
    c->io_state = NULL;
}

static const mqi_io tls_io = {
    .recv = tls_recv, .send = tls_send, .buffered = tls_buffered, .close = tls_close,
};

/* Client: the name the server's certificate must carry (--tls-name, or
 * the --host connected to), as a DNS name or an IP address. */
static int
expect_name(MqContextC *ctx, SSL *s)
{
    const char *name = ctx->cfg.tls_name ? ctx->cfg.tls_name
                       : ctx->cfg.host   ? ctx->cfg.host
                                         : "127.0.0.1";
    unsigned char addr[16];
    if (inet_pton(AF_INET, name, addr) == 1 || inet_pton(AF_INET6, name, addr) == 1)
        return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s), name) == 1;
    return SSL_set1_host(s, name) == 1 && SSL_set_tlsext_host_name(s, name) == 1;
}

static MkErrorE
handshake(mqi_conn *c, SSL *s, MK_I64 timeout_ms)
{
    MK_I64 deadline = timeout_ms < 0 ? -1 : mqi_now_ms() + timeout_ms;
    for (;;) {
        errno = 0;
        int rc = SSL_do_handshake(s);
        if (rc == 1)
            return MK_OK;
        ssize_t r = io_result(c, s, rc);
        if (r == 0 || (r < 0 && errno != EAGAIN)) {
            if (errno != MQI_IO_FAILED)
                mqi_conn_fail(c, MQ_ERR_LINK, "TLS: the %s closed the connection during the "
                              "handshake%s%s", peer_of(c), errno ? ": " : "",
                              errno ? strerror(errno) : c->is_server ? "" : " (a plaintext server?)");
            return MK_ERROR;
        }
        MK_I64 left = deadline < 0 ? -1 : deadline - mqi_now_ms();
        if (deadline >= 0 && left <= 0) {
            mqi_conn_fail(c, MQ_ERR_TIMEOUT, "TLS: no handshake from the %s within %lld ms",
                          peer_of(c), (long long)timeout_ms);
            return MK_ERROR;
        }
        struct pollfd p = {.fd = c->fd,
                           .events = SSL_want_write(s) ? POLLOUT : POLLIN};
        if (mqi_block_poll(&p, 1, left < 0 || left > INT_MAX ? -1 : (int)left) < 0 &&
            errno != EINTR) {
            mqi_conn_fail(c, MQ_ERR_LINK, "TLS: waiting for the handshake failed: %s",
                          strerror(errno));
            return MK_ERROR;
        }
        if (mqi_block_stopped()) {
            mqi_conn_fail(c, MQ_ERR_LINK, "TLS: handshake interrupted");
            return MK_ERROR;
        }
    }
}

MkErrorE
mqi_tls_io_secure(MqContextC *ctx, mqi_conn *c, MK_I64 timeout_ms)
{
    mqi_tls *t = ctx->cfg.secure.state;
    if (!t)
        return MK_OK; /* a plain link */
    ERR_clear_error();
    SSL *s = SSL_new(t->ssl);
    tls_conn *tc = calloc(1, sizeof *tc);
    BIO *b = NULL;
    CRYPTO_THREAD_run_once(&bio_once, bio_init);
    if (tc && bio_method && (b = BIO_new(bio_method)) != NULL) {
        tc->fd = c->fd;
        BIO_set_data(b, tc);
        BIO_set_init(b, 1);
    }
    if (!s || !b || (!t->is_server && !expect_name(ctx, s))) {
        char why[256];
        SSL_free(s);
        BIO_free(b);
        free(tc);
        mqi_conn_fail(c, MK_ERR_MEMORY, "TLS: cannot set up the connection: %s",
                      *mqi_tls_reason(why, sizeof why) ? why : "out of memory");
        return MK_ERROR;
    }
    SSL_set_bio(s, b, b); /* s owns b */
    tc->ssl = s;
    if (t->is_server)
        SSL_set_accept_state(s);
    else
        SSL_set_connect_state(s);
    c->io = &tls_io; /* from now on, also for the close */
    c->io_state = tc;
    if (handshake(c, s, timeout_ms) != MK_OK)
        return MK_ERROR;
    /* the handshake may have read ahead the peer's first bytes (its preamble) */
    tc->more = SSL_has_pending(s);
    return MK_OK;
}
