/* uds_test.c — the socket file of a Unix-socket server: a second server
 * refuses the path of a live one (and leaves it alone), a stale socket
 * file is replaced, a file that is not a socket is never touched, and a
 * server leaving removes the socket file only while it is still its own. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linktest.h"

static char sock[256];

/* testserver --uds --file sock --fork, its stderr into log. */
static pid_t
start_server(const char *log)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "exec %s --uds --file %s --fork 2>%s",
             mqt_build_path("tests/testserver"), sock, log);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    return mqt_launch(argv, 60);
}

/* The exit status of pid within ms, or -1 while it still runs. */
static int
exited_within(pid_t pid, int ms)
{
    int st;
    struct timespec ts = {0, 10 * 1000 * 1000};
    for (int t = 0; t < ms; t += 10) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* A client on sock gets an answer (within 5 s of retries: a server that
 * has just started). */
static int
served(void)
{
    const char *args[] = {"client", "--uds", "--file", sock, "--timeout", "5"};
    struct timespec ts = {0, 50 * 1000 * 1000};
    for (int i = 0; i < 100; i++) {
        MqContextC *c = MqContextCreate();
        MkErrorE rc = MqLinkCreate(c, 6, args);
        if (rc == MK_OK) {
            MqSendSTART(c);
            rc = MqSendEND_AND_WAIT(c, "ECHO", 5000);
        }
        MqContextDelete(c);
        if (rc == MK_OK)
            return 1;
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* A listening socket of our own bound at path (the caller closes it). */
static int
bind_at(const char *path, int do_listen)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || (do_listen && listen(fd, 8) < 0)) {
        mqt_fail(__FILE__, __LINE__, "cannot bind %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Files sock.* left beside sock (a temporary name of listen). */
static int
leftovers(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -d '%s'.* 2>/dev/null | grep -q .", sock);
    return system(cmd) == 0;
}

static void
live_path_refused(void)
{
    char log_a[256], log_b[256];
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("uds"));
    snprintf(log_a, sizeof log_a, "%s", mqt_temp_path("uds-log-a"));
    snprintf(log_b, sizeof log_b, "%s", mqt_temp_path("uds-log-b"));
    pid_t a = start_server(log_a);
    MQT_CHECK(mqt_wait_for_file(sock, 30000) == 0 && served());
    struct stat before, after;
    MQT_CHECK(stat(sock, &before) == 0);
    pid_t b = start_server(log_b);
    int st = exited_within(b, 5000);
    MQT_CHECK_MSG(st > 0, "a second server on a live path %s", st < 0 ? "kept running" : "exited 0");
    MQT_CHECK_MSG(lt_file_mentions(log_b, "another server is listening"), "second server's log:");
    lt_dump_on_failure(log_b);
    MQT_CHECK(stat(sock, &after) == 0 && after.st_ino == before.st_ino);
    MQT_CHECK(served());
    MQT_CHECK(!leftovers());
    /* the first one still owns the path: it removes it when it stops */
    MQT_CHECK(mqt_stop(a) == 0);
    MQT_CHECK_MSG(access(sock, F_OK) != 0, "the socket file stayed after its server stopped");
}

static void
stale_socket_replaced(void)
{
    char log[256];
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("uds"));
    snprintf(log, sizeof log, "%s", mqt_temp_path("uds-log"));
    int fd = bind_at(sock, 0); /* a socket file nobody listens on */
    if (fd >= 0)
        close(fd);
    pid_t s = start_server(log);
    MQT_CHECK_MSG(served(), "no server on a stale socket file");
    lt_dump_on_failure(log);
    mqt_stop(s);
}

static void
not_a_socket_kept(void)
{
    char log[256], text[64] = "";
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("uds"));
    snprintf(log, sizeof log, "%s", mqt_temp_path("uds-log"));
    FILE *f = fopen(sock, "w");
    fputs("the user's file\n", f);
    fclose(f);
    pid_t s = start_server(log);
    int st = exited_within(s, 5000);
    MQT_CHECK_MSG(st > 0, "a server on a regular file %s", st < 0 ? "kept running" : "exited 0");
    MQT_CHECK(lt_file_mentions(log, "not a socket"));
    lt_dump_on_failure(log);
    f = fopen(sock, "r");
    MQT_CHECK(f && fgets(text, sizeof text, f) && !strcmp(text, "the user's file\n"));
    if (f)
        fclose(f);
    MQT_CHECK(!leftovers());
}

/* The path taken over while the server runs (removed by hand, a new
 * server there): the first one leaving must not remove the new one's. */
static void
exit_unlinks_only_its_own(void)
{
    char log[256];
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("uds"));
    snprintf(log, sizeof log, "%s", mqt_temp_path("uds-log"));
    pid_t s = start_server(log);
    MQT_CHECK(mqt_wait_for_file(sock, 30000) == 0 && served());
    MQT_CHECK(unlink(sock) == 0);
    int fd = bind_at(sock, 1);
    struct stat mine, after;
    MQT_CHECK(stat(sock, &mine) == 0);
    MQT_CHECK(mqt_stop(s) == 0);
    MQT_CHECK_MSG(stat(sock, &after) == 0 && after.st_ino == mine.st_ino,
                  "the server removed a socket file that was not its own");
    lt_dump_on_failure(log);
    if (fd >= 0)
        close(fd);
}

static const mqt_case cases[] = {
    {"a second server on a live server's path is refused", live_path_refused},
    {"a stale socket file is replaced", stale_socket_replaced},
    {"a file that is not a socket is refused and kept", not_a_socket_kept},
    {"at exit only a socket file still its own is removed", exit_unlinks_only_its_own},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
