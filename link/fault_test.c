/* fault_test.c — hostile input: malformed frames from a raw socket get that
 * one link closed with a logged reason; the server keeps serving proper
 * clients, and its memory stays bounded. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/un.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linktest.h"

static char sock[256];
static char logfile[256];
static pid_t server;

/* A threaded server, so every connection lives in the one process whose
 * memory we watch; its stderr goes to logfile. */
static int
start_server_with(const char *extra)
{
    char cmd[2048];
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("fault"));
    snprintf(logfile, sizeof logfile, "%s", mqt_temp_path("fault-log"));
    snprintf(cmd, sizeof cmd, "exec %s --uds --file %s --thread %s 2>%s",
             mqt_build_path("tests/testserver"), sock, extra, logfile);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    server = mqt_launch(argv, 120);
    if (mqt_wait_for_file(sock, 20000) != 0) {
        mqt_fail(__FILE__, __LINE__, "server did not come up");
        return -1;
    }
    return 0;
}

static int
start_server(void)
{
    return start_server_with("");
}

static int
raw_socket(void)
{
    return lt_raw_socket(sock);
}

static int
raw_connect(void)
{
    return lt_raw_connect(sock);
}

/* A frame header in our byte order, every field chosen by the test. */
static void
frame(unsigned char *h, unsigned char kind, const char *token, uint32_t child, uint32_t flags,
      uint64_t trans, uint32_t items, uint32_t len)
{
    h[0] = 'M'; h[1] = 'Q'; h[2] = 1; h[3] = kind;
    memcpy(h + 4, token, 4);
    memcpy(h + 8, &child, 4);
    memcpy(h + 12, &flags, 4);
    memcpy(h + 16, &trans, 8);
    memcpy(h + 24, &items, 4);
    memcpy(h + 28, &len, 4);
}

/* A call on the parent, transaction 1. */
static void
header(unsigned char *h, unsigned char kind, const char *token, uint32_t items, uint32_t len)
{
    frame(h, kind, token, 0, 0, 1, items, len);
}

/* Send bytes; the server must close the link within 3 s. */
static int
closed_after(const void *bytes, size_t n, int half_close)
{
    int fd = raw_connect();
    if (fd < 0)
        return 0;
    if (write(fd, bytes, n) != (ssize_t)n)
        return 0;
    if (half_close)
        shutdown(fd, SHUT_WR);
    char buf[256];
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int closed = 0;
    while (poll(&p, 1, 3000) > 0) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r <= 0) {
            closed = 1;
            break;
        }
    }
    close(fd);
    return closed;
}

static void
check_serves(void)
{
    const char *args[] = {"client", "--uds", "--file", sock};
    MqContextC *c = MqContextCreate();
    MK_I32 v = 0;
    MQT_OK(MqLinkCreate(c, 4, args), MqErrorGetText(c));
    MqSendSTART(c);
    MqSendI32(c, 99);
    MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", 20000), MqErrorGetText(c));
    MqReadI32(c, &v);
    MQT_CHECK(v == 99);
    MqContextDelete(c);
}

/* Where the current case's part of the server log starts: the log holds
 * every case of a server's life, and a reason must come from its own case. */
static long log_from;

static void
log_mark(void)
{
    log_from = lt_file_size(logfile);
}

/* Whether the server logged what since log_mark(); it logs as it closes the
 * link, so give it a moment. */
static int
log_mentions(const char *what)
{
    for (int i = 0; i < 200; i++) {
        if (lt_file_mentions_from(logfile, log_from, what))
            return 1;
        usleep(10000);
    }
    return 0;
}

static void
dump_log_on_failure(void)
{
    lt_dump_on_failure(logfile);
}

