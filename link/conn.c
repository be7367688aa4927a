/* conn.c — one connection: its socket, read and write buffers, the table
 * of contexts multiplexed over it, and the calls waiting for answers. */
#define _GNU_SOURCE /* POLLRDHUP */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "link_int.h"
#ifdef __linux__
#include <linux/sockios.h> /* SIOCOUTQ */
#endif

/* The read buffer starts small, because a new instance touches as few
 * pages as it can (each costs a fault, in a forked child a copy).  It
 * doubles when a read filled it (more is waiting: fewer, larger reads), up
 * to READ_CHUNK, and whenever an incomplete frame fills more than half. */
#define READ_CHUNK (256u * 1024)

/* A link's read buffer holds at most the largest frame and one read more:
 * every legal frame fits, and a peer that stops reading while we wait to
 * write to it gets no more than that taken in (the flush reads meanwhile,
 * see mqi_conn_flush). */
#define RBUF_LIMIT(c) ((size_t)(c)->max_frame + MQI_HDR_SIZE + READ_CHUNK)

/* The read buffers of all links of this process together (--max-buffered).
 * A buffer grows past READ_CHUNK only while the total stays within the
 * limit; the first READ_CHUNK of every link is always granted, so a new
 * link gets its frames in however full the others are (and the number of
 * links has its own limit, --max-connections).  Past the limit a link stops
 * reading until room comes free: backpressure, never a busy wait. */
static size_t rbuf_total;
#define RBUF_NAP_MS 50 /* how often a link that has no room looks again */

static size_t
total_add(size_t n)
{
#ifdef MQ_HAVE_THREADS
    return __atomic_add_fetch(&rbuf_total, n, __ATOMIC_RELAXED);
#else
    return rbuf_total += n;
#endif
}

static size_t
total_get(void)
{
#ifdef MQ_HAVE_THREADS
    return __atomic_load_n(&rbuf_total, __ATOMIC_RELAXED);
#else
    return rbuf_total;
#endif
}

static void
total_sub(size_t n)
{
#ifdef MQ_HAVE_THREADS
    __atomic_sub_fetch(&rbuf_total, n, __ATOMIC_RELAXED);
#else
    rbuf_total -= n;
#endif
}

