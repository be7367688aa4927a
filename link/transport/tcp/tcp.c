/* tcp.c — the TCP transport: --tcp [--host H] --port P.  Every socket gets
 * TCP_NODELAY: the link batches writes itself, and Nagle's delay would only
 * stall the answers a waiting caller needs.
 *
 * The side that closes first keeps the connection in TIME_WAIT for a
 * minute.  On a client's ephemeral ports that makes every later connect
 * search past thousands of them for a free port (measured: 40% of a new
 * parent's time, parents capped at 14k/s whatever the start mode), so a
 * client's link ends by asking the server to close first (_CLS).  The
 * server, told that the client wants nothing more, closes that link with
 * a reset (conn.c: end_reset), so TIME_WAIT stays on neither side.  Where
 * the server has acknowledged everything up to _CLS by the time the client
 * looks, the client resets first instead of waiting for that close (conn.c:
 * all_acknowledged); a link that sent nothing since its handshake (a
 * parent) resets at once, without _CLS (link.c: MqLinkDelete).
 *
 * The server no longer sets TCP_QUICKACK after the handshake's answer (one
 * setsockopt per link) to have a parent's _CLS acknowledged at once: a
 * parent sends none now, and on a link that made a call the answers put
 * the socket back in delayed-ACK mode before its _CLS anyway. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../transport.h"
#ifdef MQ_HAVE_OPENSSL
#include "../tls/tls.h"
#define NEEDS_OPENSSL NULL
#else
#define NEEDS_OPENSSL "OpenSSL (a build with libssl-dev)"
#endif

static void
tcp_tune(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static MkErrorE
resolve(MqContextC *ctx, int passive, struct addrinfo **res)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = passive ? AI_PASSIVE : 0};
    const char *host = ctx->cfg.host ? ctx->cfg.host : "127.0.0.1";
    int e = getaddrinfo(host, ctx->cfg.port, &hints, res);
    if (e)
        return MkErrorSet(ctx->err, MQ_ERR_LINK, "cannot resolve '%s' port %s: %s", host,
                          ctx->cfg.port, gai_strerror(e));
    return MK_OK;
}

/* A client's numeric host and port (the default 127.0.0.1, or an address
 * given): its address without getaddrinfo, whose parsing and allocations
 * were a fifth of a TCP client's own instructions per parent (callgrind,
 * perfclient --parent).  0 for a name, or an address inet_pton does not
 * take (a scoped IPv6 one, "127.1"): getaddrinfo resolves those. */
/* The port p names, -1 for none: plain digits without strtol
 * (mqi_plain_digits), any other text as strtol reads it (the option row
 * took it so). */
static long
port_number(const char *p)
{
    long long v;
    if (!mqi_plain_digits(p, &v)) {
        char *end;
        v = strtol(p, &end, 10);
        if (end == p || *end)
            return -1;
    }
    return v >= 0 && v <= 65535 ? (long)v : -1;
}

static int
numeric(const MqContextC *ctx, struct sockaddr_storage *ss, socklen_t *len)
{
    const char *host = ctx->cfg.host;
    long port = ctx->cfg.port ? port_number(ctx->cfg.port) : -1;
    if (port < 0)
        return 0;
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *in = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
    if (!host) /* the default, 127.0.0.1: no inet_pton (190 instructions per parent) */
        in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (!host || inet_pton(AF_INET, host, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)port);
        *len = sizeof *in;
        return 1;
    }
    if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        *len = sizeof *in6;
        return 1;
    }
    return 0;
}

/* A socket connected to sa, or -1 with *e the reason. */
static int
connect_to(const struct sockaddr *sa, socklen_t len, int *e)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, sa, len) == 0)
        return fd;
    *e = errno;
    if (fd >= 0)
        close(fd);
    return -1;
}

static MkErrorE
tcp_connect(MqContextC *ctx, int *fd, pid_t *pid)
{
    struct sockaddr_storage ss;
    socklen_t len;
    struct addrinfo *res, *ai = NULL;
    int e = 0;
    (void)pid;
    if (numeric(ctx, &ss, &len)) {
        *fd = connect_to((struct sockaddr *)&ss, len, &e);
    } else {
        if (resolve(ctx, 0, &res) != MK_OK)
            return MK_ERROR;
        for (ai = res, *fd = -1; ai && *fd < 0; ai = ai->ai_next)
            *fd = connect_to(ai->ai_addr, ai->ai_addrlen, &e);
        freeaddrinfo(res);
    }
    if (*fd < 0)
        return MkErrorSet(ctx->err, MQ_ERR_LINK, "cannot connect to %s:%s: %s",
                          ctx->cfg.host ? ctx->cfg.host : "127.0.0.1", ctx->cfg.port, strerror(e));
    return MK_OK; /* tuned by link.c (tune_at_first_write) */
}