static void
each_malformed_frame(void)
{
    unsigned char f[4096];
    if (start_server() != 0)
        return;
    /* truncated: the header promises 100 bytes, 10 arrive, then EOF */
    header(f, 1, "ECHO", 1, 100);
    memset(f + 32, 3, 10);
    MQT_CHECK(closed_after(f, 42, 1));
    /* oversize length: refused at the header, nothing allocated */
    log_mark();
    header(f, 1, "ECHO", 1, 0xFFFFFFF0u);
    MQT_CHECK(closed_after(f, 32, 0));
    MQT_CHECK(log_mentions("exceeds the maximum"));
    /* bad type byte in the body */
    log_mark();
    header(f, 1, "ECHO", 1, 5);
    f[32] = 99;
    MQT_CHECK(closed_after(f, 37, 0));
    MQT_CHECK(log_mentions("unknown type byte 99"));
    /* bad magic */
    log_mark();
    header(f, 1, "ECHO", 0, 0);
    f[0] = 'X';
    MQT_CHECK(closed_after(f, 32, 0));
    MQT_CHECK(log_mentions("bad frame magic"));
    /* a string length pointing past the body */
    header(f, 1, "ECHO", 1, 9);
    f[32] = MK_TYPE_STR;
    uint32_t big = 1000;
    memcpy(f + 33, &big, 4);
    MQT_CHECK(closed_after(f, 41, 0));
    /* item count that does not match the body */
    header(f, 1, "ECHO", 7, 5);
    f[32] = MK_TYPE_I32;
    MQT_CHECK(closed_after(f, 37, 0));
    /* lists nested deeper than allowed */
    log_mark();
    header(f, 1, "ECHO", 100, 200);
    memset(f + 32, MK_TYPE_LST, 100);
    memset(f + 132, MK_TYPE_LST_END, 100);
    MQT_CHECK(closed_after(f, 232, 0));
    MQT_CHECK(log_mentions("lists nested deeper than"));
    MQT_CHECK(log_mentions("malformed frame"));
    /* unknown frame kind and a token that is not text */
    header(f, 77, "ECHO", 0, 0);
    MQT_CHECK(closed_after(f, 32, 0));
    header(f, 1, "\x01\x02\x03\x04", 0, 0);
    MQT_CHECK(closed_after(f, 32, 0));
    check_serves();
    dump_log_on_failure();
}

static void
garbage_and_memory(void)
{
    unsigned char f[512];
    unsigned seed = 12345;
    if (start_server() != 0)
        return;
    check_serves();
    long before = lt_rss_kb(server);
    for (int i = 0; i < 200; i++) {
        size_t n = 32 + (size_t)(rand_r(&seed) % 400);
        for (size_t k = 0; k < n; k++)
            f[k] = (unsigned char)rand_r(&seed);
        if (i % 2) /* a valid header in front of a garbage body */
            header(f, 1, "ECHO", (uint32_t)rand_r(&seed) % 5, (uint32_t)(n - 32));
        MQT_CHECK(closed_after(f, n, 1));
    }
    long after = lt_rss_kb(server);
    MQT_CHECK_MSG(before > 0 && after - before < 16 * 1024, "RSS %ld kB -> %ld kB", before, after);
    check_serves();
    dump_log_on_failure();
}

/* Not an mqlink peer at all: a bad preamble is refused at once. */
static void
bad_preamble(void)
{
    if (start_server() != 0)
        return;
    int fd = raw_socket();
    MQT_CHECK(fd >= 0);
    MQT_CHECK(write(fd, "GET / HTTP/1.0\r\n\r\n", 18) == 18);
    char buf[64];
    struct pollfd p = {.fd = fd, .events = POLLIN};
    MQT_CHECK(poll(&p, 1, 3000) == 1 && read(fd, buf, sizeof buf) <= 0);
    close(fd);
    check_serves();
}

/* Bad options are errors that name the option. */
static void
bad_options(void)
{
    struct { int argc; const char *argv[6]; const char *named; } t[] = {
        {2, {"c", "--bogus"}, "--bogus"},
        {3, {"c", "--timeout", "soon"}, "--timeout"},
        {2, {"c", "--port"}, "--port"},
        {2, {"c", "--uds"}, "--uds"},
        {4, {"c", "--tcp", "--port", "99999"}, "--port"},
        {2, {"c", "stray"}, "stray"},
        {1, {"c"}, "transport"},
        {2, {"c", "@"}, "@"},
        {3, {"c", "@", "/nonexistent/server"}, "/nonexistent/server"},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        MqContextC *c = MqContextCreate();
        MQT_CHECK(MqLinkCreate(c, t[i].argc, t[i].argv) == MK_ERROR);
        MQT_CHECK_MSG(strstr(MqErrorGetText(c), t[i].named), "case %zu: '%s'", i, MqErrorGetText(c));
        MqContextDelete(c);
    }
    MqContextC *c = MqContextCreate();
    MQT_CHECK(MqServiceCreate(c, "TOOLONG", NULL, NULL, NULL) == MK_ERROR);
    MQT_CHECK(MqSendEND(c, "ECHO", -1) == MK_ERROR && strstr(MqErrorGetText(c), "not linked"));
    MqContextDelete(c);
}