/* Log a limit acting on this link, through the hook of the layer above. */
static void
note(mqi_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void
note(mqi_conn *c, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    if (!c->note)
        return;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    c->note(c, text);
}

/* The plain socket: the I/O of every connection no transport secured. */
static ssize_t
plain_recv(mqi_conn *c, void *p, size_t cap, int wait)
{
    return recv(c->fd, p, cap, wait ? 0 : MSG_DONTWAIT);
}

static ssize_t
plain_send(mqi_conn *c, const void *p, size_t n)
{
    return send(c->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static const mqi_io plain_io = {.recv = plain_recv, .send = plain_send};

mqi_conn *
mqi_conn_create(int fd, const mqi_config *cfg, int is_server)
{
    mqi_conn *c = mki_zalloc(sizeof *c);
    if (!c)
        return NULL;
    c->fd = fd;
    c->io = &plain_io;
    c->is_server = is_server;
    c->err = &c->err_store;
    c->flush_at = cfg->buffersize;
    c->max_frame = cfg->max_frame;
    c->max_buffered = cfg->max_buffered;
    c->frame_since = c->idle_since = -1;
    c->timeout_ms = cfg->timeout_ms;
    c->next_trans = 1;
    c->child_hint = 1;
    c->max_children = cfg->max_children;
    c->cb_deadline = -1;
    return c;
}

/* A wait reads straight from the socket instead of poll + read: one system
 * call less per answer.  The socket's receive timeout keeps such a read
 * shorter than any deadline the loop hands to it.  A socket a listener
 * accepted may carry it already (link_int.h: accepted_rcvtimeo_ms).  Set
 * by the link (link.c) on a transport whose waits do not poll
 * (transport.h: wait_in_poll).  Returns the timeout in ms, 0 for none. */
MK_I64
mqi_rcvtimeo_set(int fd, const mqi_config *cfg, int is_server)
{
    MK_I64 ms = cfg->timeout_ms > 1 ? cfg->timeout_ms / 2 : 0;
    if (ms == 0 || (is_server && cfg->accepted_rcvtimeo_ms == ms))
        return ms;
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000};
    return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0 ? ms : 0;
}

typedef struct {
    pid_t pid;
    int done;
} reap_args;

static void *
reap_fn(void *p)
{
    /* The server exits as soon as it sees the socket close; give it a moment
     * before insisting, so no zombie and no orphan is left behind. */
    reap_args *a = p;
    struct timespec ts = {0, 100000};
    int i = 0;
    while (i++ < 20000 && waitpid(a->pid, NULL, WNOHANG) == 0)
        nanosleep(&ts, NULL);
    if (i > 20000) {
        kill(a->pid, SIGKILL);
        waitpid(a->pid, NULL, 0);
    }
    a->done = 1;
    return NULL;
}

static void
reap(pid_t pid)
{
    reap_args a = {pid, 0};
    mqi_block_run(reap_fn, &a);
    if (!a.done)
        reap_fn(&a); /* interrupted before it ran: reaping must happen */
}

static void
drop_pending(mqi_pending *p)
{
    if (p->cb.fn) {
        if (p->cb.free)
            p->cb.free(p->cb.data);
        free(p);
    }
}

static int all_acknowledged(const mqi_conn *c);
static void wait_server_close(mqi_conn *c);
static void end_reset(mqi_conn *c);

void
mqi_conn_free(mqi_conn *c)
{
    if (!c)
        return;
    if (c->fd >= 0 && c->await_close) {
        if (all_acknowledged(c))
            c->reset_on_close = 1; /* nothing left to lose: the server need not close first */
        else
            wait_server_close(c);
    }
    if (c->io->close)
        c->io->close(c);
    if (c->fd >= 0 && c->reset_on_close)
        end_reset(c);
    if (c->fd >= 0)
        close(c->fd);
    if (c->pid > 0)
        reap(c->pid);
    mqi_pend_free(&c->pend, drop_pending);
    while (c->free_pend) {
        mqi_pending *p = c->free_pend;
        c->free_pend = p->next_free;
        free(p);
    }
    for (int i = 0; i < c->nrstack; i++)
        if (c->rstack[i])
            MkBufferStreamDelete(c->rstack[i]);
    free(c->rstack);
    total_sub(c->rbuf.cap);
    free(c->rbuf.p);
    free(c->wbuf.p);
    mqi_idmap_free(&c->children);
    free(c->peer_id);
    mki_error_release(c->err);
    free(c);
}

/* A link's first failure is its reason: one while it is up, or the first
 * error set; what fails after that (the close it caused) keeps it. */
static int
takes_reason(const mqi_conn *c)
{
    return c->up || !MkErrorIsSet(c->err);
}

void
mqi_conn_fail(mqi_conn *c, MK_I32 code, const char *fmt, ...)
{
    if (takes_reason(c)) {
        va_list ap;
        va_start(ap, fmt);
        MkErrorSetV(c->err, code, fmt, ap);
        va_end(ap);
    }
    c->up = 0;
}

void
mqi_conn_fail_fixed(mqi_conn *c, MK_I32 code, const char *text)
{
    if (takes_reason(c))
        mki_error_set_fixed(c->err, code, text);
    c->up = 0;
}

/* The events of fd that came within timeout_ms, 0 for none, -1 on error.
 * A signal counts as none: the caller computes what is left of its
 * deadline and waits again — retrying here with the whole timeout would
 * let signals that come more often than it (Ruby's timer, an interval
 * timer) keep the wait from ever ending.  Interrupted by the runtime
 * (Thread#raise) is -1 with EINTR. */
static int
wait_fd(int fd, short events, MK_I64 timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = events};
    int n = mqi_block_poll(&p, 1, timeout_ms < 0 ? -1 : (int)(timeout_ms > 0x7fffffff ? 0x7fffffff : timeout_ms));
    if (n < 0 && errno == EINTR && !mqi_block_stopped())
        return 0;
    return n > 0 ? p.revents : n;
}

/* After _CLS (link.c), on a plain socket: whether the peer has acknowledged
 * every byte we sent, _CLS last (SIOCOUTQ on TCP is what was written and
 * not yet acknowledged, unsent bytes included).  Then all of it is in the
 * server's receive queue, which a reset does not empty: the server reads
 * it to _CLS before it sees ECONNRESET (Linux: tcp_reset purges only the
 * write queue).  The client can then close with a reset itself instead of
 * waiting for the server's: no TIME_WAIT on either side still, and no wait
 * (a task switch pair per parent on one CPU, issue 16 point 4).  Anything
 * unacknowledged (a slow or distant server, a large last message) and the
 * client waits for the server's close as before, which delivers all. */
static int
all_acknowledged(const mqi_conn *c)
{
#ifdef SIOCOUTQ
    int queued = -1;
    return c->io == &plain_io && ioctl(c->fd, SIOCOUTQ, &queued) == 0 && queued == 0;
#else
    (void)c;
    return 0;
#endif
}

/* After _CLS (link.c): the server's close (EOF), or a moment at most.
 * On a plain socket poll's POLLRDHUP is the server's close itself: no
 * read of the end of file after it, one system call less per parent.
 * (Were a byte left unread, our close would answer with a reset instead
 * of a FIN; the server has closed, so nothing is lost.)  The server's
 * close is a reset (end_reset), which a poll woken while the kernel is
 * taking it in may see as POLLERR alone, before POLLRDHUP: that is the
 * close too.  A secured link reads on: its peer's goodbye is data. */
#ifdef POLLRDHUP
#define SERVER_CLOSED (POLLRDHUP | POLLHUP | POLLERR)
#else
#define SERVER_CLOSED 0
#endif
#define SERVER_CLOSE_WAIT_MS 100
static void
wait_server_close(mqi_conn *c)
{
    MK_I64 deadline = mqi_now_ms() + SERVER_CLOSE_WAIT_MS;
    int closed = c->io == &plain_io ? SERVER_CLOSED : 0;
    char scratch[512];
    for (;;) {
        MK_I64 left = deadline - mqi_now_ms();
        int ev = left <= 0 ? 0 : mqi_conn_buffered(c) ? POLLIN : wait_fd(c->fd, POLLIN | closed, left);
        if (ev <= 0 || (ev & closed))
            break;
        ssize_t n = c->io->recv(c, scratch, sizeof scratch, 0);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
            break;
    }
}

/* The server read the client's _CLS: the client has sent all it will and
 * wants nothing more, so the server's close on a plain socket is a reset
 * (SO_LINGER 0) instead of a FIN.  The client's wait for the close ends
 * the same way (poll's POLLRDHUP), but neither side keeps TIME_WAIT and
 * the client's FIN and its acknowledgement are not sent: a TIME_WAIT
 * socket made and expired per parent, and two segments, less (issue 16,
 * point 4).  Only on _CLS: any other end of a server's link (an error
 * frame, the idle limit, an instance killed or stopped with links open)
 * closes with a FIN, which delivers what is still unsent.  That is why the
 * option is set here, one setsockopt per parent, and not once on the
 * listening socket for every accepted socket to inherit: an end that
 * bypasses this close (exit, a signal) would then discard its unsent
 * replies with a reset. */
int
mqi_conn_peer_read_all(const mqi_conn *c)
{
    return c->io == &plain_io && !c->sent_after_up && c->wbuf.off == c->wbuf.len;
}

static void
end_reset(mqi_conn *c)
{
    struct linger now = {.l_onoff = 1, .l_linger = 0};
    if (c->io == &plain_io)
        setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &now, sizeof now);
}

