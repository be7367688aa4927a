/* event.c — the event loop: take complete frames out of the read buffer and
 * hand each to its context (a call to a service, an answer to a waiter or a
 * callback), flush before blocking, block in poll until input or deadline.
 * The loop is re-entrant: a service may wait for a call of its own, and
 * the frames that arrive meanwhile are served from the nested loop. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link_int.h"
#include "trace.h"

/* The stream a call's body is received into at the current nesting depth
 * (below MQI_MAX_NEST); NULL when out of memory. */
static MkBufferStreamC *
depth_stream(mqi_conn *c)
{
    if (!c->rstack && !(c->rstack = calloc(MQI_MAX_NEST, sizeof *c->rstack)))
        return NULL;
    if (!c->rstack[c->depth]) {
        c->rstack[c->depth] = MkBufferStreamCreate();
        if (c->depth >= c->nrstack)
            c->nrstack = c->depth + 1;
    }
    return c->rstack[c->depth];
}


/* Run a call's callback once with its answer (body), or with ctx's error
 * set and nothing to read (body NULL), then free the pending call. */
static void
run_callback(mqi_conn *c, mqi_pending *p, MkBufferStreamC *body)
{
    MqContextC *to = p->ctx;
    mqi_reading was = mqi_read_begin(to, body);
    c->depth++;
    p->cb.fn(to, p->cb.data);
    c->depth--;
    mqi_read_end(to, was);
    if (p->cb.free)
        p->cb.free(p->cb.data);
    mqi_pend_release(c, p);
}

void
mqi_expire_callbacks(mqi_conn *c, int all)
{
    if (c->pend.used == 0) { /* every link's end, a parent's too: nothing to look at */
        c->cb_deadline = -1;
        return;
    }
    MK_I64 now = mqi_now_ms(), next = -1;
    size_t n = 0, cap = 0;
    uint64_t *due = NULL;
    for (size_t i = 0; i < c->pend.cap; i++) {
        mqi_pending *p = c->pend.slot[i].val;
        if (!p || !p->cb.fn || (!all && (p->deadline < 0 || p->deadline > now))) {
            if (p && p->cb.fn && p->deadline >= 0 && (next < 0 || p->deadline < next))
                next = p->deadline;
            continue;
        }
        uint64_t *t = mki_grow(due, &cap, n + 1, sizeof *due);
        if (!t)
            break;
        due = t;
        due[n++] = p->trans;
    }
    c->cb_deadline = next;
    for (size_t i = 0; i < n; i++) {
        mqi_pending *p = mqi_pend_take(&c->pend, due[i]);
        if (!p)
            continue;
        if (all)
            MkErrorSet(p->ctx->err, MQ_ERR_LINK, "callback: link closed before the answer: %s",
                       MkErrorGetText(c->err));
        else
            MkErrorSet(p->ctx->err, MQ_ERR_TIMEOUT, "callback: no answer within its timeout");
        run_callback(c, p, NULL);
    }
    free(due);
}

/* An error answer's body (I32 code, STR text) into err; a peer that sent
 * no text still leaves the caller a reason. */
static void
take_error(MkErrorC *err, const mqi_hdr *h, MkBufferStreamC *body)
{
    MK_I32 code = 0;
    const char *text = NULL;
    if (MkBufferStreamReadI32(body, &code) != MK_OK || code == 0)
        code = MQ_ERR_SERVICE;
    if (MkBufferStreamReadSTR(body, &text) != MK_OK || !*text)
        text = "the peer answered with an error and sent no reason";
    /* which side raised it, and for which call: the peer's own text may
     * read like a local one ("no more items") */
    MkErrorSet(err, code, "%s %.4s failed on the peer: %s",
               h->trans ? "service" : "one-way call", h->token, text);
}

/* An answer: fill the waiter's stream or run the callback. */
static void
dispatch_answer(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body)
{
    MqContextC *ctx = mqi_conn_context(c, h->child);
    if (h->trans == 0) {
        /* error of a one-way call: for the sender's next loop turn */
        if (ctx && h->kind == MQI_ERROR) {
            if (!ctx->async_err)
                ctx->async_err = MkErrorCreate();
            take_error(ctx->async_err, h, body);
            mqi_trace_oneway_error(ctx, "received", h->token, ctx->async_err);
        }
        return;
    }
    uint64_t key = h->trans;
    const mqi_hooks *layer = h->flags ? mqi_hooks_for(h->flags) : NULL;
    if (layer && layer->answer(c, h, body, &key) == MK_CONTINUE)
        return; /* not an answer yet (a refused persistent call, sent again) */
    mqi_pending *p = mqi_pend_take(&c->pend, key);
    if (!p)
        return; /* the caller gave up (timeout): a late answer is dropped */
    p->done = 1;
    p->failed = h->kind == MQI_ERROR;
    MqContextC *to = p->ctx;
    if (p->failed) {
        take_error(to->err, h, body);
        MkBufferStreamReset(body);
    }
    if (!p->cb.fn) {
        if (!p->failed)
            mqi_answer_hand_over(c, to, body);
        return;
    }
    run_callback(c, p, body);
}

