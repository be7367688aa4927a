/* limits_test.c — what a hostile peer can make a server hold is bounded, and
 * a proper client is served meanwhile: a peer that stops reading costs no
 * CPU (no spin) and bounded memory (--max-buffered); connections are limited
 * (--max-connections); an idle link (--idle-timeout) and a frame or
 * handshake that does not complete (--frame-timeout) are closed.  Each limit
 * says so in the server's log.  The CPU checks assert "does not spin", not a
 * speed: their threshold is a third of the wall time. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#include "linktest.h"

static char sock[256];
static char logfile[256];
static pid_t server;

static MK_I64
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (MK_I64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The test server on a Unix socket in start mode (--fork, --thread,
 * --spawn) with the options opts; its stderr goes to logfile. */
static int
start_server(const char *mode, const char *opts)
{
    char cmd[2048];
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("limits"));
    snprintf(logfile, sizeof logfile, "%s", mqt_temp_path("limits-log"));
    snprintf(cmd, sizeof cmd, "exec %s --uds --file %s %s %s 2>%s",
             mqt_build_path("tests/testserver"), sock, mode, opts, logfile);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    server = mqt_launch(argv, 120);
    if (mqt_wait_for_file(sock, 30000) != 0) {
        mqt_fail(__FILE__, __LINE__, "server did not come up");
        lt_dump_on_failure(logfile);
        return -1;
    }
    return 0;
}

/* A proper client: link, one ECHO call, unlink.  MK_OK when it was served. */
static MkErrorE
served(char *why, size_t whylen)
{
    const char *args[] = {"client", "--uds", "--file", sock, "--timeout", "5"};
    MqContextC *c = MqContextCreate();
    MK_I32 v = 0;
    MkErrorE rc = MqLinkCreate(c, 6, args);
    if (rc == MK_OK) {
        MqSendSTART(c);
        MqSendI32(c, 99);
        if ((rc = MqSendEND_AND_WAIT(c, "ECHO", 5000)) == MK_OK &&
            (MqReadI32(c, &v) != MK_OK || v != 99))
            rc = MqErrorSet(c, 1, "wrong answer %d", v);
    }
    if (rc != MK_OK && why)
        snprintf(why, whylen, "%s", MqErrorGetText(c));
    MqContextDelete(c);
    return rc;
}

static void
check_served(void)
{
    char why[512] = "";
    MQT_CHECK_MSG(served(why, sizeof why) == MK_OK, "proper client not served: %s", why);
}

/* The server's log mentions what, within a second (a forked instance may
 * write it a moment after the link closed). */
static int
logged(const char *what)
{
    for (int i = 0; i < 100; i++) {
        if (lt_file_mentions(logfile, what))
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* The server closed fd: it reads end of file (or an error) within ms. */
static int
closed_within(int fd, int ms)
{
    char buf[4096];
    MK_I64 end = now_ms() + ms;
    for (MK_I64 left; (left = end - now_ms()) > 0;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)left) <= 0)
            continue;
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            return 1;
    }
    return 0;
}

/* Closed already: a look without waiting. */
static int
is_closed(int fd)
{
    return closed_within(fd, 1);
}

/* Write copies of frame (n bytes) to fd without blocking, until the server
 * takes nothing for 300 ms (it stopped reading) or max bytes went out.
 * Returns the bytes written. */
