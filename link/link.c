/* link.c — opening and closing links: the client's connect and handshake,
 * the server end of a socket, child contexts, and server instances. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "link_int.h"
#include "trace.h"
#include "transport/transport.h"

static MkErrorE
already_linked(MqContextC *ctx, const char *what)
{
    return MkErrorSet(ctx->err, MQ_ERR_LINK, "%s: context '%s' is already linked", what,
                      MqConfigGetName(ctx));
}

/* The connection's log hook: a limit acting on it goes to its parent's log. */
static void
conn_note(mqi_conn *c, const char *text)
{
    if (c->parent)
        mqi_log(c->parent, MK_LOG_WARN, "%s", text);
}

/* Whether a wait on fd polls (transport.h: wait_in_poll).  A socket given
 * with --socket N (a pipe's server, an instance --spawn started) has no
 * transport here when no --uds or --tcp came with it: its family says. */
static int
waits_in_poll(const MqContextC *ctx, int fd)
{
    const mqi_transport *tp = mqi_transport_get(ctx->cfg.tp);
    int domain = 0;
    socklen_t len = sizeof domain;
    if (tp)
        return tp->wait_in_poll;
    return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX;
}

/* The connection of ctx on fd (closed when there is none). */
static mqi_conn *
conn_create(MqContextC *ctx, int fd, int is_server)
{
    mqi_conn *c = mqi_conn_create(fd, &ctx->cfg, is_server);
    if (!c) {
        close(fd);
        MkErrorSet(ctx->err, MK_ERR_MEMORY, "LinkCreate: out of memory");
        return NULL;
    }
    if (!waits_in_poll(ctx, fd))
        c->rcvtimeo_ms = mqi_rcvtimeo_set(fd, &ctx->cfg, is_server);
    c->note = conn_note;
    c->trace = mqi_trace_level(ctx);
    if (c->trace >= MK_LOG_TRACE)
        c->trace_frame = mqi_trace_frame_;
    return c;
}

typedef struct {
    MqContextC *ctx;
    int fd, done;
    pid_t pid;
    MkErrorE rc;
} connect_args;

static void *
connect_fn(void *p)
{
    connect_args *a = p;
    a->rc = mqi_transport_get(a->ctx->cfg.tp)->connect(a->ctx, &a->fd, &a->pid);
    a->done = 1;
    return NULL;
}

static MkErrorE
client_connect(MqContextC *ctx)
{
    connect_args a = {ctx, -1, 0, 0, MK_ERROR};
    mqi_block_run(connect_fn, &a); /* connect may wait for a server to start */
    if (!a.done)
        connect_fn(&a); /* interrupted before it ran: connect all the same */
    int fd = a.fd;
    pid_t pid = a.pid;
    MkErrorE rc = a.rc;
    if (rc != MK_OK)
        return MK_ERROR;
    mqi_conn *c = conn_create(ctx, fd, 0);
    if (!c)
        return MK_ERROR;
    c->pid = pid;
    if (mqi_conn_attach(c, ctx, 0) != MK_OK) {
        mqi_conn_free(c);
        return MK_ERROR;
    }
    const mqi_transport *tp = mqi_transport_get(ctx->cfg.tp);
    /* a TLS handshake is several small writes: tuned before it */
    if (tp->tune && tp->tune_at_first_write && !ctx->cfg.secure.state)
        c->tune_later = tp->tune;
    else if (tp->tune)
        tp->tune(fd);
    if ((tp->secure && tp->secure(ctx, c, ctx->cfg.timeout_ms) != MK_OK) ||
        mqi_conn_send_preamble(c) != MK_OK ||
        mqi_conn_recv_preamble(c, ctx->cfg.timeout_ms) != MK_OK) {
        MkErrorSet(ctx->err, MkErrorGetCode(c->err), "LinkCreate: handshake with the server failed: %s",
                   MkErrorGetText(c->err));
        ctx->conn = NULL;
        mqi_conn_free(c);
        return MK_ERROR;
    }
    c->up = 1;
    mqi_trace_link(ctx, c, 1);
    if (mqi_hooks_link_up(ctx) != MK_OK) {
        MkErrorStack(ctx->err, "while re-sending stored calls");
        MqLinkDelete(ctx);
        return MK_ERROR;
    }
    return MK_OK;
}

