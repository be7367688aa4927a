/* link_int.h — link internals: contexts, connections, frames, the event loop.
 * Internal names use the mqi_ prefix; nothing here is installed.
 *
 * Who owns what:
 *  - A connection (mqi_conn) belongs to its parent context and dies with the
 *    parent's link; children borrow it.
 *  - Server instances made by the factory (each accepted connection, each
 *    child a client opens) belong to the library (lib_owned) and are deleted
 *    by it when their link ends.  Contexts made by MqContextCreate belong to
 *    the application.
 */
#ifndef MQ_LINK_INT_H
#define MQ_LINK_INT_H

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "config.h"
#include "mk_internal.h"
#include "mqlink.h"

/* A link internal a module (mqi_module_load) calls: exported from the shared
 * library beside the public API (tests/abi_test.sh lists these as allowed).
 * Protected: the library's own calls still bind to it directly, not through
 * the PLT that a preemptible symbol would need (several are on every call).
 * A module (built with -DMQI_IN_MODULE) refers to them plainly. */
#ifdef MQI_IN_MODULE
#define MQI_SHARED /* a module's references: resolved in libmqlink */
#else
#define MQI_SHARED __attribute__((visibility("protected")))
#endif

/* ------------------------------------------------------------ wire format */

#define MQI_MAGIC0 'M'
#define MQI_MAGIC1 'Q'
#define MQI_VERSION 1
#define MQI_HDR_SIZE 32
#define MQI_PREAMBLE_SIZE 16
#define MQI_DEFAULT_MAX_FRAME (64u * 1024 * 1024)
#define MQI_DEFAULT_BUFFERSIZE (64u * 1024)
#define MQI_DEFAULT_MAX_CHILDREN 1024u
#define MQI_DEFAULT_MAX_SENDERS 1024          /* --max-senders */
#define MQI_DEFAULT_MAX_STORAGE (1LL << 30)   /* --max-storage */
#define MQI_DEFAULT_MAX_BUFFERED ((size_t)256 * 1024 * 1024)
#define MQI_DEFAULT_MAX_CONNECTIONS 256
#define MQI_DEFAULT_IDLE_SEC 300
#define MQI_DEFAULT_FRAME_SEC 30
#define MQI_MAX_NEST 64   /* calls served inside calls on one connection */

/* Frame kinds. */
enum mqi_kind {
    MQI_CALL_WAIT = 1, /* call, the caller waits for the answer */
    MQI_CALL_CB = 2,   /* call, the answer goes to a callback */
    MQI_ONEWAY = 3,    /* call without answer */
    MQI_RETURN = 4,    /* answer */
    MQI_ERROR = 5,     /* error answer (trans 0: error of a one-way call) */
    MQI_KIND_MAX = 5
};

/* Header flags. */
#define MQI_F_INTERNAL 0x1u /* link-internal call (child create/delete) */
#define MQI_F_PERSIST 0x2u  /* trans is a persistent transaction id (storage) */
#define MQI_F_RETRY 0x4u    /* error answer of a persistent call: refused for now,
                             * the sender keeps the call and sends it again */

/* Frame header, 32 bytes in the sender's byte order:
 *   0 magic 'M''Q'  2 version  3 kind  4 token[4]  8 child u32  12 flags u32
 *  16 trans u64    24 items u32  28 body length u32 */
typedef struct mqi_hdr {
    uint8_t kind;
    char token[5];
    uint32_t child;
    uint32_t flags;
    uint64_t trans;
    uint32_t items;
    uint32_t len;
} mqi_hdr;

MQI_SHARED void mqi_hdr_encode(unsigned char *out, const mqi_hdr *h);
/* Decode and check a header; reason in err. */
MkErrorE mqi_hdr_decode(const unsigned char *in, int swap, uint32_t max_frame, mqi_hdr *h,
                        MkErrorC *err);
/* The connect preamble: "MQLK", version, byte order ('L'/'B'), flags. */
void mqi_preamble_encode(unsigned char *out, int is_server);
MkErrorE mqi_preamble_decode(const unsigned char *in, int *swap, MkErrorC *err);
/* s as a number when it is plain digits (at least one, below 2^58): 1 and
 * *v, else 0 and the caller reads it with strtol/strtoll.  A client's
 * --port is read at every LinkCreate, twice (its option row, then tcp.c),
 * and strtoll's locale handling was 180 instructions each per parent. */
static inline int
mqi_plain_digits(const char *s, long long *v)
{
    long long n = 0;
    const char *d = s;
    for (; *d >= '0' && *d <= '9' && n < (1LL << 58); d++)
        n = n * 10 + (*d - '0');
    if (*d || d == s)
        return 0;
    *v = n;
    return 1;
}
/* True for a valid service token: exactly 4 printable ASCII characters
 * (checked in order, so a shorter string is never read past its end). */
