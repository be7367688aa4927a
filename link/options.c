/* options.c — the command-line options every program built on the link
 * understands.  Applications take their own options out of argv first; what
 * is left must be link options, so a typo is an error naming it, not a
 * silently ignored word. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_load.h"
#include "link_int.h"

static const char usage[] =
    "link options:\n"
    "  --name NAME         name used in logs and errors\n"
    "  --srvname NAME      name the server instance uses\n"
    "  --buffersize BYTES  flush the write buffer past this size (default 65536)\n"
    "  --timeout SECONDS   default timeout of waits and writes (default 90)\n"
    "  --max-frame BYTES   largest frame accepted (default 67108864)\n"
    "  --max-children N    child contexts one link may hold (default 1024)\n"
    "  --debug N           log level 0..4\n"
    "  --storage FILE      sqlite3 storage of persistent calls (default: in memory)\n"
    "  --sync full|normal  storage durability: full survives power loss (default),\n"
    "                      normal survives a crash of the process\n"
    "  --max-senders N     receiver: sender identities it keeps storage files for\n"
    "                      (default 1024, 0: no limit); more are refused\n"
    "  --max-storage BYTES receiver: bytes its storage files may hold together\n"
    "                      (default 1073741824, 0: no limit); calls beyond are refused\n"
    "  --config FILE       read options from a libconfig file first (global\n"
    "                      settings, then the group named like --name)\n"
    "  --silent            log nothing but errors\n"
    "  --max-buffered BYTES  read buffers of all links in this process together\n"
    "                      (default 268435456); past it a link stops reading\n"
    "  --max-connections N   server: instances alive at once (default 256); a\n"
    "                      connection past the limit is closed at once\n"
    "  --idle-timeout SECONDS   server: close a link from a listener that\n"
    "                      brought nothing for this long (default 300, 0: never)\n"
    "  --frame-timeout SECONDS  server: a frame or handshake that started\n"
    "                      arriving must be complete within this (default 30,\n"
    "                      0: never)\n"
    "  --uds --file PATH   Unix socket transport\n"
    "  --tcp [--host H] --port P   TCP transport (servers listen on 127.0.0.1 by default)\n"
    "  --fork | --thread | --spawn server: one instance per connection\n"
    "  @ PROGRAM ARGS...   client: start PROGRAM as server over a socket pair\n"
    "  --help              print this text and exit\n"
    "  --version           print \"PROGRAM (mqlink VERSION)\" and exit\n";

void
mqi_config_init(mqi_config *c)
{
    memset(c, 0, sizeof *c);
    c->buffersize = MQI_DEFAULT_BUFFERSIZE;
    c->timeout_ms = (MK_I64)MQ_TIMEOUT_DEFAULT_SEC * 1000;
    c->max_frame = MQI_DEFAULT_MAX_FRAME;
    c->max_children = MQI_DEFAULT_MAX_CHILDREN;
    c->socket_fd = -1;
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

void
mqi_config_free(mqi_config *c)
{
    free(c->name);
    free(c->srvname);
    free(c->file);
    free(c->host);
    free(c->port);
    free(c->storage);
    free_argv(c->srv_argv, c->srv_argc);
    mqi_config_init(c);
}

static char *
dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void
mqi_config_copy(mqi_config *dst, const mqi_config *src)
{
    mqi_config_free(dst);
    *dst = *src;
    dst->name = dup_or_null(src->srvname ? src->srvname : src->name);
    dst->srvname = dup_or_null(src->srvname);
    dst->file = dup_or_null(src->file);
    dst->host = dup_or_null(src->host);
    dst->port = dup_or_null(src->port);
    dst->storage = dup_or_null(src->storage);
    dst->srv_argv = NULL;
    dst->srv_argc = 0;
    dst->socket_fd = -1;
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
    errno = 0;
    long long v = strtoll(arg, &end, 10);
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
    free(*out);
    *out = strdup(arg);
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

/* One option (and its value) at argv[*i]. */
static MkErrorE
option(MqContextC *ctx, int argc, const char **argv, int *i)
{
    mqi_config *c = &ctx->cfg;
    const char *o = argv[*i];
    const char *arg = *i + 1 < argc ? argv[*i + 1] : NULL;
    long long n = 0;
    MkErrorE rc = MK_OK;

    if (!strcmp(o, "--silent"))         { c->silent = 1; return MK_OK; }
    if (!strcmp(o, "--uds"))            { c->tp = MQI_TP_UDS; return MK_OK; }
    if (!strcmp(o, "--tcp"))            { c->tp = MQI_TP_TCP; return MK_OK; }
    if (!strcmp(o, "--fork"))           { c->start = MQI_START_FORK; return MK_OK; }
    if (!strcmp(o, "--spawn"))          { c->start = MQI_START_SPAWN; return MK_OK; }
    if (!strcmp(o, "--thread")) {
#ifdef MQ_HAVE_THREADS
        c->start = MQI_START_THREAD;
        return MK_OK;
#else
        return bad(ctx, "option '%s' needs a build with threads", o);
#endif
    }
    if (!strcmp(o, "--help")) {
        fputs(usage, stdout);
        exit(0);
    }
    (*i)++;
    if (!strcmp(o, "--name"))           rc = string(ctx, o, arg, &c->name);
    else if (!strcmp(o, "--srvname"))   rc = string(ctx, o, arg, &c->srvname);
    else if (!strcmp(o, "--file"))      rc = string(ctx, o, arg, &c->file);
    else if (!strcmp(o, "--host"))      rc = string(ctx, o, arg, &c->host);
    else if (!strcmp(o, "--storage"))   rc = string(ctx, o, arg, &c->storage);
    else if (!strcmp(o, "--config"))    rc = arg ? MK_OK : bad(ctx, "option '%s' needs a value", o);
    else if (!strcmp(o, "--sync")) {
        if (arg && (!strcmp(arg, "full") || !strcmp(arg, "normal")))
            c->sync_full = !strcmp(arg, "full");
        else
            rc = bad(ctx, "option '--sync' takes 'full' or 'normal', not '%s'", arg ? arg : "");
    }
    else if (!strcmp(o, "--port")) {
        if ((rc = number(ctx, o, arg, 0, 65535, &n)) == MK_OK)
            rc = string(ctx, o, arg, &c->port);
    } else if (!strcmp(o, "--buffersize")) {
        if ((rc = number(ctx, o, arg, 0, 1LL << 30, &n)) == MK_OK)
            c->buffersize = (size_t)n;
    } else if (!strcmp(o, "--timeout")) {
        if ((rc = number(ctx, o, arg, 0, 1LL << 31, &n)) == MK_OK)
            c->timeout_ms = n * 1000;
    } else if (!strcmp(o, "--max-frame")) {
        if ((rc = number(ctx, o, arg, 1024, 1LL << 31, &n)) == MK_OK)
            c->max_frame = (uint32_t)n;
    } else if (!strcmp(o, "--max-children")) {
        if ((rc = number(ctx, o, arg, 0, 1 << 24, &n)) == MK_OK)
            c->max_children = (uint32_t)n;
    } else if (!strcmp(o, "--max-senders")) {
        if ((rc = number(ctx, o, arg, 0, 1LL << 30, &n)) == MK_OK)
            c->max_senders = n;
    } else if (!strcmp(o, "--max-storage")) {
        if ((rc = number(ctx, o, arg, 0, 1LL << 62, &n)) == MK_OK)
            c->max_storage = n;
    } else if (!strcmp(o, "--debug")) {
        if ((rc = number(ctx, o, arg, 0, MK_LOG_TRACE, &n)) == MK_OK)
            c->debug = (int)n;
    } else if (!strcmp(o, "--max-buffered")) {
        if ((rc = number(ctx, o, arg, 0, 1LL << 48, &n)) == MK_OK)
            c->max_buffered = (size_t)n;
    } else if (!strcmp(o, "--max-connections")) {
        if ((rc = number(ctx, o, arg, 1, 1 << 20, &n)) == MK_OK)
            c->max_connections = (int)n;
    } else if (!strcmp(o, "--idle-timeout")) {
        if ((rc = number(ctx, o, arg, 0, 1LL << 31, &n)) == MK_OK)
            c->idle_ms = n * 1000;
    } else if (!strcmp(o, "--frame-timeout")) {
        if ((rc = number(ctx, o, arg, 0, 1LL << 31, &n)) == MK_OK)
            c->frame_ms = n * 1000;
    } else if (!strcmp(o, "--socket")) {
        if ((rc = number(ctx, o, arg, 0, 1 << 20, &n)) == MK_OK)
            c->socket_fd = (int)n;
    } else {
        return bad(ctx, "unknown option '%s' (try --help)", o);
    }
    return rc;
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
        return bad(ctx, "option '%s' needs --uds or --tcp",
                   c->start == MQI_START_FORK ? "--fork" :
                   c->start == MQI_START_SPAWN ? "--spawn" : "--thread");
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
    for (int i = 1; i + 1 < argc && strcmp(argv[i], "@"); i++) {
        if (!strcmp(argv[i], "--config"))
            file = argv[i + 1];
        else if (!strcmp(argv[i], "--name"))
            name = argv[i + 1];
    }
    if (!file)
        return MK_OK;
    int n = 0;
    char **opts = NULL;
    if (mqi_config_load(file, name, &n, &opts, ctx->err) != MK_OK)
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
    if (config_file(ctx, argc, argv) != MK_OK)
        return MK_ERROR;
    for (int i = 1; i < argc; i++) {
        if (!argv[i])
            return bad(ctx, "argument %s is NULL", "list");
        if (!strcmp(argv[i], "@"))
            return server_command(ctx, argc - i - 1, argv + i + 1) == MK_OK
                       ? check_combination(ctx) : MK_ERROR;
        if (strncmp(argv[i], "--", 2) != 0)
            return bad(ctx, "unexpected argument '%s' (link options start with --)", argv[i]);
        if (!strcmp(argv[i], "--version"))
            mqi_version_exit(ctx, argv[0]);
        if (option(ctx, argc, argv, &i) != MK_OK)
            return MK_ERROR;
    }
    return check_combination(ctx);
}
