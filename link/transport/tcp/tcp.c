/* tcp.c — the TCP transport: --tcp [--host H] --port P.  Every socket gets
 * TCP_NODELAY: the link batches writes itself, and Nagle's delay would only
 * stall the answers a waiting caller needs.
 *
 * The side that closes first keeps the connection in TIME_WAIT for a
 * minute.  On a client's ephemeral ports that makes every later connect
 * search past thousands of them for a free port (measured: 40% of a new
 * parent's time, parents capped at 14k/s whatever the start mode), so a
 * client's link ends by asking the server to close first. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../transport.h"

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

static MkErrorE
tcp_connect(MqContextC *ctx, int *fd, pid_t *pid)
{
    struct addrinfo *res, *ai;
    int e = 0;
    if (resolve(ctx, 0, &res) != MK_OK)
        return MK_ERROR;
    for (ai = res; ai; ai = ai->ai_next) {
        *fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (*fd >= 0 && connect(*fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        e = errno;
        if (*fd >= 0)
            close(*fd);
    }
    freeaddrinfo(res);
    if (!ai)
        return MkErrorSet(ctx->err, MQ_ERR_LINK, "cannot connect to %s:%s: %s",
                          ctx->cfg.host ? ctx->cfg.host : "127.0.0.1", ctx->cfg.port, strerror(e));
    tcp_tune(*fd);
    return MK_OK;
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

static const mqi_option tcp_options[] = {
    {.name = "tcp", .kind = MQI_OPT_FLAG, .help = "TCP transport (needs --port)", MQI_FIELD(tp),
     .val = MQI_TP_TCP},
    {.name = "host", .kind = MQI_OPT_STR, .arg = "H",
     .help = "tcp: host (servers listen on 127.0.0.1 by default)", MQI_FIELD(host)},
    {.name = "port", .kind = MQI_OPT_NUMSTR, .arg = "P", .help = "tcp: port", .min = 0,
     .max = 65535, MQI_FIELD(port)},
    {.name = NULL},
};

const mqi_transport mqi_tcp_transport = {
    .tp = MQI_TP_TCP,
    .scheme = "tcp",
    .connect = tcp_connect,
    .listen = tcp_listen,
    .tune = tcp_tune,
    .server_closes_first = 1,
    .options = tcp_options,
};