static size_t
pump(int fd, const unsigned char *frame, size_t n, size_t max)
{
    size_t sent = 0, at = 0;
    MK_I64 stalled_since = -1;
    while (sent < max) {
        ssize_t w = send(fd, frame + at, n - at, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0) {
            sent += (size_t)w;
            at = (at + (size_t)w) % n;
            stalled_since = -1;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            break;
        if (stalled_since < 0)
            stalled_since = now_ms();
        else if (now_ms() - stalled_since >= 300)
            break;
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        poll(&p, 1, 50);
    }
    return sent;
}

/* An ECHO call with a BIN of size bytes: its answer is as large. */
static unsigned char *
echo_frame(size_t size, size_t *n)
{
    *n = 32 + 5 + size;
    unsigned char *f = calloc(1, *n);
    uint32_t len = (uint32_t)size;
    lt_frame_header(f, 1, "ECHO", 1, (uint32_t)(5 + size));
    f[32] = MK_TYPE_BIN;
    memcpy(f + 33, &len, 4);
    return f;
}

/* CPU the server spent over ms of wall time, in percent; proper clients
 * are served meanwhile. */
static long
server_cpu_percent(int ms)
{
    long before = lt_cpu_ms(server);
    MK_I64 start = now_ms();
    while (now_ms() - start < ms) {
        check_served();
        sleep_ms(250);
    }
    long after = lt_cpu_ms(server);
    MK_I64 wall = now_ms() - start;
    return before < 0 || after < 0 ? 100 : (after - before) * 100 / (long)wall;
}

/* A peer that sends calls and never reads their answers: the server's
 * write waits for writability only.  (It used to wait for input as well,
 * which stays reported while the read buffer is at its limit: a busy loop
 * of poll and send for the whole --timeout.) */
static void
peer_stops_reading(void)
{
    size_t n;
    if (start_server("--thread", "--max-frame 1048576 --timeout 60") != 0)
        return;
    unsigned char *f = echo_frame(60000, &n);
    int fd = lt_raw_connect(sock);
    if (fd >= 0) {
        size_t sent = pump(fd, f, n, (size_t)200 << 20);
        MQT_CHECK_MSG(sent > (size_t)1 << 20, "only %zu bytes went", sent);
        long cpu = server_cpu_percent(2000);
        printf("# %zu bytes sent; server CPU %ld%% of 2 s\n", sent, cpu);
        MQT_CHECK_MSG(cpu < 30, "the server spent %ld%% of a core on a peer that does not read",
                      cpu);
        MQT_CHECK(!is_closed(fd));
        MQT_CHECK(logged("no more until it reads"));
        close(fd);
    }
    free(f);
    check_served();
    lt_dump_on_failure(logfile);
}

/* A server that answers the handshake and then reads nothing, in a child
 * process listening on path; killed by the caller. */
static pid_t
deaf_server(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    unlink(path);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 1) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        unsigned char pre[16] = {'M', 'Q', 'L', 'K', 1,
                                 __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 'B' : 'L', 0, 0, 1};
        unsigned char in[16];
        int fd = accept(lfd, NULL, NULL);
        if (fd >= 0 && recv(fd, in, 16, MSG_WAITALL) == 16 && write(fd, pre, 16) == 16)
            for (;;)
                pause();
        _exit(1);
    }
    close(lfd);
    return pid;
}

/* MqSendEND's timeout: when the peer stops reading and the write buffer
 * is full, a one-way call waits that long (not the context's --timeout),
 * then fails with MQ_ERR_TIMEOUT, and the link is closed with that reason
 * (part of a frame may have left: the stream cannot go on). */
