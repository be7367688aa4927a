/* options.c — the command-line options every program built on the link
 * understands.  Applications take their own options out of argv first; what
 * is left must be link options, so a typo is an error naming it, not a
 * silently ignored word. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link_int.h" /* config.h: MQ_HAVE_THREADS */
#include "option.h"
#include "start/start.h"
#include "transport/transport.h"
#ifdef MQ_HAVE_THREADS
#include <pthread.h>
#endif

/* The core's options; the transports (transport.h) and the start modes
 * (start/start.h) declare theirs.  The order of the lists, core, transports,
 * start modes, program, is the order of --help and of the options a config
 * file gives. */
static const mqi_option core_options[] = {
    {.name = "name", .kind = MQI_OPT_STR, .arg = "NAME", .help = "name used in logs and errors",
     MQI_FIELD(name)},
    {.name = "srvname", .kind = MQI_OPT_STR, .arg = "NAME",
     .help = "name the server instance uses", MQI_FIELD(srvname)},
    {.name = "buffersize", .kind = MQI_OPT_INT, .arg = "BYTES",
     .help = "flush the write buffer past this size (default 65536)", .max = 1LL << 30,
     MQI_FIELD(buffersize)},
    {.name = "timeout", .kind = MQI_OPT_INT, .arg = "SECONDS",
     .help = "default timeout of waits and writes (default 90)", .max = 1LL << 31,
     .scale = 1000, MQI_FIELD(timeout_ms)},
    {.name = "max-frame", .kind = MQI_OPT_INT, .arg = "BYTES",
     .help = "largest frame accepted (default 67108864)", .min = 1024, .max = 1LL << 31,
     MQI_FIELD(max_frame)},
    {.name = "debug", .kind = MQI_OPT_INT, .arg = "N", .help = "log level 0..4",
     .max = MK_LOG_TRACE, MQI_FIELD(debug)},
    {.name = "silent", .kind = MQI_OPT_FLAG, .help = "log nothing but errors", MQI_FIELD(silent),
     .val = 1},
    {.name = "storage", .kind = MQI_OPT_STR, .arg = "FILE",
     .help = "sqlite3 storage of persistent calls (default: in memory)", MQI_FIELD(storage)},
    {.name = "sync", .kind = MQI_OPT_SYNC, .arg = "full|normal",
     .help = "storage durability: full survives power loss (default),\n"
             "normal survives a crash of the process",
     MQI_FIELD(sync_full)},
    {.name = "max-children", .kind = MQI_OPT_INT, .arg = "N",
     .help = "child contexts one link may hold (default 1024)", .max = 1 << 24,
     MQI_FIELD(max_children)},
    {.name = "max-senders", .kind = MQI_OPT_INT, .arg = "N",
     .help = "receiver: sender identities it keeps storage files for\n"
             "(default 1024, 0: no limit); more are refused",
     .max = 1LL << 30, MQI_FIELD(max_senders)},
    {.name = "max-storage", .kind = MQI_OPT_INT, .arg = "BYTES",
     .help = "receiver: bytes its storage files may hold together\n"
             "(default 1073741824, 0: no limit); calls beyond are refused",
     .max = 1LL << 62, MQI_FIELD(max_storage)},
    {.name = "max-buffered", .kind = MQI_OPT_INT, .arg = "BYTES",
     .help = "read buffers of all links in this process together\n"
             "(default 268435456); past it a link stops reading",
     .max = 1LL << 48, MQI_FIELD(max_buffered)},
    {.name = "max-connections", .kind = MQI_OPT_INT, .arg = "N",
     .help = "server: instances alive at once (default 256); a\n"
             "connection past the limit is closed at once",
     .min = 1, .max = 1 << 20, MQI_FIELD(max_connections)},
    {.name = "idle-timeout", .kind = MQI_OPT_INT, .arg = "SECONDS",
     .help = "server: close a link from a listener that\n"
             "brought nothing for this long (default 300, 0: never)",
     .max = 1LL << 31, .scale = 1000, MQI_FIELD(idle_ms)},
    {.name = "frame-timeout", .kind = MQI_OPT_INT, .arg = "SECONDS",
     .help = "server: a frame or handshake that started\n"
             "arriving must be complete within this (default 30, 0: never)",
     .max = 1LL << 31, .scale = 1000, MQI_FIELD(frame_ms)},
    {.name = NULL},
};