static MkErrorE fill(mqi_conn *c, int flags);

/* One recv of at most cap bytes into p: MK_OK with *got bytes, MK_CONTINUE
 * when none came (would block, a signal, the receive timeout), MK_ERROR
 * when the link ended.  Without MSG_DONTWAIT it may sleep: a blocking
 * section for the hooks. */
typedef struct {
    mqi_conn *c;
    int flags;
    void *p;
    size_t cap;
    ssize_t n;
} recv_args;

static void *
recv_fn(void *p)
{
    recv_args *a = p;
    a->n = a->c->io->recv(a->c, a->p, a->cap, !(a->flags & MSG_DONTWAIT));
    return NULL;
}

static MkErrorE
recv_into(mqi_conn *c, void *p, size_t cap, int flags, size_t *got)
{
    recv_args a = {c, flags, p, cap, -1};
    if (flags & MSG_DONTWAIT)
        recv_fn(&a);
    else
        mqi_block_run(recv_fn, &a);
    ssize_t n = a.n;
    if (n > 0) {
        *got = (size_t)n;
        return MK_OK;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return MK_CONTINUE;
    if (n < 0 && errno == MQI_IO_FAILED)
        return MK_ERROR; /* the I/O layer gave the reason */
    if (n == 0)
        mqi_conn_fail_fixed(c, MQ_ERR_LINK, "peer closed the connection");
    else if (errno == ECONNRESET) /* a TCP client that sent nothing since its handshake (link.c) */
        mqi_conn_fail_fixed(c, MQ_ERR_LINK, "peer closed the connection with a reset");
    else
        mqi_conn_fail(c, MQ_ERR_LINK, "read failed: %s", strerror(errno));
    return MK_ERROR;
}

MkErrorE
mqi_conn_fill(mqi_conn *c)
{
    return fill(c, MSG_DONTWAIT);
}

MkErrorE
mqi_conn_fill_wait(mqi_conn *c)
{
    return fill(c, 0);
}

/* Room for the read buffer to double (up to its limit): MK_OK, or
 * MK_CONTINUE with *why the limit that refused it (MQI_RBUF_*). */
static MkErrorE
grow(mqi_conn *c, int *why)
{
    mqi_bytes *b = &c->rbuf;
    size_t want = b->cap ? b->cap * 2 : 4096;
    if (want > RBUF_LIMIT(c))
        want = RBUF_LIMIT(c);
    if (want <= b->cap) {
        *why = MQI_RBUF_LINK;
        return MK_CONTINUE;
    }
    size_t total = total_add(want - b->cap);
    if (want > READ_CHUNK && total > c->max_buffered) {
        total_sub(want - b->cap);
        *why = MQI_RBUF_ALL;
        return MK_CONTINUE;
    }
    unsigned char *p = realloc(b->p, want);
    if (!p) {
        total_sub(want - b->cap);
        mqi_conn_fail(c, MK_ERR_MEMORY, "out of memory for the read buffer");
        return MK_ERROR;
    }
    b->p = p;
    b->cap = want;
    return MK_OK;
}

/* The read buffer is full and may not grow: say why, once per link and
 * reason.  At its own limit it holds a whole frame, which only a flush
 * (waiting to write) does not take out: the peer does not read. */
static void
note_full(mqi_conn *c, int why)
{
    c->rbuf_full = why;
    if (c->limits_noted & why)
        return;
    c->limits_noted |= why;
    if (why == MQI_RBUF_LINK)
        note(c, "the peer sends more than it reads: %zu bytes taken in, no more until it reads "
             "(--max-frame plus %u)", c->rbuf.len - c->rbuf.off, READ_CHUNK + MQI_HDR_SIZE);
    else
        note(c, "read buffers of all links at --max-buffered %zu bytes: this link reads again "
             "when there is room", c->max_buffered);
}

/* An empty buffer larger than a read gives its memory back while the
 * buffers of all links are above half their limit (not always: a link
 * receiving large frames one after another would allocate each time). */
static void
shrink(mqi_conn *c)
{
    mqi_bytes *b = &c->rbuf;
    if (b->cap <= READ_CHUNK || total_get() <= c->max_buffered / 2)
        return;
    unsigned char *p = realloc(b->p, READ_CHUNK);
    if (!p)
        return;
    total_sub(b->cap - READ_CHUNK);
    b->p = p;
    b->cap = READ_CHUNK;
}

/* A link's first read goes to the stack and the buffer is allocated after
 * it (also when it found nothing yet), so a parent that ends right after its
 * handshake — its first read meets the peer's close — never allocates one. */
static MkErrorE
fill_first(mqi_conn *c, int flags)
{
    unsigned char first[256];
    size_t n = 0;
    int why = 0;
    MkErrorE rc = recv_into(c, first, sizeof first, flags, &n);
    if (rc != MK_OK)
        return rc;
    rc = grow(c, &why); /* the first 4096 bytes: always granted, memory permitting */
    if (rc != MK_OK) {
        if (rc == MK_CONTINUE)
            mqi_conn_fail(c, MK_ERR_MEMORY, "no room for the read buffer");
        return MK_ERROR;
    }
    memcpy(c->rbuf.p, first, n);
    c->rbuf.len = n;
    return MK_OK;
}

static MkErrorE
fill(mqi_conn *c, int flags)
{
    mqi_bytes *b = &c->rbuf;
    c->rbuf_full = 0;
    if (b->cap == 0)
        return fill_first(c, flags);
    if (b->off == b->len) {
        b->off = b->len = 0;
        shrink(c);
    } else if (b->off > 0 && b->cap - b->len < b->cap / 2) {
        memmove(b->p, b->p + b->off, b->len - b->off);
        b->len -= b->off;
        b->off = 0;
    }
    if (b->cap - b->len < b->cap / 2 || b->cap - b->len < 1024 ||
        (c->rbuf_filled && b->cap < READ_CHUNK)) {
        int why = 0;
        c->rbuf_filled = 0;
        MkErrorE rc = grow(c, &why);
        if (rc == MK_ERROR)
            return MK_ERROR;
        if (rc == MK_CONTINUE && b->len == b->cap) {
            note_full(c, why);
            return MK_CONTINUE;
        } /* else: what room there is, is read */
    }
    size_t n = 0;
    MkErrorE rc = recv_into(c, b->p + b->len, b->cap - b->len, flags, &n);
    if (rc == MK_OK) {
        c->rbuf_filled = n == b->cap - b->len;
        b->len += n;
    }
    return rc;
}

void
mqi_conn_nap(MK_I64 until)
{
    MK_I64 ms = RBUF_NAP_MS;
    if (until >= 0 && until - mqi_now_ms() < ms)
        ms = until - mqi_now_ms();
    if (ms > 0)
        wait_fd(-1, 0, ms); /* a negative fd: poll only sleeps */
}

/* A server whose client has closed (a write failed with EPIPE or a reset,
 * or the socket hung up while we waited for room) still has what the
 * client sent before it went to read: one-way calls it meant to be served.
 * Its answers go nowhere now, so they are dropped, and the loop reads on to
 * the end of file.  A client's writes are calls: failing is its answer. */
static int
peer_deaf(mqi_conn *c, const char *why)
{
    if (!c->is_server)
        return 0;
    if (!c->deaf_peer)
        note(c, "the client has gone (%s): serving what it sent before, answers dropped", why);
    c->deaf_peer = 1;
    c->wbuf.off = c->wbuf.len = 0;
    return 1;
}

MkErrorE
mqi_conn_flush_within(mqi_conn *c, MK_I64 timeout_ms)
{
    mqi_bytes *b = &c->wbuf;
    if (b->off == b->len) {
        b->off = b->len = 0;
        return MK_OK;
    }
    /* Nothing stored leaves before it is committed: one commit for all the
     * persistent calls and answers in this buffer (group commit). */
    if (c->before_flush && c->before_flush(c) != MK_OK)
        return MK_ERROR;
    if (c->deaf_peer) {
        b->off = b->len = 0;
        return MK_OK;
    }
    c->sent_after_up |= c->up;
    if (c->tune_later && c->up) {
        c->tune_later(c->fd);
        c->tune_later = NULL;
    }
    MK_I64 deadline = -2; /* taken when a write first has to wait */
    while (b->off < b->len) {
        ssize_t n = c->io->send(c, b->p + b->off, b->len - b->off);
        if (n > 0) {
            b->off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == MQI_IO_FAILED)
            return MK_ERROR;
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET) && peer_deaf(c, strerror(errno)))
            return MK_OK;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            mqi_conn_fail(c, MQ_ERR_LINK, "write failed: %s", strerror(errno));
            return MK_ERROR;
        }
        if (deadline == -2)
            deadline = timeout_ms < 0 ? -1 : mqi_now_ms() + timeout_ms;
        MK_I64 left = deadline < 0 ? -1 : deadline - mqi_now_ms();
        if (deadline >= 0 && left <= 0) {
            mqi_conn_fail(c, MQ_ERR_TIMEOUT, "peer did not read for %lld ms, link closed",
                          (long long)timeout_ms);
            return MK_ERROR;
        }
        /* While the peer's buffer is full, take in what it sends us: it may
         * be blocked writing to us.  When our read buffer has no room, wait
         * for writability only: input we cannot take would end every wait
         * at once.  Room the other links free (--max-buffered) is looked
         * for now and then. */
        short events = c->rbuf_full ? POLLOUT : POLLOUT | POLLIN;
        MK_I64 wait = left;
        if (c->rbuf_full == MQI_RBUF_ALL && (wait < 0 || wait > RBUF_NAP_MS))
            wait = RBUF_NAP_MS;
        int ev = wait_fd(c->fd, events, wait);
        if (ev < 0 && mqi_block_stopped()) {
            /* interrupted (Thread#raise): the runtime refuses new waits until
             * the call returns, so another try would only spin; a frame cut
             * short cannot be resumed, so the link ends */
            mqi_conn_fail(c, MQ_ERR_LINK, "write interrupted with %zu bytes unsent", b->len - b->off);
            return MK_ERROR;
        }
        if (ev >= 0 && ((ev & POLLIN) || c->rbuf_full == MQI_RBUF_ALL) &&
            mqi_conn_fill(c) == MK_ERROR)
            return MK_ERROR;
        if (ev > 0 && (ev & (POLLERR | POLLHUP)) && !(ev & POLLOUT) &&
            peer_deaf(c, "hung up while we waited to write"))
            return MK_OK;
        if (ev > 0 && (ev & (POLLERR | POLLNVAL)) && !(ev & POLLOUT)) {
            mqi_conn_fail(c, MQ_ERR_LINK, "connection broken while writing");
            return MK_ERROR;
        }
    }
    b->off = b->len = 0;
    return MK_OK;
}