static inline int
mqi_token_valid(const char *token)
{
#define MQI_PRINTABLE(c) ((unsigned)((unsigned char)(c) - 0x21) < 0x5e)
    return token && MQI_PRINTABLE(token[0]) && MQI_PRINTABLE(token[1]) &&
           MQI_PRINTABLE(token[2]) && MQI_PRINTABLE(token[3]) && token[4] == '\0';
#undef MQI_PRINTABLE
}

/* ------------------------------------------------------------ configuration */

enum mqi_tp { MQI_TP_NONE = 0, MQI_TP_PIPE, MQI_TP_UDS, MQI_TP_TCP };

typedef struct mqi_config {
    char *name;
    char *srvname;
    size_t buffersize;   /* write buffer flush threshold */
    MK_I64 timeout_ms;
    uint32_t max_frame;
    uint32_t max_children; /* child contexts one link may hold */
    int debug;
    int silent;
    enum mqi_tp tp;
    int start;           /* the start mode's id (start/start.h), 0: none */
    char *file;          /* uds path */
    char *host;          /* tcp host */
    char *port;          /* tcp port */
    int socket_fd;       /* --socket N: serve an inherited socket */
    /* Not an option: a listener whose accepted sockets inherit the
     * listening socket's options (transport.h) set SO_RCVTIMEO there once;
     * its instances' sockets come with this receive timeout (0: none). */
    MK_I64 accepted_rcvtimeo_ms;
    char **srv_argv;     /* pipe: server program and arguments (after @) */
    int srv_argc;
    char *storage;       /* --storage FILE for persistent delivery */
    int sync_full;       /* --sync full (default) or normal */
    MK_I64 max_senders;  /* --max-senders: sender identities a receiver keeps files for */
    MK_I64 max_storage;  /* --max-storage: bytes of a receiver's storage files together */
    size_t max_buffered; /* --max-buffered: read buffers of all links in the process */
    int max_connections; /* --max-connections: a listener's instances alive at once */
    MK_I64 idle_ms;      /* --idle-timeout: a listener's link with no call closes (0: never) */
    MK_I64 frame_ms;     /* --frame-timeout: a started frame or handshake completes (0: never) */
    char *tls_cert;      /* tcp: --tls-cert, --tls-key, --tls-ca, --tls-name (TLS on with either */
    char *tls_key;       /*      of --tls-cert or --tls-ca) */
    char *tls_ca;
    char *tls_name;
    int tls_fd;          /* spawned instance: the listener's key material (hidden --tls-fd) */
    int allow_plaintext; /* --allow-plaintext: a non-loopback bind without TLS on purpose */
    int borrowed;        /* the strings are a listener's (mqi_config_borrow): not freed */
    /* What a transport built from the options at link creation (TLS: the
     * SSL_CTX).  Instances of a listener borrow the listener's (owned 0). */
    struct {
        void *state;
        void (*release)(void *state);
        int owned;
        /* --spawn: "--<pass_option> <pass_fd>" hands a spawned instance
         * the state as an inherited descriptor (NULL: nothing to pass) */
        const char *pass_option;
        int pass_fd;
    } secure;
    /* The strings above that fit live here, not on the heap
     * (mqi_config_strdup): a client's name and --file cost a parent link
     * no malloc and free (2 of its 4 pairs, ~300 instructions).  55 bytes
     * keep a context at 1 024 on x86_64, in glibc's per-thread cache of
     * freed blocks (up to 1 032); a string that does not fit, or comes
     * when they are used up, goes to the heap.  Used space is not
     * reclaimed: a string set again takes more of it, so a context whose
     * name or options change often soon has its strings on the heap.
     * Last: mqi_config_borrow copies what comes before, not these. */
    char text[55];
    unsigned char text_used;
} mqi_config;

/* The defaults of a zeroed configuration (every field not set here is 0). */
void mqi_config_defaults(mqi_config *c);
/* Free what c holds; c is garbage after it (overwritten, or its context
 * goes away). */
void mqi_config_release(mqi_config *c);
/* Copy the link options of src (not the pipe server command). */
void mqi_config_copy(mqi_config *dst, const mqi_config *src);
/* The same sharing src's strings, for the instances of a listener: its
 * configuration is not written while it listens and outlives them (the
 * listener's link ends only when the process does, or before any instance
 * started; a --fork instance has its own copy of the process).  Not for a
 * child instance: its template, the parent instance, is the application's
 * to rename.  Every writer of a string (MqConfigSetName, option parsing)
 * calls mqi_config_own first, which copies them.  Per parent on a
 * --thread server: two strdup and two free less (uds: name and file). */
void mqi_config_borrow(mqi_config *dst, const mqi_config *src);
void mqi_config_own(mqi_config *c);
/* A copy of s (not NULL) for one of c's strings, in c->text when it fits:
 * free it with mqi_config_strfree.  NULL when out of memory. */
