/* uds.c — the Unix-socket transport: --uds --file PATH. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <stdio.h>
#include <sys/un.h>
#include <unistd.h>

#include "../transport.h"

static MkErrorE
address(MqContextC *ctx, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (strlen(ctx->cfg.file) >= sizeof a->sun_path)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "socket path '%s' is longer than %zu bytes",
                          ctx->cfg.file, sizeof a->sun_path - 1);
    strcpy(a->sun_path, ctx->cfg.file);
    return MK_OK;
}

static MkErrorE
uds_connect(MqContextC *ctx, int *fd, pid_t *pid)
{
    struct sockaddr_un a;
    if (address(ctx, &a) != MK_OK)
        return MK_ERROR;
    *fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0 || connect(*fd, (struct sockaddr *)&a, sizeof a) < 0) {
        int e = errno;
        if (*fd >= 0)
            close(*fd);
        return MkErrorSet(ctx->err, MQ_ERR_LINK, "cannot connect to '%s': %s", ctx->cfg.file,
                          strerror(e));
    }
    return MK_OK;
}

/* What answers on the socket file at path: MK_OK when nobody does (a
 * stale file: no listener, or gone meanwhile, *gone set), MK_ERROR with the
 * reason when a server is listening there or the path is not a socket. */
static MkErrorE
check_taken(MqContextC *ctx, const char *path, int *gone)
{
    struct stat st;
    struct sockaddr_un a;
    *gone = 0;
    if (lstat(path, &st) < 0) {
        *gone = errno == ENOENT;
        return *gone ? MK_OK
                     : MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot listen on '%s': %s", path,
                                  strerror(errno));
    }
    if (!S_ISSOCK(st.st_mode))
        return MkErrorSet(ctx->err, MQ_ERR_SYSTEM,
                          "cannot listen on '%s': it exists and is not a socket (left as it is)",
                          path);
    if (address(ctx, &a) != MK_OK)
        return MK_ERROR;
    /* non-blocking: a live server with a full backlog answers EAGAIN */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot listen on '%s': %s", path,
                          strerror(errno));
    int rc = connect(fd, (struct sockaddr *)&a, sizeof a), e = errno;
    close(fd);
    if (rc == 0 || e == EAGAIN || e == EINPROGRESS)
        return MkErrorSet(ctx->err, MQ_ERR_SYSTEM,
                          "cannot listen on '%s': another server is listening on it", path);
    if (e == ECONNREFUSED)
        return MK_OK;
    *gone = e == ENOENT;
    return *gone ? MK_OK
                 : MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot listen on '%s': %s", path,
                              strerror(e));
}

/* Bind under a temporary name and put it in place after listen(), so the
 * socket file appears only once connections are accepted.  A free path is
 * taken with link(), which never replaces: of two servers starting at once
 * one gets the path and the other finds it live.  A socket file nobody
 * answers on (a server that died) is replaced; a live server's path or a
 * file that is not a socket is refused.  The file's identity is kept, so
 * that at exit only our own file is removed. */
static MkErrorE
uds_listen(MqContextC *ctx, int *fd)
{
    struct sockaddr_un a;
    struct stat st;
    char final[sizeof a.sun_path];
    int gone;
    if (address(ctx, &a) != MK_OK)
        return MK_ERROR;
    strcpy(final, a.sun_path);
    if (snprintf(a.sun_path, sizeof a.sun_path, "%s.%d", final, (int)getpid()) >=
        (int)sizeof a.sun_path)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "socket path '%s' is too long", final);
    unlink(a.sun_path);
    *fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(*fd, 128) < 0 ||
        stat(a.sun_path, &st) < 0)
        goto error;
    for (int tries = 0; tries < 3; tries++) {
        if (link(a.sun_path, final) == 0) {
            unlink(a.sun_path);
            goto placed;
        }
        /* a file system without hard links: check, then rename */
        int exists = errno == EEXIST;
        if (!exists && errno != EPERM && errno != EOPNOTSUPP)
            goto error;
        if (check_taken(ctx, final, &gone) != MK_OK)
            goto refused;
        if (exists && gone)
            continue; /* removed meanwhile: link again */
        if (rename(a.sun_path, final) == 0)
            goto placed; /* over the stale file, in one step */
        goto error;
    }
    errno = EEXIST; /* it kept changing under us */
    goto error;
placed:
    ctx->uds_dev = st.st_dev;
    ctx->uds_ino = st.st_ino;
    return MK_OK;
error:;
    int e = errno;
    MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot listen on '%s': %s", final, strerror(e));
refused:
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    unlink(a.sun_path);
    return MK_ERROR;
}

/* Remove the socket file only while it is the one we made: a server
 * started on the path after ours was removed by hand keeps its file. */
static void
uds_unlisten(MqContextC *ctx)
{
    struct stat st;
    if (lstat(ctx->cfg.file, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == ctx->uds_dev &&
        st.st_ino == ctx->uds_ino)
        unlink(ctx->cfg.file);
}

static const mqi_option uds_options[] = {
    {.name = "uds", .kind = MQI_OPT_FLAG, .help = "Unix socket transport (needs --file)",
     MQI_FIELD(tp), .val = MQI_TP_UDS},
    {.name = "file", .kind = MQI_OPT_STR, .arg = "PATH", .help = "uds: the socket file",
     MQI_FIELD(file)},
    {.name = NULL},
};

const mqi_transport mqi_uds_transport = {
    .tp = MQI_TP_UDS,
    .scheme = "uds",
    .connect = uds_connect,
    .listen = uds_listen,
    .unlisten = uds_unlisten,
    .wait_in_poll = 1, /* a unix socket: transport.h says why */
    .options = uds_options,
};