static MkErrorE
write_all(mqi_conn *c, const void *p, size_t n)
{
    unsigned char *w = c->wbuf.p;
    if (c->wbuf.cap - c->wbuf.len < n &&
        !(w = mki_grow(c->wbuf.p, &c->wbuf.cap, c->wbuf.len + n, 1))) {
        mqi_conn_fail(c, MK_ERR_MEMORY, "out of memory for the write buffer");
        return MK_ERROR;
    }
    c->wbuf.p = w;
    memcpy(w + c->wbuf.len, p, n);
    c->wbuf.len += n;
    return MK_OK;
}

/* The preamble goes out and comes in on its own, exactly its bytes, so
 * that a link ended right after its handshake (a parent started and
 * deleted) never allocates its buffers. */
MkErrorE
mqi_conn_send_preamble(mqi_conn *c)
{
    unsigned char pre[MQI_PREAMBLE_SIZE];
    mqi_preamble_encode(pre, c->is_server);
    ssize_t n = c->wbuf.len ? 0 : c->io->send(c, pre, sizeof pre);
    if (n == (ssize_t)sizeof pre)
        return MK_OK;
    /* a full socket buffer, or an error: the buffered path waits or reports */
    if (n < 0)
        n = 0;
    if (write_all(c, pre + n, sizeof pre - (size_t)n) != MK_OK)
        return MK_ERROR;
    return mqi_conn_flush(c);
}