MkErrorE
mqi_server_attach(MqContextC *ctx, int fd)
{
    mqi_stop_catch(); /* a server process: its stop signals end the link */
    mqi_conn *c = conn_create(ctx, fd, 1);
    if (!c)
        return MK_ERROR;
    c->stop_arms = mqi_stop_owner(); /* not a --thread pool's instance */
    if (mqi_conn_attach(c, ctx, 0) != MK_OK)
        goto error;
    /* A link a listener accepted comes from anyone: it gets the limits on
     * idle time and slow frames (event.c), and the frame limit holds for
     * the handshake too.  A pipe server's peer is the client that started
     * it, which may well stay idle. */
    if (ctx->cfg.tp == MQI_TP_UDS || ctx->cfg.tp == MQI_TP_TCP) {
        c->idle_ms = ctx->cfg.idle_ms;
        c->frame_ms = ctx->cfg.frame_ms;
    }
    MK_I64 hello_ms = ctx->cfg.timeout_ms;
    int slow = c->frame_ms > 0 && (hello_ms < 0 || c->frame_ms < hello_ms);
    if (slow)
        hello_ms = c->frame_ms;
    const mqi_transport *tp = mqi_transport_get(ctx->cfg.tp);
    if ((tp && tp->secure && tp->secure(ctx, c, hello_ms) != MK_OK) ||
        mqi_conn_recv_preamble(c, hello_ms) != MK_OK) {
        MkErrorSet(ctx->err, MkErrorGetCode(c->err), "LinkCreate: handshake with the client failed: %s%s",
                   MkErrorGetText(c->err),
                   slow && MkErrorGetCode(c->err) == MQ_ERR_TIMEOUT ? " (--frame-timeout)" : "");
        goto error;
    }
    c->up = 1;
    mqi_trace_link(ctx, c, 1);
    /* The setup runs before we answer the handshake, so a client whose
     * LinkCreate returned finds every service in place. */
    if (ctx->setup.fn && ctx->setup.fn(ctx, ctx->setup.data) != MK_OK) {
        MkErrorStack(ctx->err, "in the server setup of '%s'", MqConfigGetName(ctx));
        goto error;
    }
    if (mqi_conn_send_preamble(c) != MK_OK) {
        mqi_link_error(ctx, "LinkCreate");
        goto error;
    }
    return MK_OK;
error:
    ctx->conn = NULL;
    mqi_conn_free(c);
    return MK_ERROR;
}

MkErrorE
MqLinkCreate(MqContextC *ctx, int argc, const char **argv)
{
    if (ctx->conn && (ctx->conn->up || ctx->parent))
        return already_linked(ctx, "LinkCreate");
    MqLinkDelete(ctx); /* a broken link (its peer died): created again below */
    MkErrorReset(ctx->err);
    if (mqi_options_parse(ctx, argc, argv) != MK_OK)
        return MK_ERROR;
    if (!ctx->cfg.name && argc > 0 && argv[0]) {
        const char *base = strrchr(argv[0], '/');
        MqConfigSetName(ctx, base ? base + 1 : argv[0]);
    }
    if (mqi_hooks_link_create(ctx) != MK_OK)
        return MK_ERROR;
    const mqi_transport *tp = mqi_transport_get(ctx->cfg.tp);
    if (tp && tp->prepare && tp->prepare(ctx) != MK_OK)
        return MK_ERROR;
    if (ctx->cfg.socket_fd >= 0)
        return mqi_server_attach(ctx, ctx->cfg.socket_fd);
    if (!ctx->is_server)
        return client_connect(ctx);
    if (ctx->cfg.tp == MQI_TP_PIPE)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION,
                          "LinkCreate: a server cannot be started with '@'; it is the server");
    return mqi_listen_serve(ctx);
}

