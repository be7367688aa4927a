/* seeds.c — fuzz_seeds OUTDIR: write the seed corpus from real frames.  A
 * real client (the public API) runs a few scenarios against the harness
 * server over a Unix socket; a relay between them records what the client
 * writes.  From each scenario's bytes come
 *   OUTDIR/fuzz_server/SCENARIO        the whole conversation, in frames.c's format
 *   OUTDIR/fuzz_frame/SCENARIO-NN      each frame (option byte 0, header, body)
 *   OUTDIR/fuzz_stream/SCENARIO-NN     each non-empty body
 * Run it after a wire format change and minimise (README.md, "Fuzzing"). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "frames.h"
#include "harness.h"

static const char *outdir;
static char sockpath[108];

/* ------------------------------------------------ relay and recording */

typedef struct relay {
    int lfd;            /* the listening socket the client connects to */
    int client, server; /* accepted connection, our end of the socketpair */
    fuzz_out seen;      /* what the client wrote */
} relay;

/* Copy both ways until both sides are done, keeping the client's bytes. */
static void *
relay_run(void *arg)
{
    relay *r = arg;
    char buf[65536];
    int open_in = 1, open_out = 1;
    r->client = accept(r->lfd, NULL, NULL);
    if (r->client < 0)
        open_in = open_out = 0;
    while (open_in || open_out) {
        struct pollfd p[2] = {{.fd = open_in ? r->client : -1, .events = POLLIN},
                              {.fd = open_out ? r->server : -1, .events = POLLIN}};
        if (poll(p, 2, 5000) <= 0)
            break;
        if (p[0].revents) {
            ssize_t n = read(r->client, buf, sizeof buf);
            if (n > 0) {
                fuzz_out_put(&r->seen, buf, (size_t)n);
                if (write(r->server, buf, (size_t)n) != n)
                    break;
            } else {
                open_in = 0;
                shutdown(r->server, SHUT_WR);
            }
        }
        if (p[1].revents) {
            ssize_t n = read(r->server, buf, sizeof buf);
            if (n > 0) {
                if (write(r->client, buf, (size_t)n) != n)
                    break;
            } else {
                open_out = 0;
                shutdown(r->client, SHUT_WR);
            }
        }
    }
    close(r->client);
    close(r->server);
    return NULL;
}

typedef struct server_arg {
    int fd;
} server_arg;

static void *
serve(void *arg)
{
    mqi_instance_serve(fuzz_harness_template(), ((server_arg *)arg)->fd);
    return NULL;
}

/* ------------------------------------------------------ the scenarios */

static MkErrorE
answered(MqContextC *ctx, void *data)
{
    (*(int *)data)++;
    return MK_OK;
}

static void
perf_row(MqContextC *c, MK_I32 i)
{
    MqSendSTART(c);
    MqSendI8(c, (MK_I8)i);
    MqSendI16(c, (MK_I16)(i * 300));
    MqSendI32(c, i * 100000);
    MqSendDBL(c, i * 1.5);
    MqSendBIN(c, "binary", 6);
}

static void
types(MqContextC *c)
{
    MqSendSTART(c);
    MqSendI8(c, -128);
    MqSendI16(c, 32767);
    MqSendI32(c, INT32_MIN);
    MqSendI64(c, INT64_MAX);
    MqSendFLT(c, -0.0f);
    MqSendDBL(c, 1e300);
    MqSendBOL(c, 1);
    MqSendSTR(c, "text");
    MqSendSTR(c, "");
    MqSendBIN(c, "\0\1\2", 3);
    MqSendEND(c, "RDUL", 5000);
    perf_row(c, 1);
    MqSendEND(c, "RDUL", 5000);
    perf_row(c, 2);
    MqSendEND_AND_WAIT(c, "ECUL", 5000);
    MqSendSTART(c);
    MqSendSTR(c, "12");
    MqSendSTR(c, "-3");
    MqSendSTR(c, "40000");
    MqSendSTR(c, "2.5");
    MqSendSTR(c, "more");
    MqSendEND_AND_WAIT(c, "ECUL", 5000); /* converted reads */
}

static void
callbacks(MqContextC *c)
{
    int n = 0;
    for (int i = 0; i < 3; i++) {
        perf_row(c, i);
        MqSendEND_AND_CALLBACK(c, "ECUL", answered, &n, NULL, 5000);
    }
    MqSendSTART(c);
    MqSendEND(c, "NTHT", 5000);
    while (n < 3 && MqProcessEvent(c, MQ_WAIT_ONCE, 5000) == MK_OK)
        ;
}

static void
lists(MqContextC *c)
{
    MqSendSTART(c);
    MqSendI32(c, 1);
    MqSendL_START(c);
    MqSendSTR(c, "in a list");
    MqSendL_START(c);
    MqSendI64(c, -1);
    MqSendL_END(c);
    MqSendL_START(c);
    MqSendL_END(c);
    MqSendL_END(c);
    MqSendBIN(c, "", 0);
    MqSendEND_AND_WAIT(c, "BUST", 5000);
    perf_row(c, 7);
    MqSendEND_AND_WAIT(c, "BUST", 5000);
    perf_row(c, 8);
    MqSendEND_AND_WAIT(c, "BFLT", 5000);
}

