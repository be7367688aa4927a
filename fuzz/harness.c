/* harness.c — see harness.h.  The client end is one thread that writes
 * the whole wire without blocking while it reads and drops every answer
 * (so the server never waits on a full socket), then half-closes and reads
 * until the server closes: the instance ends on end of file, on a frame
 * that ends the link, or after its 1 s write timeout. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "link_int.h"

/* ---------------------------------------------- perfserver's services */

static MkErrorE
NTHT(MqContextC *ctx, void *data)
{
    return MK_OK;
}

static MkErrorE
RDUL(MqContextC *ctx, void *data)
{
    MK_I8 i8;
    MK_I16 i16;
    MK_I32 i32;
    MK_DBL dbl;
    MkBufferC *buf;
    if (MqReadI8(ctx, &i8) != MK_OK || MqReadI16(ctx, &i16) != MK_OK ||
        MqReadI32(ctx, &i32) != MK_OK || MqReadDBL(ctx, &dbl) != MK_OK ||
        MqReadBUF(ctx, &buf) != MK_OK)
        return MK_ERROR;
    return MK_OK;
}

static MkErrorE
ECUL(MqContextC *ctx, void *data)
{
    MK_I8 i8;
    MK_I16 i16;
    MK_I32 i32;
    MK_DBL dbl;
    if (MqSendSTART(ctx) != MK_OK ||
        MqReadI8(ctx, &i8) != MK_OK || MqSendI8(ctx, i8) != MK_OK ||
        MqReadI16(ctx, &i16) != MK_OK || MqSendI16(ctx, i16) != MK_OK ||
        MqReadI32(ctx, &i32) != MK_OK || MqSendI32(ctx, i32) != MK_OK ||
        MqReadDBL(ctx, &dbl) != MK_OK || MqSendDBL(ctx, dbl) != MK_OK ||
        MqProxyItem(ctx, ctx) != MK_OK)
        return MK_ERROR;
    return MqSendRETURN(ctx);
}

static MkErrorE
BUST(MqContextC *ctx, void *data)
{
    MkBufferStreamC *bus = MkBufferStreamCreateTLS("fuzz-BUST");
    MkBufferC *buf;
    while (MqReadItemExists(ctx))
        if (MqReadBUF(ctx, &buf) != MK_OK || MkBufferStreamWriteBUF(bus, buf) != MK_OK)
            return MqErrorSet(ctx, MK_ERR_GENERIC, "BUST failed");
    MkBufferStreamPosToStart(bus);
    if (MqSendSTART(ctx) != MK_OK)
        return MK_ERROR;
    while (MkBufferStreamReadItemExists(bus))
        if (MkBufferStreamReadBUF(bus, &buf) != MK_OK || MqSendBUF(ctx, buf) != MK_OK)
            return MqErrorSet(ctx, MK_ERR_GENERIC, "BUST failed");
    return MqSendRETURN(ctx);
}

static MkErrorE
BFLT(MqContextC *ctx, void *data)
{
    MkBufferListC *bfl = MkBufferListCreateTLS("fuzz-BFLT");
    MkBufferC *buf;
    MkBufferListReset(bfl);
    while (MqReadItemExists(ctx))
        if (MqReadBUF(ctx, &buf) != MK_OK || MkBufferListAppendBUF(bfl, buf) != MK_OK)
            return MqErrorSet(ctx, MK_ERR_GENERIC, "BFLT failed");
    if (MqSendSTART(ctx) != MK_OK)
        return MK_ERROR;
    for (MK_I32 i = 0; i < MkBufferListSize(bfl); i++)
        if (MqSendBUF(ctx, MkBufferListIndexGet(bfl, i)) != MK_OK)
            return MK_ERROR;
    return MqSendRETURN(ctx);
}

static MkErrorE
setup(MqContextC *ctx, void *data)
{
    static const struct {
        const char *token;
        MqServiceCallF fn;
    } services[] = {{"NTHT", NTHT}, {"RDUL", RDUL}, {"ECUL", ECUL}, {"BUST", BUST},
                    {"BFLT", BFLT}};
    for (size_t i = 0; i < sizeof services / sizeof *services; i++)
        if (MqServiceCreate(ctx, services[i].token, services[i].fn, NULL, NULL) != MK_OK)
            return MK_ERROR;
    return MK_OK;
}

MqContextC *
fuzz_harness_template(void)
{
    static MqContextC *tmpl;
    if (tmpl)
        return tmpl;
    signal(SIGPIPE, SIG_IGN); /* the client end may close first */
    tmpl = MqContextCreate();
    MqConfigSetName(tmpl, "fuzzserver");
    MqConfigSetServerSetup(tmpl, setup, NULL, NULL);
    MqConfigSetTimeout(tmpl, 1000);
    tmpl->cfg.silent = 1; /* as --silent: a log line per malformed frame is noise here */
    return tmpl;
}

/* --------------------------------------------------- the client end */

typedef struct peer {
    int fd;
    const unsigned char *wire;
    size_t len;
} peer;

static void *
client_end(void *arg)
{
    peer *c = arg;
    size_t off = 0;
    char sink[65536];
    fcntl(c->fd, F_SETFL, O_NONBLOCK);
    for (;;) {
        struct pollfd p = {.fd = c->fd, .events = POLLIN | (off < c->len ? POLLOUT : 0)};
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            break;
        if (p.revents & POLLOUT) {
            ssize_t n = send(c->fd, c->wire + off, c->len - off, MSG_NOSIGNAL);
            if (n > 0)
                off += (size_t)n;
            if (n < 0 && errno != EAGAIN && errno != EINTR)
                off = c->len; /* the server is gone: only read what is left */
            if (off == c->len)
                shutdown(c->fd, SHUT_WR);
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(c->fd, sink, sizeof sink);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                break;
        }
    }
    close(c->fd);
    return NULL;
}

void
fuzz_harness_run(MqContextC *tmpl, const void *wire, size_t len)
{
    int sv[2];
    pthread_t t;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        abort();
    peer c = {.fd = sv[0], .wire = wire, .len = len};
    if (len == 0)
        shutdown(sv[0], SHUT_WR);
    if (pthread_create(&t, NULL, client_end, &c) != 0)
        abort();
    mqi_instance_serve(tmpl, sv[1]); /* closes sv[1] */
    pthread_join(t, NULL);
}
