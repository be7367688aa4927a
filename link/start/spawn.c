/* spawn.c — the --spawn start mode: fork+exec of this very program (as
 * /proc/self/exe with the command line it was started with) and `--socket N`
 * appended, so the new process serves the accepted connection.  Between
 * fork and exec the child does only async-signal-safe work. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "start.h"

/* Read our own command line once, before any spawn. */
static MkErrorE
prepare(MqContextC *tmpl)
{
    FILE *f = fopen("/proc/self/cmdline", "rb");
    char *buf = NULL;
    size_t cap = 0, len = 0, n;
    if (!f)
        return MkErrorSet(tmpl->err, MQ_ERR_SYSTEM, "--spawn: cannot read /proc/self/cmdline: %s",
                          strerror(errno));
    do {
        char *p = mki_grow(buf, &cap, len + 4096, 1);
        if (!p) {
            free(buf);
            fclose(f);
            return MkErrorSet(tmpl->err, MK_ERR_MEMORY, "--spawn: out of memory");
        }
        buf = p;
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    fclose(f);
    free(tmpl->spawn_cmd);
    tmpl->spawn_cmd = buf;
    tmpl->spawn_cmd_len = len;
    return MK_OK;
}

/* argv from the NUL-separated command line plus "--socket" fdtext and,
 * when the transport hands its state on (TLS keys), "--OPTION" passtext. */
static char **
spawn_argv(MqContextC *tmpl, char *fdtext, char *passopt, char *passtext)
{
    size_t n = 0;
    for (size_t i = 0; i < tmpl->spawn_cmd_len; i++)
        n += tmpl->spawn_cmd[i] == '\0';
    char **argv = calloc(n + 5, sizeof *argv);
    if (!argv)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < tmpl->spawn_cmd_len && k < n; i += strlen(tmpl->spawn_cmd + i) + 1)
        argv[k++] = tmpl->spawn_cmd + i;
    argv[k++] = "--socket";
    argv[k++] = fdtext;
    if (*passopt) {
        argv[k++] = passopt;
        argv[k] = passtext;
    }
    return argv;
}

static MkErrorE
start(const mqi_listener *l, int fd)
{
    MqContextC *tmpl = l->tmpl;
    char fdtext[16], passopt[64] = "", passtext[16] = "";
    int pass = tmpl->cfg.secure.pass_option ? tmpl->cfg.secure.pass_fd : -1;
    snprintf(fdtext, sizeof fdtext, "%d", fd);
    if (pass >= 0) {
        snprintf(passopt, sizeof passopt, "--%s", tmpl->cfg.secure.pass_option);
        snprintf(passtext, sizeof passtext, "%d", pass);
    }
    char **argv = spawn_argv(tmpl, fdtext, passopt, passtext);
    pid_t pid = argv ? fork() : -1;
    if (pid == 0) {
        if (fcntl(fd, F_SETFD, 0) == 0 && (pass < 0 || fcntl(pass, F_SETFD, 0) == 0))
            execv("/proc/self/exe", argv);
        _exit(127);
    }
    int e = errno;
    free(argv);
    close(fd);
    if (pid < 0)
        return MkErrorSet(tmpl->err, MQ_ERR_SYSTEM, "--spawn: fork failed: %s", strerror(e));
    return MK_OK;
}

#define SPAWN MQI_START_ID('s', 'p', 'a', 'w')

static const mqi_option options[] = {
    {.name = "spawn", .kind = MQI_OPT_FLAG,
     .help = "server: one new process (exec) per connection", MQI_FIELD(start), .val = SPAWN},
    {.name = NULL},
};

const mqi_start_mode mqi_spawn_start = {
    .id = SPAWN, .name = "spawn", .prepare = prepare, .start = start, .options = options,
    .execs = 1,
};