/* A client's wait for its handshake's answer on a socket whose waits poll
 * (no receive timeout on it) reads at once, blocking, when a keeper keeps
 * its deadline (keeper.c): one system call instead of poll + read.  Not
 * when the deadline is near (below 2 ms: the keeper's clock is coarse). */
static mqi_keeper *
answer_keeper(const mqi_conn *c, MK_I64 left)
{
    if (c->is_server || c->rcvtimeo_ms > 0 || left < 2)
        return NULL;
    return mqi_thread_keeper();
}

MkErrorE
mqi_conn_recv_preamble(mqi_conn *c, MK_I64 timeout_ms)
{
    unsigned char pre[MQI_PREAMBLE_SIZE];
    size_t have = 0;
    MK_I64 deadline = -1; /* taken by the first wait: a server's look needs no clock */
    /* A server reads the client's preamble first without waiting: the
     * client sends it right after connect, so by the time an instance
     * runs it is nearly always there, and poll would cost a system call
     * per parent for nothing.  A client's answer is not there yet. */
    int look = c->is_server;
    while (have < sizeof pre) {
        int flags = MSG_DONTWAIT, ev = 0;
        mqi_keeper *k = NULL;
        if (look || mqi_conn_buffered(c)) {
            look = 0; /* a server's first look, or decrypted input waiting (poll would not see it) */
        } else {
            MK_I64 left = -1;
            if (timeout_ms >= 0) {
                MK_I64 now = mqi_now_ms();
                if (deadline < 0)
                    deadline = now + timeout_ms;
                if ((left = deadline - now) <= 0) {
                    mqi_conn_fail(c, MQ_ERR_TIMEOUT, "no handshake from the peer within %lld ms",
                                  (long long)timeout_ms);
                    return MK_ERROR;
                }
            }
            /* as in the loop: a read that waits, when its receive timeout
             * ends before the deadline (one system call instead of poll + read) */
            if (c->rcvtimeo_ms > 0 && (left < 0 || left >= c->rcvtimeo_ms))
                flags = 0;
            else if ((k = answer_keeper(c, left)) != NULL)
                flags = 0; /* a read that waits, its deadline kept */
            else if ((ev = wait_fd(c->fd, POLLIN, left)) == 0)
                continue;
        }
        if (ev < 0) {
            mqi_conn_fail(c, MQ_ERR_LINK, "waiting for the handshake failed: %s", strerror(errno));
            return MK_ERROR;
        }
        size_t n = 0;
        if (k)
            k->arm(k, c->fd, deadline);
        MkErrorE rc = recv_into(c, pre + have, sizeof pre - have, flags, &n);
        if (k && k->disarm(k)) { /* its shutdown ended the read */
            MkErrorReset(c->err);
            mqi_conn_fail(c, MQ_ERR_TIMEOUT, "no handshake from the peer within %lld ms",
                          (long long)timeout_ms);
            return MK_ERROR;
        }
        if (rc == MK_ERROR)
            return MK_ERROR;
        if (!flags && !n && mqi_block_stopped()) {
            /* interrupted (Thread#raise): the runtime refuses new waits until
             * the call returns, so another read would only spin */
            mqi_conn_fail(c, MQ_ERR_LINK, "waiting for the handshake failed: %s", strerror(EINTR));
            return MK_ERROR;
        }
        have += n;
    }
    return mqi_preamble_decode(pre, &c->swap, c->err);
}