/* The options of the program as a whole, after every other row. */
static const mqi_option program_options[] = {
    {.name = "config", .kind = MQI_OPT_CONFIG, .arg = "FILE",
     .help = "read options from a libconfig file first (global\n"
             "settings, then the group named like --name)",
     .flags = MQI_OPT_CLI_ONLY},
    {.name = "help", .kind = MQI_OPT_HELP, .help = "print this text and exit",
     .flags = MQI_OPT_CLI_ONLY},
    /* taken by mqi_options_parse before any row, which knows the program's name */
    {.name = "version", .kind = MQI_OPT_VERSION, .help = "print \"PROGRAM (mqlink VERSION)\" and exit",
     .flags = MQI_OPT_CLI_ONLY},
    {.name = NULL},
};

/* Visit each option list in order — the core's, each transport's, each
 * start mode's, the program's — until visit returns a row; that row is the
 * result.  The one place the lists' order is written; inlined into each
 * caller, so visit is a direct call there (mqi_option_find runs for every
 * option of every LinkCreate). */
static inline __attribute__((always_inline)) const mqi_option *
each_list(const mqi_option *(*visit)(const mqi_option *list, void *arg), void *arg)
{
    static const mqi_option none[] = {{.name = NULL}};
    const mqi_option *r = visit(core_options, arg);
    for (const mqi_transport *const *t = mqi_transports(); *t && !r; t++)
        r = visit((*t)->options ? (*t)->options : none, arg);
    for (const mqi_start_mode *const *m = mqi_start_modes(); *m && !r; m++)
        r = visit((*m)->options ? (*m)->options : none, arg);
    return r ? r : visit(program_options, arg);
}

/* The list whose number is in *arg (counted down as the lists pass). */
static const mqi_option *
nth_list(const mqi_option *list, void *arg)
{
    size_t *i = arg;
    return (*i)-- == 0 ? list : NULL;
}

const mqi_option *
mqi_option_list(size_t i)
{
    return each_list(nth_list, &i);
}

/* The row of list named arg. */
static const mqi_option *
named(const mqi_option *list, void *arg)
{
    const char *name = arg;
    for (const mqi_option *o = list; o->name; o++)
        if (o->name[0] == name[0] && !strcmp(o->name, name))
            return o;
    return NULL;
}

/* Every MqLinkCreate looks up each of its options, a new parent's
 * included, so the rows of all lists are indexed by their name's first
 * letter once per process: a lookup compares the few rows of its letter
 * (file: file, fork, frame-timeout) instead of walking ~40 rows of the
 * lists, which with the strcmp calls was 530 of a client's 3 720
 * instructions per parent on uds (callgrind, perfclient --parent).  The
 * lists are fixed at build time, so the index never goes stale. */
#define INDEX_ROWS 256
static struct {
    const mqi_option *row[INDEX_ROWS]; /* by first letter, each list's order kept */
    unsigned short first[257];         /* letter c: row[first[c]] up to row[first[c + 1]] */
    int whole;                         /* every row fits (else: walk the lists) */
} by_letter;

/* Count the rows of list per first letter into first[c + 1] (arg). */
static const mqi_option *
count_rows(const mqi_option *list, void *arg)
{
    unsigned short *first = arg;
    for (const mqi_option *o = list; o->name; o++)
        first[(unsigned char)o->name[0] + 1]++;
    return NULL;
}