static void
dispatch(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body)
{
    if (h->kind == MQI_RETURN || h->kind == MQI_ERROR) {
        dispatch_answer(c, h, body);
        return;
    }
    if (h->flags & MQI_F_INTERNAL) {
        mqi_serve_internal(c, h, body);
        return;
    }
    MqContextC *ctx = mqi_conn_context(c, h->child);
    if (!ctx) {
        if (c->parent) {
            char text[64];
            snprintf(text, sizeof text, "no child context %u", h->child);
            mqi_send_error(c->parent, h->kind == MQI_ONEWAY ? 0 : h->trans, MQ_ERR_LINK, text);
        }
        return;
    }
    const mqi_hooks *layer = h->flags ? mqi_hooks_for(h->flags) : NULL;
    c->depth++;
    if (layer)
        layer->call(ctx, h, body);
    else
        mqi_serve_call(ctx, h, body);
    c->depth--;
}

/* Take the next complete frame out of the read buffer and dispatch it:
 * MK_OK when one was handled, MK_CONTINUE when none is complete yet. */
static MkErrorE
next_frame(mqi_conn *c)
{
    mqi_bytes *b = &c->rbuf;
    mqi_hdr h;
    MK_I32 count = 0;
    if (b->len - b->off < MQI_HDR_SIZE)
        return MK_CONTINUE;
    if (mqi_hdr_decode(b->p + b->off, c->swap, c->max_frame, &h, c->err) != MK_OK)
        goto malformed;
    if (b->len - b->off < MQI_HDR_SIZE + (size_t)h.len)
        return MK_CONTINUE;
    const unsigned char *data = b->p + b->off + MQI_HDR_SIZE;
    if (mki_stream_validate(data, h.len, c->swap, MK_STREAM_MAX_DEPTH, &count, c->err) != MK_OK)
        goto malformed;
    if ((uint32_t)count != h.items) {
        MkErrorSet(c->err, MQ_ERR_PROTOCOL, "frame says %u items, body has %d", h.items, count);
        goto malformed;
    }
    if (c->depth >= MQI_MAX_NEST) {
        mqi_conn_fail(c, MQ_ERR_PROTOCOL, "calls nested deeper than %d", MQI_MAX_NEST);
        return MK_ERROR;
    }
    MkBufferStreamC *body = depth_stream(c);
    if (!body || mki_stream_load(body, data, h.len, c->swap) != MK_OK) {
        mqi_conn_fail(c, MK_ERR_MEMORY, "out of memory receiving %u bytes", h.len);
        return MK_ERROR;
    }
    b->off += MQI_HDR_SIZE + h.len;
    c->rbuf_full = 0; /* room again */
    c->frame_since = c->idle_since = -1;
    mqi_trace_frame(c, "in", &h);
    dispatch(c, &h, body);
    return MK_OK;
malformed:
    MkErrorStack(c->err, "malformed frame from the peer, link closed");
    c->up = 0;
    return MK_ERROR;
}

static _Thread_local mqi_keeper *keeper;

void
mqi_keeper_set(mqi_keeper *k)
{
    keeper = k;
}

static int
wait_input(mqi_conn *c, MK_I64 deadline)
{
    MK_I64 left = deadline < 0 ? -1 : deadline - mqi_now_ms();
    if (deadline >= 0 && left < 0)
        left = 0; /* past the deadline: only look whether input is there */
    if (mqi_conn_buffered(c))
        return 1; /* read already (TLS): poll would not see it */
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    int n = mqi_block_poll(&p, 1, left < 0 ? -1 : (int)(left > 0x7fffffff ? 0x7fffffff : left));
    return n < 0 && errno == EINTR ? 1 : n;
}

/* A limit of peer_limits passed (frame: --frame-timeout, else
 * --idle-timeout): the link ends with it as the reason, also when a read
 * the keeper ended found the end of file its shutdown made. */
