/* linktest.c — see linktest.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "config.h"
#include "linktest.h"

const lt_mode lt_modes[] = {
    {"pipe", NULL, NULL, 0},
    {"uds_fork", "--uds", "--fork", 0},
    {"uds_thread", "--uds", "--thread", 0},
    {"uds_spawn", "--uds", "--spawn", 0},
    {"tcp_fork", "--tcp", "--fork", 0},
    {"tcp_thread", "--tcp", "--thread", 0},
    {"tcp_spawn", "--tcp", "--spawn", 0},
#ifdef MQ_HAVE_OPENSSL
    {"tcp_tls_fork", "--tcp", "--fork", 1},
    {"tcp_tls_thread", "--tcp", "--thread", 1},
    {"tcp_tls_spawn", "--tcp", "--spawn", 1},
#endif
    {NULL, NULL, NULL, 0},
};

static char tls_dir[256];

/* The certificates are made once per process that asks, in a temporary
 * directory of its own (testlib removes it: a test's main, which asks
 * before its cases, at its exit; a case's child that asks, at its
 * mqt_cleanup), and made again if a cleanup inside the case removed them. */
const char *
lt_tls_dir(void)
{
    char cmd[1024], ca[300];
    snprintf(ca, sizeof ca, "%s/ca.pem", tls_dir);
    if (tls_dir[0] && access(ca, R_OK) == 0)
        return tls_dir;
    snprintf(tls_dir, sizeof tls_dir, "%s", mqt_temp_dir("tls"));
    const char *src = getenv("top_srcdir");
    snprintf(cmd, sizeof cmd, "%s/tests/tls_certs.sh '%s'", src ? src : ".", tls_dir);
    if (system(cmd) != 0) {
        mqt_fail(__FILE__, __LINE__, "%s failed", cmd);
        return NULL;
    }
    return tls_dir;
}

const char *
lt_tls_file(const char *name)
{
    static char path[32][512];
    static unsigned next;
    char *p = path[next++ % 32];
    snprintf(p, sizeof path[0], "%s/%s", lt_tls_dir() ? tls_dir : "", name);
    return p;
}

static const char *args[20];
static int nargs;
static char where[256];
static pid_t server;

const lt_mode *
lt_mode_get(const char *name)
{
    for (const lt_mode *m = lt_modes; m->name; m++)
        if (!strcmp(m->name, name))
            return m;
    return NULL;
}

MqContextC *
lt_connect_again(void)
{
    MqContextC *ctx = MqContextCreate();
    if (MqLinkCreate(ctx, nargs, args) != MK_OK) {
        mqt_fail(__FILE__, __LINE__, "LinkCreate: %s", MqErrorGetText(ctx));
        MqContextDelete(ctx);
        return NULL;
    }
    return ctx;
}

static int
launch(const lt_mode *m, const char *srv)
{
    char port[16];
    int isuds = !strcmp(m->tp, "--uds");
    if (isuds) {
        snprintf(where, sizeof where, "%s", mqt_temp_path("sock"));
    } else {
        snprintf(port, sizeof port, "%d", mqt_free_port());
        snprintf(where, sizeof where, "%s", port);
    }
    const char *argv[16] = {srv, m->tp, isuds ? "--file" : "--port", where, m->start};
    if (m->tls) {
        if (!lt_tls_dir())
            return -1;
        const char *more[] = {"--tls-cert", lt_tls_file("server.pem"), "--tls-key",
                              lt_tls_file("server.key"), "--tls-ca", lt_tls_file("ca.pem")};
        memcpy(argv + 5, more, sizeof more);
    }
    server = mqt_launch(argv, 120);
    int ok = isuds ? mqt_wait_for_file(where, 30000) : mqt_wait_for_port(atoi(where), 30000);
    if (ok != 0) {
        mqt_fail(__FILE__, __LINE__, "server for %s did not come up", m->name);
        return -1;
    }
    nargs = 0;
    args[nargs++] = "client";
    args[nargs++] = m->tp;
    args[nargs++] = isuds ? "--file" : "--port";
    args[nargs++] = where;
    if (m->tls) {
        static char cert[512], key[512], ca[512];
        snprintf(cert, sizeof cert, "%s", lt_tls_file("client.pem"));
        snprintf(key, sizeof key, "%s", lt_tls_file("client.key"));
        snprintf(ca, sizeof ca, "%s", lt_tls_file("ca.pem"));
        const char *more[] = {"--tls-cert", cert, "--tls-key", key, "--tls-ca", ca};
        memcpy(args + nargs, more, sizeof more);
        nargs += 6;
    }
    return 0;
}

MqContextC *
lt_connect(const lt_mode *m)
{
    static char srv[1024];
    snprintf(srv, sizeof srv, "%s", mqt_build_path("tests/testserver"));
    server = 0;
    if (!m->tp) {
        nargs = 0;
        args[nargs++] = "client";
        args[nargs++] = "@";
        args[nargs++] = srv;
    } else if (launch(m, srv) != 0) {
        return NULL;
    }
    return lt_connect_again();
}

pid_t
lt_server_pid(void)
{
    return server;
}

int
lt_server_port(void)
{
    return server && nargs >= 4 && !strcmp(args[1], "--tcp") ? atoi(where) : 0;
}

int
lt_raw_socket(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int
lt_raw_connect(const char *path)
{
    unsigned char pre[16] = {'M', 'Q', 'L', 'K', 1, 'L'};
    unsigned char answer[16];
    int fd = lt_raw_socket(path);
    if (fd < 0 || write(fd, pre, 16) != 16 ||
        recv(fd, answer, 16, MSG_WAITALL) != 16 || memcmp(answer, "MQLK", 4)) {
        mqt_fail(__FILE__, __LINE__, "raw handshake failed");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

void
lt_frame_header(unsigned char *h, unsigned char kind, const char *token, uint32_t items,
                uint32_t len)
{
    uint32_t zero = 0;
    uint64_t trans = 1;
    h[0] = 'M'; h[1] = 'Q'; h[2] = 1; h[3] = kind;
    memcpy(h + 4, token, 4);
    memcpy(h + 8, &zero, 4);
    memcpy(h + 12, &zero, 4);
    memcpy(h + 16, &trans, 8);
    memcpy(h + 24, &items, 4);
    memcpy(h + 28, &len, 4);
}

long
lt_rss_kb(pid_t pid)
{
    char path[64], line[256];
    long kb = -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

long
lt_cpu_ms(pid_t pid)
{
    char path[64], buf[1024];
    unsigned long utime, stime;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    /* the command name may hold spaces: count fields after its ')' */
    char *p = strrchr(buf, ')');
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                     &stime) != 2)
        return -1;
    return (long)((utime + stime) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

int
lt_file_mentions(const char *path, const char *what)
{
    return lt_file_mentions_from(path, 0, what);
}

int
lt_file_mentions_from(const char *path, long offset, const char *what)
{
    static char buf[1 << 20];
    FILE *f = fopen(path, "r");
    size_t n = f && fseek(f, offset, SEEK_SET) == 0 ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return strstr(buf, what) != NULL;
}

long
lt_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

void
lt_dump_on_failure(const char *path)
{
    char line[512];
    FILE *f = mqt_failures() ? fopen(path, "r") : NULL;
    while (f && fgets(line, sizeof line, f))
        printf("# server: %s", line);
    if (f)
        fclose(f);
}