static void
children(MqContextC *c)
{
    MqContextC *k1 = MqContextCreate(), *k2 = MqContextCreate();
    if (MqLinkCreateChild(k1, c) == MK_OK && MqLinkCreateChild(k2, c) == MK_OK) {
        perf_row(k1, 3);
        MqSendEND_AND_WAIT(k1, "ECUL", 5000);
        MqSendSTART(k2);
        MqSendEND(k2, "NTHT", 5000);
        MqLinkDelete(k1);
        perf_row(k2, 4);
        MqSendEND_AND_WAIT(k2, "ECUL", 5000);
    }
    MqContextDelete(k1);
    MqContextDelete(k2);
}

static void
persistent(MqContextC *c)
{
    for (int i = 0; i < 2; i++) {
        perf_row(c, 5 + i);
        MqSendEND_AND_TRANSACTION(c, "ECUL", 5000);
    }
    int n = 0;
    perf_row(c, 9);
    MqSendEND_AND_TRANSACTION_CALLBACK(c, "ECUL", answered, &n, NULL, 5000);
    while (n < 1 && MqProcessEvent(c, MQ_WAIT_ONCE, 5000) == MK_OK)
        ;
}

static void
errors(MqContextC *c)
{
    MqSendSTART(c);
    MqSendEND_AND_WAIT(c, "NONE", 5000); /* no such service */
    MqSendSTART(c);
    MqSendI8(c, 1);
    MqSendEND_AND_WAIT(c, "ECUL", 5000); /* too few items */
    MqSendSTART(c);
    MqSendSTR(c, "not a number");
    MqSendEND(c, "RDUL", 5000);          /* error of a one-way call */
    MqSendSTART(c);
    MqSendEND_AND_WAIT(c, "NTHT", 5000);
}

static const struct {
    const char *name;
    void (*run)(MqContextC *);
} scenarios[] = {
    {"types", types}, {"callbacks", callbacks}, {"lists", lists},
    {"children", children}, {"persistent", persistent}, {"errors", errors},
};

/* ----------------------------------------------------------- output */

static void
write_file(const char *target, const char *name, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, target);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", outdir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "fuzz_seeds: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

/* Split what the client wrote into frames and write the seeds. */
static void
write_seeds(const char *scenario, const unsigned char *p, size_t len)
{
    fuzz_out server = {0};
    MkErrorC *err = MkErrorCreate();
    size_t pos = MQI_PREAMBLE_SIZE;
    char name[256];
    fuzz_frames_seed_start(&server);
    for (int i = 0; pos + MQI_HDR_SIZE <= len; i++) {
        mqi_hdr h;
        if (mqi_hdr_decode(p + pos, 0, MQI_DEFAULT_MAX_FRAME, &h, err) != MK_OK ||
            pos + MQI_HDR_SIZE + h.len > len) {
            fprintf(stderr, "fuzz_seeds: %s: %s\n", scenario, MkErrorGetText(err));
            exit(1);
        }
        const unsigned char *body = p + pos + MQI_HDR_SIZE;
        fuzz_out frame = {0};
        fuzz_out_put(&frame, "\0", 1);
        fuzz_out_put(&frame, p + pos, MQI_HDR_SIZE + h.len);
        snprintf(name, sizeof name, "%s-%02d-%s", scenario, i, h.token);
        write_file("fuzz_frame", name, frame.p, frame.len);
        if (h.len > 0)
            write_file("fuzz_stream", name, body, h.len);
        fuzz_frames_seed_frame(&server, &h, body);
        fuzz_out_free(&frame);
        pos += MQI_HDR_SIZE + h.len;
    }
    write_file("fuzz_server", scenario, server.p, server.len);
    fuzz_out_free(&server);
    MkErrorDelete(err);
}

static void
run_scenario(int lfd, const char *name, void (*run)(MqContextC *))
{
    const char *args[] = {"fuzz_seeds", "--uds", "--file", sockpath, "--timeout", "5"};
    MqContextC *c = MqContextCreate();
    pthread_t rt = 0, st = 0;
    relay r = {.lfd = lfd, .client = -1};
    server_arg sa;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        exit(1);
    sa.fd = sv[1];
    r.server = sv[0];
    pthread_create(&st, NULL, serve, &sa);
    pthread_create(&rt, NULL, relay_run, &r);
    if (MqLinkCreate(c, 6, args) != MK_OK)
        fprintf(stderr, "fuzz_seeds: %s: %s\n", name, MqErrorGetText(c));
    else
        run(c);
    MqContextDelete(c);
    pthread_join(rt, NULL);
    pthread_join(st, NULL);
    write_seeds(name, r.seen.p, r.seen.len);
    fuzz_out_free(&r.seen);
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds OUTDIR\n");
        return 2;
    }
    outdir = argv[1];
    mkdir(outdir, 0777);
    snprintf(sockpath, sizeof sockpath, "/tmp/fuzz_seeds.%d", (int)getpid());
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", sockpath);
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 4) != 0) {
        perror("fuzz_seeds: listen");
        return 1;
    }
    for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++)
        run_scenario(lfd, scenarios[i].name, scenarios[i].run);
    close(lfd);
    unlink(sockpath);
    return 0;
}
