/* persist_test.c — persistent delivery: every call answered exactly once
 * (count and checksum of the payloads) across kill -9 of the server or of
 * the client, and storage that cannot be used refused at link creation. */
#include "config.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linktest.h"

#define CALLS 10000

static char sock[256], srvdb[256], clidb[256];
static pid_t server;

/* Each payload's answers, counted by the callbacks. */
static unsigned char *seen;
static int answers;
static MK_I64 checksum;
/* A sender killed right after an answer may get it again after its restart
 * (the answer's removal from its storage was not yet committed). */
static MK_I64 redelivery_allowed_upto;

static MkErrorE
on_answer(MqContextC *ctx, void *data)
{
    MK_I64 v;
    if (MqErrorGetCode(ctx) || MqReadI64(ctx, &v) != MK_OK)
        return MK_OK; /* link gone or timed out: the call stays stored */
    if (v >= 1 && v <= redelivery_allowed_upto && seen[v])
        return MK_OK;
    if (v >= 1 && v <= CALLS && seen[v]++ == 0) {
        answers++;
        checksum += v;
    } else {
        mqt_fail(__FILE__, __LINE__, "payload %lld answered again", (long long)v);
    }
    return MK_OK;
}

static void
paths(void)
{
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("psock"));
    snprintf(srvdb, sizeof srvdb, "%s", mqt_temp_path("srv.db"));
    snprintf(clidb, sizeof clidb, "%s", mqt_temp_path("cli.db"));
    seen = calloc(CALLS + 1, 1);
    answers = 0;
    checksum = 0;
    redelivery_allowed_upto = 0;
}

/* One server instance (no start mode), so it can be killed and restarted
 * with the same storage. */
static int
start_server(void)
{
    const char *argv[] = {mqt_build_path("link/testserver"), "--uds", "--file", sock,
                          "--storage", srvdb, "--sync", "normal", "--silent", NULL};
    unlink(sock);
    server = mqt_launch(argv, 120);
    return mqt_wait_for_file(sock, 5000);
}

static MqContextC *
client(void)
{
    const char *args[] = {"client", "--uds", "--file", sock, "--storage", clidb,
                          "--sync", "normal", "--silent"};
    MqContextC *c = MqContextCreate();
    MqConfigSetTransactionHandler(c, on_answer, NULL, NULL);
    if (MqLinkCreate(c, 9, args) != MK_OK) {
        mqt_fail(__FILE__, __LINE__, "LinkCreate: %s", MqErrorGetText(c));
        MqContextDelete(c);
        return NULL;
    }
    return c;
}

static int
send_call(MqContextC *c, MK_I64 v)
{
    MqSendSTART(c);
    MqSendI64(c, v);
    return MqSendEND_AND_TRANSACTION_CALLBACK(c, "PERS", on_answer, NULL, NULL, 30000) == MK_OK;
}

/* Serve events until every stored call is answered. */
static void
drain(MqContextC *c)
{
    MK_I64 left = 1;
    for (int i = 0; i < 3000 && left > 0; i++) {
        MqProcessEvent(c, MQ_WAIT_ONCE, 10);
        MqStoragePendingCount(c, &left);
    }
    MQT_CHECK_MSG(left == 0, "%lld calls still pending", (long long)left);
}

static void
check_exactly_once(void)
{
    MQT_CHECK_MSG(answers == CALLS, "%d distinct answers", answers);
    MQT_CHECK(checksum == (MK_I64)CALLS * (CALLS + 1) / 2);
}

