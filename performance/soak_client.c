/* soak_client.c CLIENTS CALLS LINK-ARGS... — CLIENTS processes, each with a
 * parent link of its own to tests/testserver, make CALLS calls each, mixed:
 * 4 in 10 SendEND_AND_WAIT and 3 in 10 SendEND_AND_CALLBACK to ECHO (a
 * sequence number and a string made from it, both checked when they come
 * back), 3 in 10 one-way SendEND to COUN (counted by the server instance and
 * checked against GETC).  Every 250 calls a client creates a child context,
 * and with two alive it checks and deletes the older one, so server
 * instances come and go underway; calls go to the parent or the newest child.
 *
 * Prints one summary line; exit 0 only with nothing lost, nothing wrong and
 * every client finished.  Performance/soak.bash drives it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mqlink.h"

#define WINDOW 32         /* callbacks in flight per client at most */
#define CHILD_EVERY 250   /* calls between child creations */
#define TIMEOUT_MS 60000

typedef struct {
    long wait, callback, oneway, children, lost, wrong, done;
} tally;

typedef struct {
    MqContextC *ctx;
    long sent;       /* one-way calls sent to it */
    MK_I64 sum;      /* and the sum of their values */
} target;

static tally t;
static long in_flight;

static int
read_echo(MqContextC *ctx, MK_I64 seq)
{
    MK_I64 v = -1;
    const char *s = "";
    char want[32];
    snprintf(want, sizeof want, "soak-%" PRId64, seq);
    if (MqReadI64(ctx, &v) || MqReadSTR(ctx, &s) || v != seq || strcmp(s, want) != 0) {
        fprintf(stderr, "soak_client: sent %" PRId64 ", got %" PRId64 " '%s' (%s)\n", seq, v, s,
                MqErrorGetText(ctx));
        MqErrorReset(ctx);
        return 0;
    }
    return 1;
}

static void
send_echo(MqContextC *ctx, MK_I64 seq)
{
    char s[32];
    snprintf(s, sizeof s, "soak-%" PRId64, seq);
    MqSendSTART(ctx);
    MqSendI64(ctx, seq);
    MqSendSTR(ctx, s);
}

/* runs from the event loop; data carries the sequence number sent */
static MkErrorE
on_echo(MqContextC *ctx, void *data)
{
    in_flight--;
    if (MqErrorGetCode(ctx)) {
        fprintf(stderr, "soak_client: callback: %s\n", MqErrorGetText(ctx));
        MqErrorReset(ctx);
        t.lost++;
    } else if (!read_echo(ctx, (MK_I64)(intptr_t)data)) {
        t.wrong++;
    }
    return MK_OK;
}

/* Serve events until at most max callbacks are in flight; what is still
 * out after the timeout is lost. */
static void
settle(MqContextC *ctx, long max)
{
    for (int i = 0; in_flight > max && i < TIMEOUT_MS / 10; i++)
        if (MqProcessEvent(ctx, MQ_WAIT_ONCE, 10) == MK_ERROR)
            MqErrorReset(ctx);
}

static void
call(target *to, long i, MK_I64 seq)
{
    MqContextC *ctx = to->ctx;
    int op = (int)(i % 10);
    if (op < 4) {
        send_echo(ctx, seq);
        t.wait++;
        if (MqSendEND_AND_WAIT(ctx, "ECHO", TIMEOUT_MS) != MK_OK) {
            fprintf(stderr, "soak_client: wait: %s\n", MqErrorGetText(ctx));
            MqErrorReset(ctx);
            t.lost++;
        } else if (!read_echo(ctx, seq)) {
            t.wrong++;
        }
    } else if (op < 7) {
        settle(ctx, WINDOW - 1);
        send_echo(ctx, seq);
        t.callback++;
        if (MqSendEND_AND_CALLBACK(ctx, "ECHO", on_echo, (void *)(intptr_t)seq, NULL, TIMEOUT_MS)) {
            fprintf(stderr, "soak_client: callback send: %s\n", MqErrorGetText(ctx));
            MqErrorReset(ctx);
            t.lost++;
        } else {
            in_flight++;
        }
    } else {
        MK_I32 v = (MK_I32)(seq & 0xff) + 1;
        MqSendSTART(ctx);
        MqSendI32(ctx, v);
        t.oneway++;
        if (MqSendEND(ctx, "COUN", TIMEOUT_MS) != MK_OK) {
            fprintf(stderr, "soak_client: one-way: %s\n", MqErrorGetText(ctx));
            MqErrorReset(ctx);
            t.lost++;
        } else {
            to->sent++;
            to->sum += v;
        }
    }
}

/* The server's count of to's one-way calls against what was sent; a
 * difference is that many lost (or, with the same count, a wrong sum). */