static MK_I64
timeout_after(const char *file, const char *extra)
{
    const char *args[] = {"client", "--config", file, "--name", "myclient", "@",
                          mqt_build_path("tests/testserver"), NULL};
    const char *with[] = {"client", "--config", file, "--name", "myclient", "--timeout", extra,
                          "@", mqt_build_path("tests/testserver"), NULL};
    MqContextC *c = MqContextCreate();
    MK_I64 t = -1;
    if (MqLinkCreate(c, extra ? 9 : 7, extra ? with : args) == MK_OK)
        t = MqConfigGetTimeout(c);
    else
        mqt_fail(__FILE__, __LINE__, "%s", MqErrorGetText(c));
    MqContextDelete(c);
    return t;
}

/* --config: the file's global settings, then the group of --name, then the
 * command line, each overriding the one before. */
static void
config_file(void)
{
    const char *file = mqt_temp_path("cfg");
    FILE *f = fopen(file, "w");
    fputs("timeout = 7;\nmyclient: { timeout = 3; };\n", f);
    fclose(f);
    MQT_CHECK(timeout_after(file, NULL) == 3000);
    MQT_CHECK(timeout_after(file, "9") == 9000);
    f = fopen(file, "w");
    fputs("timeout = 7;\nmyclient: { timeout = ; };\n", f);
    fclose(f);
    const char *args[] = {"client", "--config", file, "@", "x"};
    MqContextC *c = MqContextCreate();
    MQT_CHECK(MqLinkCreate(c, 5, args) == MK_ERROR);
    char where[512];
    snprintf(where, sizeof where, "%s:2", file);
    MQT_CHECK_MSG(strstr(MqErrorGetText(c), where) != NULL, "%s", MqErrorGetText(c));
    MqContextDelete(c);
}

/* A server killed (SIGKILL) while the client waits: error, not a hang. */
static void
server_killed(void)
{
    if (start_server() != 0)
        return;
    const char *args[] = {"client", "--uds", "--file", sock};
    MqContextC *c = MqContextCreate();
    MQT_OK(MqLinkCreate(c, 4, args), MqErrorGetText(c));
    pid_t killer = fork();
    if (killer == 0) {
        usleep(300000);
        kill(server, SIGKILL);
        _exit(0);
    }
    MqSendSTART(c);
    MqSendI32(c, 20000);
    MQT_CHECK(MqSendEND_AND_WAIT(c, "SLEP", 10000) == MK_ERROR);
    MQT_CHECK_MSG(MqErrorGetCode(c) == MQ_ERR_LINK, "%s", MqErrorGetText(c));
    waitpid(killer, NULL, 0);
    MqContextDelete(c);
}

static void
put32be(unsigned char *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

/* A peer of the other byte order: the server swaps what it reads and
 * answers in its own order, which it announced in its preamble. */
static void
other_byte_order(void)
{
    if (start_server() != 0)
        return;
    unsigned char pre[16] = {'M', 'Q', 'L', 'K', 1, 'B'}, answer[16];
    unsigned char f[64] = {'M', 'Q', 1, 1, 'E', 'C', 'H', 'O'};
    unsigned char body[] = {MK_TYPE_I32, 1, 2, 3, 4,
                            MK_TYPE_I64, 1, 2, 3, 4, 5, 6, 7, 8,
                            MK_TYPE_STR, 0, 0, 0, 3, 'a', 'b', 'c', 0};
    int fd = raw_socket();
    MQT_CHECK(fd >= 0);
    MQT_CHECK(write(fd, pre, 16) == 16 && recv(fd, answer, 16, MSG_WAITALL) == 16);
    MQT_CHECK(answer[5] == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 'B' : 'L'));
    put32be(f + 20, 7);             /* trans, low word of a big-endian u64 */
    put32be(f + 24, 3);             /* items */
    put32be(f + 28, sizeof body);   /* body length */
    memcpy(f + 32, body, sizeof body);
    MQT_CHECK(write(fd, f, 32 + sizeof body) == (ssize_t)(32 + sizeof body));
    unsigned char r[32 + sizeof body];
    MQT_CHECK(recv(fd, r, sizeof r, MSG_WAITALL) == (ssize_t)sizeof r);
    uint64_t trans;
    uint32_t items, i32;
    uint64_t i64;
    memcpy(&trans, r + 16, 8);
    memcpy(&items, r + 24, 4);
    memcpy(&i32, r + 33, 4);
    memcpy(&i64, r + 38, 8);
    MQT_CHECK(r[3] == 4 && trans == 7 && items == 3);
    MQT_CHECK_MSG(i32 == 0x01020304u && i64 == 0x0102030405060708ull, "%x %llx", i32,
                  (unsigned long long)i64);
    uint32_t slen;
    memcpy(&slen, r + 47, 4);
    MQT_CHECK(r[46] == MK_TYPE_STR && slen == 3 && !memcmp(r + 51, "abc", 4));
    close(fd);
}

