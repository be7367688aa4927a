/* pipe.c — the pipe transport: the client starts the server program with
 * fork+exec and talks to it over a socket pair.  The server finds its end
 * as `--socket N` appended to its arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../transport.h"

/* Build the server's argv before fork: the child may only do
 * async-signal-safe work until exec. */
static char **
server_argv(const mqi_config *c, int fd, char *fdtext, size_t fdlen)
{
    char **argv = calloc((size_t)c->srv_argc + 3, sizeof *argv);
    if (!argv)
        return NULL;
    for (int i = 0; i < c->srv_argc; i++)
        argv[i] = c->srv_argv[i];
    snprintf(fdtext, fdlen, "%d", fd);
    argv[c->srv_argc] = "--socket";
    argv[c->srv_argc + 1] = fdtext;
    return argv;
}

/* In the child: make the server's end survive exec, run the program, and
 * report a failed exec through the close-on-exec status pipe. */
static void
child(int fd, int status_fd, char **argv)
{
    int e;
    if (fcntl(fd, F_SETFD, 0) == 0)
        execvp(argv[0], argv);
    e = errno;
    if (write(status_fd, &e, sizeof e) < 0)
        _exit(126);
    _exit(127);
}

static MkErrorE
start_failed(MqContextC *ctx, int e)
{
    return MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot start server '%s': %s",
                      ctx->cfg.srv_argv[0], strerror(e));
}

static MkErrorE
pipe_connect(MqContextC *ctx, int *fd, pid_t *pid)
{
    int sv[2], st[2], e = 0;
    char fdtext[16];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return start_failed(ctx, errno);
    if (pipe2(st, O_CLOEXEC) < 0) {
        e = errno;
        goto error;
    }
    char **argv = server_argv(&ctx->cfg, sv[1], fdtext, sizeof fdtext);
    *pid = argv ? fork() : -1;
    if (*pid == 0)
        child(sv[1], st[1], argv);
    e = *pid < 0 ? (argv ? errno : ENOMEM) : 0;
    free(argv);
    close(st[1]);
    if (!e && read(st[0], &e, sizeof e) != sizeof e)
        e = 0; /* the exec went through: the pipe closed empty */
    close(st[0]);
    if (e && *pid > 0)
        waitpid(*pid, NULL, 0);
    if (e)
        goto error;
    close(sv[1]);
    *fd = sv[0];
    return MK_OK;
error:
    close(sv[0]);
    close(sv[1]);
    return start_failed(ctx, e);
}

/* A program the link starts (pipe, spawn) is told its socket with --socket;
 * nobody types it, so it is neither in --help nor a config key. */
static const mqi_option pipe_options[] = {
    {.name = "socket", .kind = MQI_OPT_INT, .arg = "FD", .help = "serve an inherited socket",
     .min = 0, .max = 1 << 20, MQI_FIELD(socket_fd), .flags = MQI_OPT_CLI_ONLY | MQI_OPT_HIDDEN},
    {.name = NULL},
};

const mqi_transport mqi_pipe_transport = {
    .tp = MQI_TP_PIPE,
    .scheme = "pipe",
    .connect = pipe_connect,
    .wait_in_poll = 1, /* a unix socket: transport.h says why */
    .options = pipe_options,
};