/* A link-internal call that waits for its answer (child create). */
static MkErrorE
internal_wait(MqContextC *ctx, const char *token)
{
    mqi_conn *c = ctx->conn;
    mqi_pending w = {.trans = c->next_trans++, .ctx = ctx};
    mqi_hdr h = {.kind = MQI_CALL_WAIT, .child = ctx->child_id, .flags = MQI_F_INTERNAL,
                 .trans = w.trans};
    memcpy(h.token, token, 5);
    if (mqi_pend_add(&c->pend, &w) != MK_OK)
        return MkErrorSet(ctx->err, MK_ERR_MEMORY, "out of memory");
    if (mqi_conn_write_frame(c, &h, NULL) != MK_OK ||
        mqi_loop(ctx, &w, mqi_deadline(ctx, MQ_TIMEOUT_DEFAULT), 0) != MK_OK || !w.done) {
        mqi_pend_take(&c->pend, w.trans);
        return c->up ? MkErrorSet(ctx->err, MQ_ERR_TIMEOUT, "no answer to '%s'", token)
                     : mqi_link_error(ctx, "LinkCreateChild");
    }
    return w.failed ? MK_ERROR : MK_OK;
}

MkErrorE
MqLinkCreateChild(MqContextC *child, MqContextC *parent)
{
    if (child->conn && child->conn->up)
        return already_linked(child, "LinkCreateChild");
    MqLinkDelete(child); /* its parent's link broke: created again below */
    if (parent->parent)
        parent = parent->parent;
    if (mqi_check_linked(parent, "LinkCreateChild") != MK_OK) {
        MkErrorCopy(child->err, parent->err);
        return MK_ERROR;
    }
    child->cfg.timeout_ms = parent->cfg.timeout_ms;
    child->cfg.debug = parent->cfg.debug;
    child->cfg.silent = parent->cfg.silent;
    if (!child->cfg.name && parent->cfg.name)
        MqConfigSetName(child, parent->cfg.name);
    child->parent = parent;
    if (mqi_conn_attach(parent->conn, child, 0) != MK_OK)
        goto error;
    if (internal_wait(child, "_CHC") != MK_OK) {
        mqi_conn_detach(parent->conn, child);
        goto error;
    }
    return MK_OK;
error:
    child->parent = NULL;
    return MK_ERROR;
}

static void
close_children(mqi_conn *c)
{
    /* deleting a child takes it out of the table: look again from the start */
    for (size_t i = 0; i < c->children.cap;) {
        MqContextC *k = c->children.slot[i].val;
        if (!k) {
            i++;
            continue;
        }
        if (k->lib_owned) {
            MqContextDelete(k);
        } else {
            mqi_conn_detach(c, k);
            k->parent = NULL;
        }
    }
}