static void
send_end_timeout(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s", mqt_temp_path("deaf"));
    pid_t peer = deaf_server(path);
    MQT_CHECK(peer > 0);
    if (peer <= 0)
        return;
    MqContextC *c = MqContextCreate();
    const char *argv[] = {"client", "--uds", "--file", path, "--timeout", "60", NULL};
    MQT_OK(MqLinkCreate(c, 6, argv), MqErrorGetText(c));
    static unsigned char blob[60000];
    MkErrorE rc = MK_OK;
    MK_I64 took = 0;
    for (int i = 0; i < 10000 && rc == MK_OK; i++) {
        MK_I64 start = now_ms();
        MqSendSTART(c);
        MqSendBIN(c, blob, sizeof blob);
        rc = MqSendEND(c, "ECHO", 300);
        took = now_ms() - start;
    }
    printf("# SendEND failed after %lld ms: %s\n", (long long)took, MqErrorGetText(c));
    MQT_CHECK(rc == MK_ERROR);
    MQT_CHECK_MSG(MqErrorGetCode(c) == MQ_ERR_TIMEOUT, "code %d", MqErrorGetCode(c));
    /* a correctness bound, not a speed: far below the context's 60 s */
    MQT_CHECK_MSG(took >= 250 && took < 20000, "the failing SendEND took %lld ms", (long long)took);
    MQT_CHECK(strstr(MqErrorGetText(c), "did not read for 300 ms") != NULL);
    MQT_CHECK(!MqLinkIsConnected(c));
    MqSendSTART(c);
    MQT_CHECK(MqSendEND(c, "ECHO", 300) == MK_ERROR && MqErrorGetCode(c) == MQ_ERR_TIMEOUT);
    MqContextDelete(c);
    kill(peer, SIGKILL);
    waitpid(peer, NULL, 0);
    unlink(path);
}

/* Peers that never read and peers that send part of a large frame, each
 * up to what the server takes: together they get no more than
 * --max-buffered (and a small read buffer each), the server does not spin
 * while they wait for room, and a proper client is served. */
static void
buffered_bytes_bounded(void)
{
    enum { READERS = 4, HALF = 2 };
    int fd[READERS + HALF];
    size_t n;
    if (start_server("--thread", "--max-buffered 4194304 --timeout 60") != 0)
        return;
    check_served();
    long before = lt_rss_kb(server);
    unsigned char *f = echo_frame(60000, &n);
    unsigned char *body = calloc(1, 1 << 20);
    for (int i = 0; i < READERS + HALF; i++) {
        if ((fd[i] = lt_raw_connect(sock)) < 0)
            continue;
        if (i < READERS) {
            pump(fd[i], f, n, (size_t)32 << 20);
        } else {
            /* one BIN of 32 MiB announced, 24 MiB of it sent */
            unsigned char h[37];
            uint32_t size = 32u << 20;
            lt_frame_header(h, 1, "ECHO", 1, 5 + size);
            h[32] = MK_TYPE_BIN;
            memcpy(h + 33, &size, 4);
            MQT_CHECK(write(fd[i], h, sizeof h) == (ssize_t)sizeof h);
            pump(fd[i], body, 1 << 20, (size_t)24 << 20);
        }
    }
    long after = lt_rss_kb(server);
    MQT_CHECK_MSG(before > 0 && after - before < 40 * 1024, "server RSS %ld kB -> %ld kB", before,
                  after);
    long cpu = server_cpu_percent(1500);
    printf("# server RSS %ld kB -> %ld kB, CPU %ld%% of 1.5 s\n", before, after, cpu);
    MQT_CHECK_MSG(cpu < 30, "the server spent %ld%% of a core on peers waiting for room", cpu);
    MQT_CHECK(logged("--max-buffered"));
    for (int i = 0; i < READERS + HALF; i++)
        if (fd[i] >= 0)
            close(fd[i]);
    free(body);
    free(f);
    check_served();
    lt_dump_on_failure(logfile);
}

/* --max-connections 3: two idle peers and a proper client fill it, the
 * next client is refused at once (and the log says why); when a peer
 * leaves, a client gets in again. */