/* kill -9 the server in the middle of the stream, restart it. */
static void
server_killed(void)
{
    paths();
    if (start_server() != 0)
        return;
    MqContextC *c = client();
    if (!c)
        return;
    MQT_CHECK(MqStorageIsDurable(c));
    MK_I64 next = 1;
    for (; next <= CALLS / 2; next++)
        MQT_CHECK(send_call(c, next));
    MqProcessEvent(c, MQ_WAIT_ONCE, 50);
    kill(server, SIGKILL);
    mqt_stop(server);
    /* the stream goes on: calls are stored even while the link is down */
    for (int i = 0; i < 100 && MqProcessEvent(c, MQ_WAIT_ONCE, 10) != MK_ERROR; i++)
        ;
    MqLinkDelete(c);
    MQT_CHECK(start_server() == 0);
    const char *args[] = {"client", "--uds", "--file", sock, "--storage", clidb,
                          "--sync", "normal", "--silent"};
    MQT_OK(MqLinkCreate(c, 9, args), MqErrorGetText(c)); /* re-sends what is stored */
    for (; next <= CALLS; next++)
        MQT_CHECK(send_call(c, next));
    drain(c);
    check_exactly_once();
    MqContextDelete(c);
}

/* kill -9 the client in the middle, restart it with the same storage. */
static void
client_killed(void)
{
    paths();
    if (start_server() != 0)
        return;
    /* the child publishes the last payload whose call returned */
    volatile MK_I64 *done = mmap(NULL, sizeof *done, PROT_READ | PROT_WRITE,
                                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    *done = 0;
    pid_t child = fork();
    if (child == 0) {
        MqContextC *c = client();
        for (MK_I64 v = 1; c && v <= CALLS; v++) {
            MqSendSTART(c);
            MqSendI64(c, v);
            if (MqSendEND_AND_TRANSACTION(c, "PERS", 30000) != MK_OK)
                _exit(2);
            *done = v;
        }
        _exit(0);
    }
    while (*done < CALLS / 3)
        usleep(1000);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    /* calls up to *done were answered to the dead client; the one after it
     * may be stored: then the new client re-sends it, else sends it anew */
    MK_I64 stored = *done;
    for (MK_I64 v = 1; v <= stored; v++)
        seen[v] = 1;
    answers = (int)stored;
    checksum = stored * (stored + 1) / 2;
    redelivery_allowed_upto = stored;
    sqlite3 *db;
    sqlite3_stmt *q;
    MK_I64 last = stored;
    MQT_CHECK(sqlite3_open(clidb, &db) == SQLITE_OK);
    if (sqlite3_prepare_v2(db, "SELECT body FROM pending", -1, &q, NULL) == SQLITE_OK) {
        while (sqlite3_step(q) == SQLITE_ROW) {
            MK_I64 v;
            memcpy(&v, (const char *)sqlite3_column_blob(q, 0) + 1, sizeof v);
            if (v > last)
                last = v;
        }
        sqlite3_finalize(q);
    }
    sqlite3_close(db);
    MQT_CHECK(last <= stored + 1);
    /* the single-instance server ends with its client; start it again */
    mqt_stop(server);
    MQT_CHECK(start_server() == 0);
    MqContextC *c = client(); /* re-sends the stored call, if any */
    if (!c)
        return;
    for (MK_I64 v = last + 1; v <= CALLS; v++)
        MQT_CHECK(send_call(c, v));
    drain(c);
    check_exactly_once();
    MqContextDelete(c);
}

static MkErrorE
dummy_setup(MqContextC *ctx, void *data)
{
    return MK_OK;
}

/* Storage that cannot be used is an error at link creation. */
static void
bad_storage(void)
{
    paths();
    if (start_server() != 0)
        return;
    const char *corrupt = mqt_temp_path("corrupt.db");
    FILE *f = fopen(corrupt, "w");
    for (int i = 0; i < 4096; i++)
        fputc((i * 7919) & 0xff, f);
    fclose(f);
    const char *bad[] = {corrupt, "/nonexistent-dir/x.db", "/proc/mqlink.db"};
    for (int i = 0; i < 3; i++) {
        const char *args[] = {"client", "--uds", "--file", sock, "--storage", bad[i]};
        MqContextC *c = MqContextCreate();
        MQT_CHECK(MqLinkCreate(c, 6, args) == MK_ERROR);
        MQT_CHECK_MSG(strstr(MqErrorGetText(c), bad[i]) != NULL, "%s", MqErrorGetText(c));
        MqContextDelete(c);
    }
    /* locked: a second link on the same storage */
    MqContextC *first = client();
    const char *args[] = {"client", "--uds", "--file", sock, "--storage", clidb};
    MqContextC *second = MqContextCreate();
    MQT_CHECK(MqLinkCreate(second, 6, args) == MK_ERROR);
    MQT_CHECK_MSG(strstr(MqErrorGetText(second), "locked") != NULL, "%s",
                  MqErrorGetText(second));
    MqContextDelete(second);
    MqContextDelete(first);
    /* a server's storage directory is checked at link creation too */
    const char *srv[] = {"server", "--uds", "--file", mqt_temp_path("nosock"), "--fork",
                         "--storage", "/nonexistent-dir/srv.db"};
    MqContextC *s = MqContextCreate();
    MqConfigSetServerSetup(s, dummy_setup, NULL, NULL);
    MQT_CHECK(MqLinkCreate(s, 7, srv) == MK_ERROR);
    MQT_CHECK_MSG(strstr(MqErrorGetText(s), "/nonexistent-dir") != NULL, "%s", MqErrorGetText(s));
    MqContextDelete(s);
    /* bad option values */
    const char *sync[] = {"client", "--uds", "--file", sock, "--sync", "sometimes"};
    MqContextC *c = MqContextCreate();
    MQT_CHECK(MqLinkCreate(c, 6, sync) == MK_ERROR && strstr(MqErrorGetText(c), "--sync"));
    MqContextDelete(c);
}

/* Without --storage the calls work from memory, and say they are not durable. */
static void
in_memory(void)
{
    paths();
    MqContextC *c = lt_connect(lt_mode_get("pipe"));
    if (!c)
        return;
    for (MK_I64 v = 1; v <= 100; v++) {
        MK_I64 back = 0;
        MqSendSTART(c);
        MqSendI64(c, v);
        MQT_OK(MqSendEND_AND_TRANSACTION(c, "PERS", 5000), MqErrorGetText(c));
        MQT_OK(MqReadI64(c, &back), MqErrorGetText(c));
        MQT_CHECK(back == v);
    }
    MQT_CHECK(!MqStorageIsDurable(c));
    MK_I64 left = -1;
    MQT_OK(MqStoragePendingCount(c, &left), MqErrorGetText(c));
    MQT_CHECK(left == 0);
    /* a service error travels back like any other */
    MqSendSTART(c);
    MQT_CHECK(MqSendEND_AND_TRANSACTION(c, "FAIL", 5000) == MK_ERROR);
    MQT_CHECK(strstr(MqErrorGetText(c), "FAIL asked to fail") != NULL);
    MqContextDelete(c);
}

/* A persistent call on every start mode reaches a per-connection instance. */
static void
modes(void)
{
    for (const lt_mode *m = lt_modes; m->name; m++) {
#ifndef MQ_HAVE_THREADS
        if (m->start && !strcmp(m->start, "--thread"))
            continue;
#endif
        MqContextC *c = lt_connect(m);
        MK_I64 back = 0;
        if (!c)
            continue;
        MqSendSTART(c);
        MqSendI64(c, 77);
        MQT_OK(MqSendEND_AND_TRANSACTION(c, "PERS", 5000), MqErrorGetText(c));
        MqReadI64(c, &back);
        MQT_CHECK_MSG(back == 77, "%s", m->name);
        MqContextDelete(c);
        mqt_cleanup();
    }
}

static const mqt_case cases[] = {
    {"in memory, not durable", in_memory},
    {"every transport and start mode", modes},
    {"kill -9 the server mid-stream: exactly once", server_killed},
    {"kill -9 the client mid-stream: exactly once", client_killed},
    {"corrupt, locked, unwritable storage refused", bad_storage},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
