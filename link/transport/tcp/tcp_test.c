/* tcp_test.c — the TCP transport: a client's link ends with the server
 * closing first, with a reset once it read the client's _CLS, or with the
 * client's reset once the server acknowledged all of it, _CLS last, so
 * TIME_WAIT lands on no side: never on the client's ephemeral ports (tcp.c
 * says why that matters), nor on the server's (conn.c: end_reset); no
 * one-way data sent right before the end is lost to either reset; a
 * client's socket has TCP_NODELAY from its first write on. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#include "link_int.h"
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
no_time_wait(const char *mode, int call)
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
        if (call) {
            MqSendSTART(k);
            MqSendI32(k, i);
            MQT_OK(MqSendEND_AND_WAIT(k, "ECHO", MQ_TIMEOUT_DEFAULT), MqErrorGetText(k));
            MqReadI32(k, &v);
            MQT_CHECK(v == i);
        }
        MqContextDelete(k);
    }
    int client_tw = time_waits(port, 1) - client_before;
    int server_tw = time_waits(port, 0) - server_before;
    /* With a call the server acknowledges _CLS late (with its next
     * segment): the client waits for the server's close, which after _CLS
     * is a reset: no TIME_WAIT there either (with a FIN, every link left
     * one on the server).  A server that does not close within the
     * client's short wait (a busy machine) leaves that one on the client:
     * the exception, not the rule.  Without a call (a parent made and
     * deleted) _CLS is acknowledged at once and the client resets. */
    MQT_CHECK_MSG(client_tw <= links / 4, "%d of %d links left TIME_WAIT on the client", client_tw,
                  links);
    MQT_CHECK_MSG(server_tw <= links / 4, "%d of %d links left TIME_WAIT on the server", server_tw,
                  links);
}

/* The server process's BYTS total (testserver), asked on link k. */
static MK_I64
server_total(MqContextC *k)
{
    MK_I64 total = -1;
    MqSendSTART(k);
    if (MqSendEND_AND_WAIT(k, "TOTL", MQ_TIMEOUT_DEFAULT) == MK_OK)
        MqReadI64(k, &total);
    return total;
}

/* A new link sends first a one-way SLEP, so that its server instance reads
 * nothing for a while (with fail, then a one-way FAIL, whose error answer
 * the server writes after the sleep, with the rest still to read; the
 * client has ended the link by then), then pieces one-way
 * BYTS calls of size bytes each, and ends at once: the data is in flight
 * or waits unread in the server's receive queue when the client's link
 * ends.  Returns the bytes sent. */
static MK_I64
send_then_end(int fail, int pieces, size_t size)
{
    static unsigned char data[256 * 1024];
    MqContextC *k = lt_connect_again();
    if (!k || size > sizeof data)
        return 0;
    MqSendSTART(k);
    MqSendI32(k, 200);
    MQT_OK(MqSendEND(k, "SLEP", MQ_TIMEOUT_DEFAULT), MqErrorGetText(k));
    if (fail) {
        MqSendSTART(k);
        MQT_OK(MqSendEND(k, "FAIL", MQ_TIMEOUT_DEFAULT), MqErrorGetText(k));
    }
    for (int i = 0; i < pieces; i++) {
        MqSendSTART(k);
        MqSendBIN(k, data, size);
        MQT_OK(MqSendEND(k, "BYTS", MQ_TIMEOUT_DEFAULT), MqErrorGetText(k));
    }
    MqContextDelete(k);
    return (MK_I64)pieces * (MK_I64)size;
}

/* One-way data right before LinkDelete reaches the server whole: a few
 * small calls, acknowledged by the server before the client ends (the
 * client resets: the server reads them from its receive queue after the
 * reset came; also after a failed call whose error answer it could not
 * write), and 8 MiB, much of it unacknowledged when the client ends
 * (the client waits for the server's close, or closes with a FIN).  The
 * server's total is asked on another link of the same --thread server,
 * until it has all (30 s at most: a loaded machine; the case has 60). */