static void
limit_passed(MqContextC *ctx, mqi_conn *c, int frame)
{
    MkErrorReset(c->err);
    if (frame)
        mqi_conn_fail(c, MQ_ERR_LINK, "a frame from the peer was not complete after %lld s "
                      "(--frame-timeout), link closed", (long long)c->frame_ms / 1000);
    else
        mqi_conn_fail(c, MQ_ERR_LINK, "nothing from the peer for %lld s (--idle-timeout), "
                      "link closed", (long long)c->idle_ms / 1000);
    /* the loop logs a server's MQ_ERR_LINK as information only */
    mqi_log(ctx, MK_LOG_WARN, "%s", MkErrorGetText(c->err));
}

/* The limits of a link a listener accepted (link.c sets them): one whose
 * peer started a frame must see it complete within --frame-timeout; one
 * with nothing to do (no frame begun, no call being served or waited for)
 * is closed after --idle-timeout.  Returns when the one that applies is
 * due (-1: none); a link past it is down, the reason logged. */
static MK_I64
peer_limits(MqContextC *ctx, mqi_conn *c, const mqi_pending *waiter)
{
    MK_I64 now = mqi_now_ms();
    if (c->frame_ms > 0 && c->rbuf.len > c->rbuf.off) {
        if (c->frame_since < 0)
            c->frame_since = now;
        if (now - c->frame_since < c->frame_ms)
            return c->frame_since + c->frame_ms;
        limit_passed(ctx, c, 1);
    } else if (c->idle_ms > 0 && !waiter && c->depth == 0 && c->pend.used == 0) {
        if (c->idle_since < 0)
            c->idle_since = now;
        if (now - c->idle_since < c->idle_ms)
            return c->idle_since + c->idle_ms;
        limit_passed(ctx, c, 0);
    }
    return -1;
}

/* Whether a wait the keeper keeps reads at once, blocking, instead of
 * polling first: one system call instead of two.  Only while nothing was
 * read since the handshake (the first wait, a parent's only one): a read
 * blocked on a unix socket is woken each time the peer takes in what this
 * side sent (transport.h: wait_in_poll), which in a stream of calls is
 * every answer (round trips: 1.33 task switches per call instead of 1.0),
 * but a parent's server has sent only its handshake's answer. */
static int
kept_read_blocks(const mqi_conn *c)
{
    return c->rbuf.cap == 0 && !mqi_conn_buffered(c);
}

/* stop.c: end a server's link as if the client had closed it. */
static void
stop_link(mqi_conn *c)
{
    MkErrorSet(c->err, MQ_ERR_LINK, "stopped by signal %d", mqi_stop_signal());
    c->up = 0;
}

/* A server is about to wait (or to look whether it can, past a deadline):
 * armed first, so that a stop signal from here on ends the wait, then the
 * signal come already, if any (disarmed then: the link ends, and fd with
 * it). */
static inline int
stop_before_wait(mqi_conn *c)
{
    if (!c->stop_arms)
        return mqi_stop_signal();
    if (!mqi_stop_arm(c->fd))
        return 0;
    mqi_stop_disarm();
    return 1;
}

/* A stop signal came during a wait: a read that found the end of file the
 * signal's shutdown made gives the stop as the link's reason, not the
 * peer's close; frames read before it are served first (the loop's next
 * look ends the link). */
static int
stop_came(mqi_conn *c)
{
    if (!c->up)
        stop_link(c);
    return 1;
}

/* The wait is over: disarmed, and whether a stop signal came.  Inline: on
 * every wait a server makes.  A wait not armed (a client's, a --thread
 * pool's instance's) was not shut down: the next look is soon enough. */
static inline int
stop_after_wait(mqi_conn *c)
{
    if (!c->stop_arms)
        return 0;
    mqi_stop_disarm();
    return mqi_stop_signal() && stop_came(c);
}

