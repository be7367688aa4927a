/* tcp_test.c — the TCP transport: a client's link ends with the server
 * closing first, so TIME_WAIT lands on the server's port and never on the
 * client's ephemeral ones (tcp.c says why that matters). */
#include <stdio.h>
#include <string.h>

#include "config.h"

#include "linktest.h"

/* TIME_WAIT sockets (state 06) in /proc/net/tcp whose local (or, with
 * remote, remote) port is port. */
static int
time_waits(int port, int remote)
{
    FILE *f = fopen("/proc/net/tcp", "r");
    char line[512];
    int n = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        unsigned lport, rport, st;
        if (sscanf(line, " %*d: %*x:%x %*x:%x %x", &lport, &rport, &st) == 3 && st == 6 &&
            (int)(remote ? rport : lport) == port)
            n++;
    }
    fclose(f);
    return n;
}

static void
server_closes_first(const char *mode)
{
    MqContextC *c = lt_connect(lt_mode_get(mode));
    if (!c)
        return;
    int port = lt_server_port();
    MQT_CHECK(port > 0);
    if (time_waits(port, 0) < 0) {
        printf("# no /proc/net/tcp here\n");
        MqContextDelete(c);
        return;
    }
    int client_before = time_waits(port, 1), server_before = time_waits(port, 0);
    const int links = 20;
    for (int i = 0; i < links; i++) {
        MqContextC *k = i ? lt_connect_again() : c;
        if (!k)
            return;
        MK_I32 v = -1;
        MqSendSTART(k);
        MqSendI32(k, i);
        MQT_OK(MqSendEND_AND_WAIT(k, "ECHO", MQ_TIMEOUT_DEFAULT), MqErrorGetText(k));
        MqReadI32(k, &v);
        MQT_CHECK(v == i);
        MqContextDelete(k);
    }
    int client_tw = time_waits(port, 1) - client_before;
    int server_tw = time_waits(port, 0) - server_before;
    /* A server that does not close within the client's short wait (a busy
     * machine) leaves that one on the client: the exception, not the rule. */
    MQT_CHECK_MSG(client_tw <= links / 4, "%d of %d links left TIME_WAIT on the client", client_tw,
                  links);
    MQT_CHECK_MSG(server_tw >= links / 2, "only %d of %d links in TIME_WAIT on the server",
                  server_tw, links);
}

static void fork_mode(void) { server_closes_first("tcp_fork"); }
static void spawn_mode(void) { server_closes_first("tcp_spawn"); }
#ifdef MQ_HAVE_THREADS
static void thread_mode(void) { server_closes_first("tcp_thread"); }
#endif

static const mqt_case cases[] = {
    {"tcp_fork: the server closes first", fork_mode},
    {"tcp_spawn: the server closes first", spawn_mode},
#ifdef MQ_HAVE_THREADS
    {"tcp_thread: the server closes first", thread_mode},
#endif
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