static void
last_data_arrives(void)
{
    MqContextC *c = lt_connect(lt_mode_get("tcp_thread"));
    if (!c)
        return;
    MK_I64 sent = server_total(c);
    MQT_CHECK(sent == 0);
    for (int round = 0; round < 3; round++) {
        sent += send_then_end(0, 3, 1000);
        sent += send_then_end(1, 3, 1000);
        sent += send_then_end(0, 32, 256 * 1024);
    }
    MK_I64 got = -1;
    for (int i = 0; i < 3000 && (got = server_total(c)) >= 0 && got < sent; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MQT_CHECK_MSG(got == sent, "the server took in %lld of the %lld bytes sent", (long long)got,
                  (long long)sent);
    MqContextDelete(c);
}

/* TCP_NODELAY on the client's socket of c: 1, 0, or -1 when unknown. */
static int
nodelay(MqContextC *c)
{
    int on = -1;
    socklen_t len = sizeof on;
    if (!c->conn || getsockopt(c->conn->fd, IPPROTO_TCP, TCP_NODELAY, &on, &len) != 0)
        return -1;
    return on != 0;
}

/* The client sets TCP_NODELAY at its first write after the handshake, not
 * at connect (transport.h: tune_at_first_write): a call's frames must never
 * wait for Nagle. */
static void
nodelay_from_first_write(void)
{
    MqContextC *c = lt_connect(lt_mode_get("tcp_fork"));
    if (!c)
        return;
    MQT_CHECK_MSG(nodelay(c) == 0, "TCP_NODELAY %d before any write (set at connect?)", nodelay(c));
    MqSendSTART(c);
    MqSendI32(c, 7);
    MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", MQ_TIMEOUT_DEFAULT), MqErrorGetText(c));
    MQT_CHECK_MSG(nodelay(c) == 1, "TCP_NODELAY %d after a call", nodelay(c));
    MqContextDelete(c);
}

/* Any other end of a server's link closes with a FIN, not the reset it
 * gives a link after _CLS (conn.c: end_reset): a peer whose handshake is
 * garbage reads the end of file, not ECONNRESET. */
static void
other_ends_fin(const char *mode)
{
    MqContextC *c = lt_connect(lt_mode_get(mode));
    if (!c)
        return;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)lt_server_port()),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    MQT_CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    char junk[MQI_PREAMBLE_SIZE], one;
    memset(junk, 'x', sizeof junk);
    MQT_CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk);
    ssize_t n = read(fd, &one, 1);
    MQT_CHECK_MSG(n == 0, "read %zd (%s) where the end of file was due", n,
                  n < 0 ? strerror(errno) : "a byte");
    close(fd);
    MqContextDelete(c);
}

/* A client's host is an address (parsed, tcp.c: numeric) or a name
 * (getaddrinfo): both reach the server. */
static void
host_name_or_address(void)
{
    MqContextC *c = lt_connect(lt_mode_get("tcp_fork"));
    if (!c)
        return;
    char port[16];
    snprintf(port, sizeof port, "%d", lt_server_port());
    const char *hosts[] = {"localhost", "127.0.0.1", "127.1"};
    for (size_t i = 0; i < sizeof hosts / sizeof *hosts; i++) {
        const char *argv[] = {"client", "--tcp", "--host", hosts[i], "--port", port};
        MqContextC *k = MqContextCreate();
        MQT_OK(MqLinkCreate(k, 6, argv), MqErrorGetText(k));
        MqContextDelete(k);
    }
    MqContextDelete(c);
}

static void fork_mode(void) { no_time_wait("tcp_fork", 1); }
static void fork_fin(void) { other_ends_fin("tcp_fork"); }
static void spawn_mode(void) { no_time_wait("tcp_spawn", 1); }
#ifdef MQ_HAVE_THREADS
static void thread_mode(void) { no_time_wait("tcp_thread", 1); }
static void thread_parents(void) { no_time_wait("tcp_thread", 0); }
static void thread_fin(void) { other_ends_fin("tcp_thread"); }
#endif

static const mqt_case cases[] = {
    {"tcp_fork: a link ends with a reset (after _CLS), no TIME_WAIT on either side", fork_mode},
    {"tcp client: TCP_NODELAY from the first write after the handshake", nodelay_from_first_write},
    {"tcp_fork: a handshake that fails ends with a FIN, not a reset", fork_fin},
    {"tcp client: --host a name or an address", host_name_or_address},
    {"tcp_spawn: a link ends with a reset (after _CLS), no TIME_WAIT on either side", spawn_mode},
#ifdef MQ_HAVE_THREADS
    {"tcp_thread: a link ends with a reset (after _CLS), no TIME_WAIT on either side", thread_mode},
    {"tcp_thread: a link without calls (a parent) leaves no TIME_WAIT on either side",
     thread_parents},
    {"tcp_thread: a handshake that fails ends with a FIN, not a reset", thread_fin},
    {"tcp_thread: one-way data right before LinkDelete reaches the server whole", last_data_arrives},
#endif
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