/* The handshake is read exactly: a preamble that comes in pieces, the
 * last piece written together with the first call, still gets that call
 * answered (nothing past the preamble is lost). */
static void
preamble_in_pieces(void)
{
    if (start_server() != 0)
        return;
    unsigned char out[16 + 32 + 5] = {'M', 'Q', 'L', 'K', 1, 'L'}, answer[16], r[32 + 5];
    uint32_t v = 4242;
    header(out + 16, 1, "ECHO", 1, 5);
    out[48] = MK_TYPE_I32;
    memcpy(out + 49, &v, 4);
    int fd = raw_socket();
    MQT_CHECK(fd >= 0);
    MQT_CHECK(write(fd, out, 1) == 1);
    usleep(50000);
    MQT_CHECK(write(fd, out + 1, 7) == 7);
    usleep(50000);
    MQT_CHECK(write(fd, out + 8, sizeof out - 8) == (ssize_t)(sizeof out - 8));
    MQT_CHECK(recv(fd, answer, 16, MSG_WAITALL) == 16 && !memcmp(answer, "MQLK", 4));
    MQT_CHECK(recv(fd, r, sizeof r, MSG_WAITALL) == (ssize_t)sizeof r);
    uint32_t got = 0;
    memcpy(&got, r + 33, 4);
    MQT_CHECK_MSG(r[3] == 4 && r[32] == MK_TYPE_I32 && got == v, "kind %d item %d value %u", r[3],
                  r[32], got);
    close(fd);
    check_serves();
}


enum { K_WAIT = 1, K_ONEWAY = 3, K_RETURN = 4, K_ERROR = 5, F_INTERNAL = 1 };

/* Write one frame: a header and body bytes. */
static int
send_frame(int fd, unsigned char kind, const char *token, uint32_t child, uint32_t flags,
           uint64_t trans, uint32_t items, const void *body, uint32_t len)
{
    unsigned char f[32 + 256];
    if (len > 256)
        return 0;
    frame(f, kind, token, child, flags, trans, items, len);
    if (len)
        memcpy(f + 32, body, len);
    return write(fd, f, 32 + len) == (ssize_t)(32 + len);
}

/* Read one answer frame (header, then the body into text, NUL-ended);
 * its kind, or -1 when none came within 20 s (a loaded machine). */
static int
read_answer(int fd, uint64_t *trans, char *text, size_t cap)
{
    unsigned char h[32];
    uint32_t len;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 20000) != 1 || recv(fd, h, 32, MSG_WAITALL) != 32)
        return -1;
    memcpy(trans, h + 16, 8);
    memcpy(&len, h + 28, 4);
    char body[4096];
    if (len > sizeof body || (len && recv(fd, body, len, MSG_WAITALL) != (ssize_t)len))
        return -1;
    /* an error body is I32 code, then STR text: [8][u32 len][text][0] */
    size_t n = len > 10 ? len - 10 : 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(text, body + 10, n);
    text[n] = 0;
    return h[3];
}