MkErrorE
mqi_conn_write_raw(mqi_conn *c, const mqi_hdr *h, const void *body)
{
    unsigned char hdr[MQI_HDR_SIZE];
    mqi_hdr_encode(hdr, h);
    if (c->trace_frame)
        c->trace_frame(c, "out", h);
    if (write_all(c, hdr, sizeof hdr) != MK_OK || (h->len && write_all(c, body, h->len) != MK_OK))
        return MK_ERROR;
    return c->wbuf.len >= c->flush_at ? mqi_conn_flush(c) : MK_OK;
}

MkErrorE
mqi_conn_write_frame(mqi_conn *c, mqi_hdr *h, const MkBufferStreamC *body)
{
    h->items = body ? (uint32_t)body->count : 0;
    h->len = body ? (uint32_t)body->len : 0;
    return mqi_conn_write_raw(c, h, body ? body->data : NULL);
}

MkErrorE
mqi_conn_write_within(mqi_conn *c, mqi_hdr *h, const MkBufferStreamC *body, MK_I64 timeout_ms)
{
    unsigned char hdr[MQI_HDR_SIZE];
    h->items = body ? (uint32_t)body->count : 0;
    h->len = body ? (uint32_t)body->len : 0;
    mqi_hdr_encode(hdr, h);
    if (c->trace_frame)
        c->trace_frame(c, "out", h);
    if (write_all(c, hdr, sizeof hdr) != MK_OK || (h->len && write_all(c, body->data, h->len) != MK_OK))
        return MK_ERROR;
    return c->wbuf.len >= c->flush_at ? mqi_conn_flush_within(c, timeout_ms) : MK_OK;
}