char *mqi_config_strdup(mqi_config *c, const char *s);
void mqi_config_strfree(mqi_config *c, char *s);
/* Parse command-line style options into ctx's configuration. */
MkErrorE mqi_options_parse(MqContextC *ctx, int argc, const char **argv);
/* --version: print "PROGRAM (mqlink VERSION)" and exit 0 (version.c). */
void mqi_version_exit(MqContextC *ctx, const char *argv0);

/* ------------------------------------------------------------- callbacks */

typedef struct mqi_cb {
    MqServiceCallF fn;
    void *data;
    MqDataFreeF free;
} mqi_cb;

typedef struct mqi_service {
    uint32_t token; /* the 4 characters as one word */
    mqi_cb cb;
} mqi_service;

/* An outstanding call: a waiter on the stack of SendEND_AND_WAIT, or a
 * callback on the heap. */
typedef struct mqi_pending {
    uint64_t trans;
    MqContextC *ctx;
    int done;     /* answer arrived */
    int failed;   /* the answer was an error */
    mqi_cb cb;    /* callback, or fn == NULL for a waiter */
    MK_I64 deadline; /* callbacks: when to give up (-1: never) */
    struct mqi_pending *next_free;
} mqi_pending;

struct mqi_conn;

/* A table from ids to pointers (idmap.c): an id, which may come from the
 * peer, keys it and never sizes it.  val NULL marks a free slot. */
typedef struct mqi_idmap_slot {
    uint64_t id;
    void *val;
} mqi_idmap_slot;
typedef struct mqi_idmap {
    mqi_idmap_slot *slot;
    size_t cap;   /* power of two, 0 until the first entry */
    size_t used;
} mqi_idmap;

/* Add id (not present yet) -> val (not NULL); on MK_ERROR nothing changed. */
MkErrorE mqi_idmap_put(mqi_idmap *m, uint64_t id, void *val);
MQI_SHARED void *mqi_idmap_get(const mqi_idmap *m, uint64_t id);
/* Remove id and return its value (NULL when absent). */
void *mqi_idmap_take(mqi_idmap *m, uint64_t id);
void mqi_idmap_free(mqi_idmap *m);

/* The calls waiting for answers, by transaction. */
typedef mqi_idmap mqi_pend_table;

MQI_SHARED MkErrorE mqi_pend_add(mqi_pend_table *t, mqi_pending *p);
/* A callback record from the connection's free list (or malloc), its
 * fields left for the caller to set, every one; and back to it: a call with
 * callback allocates nothing in steady state. */
MQI_SHARED mqi_pending *mqi_pend_alloc(struct mqi_conn *c);
MQI_SHARED void mqi_pend_release(struct mqi_conn *c, mqi_pending *p);
MQI_SHARED mqi_pending *mqi_pend_take(mqi_pend_table *t, uint64_t trans);
void mqi_pend_free(mqi_pend_table *t, void (*drop)(mqi_pending *));

/* ------------------------------------------------------------ connection */

typedef struct mqi_bytes {
    unsigned char *p;
    size_t off; /* first unread / unwritten byte */
    size_t len;
    size_t cap;
} mqi_bytes;

/* A connection's byte I/O: the plain socket (conn.c) unless a transport
 * installs another (TLS).  recv and send behave like recv(2)/send(2) on a
 * non-blocking socket (> 0 bytes, 0 end of stream, -1 with errno; EAGAIN:
 * not now); recv with wait set may block up to the socket's receive
 * timeout.  A failure of the layer itself (a TLS alert) fails the
 * connection with its reason and returns -1 with errno MQI_IO_FAILED. */
struct mqi_conn;
typedef struct mqi_io {
    ssize_t (*recv)(struct mqi_conn *c, void *p, size_t cap, int wait);
    ssize_t (*send)(struct mqi_conn *c, const void *p, size_t n);
    /* bytes taken from the socket but not yet returned by recv: poll does
     * not see them (NULL: none ever) */
    size_t (*buffered)(const struct mqi_conn *c);
    /* before the socket closes: say goodbye, free io_state (may be NULL) */
    void (*close)(struct mqi_conn *c);
} mqi_io;
#define MQI_IO_FAILED EPROTO