/* _CHC for child id on fd: the kind of the answer (K_RETURN or K_ERROR). */
static int
create_child(int fd, uint32_t id, uint64_t trans, char *text, size_t cap)
{
    uint64_t got = 0;
    if (!send_frame(fd, K_WAIT, "_CHC", id, F_INTERNAL, trans, 0, NULL, 0))
        return -1;
    int kind = read_answer(fd, &got, text, cap);
    return got == trans ? kind : -1;
}

/* A child the peer deleted leaves nothing behind a later frame can write
 * through: create child 1, call a service on it, delete it, then a frame
 * whose read fails.  (The receive stream kept the child's error object:
 * a use-after-free write, seen by ASan.) */
static void
deleted_child_then_failed_read(void)
{
    static const unsigned char coun[] = {MK_TYPE_I32, 1, 0, 0, 0};
    static const unsigned char str[] = {MK_TYPE_STR, 1, 0, 0, 0, 'x', 0};
    char id[64] = {MK_TYPE_STR, 32, 0, 0, 0};
    char text[256];
    memset(id + 5, 'a', 32);
    if (start_server() != 0)
        return;
    for (int trigger = 0; trigger < 3; trigger++) {
        int fd = raw_connect();
        if (fd < 0)
            break;
        MQT_CHECK(create_child(fd, 1, 1, text, sizeof text) == K_RETURN);
        MQT_CHECK(send_frame(fd, K_ONEWAY, "COUN", 1, 0, 0, 1, coun, sizeof coun));
        MQT_CHECK(send_frame(fd, K_ONEWAY, "_CHD", 1, F_INTERNAL, 0, 0, NULL, 0));
        if (trigger == 0) /* an identity with an empty body */
            MQT_CHECK(send_frame(fd, K_ONEWAY, "_SID", 0, F_INTERNAL, 0, 0, NULL, 0));
        else if (trigger == 1) /* an error of a one-way call without a body */
            MQT_CHECK(send_frame(fd, K_ERROR, "_ERR", 0, 0, 0, 0, NULL, 0));
        else /* a low-water mark that is not an integer */
            MQT_CHECK(send_frame(fd, K_ONEWAY, "_SID", 0, F_INTERNAL, 0, 1, id, 38) &&
                      send_frame(fd, K_ONEWAY, "_LWM", 0, F_INTERNAL, 0, 1, str, sizeof str));
        /* a call on the parent still works (or the link was closed) */
        uint64_t got = 0;
        /* the send itself fails when the server has closed the link already */
        int kind = send_frame(fd, K_WAIT, "ECHO", 0, 0, 9, 1, coun, sizeof coun)
                       ? read_answer(fd, &got, text, sizeof text) : -1;
        MQT_CHECK_MSG(kind == -1 || (kind == K_RETURN && got == 9), "trigger %d: kind %d", trigger,
                      kind);
        close(fd);
    }
    check_serves();
    dump_log_on_failure();
}

/* A child id is a name, never a size: children with huge ids cost what any
 * child costs.  (0x10000001 grew a table to 4 GiB; ids >= 2^31 asked for
 * 32 GiB and left the table pointing at freed memory.) */
static void
huge_child_ids(void)
{
    static const uint32_t ids[] = {0x10000001u, 0x80000000u, 0xFFFFFFFFu, 7};
    static const unsigned char i32[] = {MK_TYPE_I32, 42, 0, 0, 0};
    char text[256];
    if (start_server() != 0)
        return;
    check_serves();
    long before = lt_rss_kb(server);
    int fd = raw_connect();
    if (fd < 0)
        return;
    for (int i = 0; i < 4; i++)
        MQT_CHECK_MSG(create_child(fd, ids[i], 1 + (uint64_t)i, text, sizeof text) == K_RETURN,
                      "child %#x: %s", ids[i], text);
    uint64_t got = 0;
    MQT_CHECK(send_frame(fd, K_WAIT, "ECHO", 0xFFFFFFFFu, 0, 77, 1, i32, sizeof i32));
    MQT_CHECK(read_answer(fd, &got, text, sizeof text) == K_RETURN && got == 77);
    long after = lt_rss_kb(server);
    MQT_CHECK_MSG(before > 0 && after - before < 16 * 1024, "RSS %ld kB -> %ld kB", before, after);
    /* the parent's id, and an id in use, are refused */
    MQT_CHECK(create_child(fd, 0, 20, text, sizeof text) == K_ERROR);
    MQT_CHECK(create_child(fd, 7, 21, text, sizeof text) == K_ERROR);
    MQT_CHECK_MSG(strstr(text, "in use") != NULL, "%s", text);
    close(fd);
    check_serves();
    dump_log_on_failure();
}