/* Put the rows of list in their letter's place; arg: the next free slots. */
static const mqi_option *
place_rows(const mqi_option *list, void *arg)
{
    unsigned short *next = arg;
    for (const mqi_option *o = list; o->name; o++)
        by_letter.row[next[(unsigned char)o->name[0]]++] = o;
    return NULL;
}

static void
index_rows(void)
{
    unsigned short next[256];
    each_list(count_rows, by_letter.first);
    for (int c = 0; c < 256; c++)
        by_letter.first[c + 1] += by_letter.first[c];
    if (by_letter.first[256] > INDEX_ROWS)
        return; /* whole stays 0 */
    memcpy(next, by_letter.first, sizeof next);
    each_list(place_rows, next);
    by_letter.whole = 1;
}

#ifdef MQ_HAVE_THREADS
static pthread_once_t indexed = PTHREAD_ONCE_INIT;
#define INDEX_ONCE() pthread_once(&indexed, index_rows)
#else
static int indexed;
#define INDEX_ONCE() (indexed ? (void)0 : (indexed = 1, index_rows()))
#endif

const mqi_option *
mqi_option_find(const char *name)
{
    INDEX_ONCE();
    if (!by_letter.whole)
        return each_list(named, (void *)name);
    unsigned char c = (unsigned char)name[0];
    for (unsigned i = by_letter.first[c]; i < by_letter.first[c + 1]; i++)
        if (!strcmp(by_letter.row[i]->name, name))
            return by_letter.row[i];
    return NULL;
}

static void
help_row(FILE *f, const mqi_option *o)
{
    char left[64];
    const char *h = o->help;
    snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    if (strlen(left) > 19) /* a long name gets its own line */
        fprintf(f, "  %s\n%22s", left, "");
    else
        fprintf(f, "  %-19s ", left);
    for (const char *nl; (nl = strchr(h, '\n')) != NULL; h = nl + 1)
        fprintf(f, "%.*s\n%22s", (int)(nl - h), h, "");
    fprintf(f, "%s\n", h);
}

void
mqi_option_help(FILE *f)
{
    fputs("link options:\n", f);
    for (size_t i = 0; mqi_option_list(i); i++)
        for (const mqi_option *o = mqi_option_list(i); o->name; o++)
            if (!(o->flags & MQI_OPT_HIDDEN))
                help_row(f, o);
    fputs("  @ PROGRAM ARGS...   client: start PROGRAM as server over a socket pair\n", f);
}

size_t
mqi_option_keys(mqi_cfgkey *keys, size_t max)
{
    static const mqi_keytype type[] = {
        [MQI_OPT_FLAG] = MQI_KEY_BOOL, [MQI_OPT_STR] = MQI_KEY_STR,
        [MQI_OPT_INT] = MQI_KEY_INT,   [MQI_OPT_NUMSTR] = MQI_KEY_INT,
        [MQI_OPT_SYNC] = MQI_KEY_SYNC,
    };
    size_t n = 0;
    for (size_t i = 0; mqi_option_list(i); i++)
        for (const mqi_option *o = mqi_option_list(i); o->name && n < max; o++)
            if (!(o->flags & MQI_OPT_CLI_ONLY))
                keys[n++] = (mqi_cfgkey){o->name, type[o->kind]};
    return n;
}

void
mqi_config_defaults(mqi_config *c)
{
    c->buffersize = MQI_DEFAULT_BUFFERSIZE;
    c->timeout_ms = (MK_I64)MQ_TIMEOUT_DEFAULT_SEC * 1000;
    c->max_frame = MQI_DEFAULT_MAX_FRAME;
    c->max_children = MQI_DEFAULT_MAX_CHILDREN;
    c->socket_fd = -1;
    c->tls_fd = -1;
    c->sync_full = 1;
    c->max_senders = MQI_DEFAULT_MAX_SENDERS;
    c->max_storage = MQI_DEFAULT_MAX_STORAGE;
    c->max_buffered = MQI_DEFAULT_MAX_BUFFERED;
    c->max_connections = MQI_DEFAULT_MAX_CONNECTIONS;
    c->idle_ms = (MK_I64)MQI_DEFAULT_IDLE_SEC * 1000;
    c->frame_ms = (MK_I64)MQI_DEFAULT_FRAME_SEC * 1000;
}