static void
max_connections(const char *mode)
{
    char why[512] = "";
    if (start_server(mode, "--max-connections 3 --idle-timeout 0") != 0)
        return;
    int a = lt_raw_connect(sock), b = lt_raw_connect(sock);
    const char *args[] = {"client", "--uds", "--file", sock, "--timeout", "5"};
    MqContextC *c = MqContextCreate();
    MQT_OK(MqLinkCreate(c, 6, args), MqErrorGetText(c));
    MqSendSTART(c);
    MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", 5000), MqErrorGetText(c));
    MK_I64 start = now_ms();
    MQT_CHECK_MSG(served(NULL, 0) == MK_ERROR, "a 4th connection was served");
    MQT_CHECK_MSG(now_ms() - start < 4000, "refused only after %lld ms",
                  (long long)(now_ms() - start));
    MQT_CHECK(logged("--max-connections"));
    /* the proper client still works */
    MqSendSTART(c);
    MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", 5000), MqErrorGetText(c));
    close(a);
    MkErrorE rc = MK_ERROR;
    for (int i = 0; i < 50 && rc != MK_OK; i++) {
        if ((rc = served(why, sizeof why)) != MK_OK)
            sleep_ms(100);
    }
    MQT_CHECK_MSG(rc == MK_OK, "no client served after a peer left: %s", why);
    MqContextDelete(c);
    close(b);
    lt_dump_on_failure(logfile);
}

/* --idle-timeout 1: a peer that sends nothing after the handshake is
 * closed; a client calling now and then is not. */
static void
idle_timeout(const char *mode)
{
    if (start_server(mode, "--idle-timeout 1") != 0)
        return;
    int fd = lt_raw_connect(sock);
    const char *args[] = {"client", "--uds", "--file", sock, "--timeout", "5"};
    MqContextC *c = MqContextCreate();
    MQT_OK(MqLinkCreate(c, 6, args), MqErrorGetText(c));
    MK_I64 start = now_ms();
    for (int i = 0; i < 8; i++) {
        sleep_ms(300);
        MqSendSTART(c);
        MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", 5000), MqErrorGetText(c));
    }
    MQT_CHECK_MSG(fd >= 0 && closed_within(fd, 5000 - (int)(now_ms() - start)),
                  "an idle peer was not closed within 5 s");
    MQT_CHECK(logged("--idle-timeout"));
    MqContextDelete(c);
    if (fd >= 0)
        close(fd);
    check_served();
    lt_dump_on_failure(logfile);
}

#ifdef MQ_HAVE_THREADS
/* --thread, --idle-timeout 1: an idle peer is closed while new parents keep
 * coming.  A pool thread waits without a timeout and the process's keeper
 * thread ends the wait at its deadline (keeper.c): here the parents' waits
 * arm later deadlines meanwhile, in idle_timeout none is armed but its. */
static void
thread_idle_while_parents_come(void)
{
    if (start_server("--thread", "--idle-timeout 1") != 0)
        return;
    int fd = lt_raw_connect(sock), closed = 0, parents = 0;
    const char *args[] = {"client", "--uds", "--file", sock, "--timeout", "5"};
    MK_I64 start = now_ms();
    while (fd >= 0 && !(closed = is_closed(fd)) && now_ms() - start < 5000) {
        MqContextC *c = MqContextCreate();
        MQT_OK(MqLinkCreate(c, 6, args), MqErrorGetText(c));
        MqContextDelete(c);
        parents++;
    }
    MQT_CHECK_MSG(closed, "an idle peer was not closed within 5 s (%d parents meanwhile)", parents);
    MQT_CHECK(logged("--idle-timeout"));
    if (fd >= 0)
        close(fd);
    check_served();
    lt_dump_on_failure(logfile);
}

/* --thread, --frame-timeout 1: a frame that stops half way is closed,
 * with no byte coming after it to wake the wait (in frame_timeout the
 * bytes keep coming). */
static void
thread_frame_stalled(void)
{
    if (start_server("--thread", "--frame-timeout 1") != 0)
        return;
    unsigned char frame[32 + 100];
    lt_frame_header(frame, 1, "ECHO", 1, 100);
    memset(frame + 32, MK_TYPE_I8, sizeof frame - 32);
    int fd = lt_raw_connect(sock);
    MQT_CHECK(fd >= 0 && write(fd, frame, 33) == 33);
    MQT_CHECK_MSG(fd >= 0 && closed_within(fd, 5000), "a stalled frame was not closed within 5 s");
    MQT_CHECK(logged("--frame-timeout"));
    if (fd >= 0)
        close(fd);
    check_served();
    lt_dump_on_failure(logfile);
}
#endif