MkErrorE
mqi_loop(MqContextC *ctx, mqi_pending *waiter, MK_I64 deadline, int once)
{
    mqi_conn *c = ctx->conn;
    for (;;) {
        MkErrorE rc = MK_CONTINUE;
        int handled = 0;
        while (c->up && (rc = next_frame(c)) == MK_OK) {
            handled = 1;
            if (waiter && waiter->done)
                return MK_OK;
        }
        if (waiter && waiter->done)
            return MK_OK;
        if (!c->up || rc == MK_ERROR) {
            int level = c->is_server && MkErrorGetCode(c->err) == MQ_ERR_LINK ? MK_LOG_INFO
                                                                              : MK_LOG_WARN;
            if (mqi_log_on(ctx, level))
                mqi_log(ctx, level, "%s", MkErrorGetText(c->err));
            c->up = 0;
            mqi_expire_callbacks(c, 1);
            return MK_ERROR;
        }
        if (c->cb_deadline >= 0 && mqi_now_ms() >= c->cb_deadline) {
            mqi_expire_callbacks(c, 0);
            handled = 1;
        }
        if (once && handled)
            return MK_OK;
        /* A flush that had to wait took in what the peer sent meanwhile (it
         * may be blocked writing to us): handle that before waiting again. */
        size_t unread = c->rbuf.len - c->rbuf.off;
        if (mqi_conn_flush(c) != MK_OK)
            return MK_ERROR;
        if (c->rbuf.len - c->rbuf.off != unread)
            continue;
        MK_I64 until = deadline, due = -1;
        if (c->cb_deadline >= 0 && (until < 0 || c->cb_deadline < until))
            until = c->cb_deadline;
        if (c->idle_ms > 0 || c->frame_ms > 0) {
            due = peer_limits(ctx, c, waiter);
            if (!c->up)
                continue; /* logged and ended at the top */
            if (due >= 0 && (until < 0 || due < until))
                until = due;
        }
        if (c->is_server && stop_before_wait(c)) {
            stop_link(c);
            continue; /* logged and ended at the top */
        }
        if (c->rbuf_full) {
            /* no room to read into (--max-buffered): input would end every
             * wait at once, so wait for room, a moment at a time */
            if (until >= 0 && mqi_now_ms() >= until) {
                stop_after_wait(c);
                if (until == deadline)
                    return MK_CONTINUE;
                continue;
            }
            mqi_conn_nap(until);
            mqi_conn_fill(c); /* a closed link is handled at the top */
            stop_after_wait(c);
            continue;
        }
        if (c->rcvtimeo_ms > 0 && (until < 0 || until - mqi_now_ms() >= c->rcvtimeo_ms) &&
            !mqi_conn_buffered(c)) {
            mqi_conn_fill_wait(c); /* returns before until; a closed link: at the top */
            stop_after_wait(c);
            if (mqi_block_stopped())
                return MK_CONTINUE; /* interrupted: as if the deadline had passed */
            continue;
        }
        /* the keeper's only when the peer limit is what this wait waits for */
        mqi_keeper *k = keeper && due >= 0 && until == due && until != deadline &&
                                until != c->cb_deadline ? keeper : NULL;
        if (k && kept_read_blocks(c)) {
            k->arm(k, c->fd, until);
            mqi_conn_fill_wait(c); /* a closed link is handled at the top */
            int stopped = stop_after_wait(c);
            if (k->disarm(k) && !stopped) /* nothing read before: the idle limit */
                limit_passed(ctx, c, 0);
            else if (mqi_block_stopped())
                return MK_CONTINUE;
            continue;
        }
        if (k)
            k->arm(k, c->fd, until);
        int n = wait_input(c, k ? -1 : until);
        int kept = k && k->disarm(k); /* past the limit: peer_limits ends the link */
        if (stop_after_wait(c) || kept)
            continue; /* a stop: ended before reading (its shutdown may have shut fd) */
        if ((n == 0 && until == deadline) || mqi_block_stopped())
            return MK_CONTINUE;
        if (n > 0)
            mqi_conn_fill(c); /* a closed link is handled at the top */
    }
}

static MkErrorE
take_async_error(MqContextC *ctx)
{
    if (!ctx->async_err || !MkErrorIsSet(ctx->async_err))
        return MK_OK;
    MkErrorCopy(ctx->err, ctx->async_err);
    MkErrorReset(ctx->async_err);
    return MK_ERROR;
}

MkErrorE
MqProcessEvent(MqContextC *ctx, MqWaitE wait, MK_I64 timeout_ms)
{
    if (take_async_error(ctx) != MK_OK)
        return MK_ERROR;
    if (mqi_check_linked(ctx, "ProcessEvent") != MK_OK)
        return MK_ERROR;
    mqi_conn *c = ctx->conn;
    MK_I64 deadline = wait == MQ_WAIT_NO ? 0
                      : wait == MQ_WAIT_FOREVER ? -1 : mqi_deadline(ctx, timeout_ms);
    MkErrorE rc = mqi_loop(ctx, NULL, deadline, wait != MQ_WAIT_FOREVER);
    if (rc == MK_ERROR) {
        /* a server whose client went away has simply finished */
        if (c->is_server && !c->up && MkErrorGetCode(c->err) == MQ_ERR_LINK)
            return MK_OK;
        return mqi_link_error(ctx, "ProcessEvent");
    }
    if (take_async_error(ctx) != MK_OK)
        return MK_ERROR;
    if (wait == MQ_WAIT_NO) {
        /* handled what was there: send the answers now, never block */
        if (mqi_conn_flush(c) != MK_OK)
            return mqi_link_error(ctx, "ProcessEvent");
        return MK_OK;
    }
    return rc;
}