/* A client that sends one-way calls and goes has them all served, even
 * when an earlier one fails after it went: writing that error back fails
 * (the peer has closed), and what the peer sent before closing is still
 * to be read.  The server is held in SLEP while the client sends the rest
 * and closes.  (The link ended at the failed write: 0 of 5 COUN calls.) */
static void
oneway_after_client_gone(void)
{
    static const unsigned char ms[] = {MK_TYPE_I32, 0xF4, 0x01, 0, 0}; /* 500 */
    unsigned char coun[] = {MK_TYPE_I32, 0, 0, 0, 0};
    const char *want = "instance ended after 5 COUN calls, sum 15";
    setenv("MQT_COUNT_LOG", "1", 1);
    int up = start_server();
    unsetenv("MQT_COUNT_LOG");
    if (up != 0)
        return;
    log_mark();
    int fd = raw_connect();
    if (fd < 0)
        return;
    MQT_CHECK(send_frame(fd, K_ONEWAY, "SLEP", 0, 0, 0, 1, ms, sizeof ms));
    MQT_CHECK(send_frame(fd, K_ONEWAY, "FAIL", 0, 0, 0, 0, NULL, 0));
    usleep(150 * 1000); /* the server has read these two and sleeps */
    for (int i = 1; i <= 5; i++) {
        coun[1] = (unsigned char)i;
        MQT_CHECK(send_frame(fd, K_ONEWAY, "COUN", 0, 0, 0, 1, coun, sizeof coun));
    }
    close(fd);
    int seen = 0;
    for (int i = 0; i < 3000 && !seen; i++) { /* 30 s: a loaded machine */
        seen = lt_file_mentions_from(logfile, log_from, want);
        if (!seen && !lt_file_mentions_from(logfile, log_from, "COUN calls"))
            usleep(10000);
        else if (!seen)
            break;
    }
    MQT_CHECK_MSG(seen, "the server did not log \"%s\"", want);
    check_serves();
    dump_log_on_failure();
}

/* --max-children bounds the server instances one link may hold. */
static void
child_limit(void)
{
    char text[256];
    if (start_server_with("--max-children 3") != 0)
        return;
    int fd = raw_connect();
    if (fd < 0)
        return;
    for (uint32_t id = 1; id <= 3; id++)
        MQT_CHECK(create_child(fd, id * 1000, id, text, sizeof text) == K_RETURN);
    MQT_CHECK(create_child(fd, 4000, 4, text, sizeof text) == K_ERROR);
    MQT_CHECK_MSG(strstr(text, "--max-children") != NULL, "%s", text);
    MQT_CHECK(log_mentions("--max-children"));
    MQT_CHECK(send_frame(fd, K_ONEWAY, "_CHD", 2000, F_INTERNAL, 0, 0, NULL, 0));
    MQT_CHECK(create_child(fd, 4000, 5, text, sizeof text) == K_RETURN);
    close(fd);
    /* a client is held to the same bound */
    const char *args[] = {"client", "--max-children", "2", "--uds", "--file", sock};
    MqContextC *c = MqContextCreate(), *k[3];
    MQT_OK(MqLinkCreate(c, 6, args), MqErrorGetText(c));
    for (int i = 0; i < 3; i++) {
        k[i] = MqContextCreate();
        MQT_CHECK((MqLinkCreateChild(k[i], c) == MK_OK) == (i < 2));
    }
    MQT_CHECK_MSG(strstr(MqErrorGetText(k[2]), "--max-children") != NULL, "%s",
                  MqErrorGetText(k[2]));
    for (int i = 0; i < 3; i++)
        MqContextDelete(k[i]);
    MqContextDelete(c);
    dump_log_on_failure();
}

/* A listening Unix socket at a new temporary path (path: 256 bytes) for a
 * peer the test plays itself. */
static int
fake_listener(const char *stem, char *path)
{
    snprintf(path, 256, "%s", mqt_temp_path(stem));
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, path);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    MQT_CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0);
    return l;
}