/* --frame-timeout 1: a frame sent one byte at a time and a handshake sent
 * one byte at a time are closed after a second although bytes keep coming;
 * a proper client is served meanwhile. */
static void
frame_timeout(const char *mode)
{
    if (start_server(mode, "--frame-timeout 1") != 0)
        return;
    unsigned char frame[32 + 100], pre[16] = {'M', 'Q', 'L', 'K', 1, 'L'};
    lt_frame_header(frame, 1, "ECHO", 1, 100);
    memset(frame + 32, MK_TYPE_I8, sizeof frame - 32);
    int slow_frame = lt_raw_connect(sock), slow_hello = lt_raw_socket(sock);
    MQT_CHECK(slow_hello >= 0);
    if (slow_frame < 0 || slow_hello < 0)
        return;
    MQT_CHECK(write(slow_frame, frame, 33) == 33);
    size_t at = 33, hello = 0;
    int frame_closed = 0, hello_closed = 0;
    MK_I64 start = now_ms();
    while ((!frame_closed || !hello_closed) && now_ms() - start < 6000) {
        sleep_ms(250);
        if (!frame_closed && !(frame_closed = is_closed(slow_frame)) && at < sizeof frame)
            frame_closed = send(slow_frame, frame + at++, 1, MSG_NOSIGNAL) != 1;
        if (!hello_closed && !(hello_closed = is_closed(slow_hello)) && hello < sizeof pre)
            hello_closed = send(slow_hello, pre + hello++, 1, MSG_NOSIGNAL) != 1;
        if (now_ms() - start > 500 && now_ms() - start < 800)
            check_served();
    }
    MQT_CHECK_MSG(frame_closed && at < sizeof frame, "slow frame: %s after %zu of %zu bytes",
                  frame_closed ? "closed" : "still open", at, sizeof frame);
    MQT_CHECK_MSG(hello_closed && hello < sizeof pre, "slow handshake: %s after %zu of 16 bytes",
                  hello_closed ? "closed" : "still open", hello);
    MQT_CHECK(logged("--frame-timeout"));
    close(slow_frame);
    close(slow_hello);
    check_served();
    lt_dump_on_failure(logfile);
}

#define MODE_CASES(M, FLAG)                                                   \
    static void M##_max_connections(void) { max_connections(FLAG); }          \
    static void M##_idle(void) { idle_timeout(FLAG); }                        \
    static void M##_frame(void) { frame_timeout(FLAG); }
#define MODE_LIST(M)                                                          \
    {#M ": --max-connections refuses past the limit, logged", M##_max_connections}, \
    {#M ": --idle-timeout closes an idle link, logged", M##_idle},              \
    {#M ": --frame-timeout closes a slow frame and handshake, logged", M##_frame}

MODE_CASES(fork, "--fork")
MODE_CASES(thread, "--thread")
MODE_CASES(spawn, "--spawn")

static const mqt_case cases[] = {
    {"a client's SendEND to a peer that stops reading: MQ_ERR_TIMEOUT after its timeout",
     send_end_timeout},
#ifdef MQ_HAVE_THREADS
    {"a peer that stops reading: no spin, a proper client served", peer_stops_reading},
    {"peers that fill the buffers: bounded by --max-buffered, no spin", buffered_bytes_bounded},
#endif
    MODE_LIST(fork),
#ifdef MQ_HAVE_THREADS
    MODE_LIST(thread),
    {"thread: --idle-timeout closes an idle link while parents keep coming",
     thread_idle_while_parents_come},
    {"thread: --frame-timeout closes a frame that stops half way", thread_frame_stalled},
#endif
    MODE_LIST(spawn),
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