static void
free_argv(char **argv, int argc)
{
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

static int
in_text(const mqi_config *c, const char *s)
{
    return s >= c->text && s < c->text + sizeof c->text;
}

char *
mqi_config_strdup(mqi_config *c, const char *s)
{
    size_t n = strlen(s) + 1;
    if (n > sizeof c->text - c->text_used)
        return strdup(s);
    char *t = memcpy(c->text + c->text_used, s, n);
    c->text_used += (unsigned char)n;
    return t;
}

void
mqi_config_strfree(mqi_config *c, char *s)
{
    if (!in_text(c, s))
        free(s);
}

/* The configuration's strings, the ones a borrowing one shares. */
#define EACH_STRING(c, do)                                                          \
    do(c->name) do(c->srvname) do(c->file) do(c->host) do(c->port) do(c->storage) \
    do(c->tls_cert) do(c->tls_key) do(c->tls_ca) do(c->tls_name)
#define FREE_SET(s) if (s) mqi_config_strfree(c, s);
#define DUP_SET(s) s = s ? mqi_config_strdup(c, s) : NULL;

void
mqi_config_release(mqi_config *c)
{
    if (!c->borrowed) {
        EACH_STRING(c, FREE_SET)
    }
    if (c->secure.owned && c->secure.release)
        c->secure.release(c->secure.state);
    if (c->srv_argv)
        free_argv(c->srv_argv, c->srv_argc);
}

void
mqi_config_borrow(mqi_config *dst, const mqi_config *src)
{
    mqi_config_release(dst);
    memcpy(dst, src, offsetof(mqi_config, text)); /* not the text: its strings stay src's */
    if (src->srvname)
        dst->name = src->srvname;
    dst->borrowed = 1;
    dst->text_used = 0;
    dst->secure.owned = 0; /* the listener's lives as long as it */
    dst->srv_argv = NULL;
    dst->srv_argc = 0;
    dst->socket_fd = -1;
}

void
mqi_config_own(mqi_config *c)
{
    if (!c->borrowed)
        return;
    EACH_STRING(c, DUP_SET) /* a failed strdup leaves NULL, as mqi_config_copy does */
    c->borrowed = 0;
}

void
mqi_config_copy(mqi_config *dst, const mqi_config *src)
{
    /* the borrowing copy (its name the server name if there is one),
     * then its own strings */
    mqi_config_borrow(dst, src);
    mqi_config_own(dst);
}

static MkErrorE
bad(MqContextC *ctx, const char *fmt, const char *opt)
{
    MkErrorSet(ctx->err, MQ_ERR_OPTION, fmt, opt);
    return MK_ERROR;
}

static MkErrorE
number(MqContextC *ctx, const char *opt, const char *arg, long long lo, long long hi,
       long long *out)
{
    char *end;
    if (!arg)
        return bad(ctx, "option '%s' needs a value", opt);
    long long v;
    errno = 0;
    if (mqi_plain_digits(arg, &v))
        end = (char *)arg + strlen(arg);
    else /* other text as strtoll reads it */
        v = strtoll(arg, &end, 10);
    if (errno || end == arg || *end || v < lo || v > hi)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION,
                          "option '%s': '%s' is not a number from %lld to %lld", opt, arg, lo, hi);
    *out = v;
    return MK_OK;
}

static MkErrorE
string(MqContextC *ctx, const char *opt, const char *arg, char **out)
{
    if (!arg || !*arg)
        return bad(ctx, "option '%s' needs a value", opt);
    mqi_config_strfree(&ctx->cfg, *out);
    *out = mqi_config_strdup(&ctx->cfg, arg);
    return MK_OK;
}