MkErrorE
MqLinkDelete(MqContextC *ctx)
{
    mqi_conn *c = ctx->conn;
    if (!c)
        return MK_OK;
    if (ctx->parent) {
        if (c->up && !c->is_server) {
            mqi_hdr h = {.kind = MQI_ONEWAY, .child = ctx->child_id, .flags = MQI_F_INTERNAL};
            memcpy(h.token, "_CHD", 5);
            mqi_conn_write_frame(c, &h, NULL);
        }
        mqi_conn_detach(c, ctx);
        ctx->parent = NULL;
        return MK_OK;
    }
    /* A plain call's answer cannot come on another link: its callback runs
     * now with the error instead of never.  (A persistent call's is re-sent
     * by the next LinkCreate, its answer goes to the transaction handler.) */
    mqi_trace_link(ctx, c, 0);
    if (c->pend.used && !MkErrorIsSet(c->err)) /* the reason they are given */
        MkErrorSet(c->err, MQ_ERR_LINK, "the link was deleted (LinkDelete)");
    mqi_expire_callbacks(c, 1);
    close_children(c);
    const mqi_transport *tp = mqi_transport_get(ctx->cfg.tp);
    int ask_close = c->up && !c->is_server && tp && tp->server_closes_first;
    if (ask_close && mqi_conn_peer_read_all(c)) {
        /* a link that sent nothing since its handshake (a parent): the
         * server has read all of it, so the client resets at once; the
         * server reads the reset as the end.  No _CLS, no wait for its
         * acknowledgement, no TIME_WAIT either (tcp: the client's write
         * and ioctl and the server's SO_LINGER less per parent) */
        ask_close = 0;
        c->reset_on_close = 1;
    }
    if (ask_close) {
        /* _CLS alone is the first write: nothing unacknowledged can make
         * Nagle hold it back, so the link never needs tune_later */
        if (c->wbuf.off == c->wbuf.len)
            c->tune_later = NULL;
        mqi_hdr h = {.kind = MQI_ONEWAY, .flags = MQI_F_INTERNAL};
        memcpy(h.token, "_CLS", 5);
        mqi_conn_write_frame(c, &h, NULL); /* a failure takes the link down */
    }
    if (c->up)
        mqi_conn_flush(c);
    c->await_close = ask_close && c->up; /* _CLS left */
    /* what a layer keeps for the link is made durable, sent or not */
    if (c->before_flush && c->before_flush(c) != MK_OK)
        mqi_log(ctx, MK_LOG_ERROR, "%s", MkErrorGetText(c->err));
    mqi_conn_detach(c, ctx);
    mqi_conn_free(c);
    ctx->rd = NULL;
    return MK_OK;
}

MK_BOL
MqLinkIsConnected(MqContextC *ctx)
{
    return ctx->conn && ctx->conn->up;
}

MqContextC *
MqLinkGetParent(MqContextC *ctx)
{
    return ctx->parent ? ctx->parent : ctx;
}

MqContextC *
mqi_instance_create(MqContextC *tmpl, int of_listener)
{
    MqContextC *inst = tmpl->factory.fn ? tmpl->factory.fn(tmpl, tmpl->factory.data)
                                        : MqContextCreate();
    if (!inst) {
        if (!MkErrorIsSet(tmpl->err))
            MkErrorSet(tmpl->err, MQ_ERR_LINK, "the factory of '%s' created no instance",
                       MqConfigGetName(tmpl));
        return NULL;
    }
    if (of_listener)
        mqi_config_borrow(&inst->cfg, &tmpl->cfg);
    else
        mqi_config_copy(&inst->cfg, &tmpl->cfg);
    if (!inst->setup.fn) {
        inst->setup = tmpl->setup;
        inst->setup_owned = 0;
    }
    if (!inst->factory.fn) {
        inst->factory.fn = tmpl->factory.fn;
        inst->factory.data = tmpl->factory.data;
        inst->factory.owned = 0;
    }
    inst->is_server = 1;
    inst->lib_owned = 1;
    return inst;
}

void
mqi_instance_serve(MqContextC *tmpl, int fd)
{
    MqContextC *inst = mqi_instance_create(tmpl, 1);
    if (!inst) {
        mqi_log(tmpl, MK_LOG_ERROR, "%s", MqErrorGetText(tmpl));
        close(fd);
        return;
    }
    if (mqi_server_attach(inst, fd) != MK_OK)
        /* a peer that connects and leaves without a word is a probe */
        mqi_log(inst, MqErrorGetCode(inst) == MQ_ERR_LINK ? MK_LOG_INFO : MK_LOG_WARN, "%s",
                MqErrorGetText(inst));
    else if (MqProcessEvent(inst, MQ_WAIT_FOREVER, MQ_TIMEOUT_DEFAULT) != MK_OK)
        mqi_log(inst, MK_LOG_WARN, "%s", MqErrorGetText(inst));
    MqContextDelete(inst);
}