typedef struct mqi_conn {
    int fd;
    const mqi_io *io;   /* how bytes move (plain socket by default) */
    void *io_state;
    int swap;           /* peer has the other byte order */
    int up;             /* handshake done, not closed */
    int is_server;
    int stop_arms;      /* a server served by the stop signals' owner: arms its waits (stop.c) */
    int trace;          /* log level of trace.h's lines, taken when the link is made */
    pid_t pid;          /* pipe server started by us, reaped on close */
    int await_close;    /* client sent _CLS: the server closes first (tcp.c) */
    int reset_on_close; /* _CLS read (server) or acknowledged (client): close with a reset (conn.c) */
    int deaf_peer;      /* server: the client stopped reading (conn.c: peer_deaf) */
    int sent_after_up;  /* bytes went out after the handshake (mqi_conn_peer_read_all) */
    MkErrorC *err;      /* why the connection ended: points at err_store */
    MkErrorC err_store;
    mqi_bytes rbuf;
    int rbuf_filled;    /* the last read filled the read buffer */
    int rbuf_full;      /* no room to read into: MQI_RBUF_LINK or MQI_RBUF_ALL */
    int limits_noted;   /* the MQI_RBUF_* limits logged for this link (once each) */
    size_t max_buffered;
    MK_I64 idle_ms;     /* links from a listener (link.c): their limits, 0 for none */
    MK_I64 frame_ms;
    MK_I64 idle_since;  /* when the loop began waiting with nothing to do (-1) */
    MK_I64 frame_since; /* when the loop first saw the frame now incomplete (-1) */
    mqi_bytes wbuf;
    size_t flush_at;
    uint32_t max_frame;
    MK_I64 timeout_ms;  /* for blocking writes */
    MK_I64 rcvtimeo_ms; /* SO_RCVTIMEO: the longest a blocking read waits (0: none, waits poll) */
    uint64_t next_trans;
    MqContextC *parent; /* child id 0 */
    mqi_idmap children; /* child id -> context; ids are the peer's names, never sizes */
    uint32_t max_children;
    uint32_t child_hint; /* client: where the search for a free id starts */
    mqi_pend_table pend;
    MK_I64 cb_deadline; /* earliest callback deadline, -1 for none */
    mqi_pending *free_pend; /* callback records kept for reuse */
    int nfree_pend;
    /* The byte layer's two hooks, set by the layers above: before_flush runs
     * before the write buffer leaves (the storage layer commits there, so
     * nothing stored leaves before it is durable; NULL: nothing to run);
     * note logs a limit acting on the link (NULL: not logged). */
    MkErrorE (*before_flush)(struct mqi_conn *c);
    void (*note)(struct mqi_conn *c, const char *text);
    /* Socket options the transport sets at the first flush once the link
     * is up (transport.h: tune_at_first_write); NULL: none left to set. */
    void (*tune_later)(int fd);
    /* Prints each frame written (trace.c), set only at --debug 4: a NULL
     * costs the byte layer one compare per frame, and it calls nothing above. */
    void (*trace_frame)(const struct mqi_conn *c, const char *dir, const struct mqi_hdr *h);
    /* the storage layer's per-link facts, kept here for its speed */
    int sid_sent;       /* our storage identity went to the peer */
    char *peer_id;      /* the peer's storage identity (receiver side) */
    uint32_t answers_since_lwm;
    /* Received bodies by dispatch depth: MQI_MAX_NEST entries, allocated
     * with the first frame, so a link that ends after its handshake (a
     * parent) neither allocates nor zeroes them (512 bytes a side). */
    MkBufferStreamC **rstack;
    int nrstack;                           /* rstack entries ever created */
    int depth;
} mqi_conn;

/* Why a read buffer has no room: its own limit (room comes when frames are
 * taken out) or the limit of all links together (when others free theirs). */
#define MQI_RBUF_LINK 1
#define MQI_RBUF_ALL 2