static MkErrorE
server_command(MqContextC *ctx, int argc, const char **argv)
{
    mqi_config *c = &ctx->cfg;
    if (argc == 0)
        return bad(ctx, "'%s' must be followed by the server program", "@");
    free_argv(c->srv_argv, c->srv_argc);
    c->srv_argv = calloc((size_t)argc + 1, sizeof *c->srv_argv);
    if (!c->srv_argv)
        return MkErrorSet(ctx->err, MK_ERR_MEMORY, "out of memory");
    for (int i = 0; i < argc; i++)
        c->srv_argv[i] = strdup(argv[i]);
    c->srv_argc = argc;
    c->tp = MQI_TP_PIPE;
    return MK_OK;
}

/* Store v into the integer field of o (int-sized or 64-bit). */
static void
store(mqi_config *c, const mqi_option *o, long long v)
{
    char *field = (char *)c + o->offset;
    if (o->size == sizeof(int32_t)) {
        uint32_t u = (uint32_t)v;
        memcpy(field, &u, sizeof u);
    } else {
        int64_t w = v;
        memcpy(field, &w, sizeof w);
    }
}

/* Set the option of row o from arg (NULL: none given). */
static MkErrorE
set(MqContextC *ctx, const mqi_option *o, const char *opt, const char *arg)
{
    mqi_config *c = &ctx->cfg;
    long long n = 0;
    MkErrorE rc = MK_OK;
    if (o->unavailable)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "option '%s' needs %s", opt, o->unavailable);
    switch (o->kind) {
    case MQI_OPT_FLAG:
        store(c, o, o->val);
        break;
    case MQI_OPT_STR:
        rc = string(ctx, opt, arg, (char **)((char *)c + o->offset));
        break;
    case MQI_OPT_NUMSTR:
        if ((rc = number(ctx, opt, arg, o->min, o->max, &n)) == MK_OK)
            rc = string(ctx, opt, arg, (char **)((char *)c + o->offset));
        break;
    case MQI_OPT_INT:
        if ((rc = number(ctx, opt, arg, o->min, o->max, &n)) == MK_OK)
            store(c, o, n * (o->scale ? o->scale : 1));
        break;
    case MQI_OPT_SYNC:
        if (arg && (!strcmp(arg, "full") || !strcmp(arg, "normal")))
            c->sync_full = !strcmp(arg, "full");
        else
            rc = bad(ctx, "option '--sync' takes 'full' or 'normal', not '%s'", arg ? arg : "");
        break;
    case MQI_OPT_CONFIG: /* read before the command line (config_file) */
        rc = arg ? MK_OK : bad(ctx, "option '%s' needs a value", opt);
        break;
    case MQI_OPT_HELP:
        mqi_option_help(stdout);
        exit(0);
    case MQI_OPT_VERSION:
        mqi_version_exit(ctx, NULL);
    }
    return rc;
}

/* One option (and its value) at argv[*i]. */
static MkErrorE
option(MqContextC *ctx, int argc, const char **argv, int *i)
{
    const char *o = argv[*i];
    const mqi_option *row = o[0] == '-' && o[1] == '-' ? mqi_option_find(o + 2) : NULL;
    if (!row)
        return bad(ctx, "unknown option '%s' (try --help)", o);
    if (row->kind == MQI_OPT_FLAG || row->kind == MQI_OPT_HELP || row->kind == MQI_OPT_VERSION)
        return set(ctx, row, o, NULL);
    (*i)++;
    return set(ctx, row, o, *i < argc ? argv[*i] : NULL);
}