static void
check_count(target *to)
{
    MK_I64 sum = -1;
    MK_I32 calls = -1;
    settle(to->ctx, 0);
    MqSendSTART(to->ctx);
    if (MqSendEND_AND_WAIT(to->ctx, "GETC", TIMEOUT_MS) || MqReadI64(to->ctx, &sum) ||
        MqReadI32(to->ctx, &calls)) {
        fprintf(stderr, "soak_client: GETC: %s\n", MqErrorGetText(to->ctx));
        MqErrorReset(to->ctx);
        t.lost += to->sent;
    } else if (calls != to->sent) {
        fprintf(stderr, "soak_client: %ld one-way calls sent, %d counted\n", to->sent, calls);
        t.lost += labs(to->sent - calls);
    } else if (sum != to->sum) {
        fprintf(stderr, "soak_client: one-way sum %" PRId64 ", counted %" PRId64 "\n", to->sum, sum);
        t.wrong++;
    }
}

static int
new_child(target *kid, MqContextC *parent)
{
    *kid = (target){MqContextCreate(), 0, 0};
    if (MqLinkCreateChild(kid->ctx, parent) == MK_OK) {
        t.children++;
        return 1;
    }
    fprintf(stderr, "soak_client: child: %s\n", MqErrorGetText(kid->ctx));
    t.lost++;
    MqContextDelete(kid->ctx);
    kid->ctx = NULL;
    return 0;
}

static void
drop_child(target *kid)
{
    if (!kid->ctx)
        return;
    check_count(kid);
    MqContextDelete(kid->ctx);
    kid->ctx = NULL;
}

/* A client says on ready when it is linked (or could not be) and waits for
 * the parent to close go, which it does when every client has said so: all
 * CLIENTS links are open at once before the first call. */
static void
client(int id, long calls, int argc, const char **argv, int ready, int go)
{
    target parent = {MqContextCreate(), 0, 0}, kids[2] = {{0}};
    int newest = -1, linked = MqLinkCreate(parent.ctx, argc, argv) == MK_OK;
    char byte = 1;
    if (write(ready, &byte, 1) != 1 || !linked) {
        fprintf(stderr, "soak_client %d: %s\n", id, MqErrorGetText(parent.ctx));
        return;
    }
    while (read(go, &byte, 1) < 0 && errno == EINTR)
        ;
    for (long i = 0; i < calls; i++) {
        if (i % CHILD_EVERY == CHILD_EVERY / 2) {
            int slot = newest < 0 ? 0 : 1 - newest;
            settle(parent.ctx, 0); /* no answer left for a child about to go */
            drop_child(&kids[slot]);
            if (new_child(&kids[slot], parent.ctx))
                newest = slot;
        }
        target *to = newest >= 0 && kids[newest].ctx && (i / 10) % 2 ? &kids[newest] : &parent;
        call(to, i, ((MK_I64)id << 40) | i);
    }
    settle(parent.ctx, 0);
    t.lost += in_flight;
    drop_child(&kids[0]);
    drop_child(&kids[1]);
    check_count(&parent);
    MqContextDelete(parent.ctx);
    t.done = 1;
}

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
    int clients = argc > 3 ? atoi(argv[1]) : 0;
    long calls = argc > 3 ? atol(argv[2]) : 0;
    int fds[2], ready[2], go[2];
    if (clients < 1 || calls < 1) {
        fprintf(stderr, "usage: soak_client CLIENTS CALLS LINK-ARGS...\n");
        return 2;
    }
    argv[2] = "soak_client";
    if (pipe(fds) != 0 || pipe(ready) != 0 || pipe(go) != 0)
        return 1;
    double start = now();
    for (int id = 0; id < clients; id++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("soak_client: fork");
            return 1;
        }
        if (pid == 0) {
            close(fds[0]);
            close(ready[0]);
            close(go[1]);
            client(id, calls, argc - 2, (const char **)argv + 2, ready[1], go[0]);
            /* one record, smaller than PIPE_BUF: written whole */
            return write(fds[1], &t, sizeof t) == sizeof t ? 0 : 1;
        }
    }
    close(fds[1]);
    close(ready[1]);
    char byte;
    for (int linked = 0; linked < clients && read(ready[0], &byte, 1) == 1;)
        linked++; /* EOF: the clients not counted died */
    close(go[1]); /* every client starts calling now */
    tally sum = {0}, one;
    while (read(fds[0], &one, sizeof one) == sizeof one) {
        sum.wait += one.wait;
        sum.callback += one.callback;
        sum.oneway += one.oneway;
        sum.children += one.children;
        sum.lost += one.lost;
        sum.wrong += one.wrong;
        sum.done += one.done;
    }
    while (wait(NULL) > 0)
        ;
    printf("soak: clients=%d calls=%ld wait=%ld callback=%ld oneway=%ld children=%ld "
           "lost=%ld wrong=%ld unfinished_clients=%ld sec=%.1f\n",
           clients, calls, sum.wait, sum.callback, sum.oneway, sum.children, sum.lost, sum.wrong,
           clients - sum.done, now() - start);
    return sum.lost == 0 && sum.wrong == 0 && sum.done == clients ? 0 : 1;
}
