/* persist_stream.c N MARK LINK-ARGS... — a stream of N persistent calls to
 * testserver's PERS that outlives a kill -9 of the server: the driving
 * script (tests/hosts_test.sh) kills the server when MARK appears and starts
 * it again; every payload 1..N must be answered exactly once.
 *
 * The kill lands mid-stream by construction, not by timing: the first
 * quarter is answered before MARK, then a plain call to SLEP holds the
 * (single-instance) server while the second quarter is sent, so those calls
 * are stored and on the wire but unanswered when the server dies.
 * LINK-ARGS must name a --storage; exit 0 only when every check passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mqlink.h"

static long n;
static unsigned char *seen;
static long answers, twice;
static MK_I64 checksum;

static MkErrorE
on_answer(MqContextC *ctx, void *data)
{
    MK_I64 v;
    if (MqErrorGetCode(ctx) || MqReadI64(ctx, &v) != MK_OK)
        return MK_OK; /* link gone: the call stays stored and is sent again */
    if (v < 1 || v > n || seen[v]++) {
        twice++;
        fprintf(stderr, "persist_stream: payload %lld answered again or unknown\n", (long long)v);
    } else {
        answers++;
        checksum += v;
    }
    return MK_OK;
}

static MkErrorE
ignore(MqContextC *ctx, void *data)
{
    return MK_OK; /* the SLEP call dies with the server, as intended */
}

static int
send_range(MqContextC *c, long from, long to)
{
    for (long v = from; v <= to; v++)
        if (MqSendSTART(c) || MqSendI64(c, v) ||
            MqSendEND_AND_TRANSACTION_CALLBACK(c, "PERS", on_answer, NULL, NULL, 60000)) {
            fprintf(stderr, "persist_stream: call %ld: %s\n", v, MqErrorGetText(c));
            return 0;
        }
    return 1;
}

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Serve events until no stored call is left (or sec pass). */
static MK_I64
drain(MqContextC *c, double sec)
{
    MK_I64 left = 1;
    for (double end = now() + sec; left > 0 && now() < end;) {
        MqProcessEvent(c, MQ_WAIT_ONCE, 10);
        MqStoragePendingCount(c, &left);
    }
    return left;
}

/* A new link with the same storage, tried until the restarted server
 * answers (sec at most); the stored calls are sent again by LinkCreate. */
static int
relink(MqContextC *c, int argc, const char **argv, double sec)
{
    char why[256] = "";
    for (double end = now() + sec; now() < end;) {
        if (MqLinkCreate(c, argc, argv) == MK_OK)
            return 1;
        snprintf(why, sizeof why, "%s", MqErrorGetText(c));
        MqErrorReset(c);
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "persist_stream: no link within %.0f s: %s\n", sec, why);
    return 0;
}

/* Up to the kill: a quarter answered, a quarter stored and sent behind SLEP,
 * MARK made, then events served until the kill shows as the link's error.
 * 1 when exactly that quarter is stored unanswered then. */
static int
until_the_kill(MqContextC *c, long q, const char *mark)
{
    if (!send_range(c, 1, q))
        return 0;
    if (drain(c, 30) != 0) {
        fprintf(stderr, "persist_stream: the first %ld calls not answered in 30 s\n", q);
        return 0;
    }
    MqSendSTART(c);
    MqSendI32(c, 600000);
    if (MqSendEND_AND_CALLBACK(c, "SLEP", ignore, NULL, NULL, 600000) || !send_range(c, q + 1, 2 * q))
        return 0;
    MqProcessEvent(c, MQ_WAIT_ONCE, 10); /* flush */
    FILE *f = fopen(mark, "w");
    if (!f || fclose(f) != 0) {
        perror(mark);
        return 0;
    }
    for (double end = now() + 30; now() < end;)
        if (MqProcessEvent(c, MQ_WAIT_ONCE, 100) == MK_ERROR)
            break;
    MK_I64 pending = -1;
    MqStoragePendingCount(c, &pending);
    printf("answered before the kill: %ld, stored and unanswered at the kill: %lld\n", answers,
           (long long)pending);
    if (pending != q)
        fprintf(stderr, "persist_stream: %lld calls stored at the kill, not %ld\n",
                (long long)pending, q);
    return pending == q;
}

int
main(int argc, char **argv)
{
    if (argc < 4 || (n = atol(argv[1])) < 8) {
        fprintf(stderr, "usage: persist_stream N(>=8) MARK LINK-ARGS... --storage FILE\n");
        return 2;
    }
    const char *mark = argv[2];
    int largc = argc - 2;
    const char **largv = (const char **)argv + 2;
    largv[0] = "persist_stream";
    seen = calloc(n + 1, 1);
    MqContextC *c = MqContextCreate();
    MqConfigSetTransactionHandler(c, on_answer, NULL, NULL);
    if (!relink(c, largc, largv, 10))
        return 1;
    if (!MqStorageIsDurable(c)) {
        fprintf(stderr, "persist_stream: the storage is in memory (no --storage)\n");
        return 1;
    }
    long q = n / 4;
    if (!until_the_kill(c, q, mark))
        return 1;
    MqLinkDelete(c);
    MqErrorReset(c);
    if (!relink(c, largc, largv, 30) || !send_range(c, 2 * q + 1, n))
        return 1;
    MK_I64 left = drain(c, 60);
    int sum_ok = checksum == (MK_I64)n * (n + 1) / 2;
    printf("answers %ld of %ld, answered twice %ld, still stored %lld, checksum %s\n", answers, n,
           twice, (long long)left, sum_ok ? "ok" : "wrong");
    MqContextDelete(c);
    free(seen);
    return answers == n && twice == 0 && left == 0 && sum_ok ? 0 : 1;
}