MkErrorE
mqi_conn_child_check(const mqi_conn *c, uint32_t id, MkErrorC *err)
{
    if (c->children.used >= c->max_children)
        return MkErrorSet(err, MK_ERR_MEMORY,
                          "the link holds %u child contexts, its limit (--max-children)",
                          c->max_children);
    if (id && mqi_idmap_get(&c->children, id))
        return MkErrorSet(err, MQ_ERR_PROTOCOL, "child id %u is already in use", id);
    return MK_OK;
}

MkErrorE
mqi_conn_attach(mqi_conn *c, MqContextC *ctx, uint32_t id)
{
    if (id == 0 && !ctx->parent) {
        if (c->parent)
            return MkErrorSet(ctx->err, MQ_ERR_PROTOCOL, "the link has a parent already");
        c->parent = ctx;
    } else {
        if (mqi_conn_child_check(c, id, ctx->err) != MK_OK)
            return MK_ERROR;
        if (id == 0) /* a client child: the next free id (at most used + 1 tries) */
            for (id = c->child_hint; id == 0 || mqi_idmap_get(&c->children, id); id++)
                ;
        if (mqi_idmap_put(&c->children, id, ctx) != MK_OK)
            return MkErrorSet(ctx->err, MK_ERR_MEMORY, "out of memory for child %u", id);
        c->child_hint = id + 1;
    }
    ctx->child_id = id;
    ctx->conn = c;
    return MK_OK;
}

void
mqi_conn_detach(mqi_conn *c, MqContextC *ctx)
{
    if (ctx->child_id == 0 && c->parent == ctx)
        c->parent = NULL;
    else if (ctx->child_id && mqi_idmap_get(&c->children, ctx->child_id) == ctx)
        mqi_idmap_take(&c->children, ctx->child_id);
    if (ctx->child_id > 0 && ctx->child_id < c->child_hint)
        c->child_hint = ctx->child_id;
    ctx->conn = NULL;
}
