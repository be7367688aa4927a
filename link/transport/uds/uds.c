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

/* Bind under a temporary name and rename into place after listen(), so
 * the socket file appears only once connections are accepted. */
static MkErrorE
uds_listen(MqContextC *ctx, int *fd)
{
    struct sockaddr_un a;
    struct stat st;
    char final[sizeof a.sun_path];
    if (address(ctx, &a) != MK_OK)
        return MK_ERROR;
    strcpy(final, a.sun_path);
    if (snprintf(a.sun_path, sizeof a.sun_path, "%s.%d", final, (int)getpid()) >=
        (int)sizeof a.sun_path)
        return MkErrorSet(ctx->err, MQ_ERR_OPTION, "socket path '%s' is too long", final);
    unlink(a.sun_path);
    *fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(*fd, 128) < 0)
        goto error;
    /* A socket file left by a dead server is replaced; anything that is not
     * a socket is the user's file and stays. */
    if (stat(final, &st) == 0 && !S_ISSOCK(st.st_mode)) {
        errno = EEXIST;
        goto error;
    }
    if (rename(a.sun_path, final) < 0)
        goto error;
    return MK_OK;
error:;
    int e = errno;
    if (*fd >= 0)
        close(*fd);
    unlink(a.sun_path);
    return MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot listen on '%s': %s", final, strerror(e));
}

static void
uds_unlisten(MqContextC *ctx)
{
    unlink(ctx->cfg.file);
}

const mqi_transport mqi_uds_transport = {
    .tp = MQI_TP_UDS,
    .scheme = "uds",
    .connect = uds_connect,
    .listen = uds_listen,
    .unlisten = uds_unlisten,
};