static MkErrorE
tcp_listen(MqContextC *ctx, int *fd)
{
    struct addrinfo *res, *ai;
    int e = 0, one = 1;
    if (resolve(ctx, 1, &res) != MK_OK)
        return MK_ERROR;
    for (ai = res; ai; ai = ai->ai_next) {
        *fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (*fd < 0)
            continue;
        setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(*fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(*fd, 128) == 0)
            break;
        e = errno;
        close(*fd);
    }
    freeaddrinfo(res);
    if (!ai)
        return MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot listen on %s:%s: %s",
                          ctx->cfg.host ? ctx->cfg.host : "127.0.0.1", ctx->cfg.port, strerror(e));
    return MK_OK;
}

static int
is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) ||
               (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return 0;
}

/* A listener reachable from other hosts speaks TLS, or says with
 * --allow-plaintext that it is meant to do without. */
static MkErrorE
check_plaintext(MqContextC *ctx)
{
    struct addrinfo *res, *ai;
    if (!ctx->is_server || ctx->cfg.socket_fd >= 0 || ctx->cfg.allow_plaintext)
        return MK_OK;
    if (resolve(ctx, 1, &res) != MK_OK)
        return MK_ERROR;
    for (ai = res; ai && is_loopback(ai->ai_addr); ai = ai->ai_next)
        ;
    freeaddrinfo(res);
    if (!ai)
        return MK_OK;
    return MkErrorSet(ctx->err, MQ_ERR_OPTION,
                      "LinkCreate: --host %s is not a loopback address: a server other hosts "
                      "can reach needs TLS (--tls-cert, --tls-key, --tls-ca), or "
                      "--allow-plaintext to go without on purpose", ctx->cfg.host);
}

static MkErrorE
tcp_prepare(MqContextC *ctx)
{
#ifdef MQ_HAVE_OPENSSL
    if (mqi_tls_wanted(&ctx->cfg) || ctx->cfg.tls_fd >= 0)
        return mqi_tls_prepare(ctx);
#endif
    if (ctx->cfg.tls_name)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "option '--tls-name' needs --tls-ca or "
                          "--tls-cert");
    return check_plaintext(ctx);
}

static const mqi_option tcp_options[] = {
    {.name = "tcp", .kind = MQI_OPT_FLAG, .help = "TCP transport (needs --port)", MQI_FIELD(tp),
     .val = MQI_TP_TCP},
    {.name = "host", .kind = MQI_OPT_STR, .arg = "H",
     .help = "tcp: host (servers listen on 127.0.0.1 by default)", MQI_FIELD(host)},
    {.name = "port", .kind = MQI_OPT_NUMSTR, .arg = "P", .help = "tcp: port", .min = 0,
     .max = 65535, MQI_FIELD(port)},
    {.name = "tls-cert", .kind = MQI_OPT_STR, .arg = "FILE",
     .help = "tcp: TLS 1.3 with this PEM certificate (and chain)",
     MQI_FIELD(tls_cert), .unavailable = NEEDS_OPENSSL},
    {.name = "tls-key", .kind = MQI_OPT_STR, .arg = "FILE",
     .help = "tcp: the PEM private key of --tls-cert", MQI_FIELD(tls_key),
     .unavailable = NEEDS_OPENSSL},
    {.name = "tls-ca", .kind = MQI_OPT_STR, .arg = "FILE",
     .help = "tcp: CA certificates the peer's certificate must\n"
             "chain to; a server with it requires client certificates",
     MQI_FIELD(tls_ca), .unavailable = NEEDS_OPENSSL},
    {.name = "tls-name", .kind = MQI_OPT_STR, .arg = "NAME",
     .help = "tcp client: the name the server's certificate must\ncarry (default: --host)",
     MQI_FIELD(tls_name), .unavailable = NEEDS_OPENSSL},
    {.name = "allow-plaintext", .kind = MQI_OPT_FLAG,
     .help = "tcp server: listen on a non-loopback --host without\nTLS, on purpose",
     MQI_FIELD(allow_plaintext), .val = 1},
    {.name = "tls-fd", .kind = MQI_OPT_INT, .arg = "N",
     .help = "spawned instance: the listener's TLS keys", .max = 1 << 30,
     MQI_FIELD(tls_fd), .flags = MQI_OPT_HIDDEN | MQI_OPT_CLI_ONLY,
     .unavailable = NEEDS_OPENSSL},
    {.name = NULL},
};

const mqi_transport mqi_tcp_transport = {
    .tp = MQI_TP_TCP,
    .scheme = "tcp",
    .connect = tcp_connect,
    .listen = tcp_listen,
    .tune = tcp_tune,
    .tune_at_first_write = 1,
#ifdef __linux__
    .accepted_inherit = 1, /* the kernel clones the listening socket */
#endif
    .prepare = tcp_prepare,
#ifdef MQ_HAVE_OPENSSL
    .secure = mqi_tls_secure,
#endif
    .server_closes_first = 1,
    .options = tcp_options,
};