static MkErrorE
check_combination(MqContextC *ctx)
{
    mqi_config *c = &ctx->cfg;
    if (c->socket_fd >= 0)
        return MK_OK;
    if (c->file && c->tp != MQI_TP_UDS)
        return bad(ctx, "option '%s' needs --uds", "--file");
    if ((c->host || c->port) && c->tp != MQI_TP_TCP)
        return bad(ctx, "option '%s' needs --tcp", c->host ? "--host" : "--port");
    if (c->tp == MQI_TP_UDS && !c->file)
        return bad(ctx, "option '%s' needs --file PATH", "--uds");
    if (c->tp == MQI_TP_TCP && !c->port)
        return bad(ctx, "option '%s' needs --port P", "--tcp");
    if (c->start && c->tp != MQI_TP_UDS && c->tp != MQI_TP_TCP)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "option '--%s' needs --uds or --tcp",
                          mqi_start_get(c->start) ? mqi_start_get(c->start)->name : "?");
    if (c->tp == MQI_TP_NONE && ctx->is_server)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION,
                          "no transport: a server listens with --uds --file PATH or "
                          "--tcp --port P (and --fork, --thread or --spawn), or is "
                          "started by its client as 'CLIENT @ SERVER-PROGRAM'");
    if (c->tp == MQI_TP_NONE)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION,
                          "no transport: give '@ server-program', --uds or --tcp");
    return MK_OK;
}

/* --config FILE: the file's options for --name go first, so the command
 * line overrides them. */
static MkErrorE
config_file(MqContextC *ctx, int argc, const char **argv)
{
    const char *file = NULL, *name = ctx->cfg.name;
    /* a NULL word ends the look: the parser reports it (mqi_options_parse) */
    for (int i = 1; i + 1 < argc && argv[i] && (argv[i][0] != '@' || argv[i][1]); i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] != '-' || (a[2] != 'c' && a[2] != 'n'))
            continue; /* most are neither: no strcmp for them (every LinkCreate) */
        if (!strcmp(a, "--config"))
            file = argv[i + 1];
        else if (!strcmp(a, "--name"))
            name = argv[i + 1];
    }
    if (!file)
        return MK_OK;
    int n = 0;
    char **opts = NULL;
    mqi_cfgkey keys[MQI_CFG_MAXKEYS];
    size_t nkeys = mqi_option_keys(keys, MQI_CFG_MAXKEYS);
    if (mqi_config_load(file, name, keys, nkeys, &n, &opts, ctx->err) != MK_OK)
        return MK_ERROR;
    MkErrorE rc = MK_OK;
    for (int i = 0; i < n && rc == MK_OK; i++) {
        /* option() looks at argv[i] and argv[i + 1]: give it a program slot */
        const char *pair[3] = {opts[i], i + 1 < n ? opts[i + 1] : NULL, NULL};
        int k = 0;
        rc = option(ctx, i + 1 < n ? 2 : 1, pair, &k);
        i += k;
    }
    mqi_config_argv_free(opts);
    if (rc != MK_OK)
        MkErrorStack(ctx->err, "in config file '%s'", file);
    return rc;
}

MkErrorE
mqi_options_parse(MqContextC *ctx, int argc, const char **argv)
{
    mqi_config_own(&ctx->cfg); /* the options write its strings */
    if (config_file(ctx, argc, argv) != MK_OK)
        return MK_ERROR;
    /* the words looked at by their characters, not with strcmp: every
     * LinkCreate parses its options, a new parent's too */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!a)
            return bad(ctx, "argument %s is NULL", "list");
        if (a[0] == '@' && !a[1])
            return server_command(ctx, argc - i - 1, argv + i + 1) == MK_OK
                       ? check_combination(ctx) : MK_ERROR;
        if (a[0] != '-' || a[1] != '-')
            return bad(ctx, "unexpected argument '%s' (link options start with --)", a);
        if (a[2] == 'v' && !strcmp(a, "--version"))
            mqi_version_exit(ctx, argv[0]);
        if (option(ctx, argc, argv, &i) != MK_OK)
            return MK_ERROR;
    }
    return check_combination(ctx);
}