/* A signal every 50 ms (no SA_RESTART, as Ruby's and Python's handlers) must
 * not restart a wait's whole timeout: the handshake with a peer that never
 * answers still ends after --timeout 1.  The client runs in a child that the
 * test kills after 30 s. */
static void
on_tick(int sig)
{
    (void)sig;
}

static void
silent_peer_under_signals(void)
{
    char path[256];
    int l = fake_listener("silent", path); /* listens, never accepts nor writes */
    pid_t client = fork();
    if (client == 0) {
        struct sigaction sa = {.sa_handler = on_tick}; /* sa_flags 0: no SA_RESTART */
        struct itimerval every = {{0, 50000}, {0, 50000}};
        sigaction(SIGALRM, &sa, NULL);
        setitimer(ITIMER_REAL, &every, NULL);
        const char *args[] = {"client", "--uds", "--file", path, "--timeout", "1"};
        MqContextC *c = MqContextCreate();
        MkErrorE rc = MqLinkCreate(c, 6, args);
        _exit(rc == MK_ERROR && MqErrorGetCode(c) == MQ_ERR_TIMEOUT ? 0 : 2);
    }
    int status = -1, waited = 0;
    while (waitpid(client, &status, WNOHANG) == 0 && waited < 30000) {
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
        waited += 50;
    }
    if (waited >= 30000) {
        kill(client, SIGKILL);
        waitpid(client, &status, 0);
        MQT_CHECK_MSG(0, "the handshake wait did not end in 30 s (each signal restarted its timeout)");
    } else {
        MQT_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "the client's LinkCreate did not end with MQ_ERR_TIMEOUT (status %d)", status);
    }
    close(l);
    unlink(path);
}

/* An error answer without a body still tells the caller something. */
static void
error_without_reason(void)
{
    char path[256];
    int l = fake_listener("noreason", path);
    pid_t peer = fork();
    if (peer == 0) { /* a server that answers every call with an empty ERROR */
        unsigned char pre[16] = {'M', 'Q', 'L', 'K', 1, 'L', 0, 0, 1}, h[32];
        int fd = accept(l, NULL, NULL);
        uint32_t len = 0;
        if (fd < 0 || recv(fd, h, 16, MSG_WAITALL) != 16 || write(fd, pre, 16) != 16)
            _exit(1);
        while (recv(fd, h, 32, MSG_WAITALL) == 32) {
            unsigned char skip[256];
            memcpy(&len, h + 28, 4);
            if (len > sizeof skip || (len && recv(fd, skip, len, MSG_WAITALL) != (ssize_t)len))
                _exit(1);
            h[3] = K_ERROR;
            memset(h + 24, 0, 8);
            if (write(fd, h, 32) != 32)
                _exit(1);
        }
        _exit(0);
    }
    close(l);
    const char *args[] = {"client", "--uds", "--file", path};
    MqContextC *c = MqContextCreate();
    MQT_OK(MqLinkCreate(c, 4, args), MqErrorGetText(c));
    MqSendSTART(c);
    MQT_CHECK(MqSendEND_AND_WAIT(c, "ECHO", 20000) == MK_ERROR);
    MQT_CHECK_MSG(strstr(MqErrorGetText(c), "no reason") != NULL, "'%s'", MqErrorGetText(c));
    MqContextDelete(c);
    waitpid(peer, NULL, 0);
}

static const mqt_case cases[] = {
    {"a deleted child, then a frame whose read fails", deleted_child_then_failed_read},
    {"one-way calls of a client that has gone are served", oneway_after_client_gone},
    {"huge child ids allocate nothing", huge_child_ids},
    {"--max-children bounds the children of a link", child_limit},
    {"an error answer without a reason", error_without_reason},
    {"preamble in pieces, then a call in the same write", preamble_in_pieces},
    {"peer of the other byte order", other_byte_order},
    {"malformed frames close the link", each_malformed_frame},
    {"random garbage, bounded memory", garbage_and_memory},
    {"not an mqlink peer", bad_preamble},
    {"bad options name the option", bad_options},
    {"server killed during a wait", server_killed},
    {"a silent peer under repeated signals: the handshake times out", silent_peer_under_signals},
    {"config file, command line wins", config_file},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