mqi_conn *mqi_conn_create(int fd, const mqi_config *cfg, int is_server);
/* Give fd the receive timeout cfg asks for (conn.c); returns it in ms, 0: none. */
MK_I64 mqi_rcvtimeo_set(int fd, const mqi_config *cfg, int is_server);
/* Close the socket, reap a pipe server, free everything. */
void mqi_conn_free(mqi_conn *c);
/* Mark the connection down with a reason (first reason wins). */
MQI_SHARED void mqi_conn_fail(mqi_conn *c, MK_I32 code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with a text that lives as long as the program (a literal): the
 * connection's error points at it (the ordinary end of every link). */
void mqi_conn_fail_fixed(mqi_conn *c, MK_I32 code, const char *text);
/* Write everything buffered; reads incoming bytes meanwhile so both peers
 * can never block each other.  When the peer reads nothing for timeout_ms
 * (negative: no bound), the link is closed (MQ_ERR_TIMEOUT): a frame may be
 * half written, so the stream cannot go on. */
MQI_SHARED MkErrorE mqi_conn_flush_within(mqi_conn *c, MK_I64 timeout_ms);
/* The same with the connection's timeout (negative: none). */
static inline MkErrorE
mqi_conn_flush(mqi_conn *c)
{
    return mqi_conn_flush_within(c, c->timeout_ms);
}
/* A client's plain link that has sent nothing since its handshake: the
 * server's answer to the preamble shows it read every byte we sent, so a
 * reset (SO_LINGER 0) loses nothing (conn.c: all_acknowledged says why a
 * reset leaves what the peer received readable). */
int mqi_conn_peer_read_all(const mqi_conn *c);
/* Read what the socket has; MK_CONTINUE when nothing was there. */
MkErrorE mqi_conn_fill(mqi_conn *c);
/* Read, blocking until data, end of file or rcvtimeo_ms (MK_CONTINUE). */
MkErrorE mqi_conn_fill_wait(mqi_conn *c);
/* With no room to read into (rbuf_full): sleep a moment, at most until
 * until (-1: no bound), before looking for room again. */
void mqi_conn_nap(MK_I64 until);
/* Exchange preambles (client first, server after its setup). */
MkErrorE mqi_conn_send_preamble(mqi_conn *c);
MkErrorE mqi_conn_recv_preamble(mqi_conn *c, MK_I64 timeout_ms);
/* Append one frame; flushes when the buffer passes its threshold. */
MQI_SHARED MkErrorE mqi_conn_write_frame(mqi_conn *c, mqi_hdr *h, const MkBufferStreamC *body);
/* The same, a flush it needs waiting timeout_ms at most (mqi_conn_flush_within). */
MkErrorE mqi_conn_write_within(mqi_conn *c, mqi_hdr *h, const MkBufferStreamC *body,
                               MK_I64 timeout_ms);
/* The same with an encoded body; h->items and h->len must be set. */
MQI_SHARED MkErrorE mqi_conn_write_raw(mqi_conn *c, const mqi_hdr *h, const void *body);
/* Input that is read but not yet seen by a poll of the socket (TLS). */
static inline int
mqi_conn_buffered(const mqi_conn *c)
{
    return c->io->buffered && c->io->buffered(c) > 0;
}
/* Register ctx under a child id: id 0 for the parent; for a client child
 * (ctx->parent set, id 0) a free id; on the server the peer's id, refused
 * when in use or past --max-children. */
MkErrorE mqi_conn_attach(mqi_conn *c, MqContextC *ctx, uint32_t id);
/* Whether one more child, with id (0: any free one), may join the link. */
MkErrorE mqi_conn_child_check(const mqi_conn *c, uint32_t id, MkErrorC *err);
void mqi_conn_detach(mqi_conn *c, MqContextC *ctx);
/* The context of a child id (0: the parent), NULL when there is none. */
static inline MqContextC *
mqi_conn_context(const mqi_conn *c, uint32_t id)
{
    return id == 0 ? c->parent : (MqContextC *)mqi_idmap_get(&c->children, id);
}

/* ------------------------------------------------------------- context */

typedef struct mqi_call {
    uint8_t kind;       /* 0 outside a service */
    char token[5];
    uint64_t trans;
    int answered;
    uint32_t flags;     /* the call's header flags: a layer's (hooks) writes its answer */
} mqi_call;

struct MqContextC {
    mqi_config cfg;
    mqi_conn *conn;           /* NULL while unlinked */
    MqContextC *parent;       /* NULL for a parent */
    uint32_t child_id;
    int lib_owned;            /* a server instance the library deletes */
    int is_server;
    MkErrorC *err;
    MkErrorC err_store;  /* what err points at: no allocation per context */
    MkErrorC *async_err;      /* error of a one-way call, for the next loop turn */
    MkBufferStreamC send;     /* message being built */
    MkBufferStreamC *ret;     /* answer of the last SendEND_AND_WAIT (handed over; NULL
                               * before the first: a parent that only links never needs it) */
    MkBufferStreamC *rd;      /* message being read (see the answer's handover) */
    mqi_service *svc;         /* svc_inline until more services come (service.c) */
    int nsvc;
    int capsvc;
    /* As many services as most servers create in their setup: an instance
     * (one per parent) allocates no table for them. */
    mqi_service svc_inline[8];
    mqi_call call;            /* the call being served */
    mqi_cb setup;
    int setup_owned;          /* free setup.data on delete */
    struct {
        MqFactoryF fn;
        void *data;
        MqDataFreeF free;
        int owned;
    } factory;
    void *userdata;
    void (*destroy_fn)(MqContextC *, void *);
    void *destroy_data;
    struct mqi_storage *storage; /* persistent calls, both roles (parents only) */
    struct mqi_persist_state *pst; /* persist*.c's own state (parents only) */
    mqi_cb txn_handler;       /* answers of re-sent persistent calls */
    char *spawn_cmd;          /* listener with --spawn: our own command line */
    size_t spawn_cmd_len;
    dev_t uds_dev;            /* listener: the socket file it made (uds.c) */
    ino_t uds_ino;
};

/* ------------------------------------------------ the answer's handover
 *
 * ctx->rd is the stream ctx reads: the body of the call it serves or of the
 * answer its callback runs with, both the connection's (one receive stream
 * per dispatch depth, c->rstack), or ctx->ret, the answer of ctx's last
 * SendEND_AND_WAIT, which is ctx's own.  A waiter's answer is handed over,
 * not copied: the stream it arrived in becomes ctx->ret, and the old ret
 * takes its place in c->rstack, where the next frame of that depth lands.
 *
 * Invariant: ctx never reads a stream the connection may write into.  So a
 * nested run (a service, a callback) that ends restores what ctx read
 * before it, except that a reader of ctx->ret reads the new ctx->ret: a
 * wait inside the run may have handed its old stream to the connection. */
typedef struct mqi_reading {
    MkBufferStreamC *rd, *ret;
} mqi_reading;

/* A waiter's answer body (received at the connection's current depth)
 * becomes to->ret. */
static inline void
mqi_answer_hand_over(struct mqi_conn *c, MqContextC *to, MkBufferStreamC *body)
{
    c->rstack[c->depth] = to->ret;
    to->ret = body;
}

/* ctx reads body until mqi_read_end with what this returns. */
static inline mqi_reading
mqi_read_begin(MqContextC *ctx, MkBufferStreamC *body)
{
    mqi_reading was = {ctx->rd, ctx->ret};
    ctx->rd = body;
    return was;
}

static inline void
mqi_read_end(MqContextC *ctx, mqi_reading was)
{
    ctx->rd = was.rd && was.rd == was.ret ? ctx->ret : was.rd;
}

/* Log through the context's name and --debug / --silent settings. */
MQI_SHARED void mqi_log(MqContextC *ctx, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Whether mqi_log writes a line of level for ctx.  For a caller whose
 * arguments cost something: the end of every link logs its reason at
 * info, which is not written by default (~55 instructions per parent on
 * a server for the call, its reason's text and code). */
static inline int
mqi_log_on(MqContextC *ctx, int level)
{
    int limit = ctx->cfg.silent ? MK_LOG_ERROR : MkLogGetLevel();
    return level <= limit || level <= ctx->cfg.debug;
}
/* Error on ctx with MQ_ERR_LINK unless linked; for API entry points. */
MQI_SHARED MkErrorE mqi_check_linked(MqContextC *ctx, const char *what);
/* Set ctx's error from the connection's reason. */
MQI_SHARED MkErrorE mqi_link_error(MqContextC *ctx, const char *what);
/* Milliseconds on a monotonic clock.  Timeouts are milliseconds: the
 * coarse clock (a few ms resolution) is plenty, and reading it is cheaper
 * than the precise one on every call. */
static inline MK_I64
mqi_now_ms(void)
{
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (MK_I64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
/* When timeout_ms (MQ_TIMEOUT_DEFAULT: ctx's) from now is, -1 for never. */
MQI_SHARED MK_I64 mqi_deadline(MqContextC *ctx, MK_I64 timeout_ms);

/* A blocking section (MqSetBlockingCall, MqSetBlockingHooks): every system
 * call that may sleep is made by a fn(arg) run through mqi_block_run, and
 * nothing else is.  It keeps fn's errno.  It returns nonzero when the runtime
 * asks this thread to stop waiting (an interrupt): fn was woken or did not
 * run at all (errno EINTR then, so a caller starts from a failed result),
 * and mqi_block_stopped() says so until the thread's next section.  A caller
 * whose work must happen anyway (connect, a commit, reaping) runs fn itself
 * then, lock held. */
extern MqThreadHookF mqi_thread_start_fn, mqi_thread_end_fn;
MQI_SHARED int mqi_block_run(MqBlockingFnF fn, void *arg);
MQI_SHARED int mqi_block_stopped(void);
/* poll(2) as a blocking section (a timeout of 0 never sleeps: made directly). */
struct pollfd;
MQI_SHARED int mqi_block_poll(struct pollfd *p, unsigned long n, int timeout_ms);

/* ----------------------------------------------------------- event loop */

/* Serve the connection of ctx until waiter is done (waiter may be NULL),
 * the deadline (-1: none) passes or, with once, one frame was handled. */
MkErrorE mqi_loop(MqContextC *ctx, mqi_pending *waiter, MK_I64 deadline, int once);
/* A keeper of the deadline of a thread's wait (keeper.c: one thread of the
 * process keeps them all), so that the wait has no timeout of its own: a
 * wait with a timeout costs the kernel a high resolution timer set and
 * cancelled per wait (link/start/thread.c has the figures).  The loop of a
 * thread given one (mqi_keeper_set: the --thread pool's threads) waits for
 * its peer limits (--idle-timeout, --frame-timeout) so; a uds/pipe client
 * its handshake's answer (conn.c).  arm: the thread waits for input on fd
 * until deadline (mqi_now_ms); disarm: the wait ended, nonzero when the
 * deadline passed and the keeper ended it (it shut down fd's reading side:
 * the link ends there).  Only a deadline that ends the link goes to a
 * keeper. */
typedef struct mqi_keeper mqi_keeper;
struct mqi_keeper {
    void (*arm)(mqi_keeper *k, int fd, MK_I64 deadline);
    int (*disarm)(mqi_keeper *k);
};
/* The calling thread's keeper for the loop's waits (NULL: none, the waits
 * keep their own). */
void mqi_keeper_set(mqi_keeper *k);
/* The calling thread's slot in the process's keeper (keeper.c), started
 * with the first; NULL when there is none (a build without threads, or it
 * cannot start): the waits keep their own timeouts. */
mqi_keeper *mqi_thread_keeper(void);
/* Start fn(arg) in a detached thread with the signals in blocked blocked
 * (detached.c): 0, or -1 with errno.  Only in a build with threads. */
int mqi_thread_detached(void *(*fn)(void *), void *arg, const sigset_t *blocked);
/* The calling thread's name (at most 15 bytes): "mqlink-pool", "mqlink-watcher",
 * "mqlink-keeper" (detached.c). */
void mqi_thread_name(const char *name);
#ifdef MQ_HAVE_THREADS
#include <pthread.h>
#include <time.h>
/* detached.c: a condition variable on the monotonic clock, and now + ms on
 * that clock, for its timed waits. */
void mqi_cond_init_monotonic(pthread_cond_t *cv);
struct timespec mqi_after_ms(long ms);
#endif
/* Run every callback that timed out (or all, when the link is down) with
 * the reason as the context's error. */
void mqi_expire_callbacks(mqi_conn *c, int all);
/* Run the service for a received call on ctx. */
MQI_SHARED void mqi_serve_call(MqContextC *ctx, const mqi_hdr *h, MkBufferStreamC *body);
/* Answer a call with an error frame. */
MkErrorE mqi_send_error(MqContextC *ctx, uint64_t trans, MK_I32 code, const char *text);
/* Link-internal calls (child create / delete) arriving at a server. */
void mqi_serve_internal(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body);
/* Wait for the answer of a call sent with transaction key w->trans. */
MQI_SHARED MkErrorE mqi_wait_answer(MqContextC *ctx, mqi_pending *w, const char *what,
                                    const char *token, MK_I64 timeout_ms);

/* -------------------------------------------------------------- modules
 *
 * A layer whose library is costly to load (OpenSSL for TLS) is built as a
 * module, a shared object loaded on the first link that needs it, so a
 * program that never does pays nothing for it at start-up.  A module
 * exports one table of operations whose first member is the version of
 * mqlink it was built for (struct layouts are not an ABI across versions).
 * It is looked for in $MQLINK_MODULE_DIR when set, else beside the shared
 * libmqlink: DIR/mqlink/ (installed, $(pkglibdir)), then DIR/ (the build
 * tree, where libtool puts both in link/.libs/).  Builds without shared
 * libraries link the layers in and load nothing. */
/* The one symbol a module exports: its table. */
#define MQI_MODULE_TABLE __attribute__((visibility("default")))
typedef struct mqi_module_head {
    const char *version; /* PACKAGE_VERSION of the module's build */
} mqi_module_head;

/* The table symbol of module name (e.g. "mqlink_tls": file mqlink_tls.so),
 * kept in *slot: loaded once per process, on the first call; NULL with
 * ctx's error naming the file and the reason when it is missing, broken or
 * of another version, and why (what needs it) stacked on it.  A module is
 * never unloaded. */
const void *mqi_module_load(MqContextC *ctx, const void **slot, const char *name,
                            const char *symbol, const char *why);

/* ---------------------------------------------------------------- hooks
 *
 * The seams of the core.  A layer beside it (persistent storage: persist*.c
 * on storage/) plugs in through one table of hooks, listed in hooks.c, the
 * way a transport plugs in through its table of operations: the core calls
 * the hooks and names no layer; the layer calls down into the core (frames,
 * services, the event loop), never the core into it.  The byte layer has
 * its own two hooks on each connection (mqi_conn.before_flush, .note).
 * Every hook may be NULL. */
typedef struct mqi_hooks {
    const char *name;
    /* The header flag of the frames the layer handles (MQI_F_*), and the
     * link-internal tokens it handles, NULL-terminated. */
    uint32_t flag;
    const char *const *tokens;
    /* MqLinkCreate, its options parsed, before connecting or listening. */
    MkErrorE (*link_create)(MqContextC *ctx);
    /* A client's link is up (after its handshake). */
    MkErrorE (*link_up)(MqContextC *ctx);
    /* MqContextDelete, after the link is gone. */
    void (*context_delete)(MqContextC *ctx);
    /* A call frame with the flag arrived for ctx: serve it (mqi_serve_call)
     * or answer it. */
    void (*call)(MqContextC *ctx, const mqi_hdr *h, MkBufferStreamC *body);
    /* An answer frame with the flag arrived: set *key, the pending call it
     * answers, or return MK_CONTINUE when it answers nobody yet. */
    MkErrorE (*answer)(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body, uint64_t *key);
    /* The answer r (header made, flags 0) of a call that came with the flag. */
    MkErrorE (*answer_write)(MqContextC *ctx, mqi_hdr *r, const MkBufferStreamC *body);
    /* A link-internal frame with one of its tokens. */
    void (*internal)(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body);
} mqi_hooks;

/* Every layer's hooks, NULL-terminated (hooks.c). */
extern const mqi_hooks *const mqi_hooks_registered[];

/* The layer whose flag is among flags, NULL for none. */
static inline const mqi_hooks *
mqi_hooks_for(uint32_t flags)
{
    for (const mqi_hooks *const *l = mqi_hooks_registered; *l; l++)
        if ((*l)->flag & flags)
            return *l;
    return NULL;
}

/* The layer that handles the link-internal token, NULL for none. */
static inline const mqi_hooks *
mqi_hooks_for_token(const char *token)
{
    for (const mqi_hooks *const *l = mqi_hooks_registered; *l; l++)
        for (const char *const *t = (*l)->tokens; t && *t; t++)
            if (!memcmp(*t, token, 4))
                return *l;
    return NULL;
}

/* Every layer's link_create, link_up (the first error stops) and
 * context_delete hook. */
static inline MkErrorE
mqi_hooks_link_create(MqContextC *ctx)
{
    for (const mqi_hooks *const *l = mqi_hooks_registered; *l; l++)
        if ((*l)->link_create && (*l)->link_create(ctx) != MK_OK)
            return MK_ERROR;
    return MK_OK;
}

static inline MkErrorE
mqi_hooks_link_up(MqContextC *ctx)
{
    for (const mqi_hooks *const *l = mqi_hooks_registered; *l; l++)
        if ((*l)->link_up && (*l)->link_up(ctx) != MK_OK)
            return MK_ERROR;
    return MK_OK;
}

static inline void
mqi_hooks_context_delete(MqContextC *ctx)
{
    for (const mqi_hooks *const *l = mqi_hooks_registered; *l; l++)
        if ((*l)->context_delete)
            (*l)->context_delete(ctx);
}

/* Write the answer frame (kind MQI_RETURN or MQI_ERROR) of the call being
 * served on ctx; a call that came with a layer's flag, through its hook. */
static inline MkErrorE
mqi_answer_write(MqContextC *ctx, uint8_t kind, const MkBufferStreamC *body)
{
    mqi_hdr r = {.kind = kind, .child = ctx->child_id, .trans = ctx->call.trans};
    const mqi_hooks *layer = ctx->call.flags ? mqi_hooks_for(ctx->call.flags) : NULL;
    memcpy(r.token, ctx->call.token, 5);
    if (layer)
        return layer->answer_write(ctx, &r, body);
    return mqi_conn_write_frame(ctx->conn, &r, body);
}

/* ------------------------------------------------------------- servers */

/* A new server instance from the template (factory, configuration, setup);
 * a listener's instance borrows the template's strings (mqi_config_borrow). */
MqContextC *mqi_instance_create(MqContextC *tmpl, int of_listener);
/* Make ctx the server end of fd: handshake, run the setup, answer. */
MkErrorE mqi_server_attach(MqContextC *ctx, int fd);
/* Create an instance for fd, serve it until its link ends, delete it. */
void mqi_instance_serve(MqContextC *tmpl, int fd);
/* Listen, accept and start instances as configured (see mqlink.h). */
MkErrorE mqi_listen_serve(MqContextC *ctx);

/* stop.c: SIGINT, SIGTERM and SIGHUP of a server process set a flag (and end
 * the calling thread's waits: with EINTR, or an armed one, mqi_stop_arm,
 * through its socket's shutdown); mqi_stop_signal() is that signal, or 0.  Called by the thread that will wait, once the process listens or
 * serves as a server; later calls change nothing. */
void mqi_stop_catch(void);
/* A listener that could not listen gives the process its handlers back
 * (unless a stop signal already came). */
void mqi_stop_release(void);
/* hidden: read and written in every server wait, PC-relative, not through
 * the GOT (no module uses them) */
extern volatile sig_atomic_t mqi_stop_sig __attribute__((visibility("hidden")));
extern volatile sig_atomic_t mqi_stop_fd __attribute__((visibility("hidden")));
/* read inline: the event loop looks before every wait */
static inline int
mqi_stop_signal(void)
{
    return mqi_stop_sig;
}
/* Whether this thread is the one that waits for the stop signals (the
 * thread that caught them); only it arms its waits. */
int mqi_stop_owner(void);
/* The owner is about to wait on fd: a stop signal from now on ends that
 * wait at once (stop.c), also one that comes before the wait begins.
 * Returns the signal come already (look before waiting).  Inline: two
 * stores and a load per wait, no system call. */
static inline int
mqi_stop_arm(int fd)
{
    mqi_stop_fd = fd;
    return mqi_stop_sig;
}
/* The wait is over: fd may be closed and its number given to another. */
static inline void
mqi_stop_disarm(void)
{
    mqi_stop_fd = -1;
}

#endif /* MQ_LINK_INT_H */
