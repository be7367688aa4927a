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
#include <sys/resource.h>
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
    const char *argv[] = {mqt_build_path("tests/testserver"), "--uds", "--file", sock,
                          "--storage", srvdb, "--sync", "normal", "--silent", NULL};
    unlink(sock);
    server = mqt_launch(argv, 120);
    return mqt_wait_for_file(sock, 30000);
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


/* ------------------------------------------------- hostile or broken peers */

static char srvdir[256];

/* A directory for a receiver's per-sender files (mqt_cleanup removes it). */
static const char *
server_dir(void)
{
    snprintf(srvdir, sizeof srvdir, "%s", mqt_temp_dir("srvdir"));
    static char base[300];
    snprintf(base, sizeof base, "%s/srv.db", srvdir);
    return base;
}

static void
count_sender_file(const char *path, const char *name, void *n)
{
    (void)path;
    *(int *)n += !strncmp(name, "srv.db.", 7) && strlen(name) == 7 + 32;
}

/* Files srv.db.IDENTITY in the server's directory. */
static int
sender_files(void)
{
    int n = 0;
    mqt_dir_each(srvdir, count_sender_file, &n);
    return n;
}

static void
add_size(const char *path, const char *name, void *bytes)
{
    struct stat sb;
    (void)name;
    if (stat(path, &sb) == 0)
        *(MK_I64 *)bytes += sb.st_size;
}

static int
start_fork_server(const char *base, const char *opt, const char *val)
{
    const char *argv[] = {mqt_build_path("tests/testserver"), "--uds", "--file", sock, "--fork",
                          "--storage", base, "--sync", "normal", "--silent", opt, val, NULL};
    unlink(sock);
    server = mqt_launch(argv, 120);
    int rc = mqt_wait_for_file(sock, 30000);
    MQT_CHECK_MSG(rc == 0, "server with %s %s did not come up", opt ? opt : "", val ? val : "");
    return rc;
}

static MqContextC *
client_on(const char *storage)
{
    const char *args[] = {"client", "--uds", "--file", sock, "--storage", storage,
                          "--sync", "normal", "--silent"};
    MqContextC *c = MqContextCreate();
    if (MqLinkCreate(c, 9, args) != MK_OK) {
        mqt_fail(__FILE__, __LINE__, "LinkCreate: %s", MqErrorGetText(c));
        MqContextDelete(c);
        return NULL;
    }
    return c;
}

static void
copy_file(const char *from, const char *to)
{
    char buf[65536];
    size_t n;
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    MQT_CHECK(a && b);
    while (a && b && (n = fread(buf, 1, sizeof buf, a)) > 0)
        MQT_CHECK(fwrite(buf, 1, n, b) == n);
    if (a)
        fclose(a);
    if (b)
        fclose(b);
}

/* A persistent call of v; MK_OK with *back its answer, or MK_ERROR. */
static MkErrorE
call_pers(MqContextC *c, MK_I64 v, MK_I64 *back)
{
    MqSendSTART(c);
    MqSendI64(c, v);
    if (MqSendEND_AND_TRANSACTION(c, "PERS", 10000) != MK_OK)
        return MK_ERROR;
    return MqReadI64(c, back);
}

/* Two senders with one identity (a copied storage file, or one restored
 * from an older backup) reuse (identity, id) for different calls: the
 * second call must be refused, never answered with the first one's answer. */
static void
shared_identity(void)
{
    paths();
    const char *base = server_dir();
    const char *copy = mqt_temp_path("cli-copy.db");
    if (start_fork_server(base, NULL, NULL) != 0)
        return;
    MqContextC *c = client_on(clidb); /* creates the sender's file */
    MqContextDelete(c);
    copy_file(clidb, copy);
    int wrong = 0, refused = 0;
    /* the first sender dies with its ten calls answered and before it told
     * the receiver so (its low-water mark): the records stay */
    pid_t first = fork();
    if (first == 0) {
        c = client_on(clidb);
        for (MK_I64 v = 1; c && v <= 10; v++)
            send_call(c, v);
        if (c)
            drain(c);
        _exit(mqt_failures() || answers != 10 ? 1 : 0);
    }
    int status = -1;
    waitpid(first, &status, 0);
    MQT_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "first sender: %d", status);
    c = client_on(copy);
    for (MK_I64 v = 101; c && v <= 110; v++) {
        MK_I64 back = 0;
        if (call_pers(c, v, &back) == MK_OK) {
            wrong += back != v;
            continue;
        }
        refused++;
        MQT_CHECK_MSG(strstr(MqErrorGetText(c), "recorded for a different call") &&
                          strstr(MqErrorGetText(c), "identities must be unique"),
                      "%s", MqErrorGetText(c));
    }
    MQT_CHECK_MSG(wrong == 0, "%d of 10 calls got another call's answer", wrong);
    MQT_CHECK_MSG(refused == 10, "%d of 10 refused", refused);
    MqContextDelete(c);
    mqt_stop(server);
}

/* The in-process receiver of the full-disk test: its files may not grow
 * past 1 MiB (RLIMIT_FSIZE) until FREE lifts the limit, and it counts the
 * executions of PERS in memory shared by all its instances. */
static volatile int *executed;

static MkErrorE
big_pers(MqContextC *ctx, void *data)
{
    MK_I64 v;
    const void *bin = NULL;
    size_t n = 0;
    if (MqReadI64(ctx, &v) != MK_OK || MqReadBIN(ctx, &bin, &n) != MK_OK)
        return MK_ERROR;
    __sync_fetch_and_add(&executed[v], 1);
    MqSendSTART(ctx);
    MqSendI64(ctx, v);
    MqSendBIN(ctx, bin, n);
    return MqSendRETURN(ctx);
}

static MkErrorE
free_disk(MqContextC *ctx, void *data)
{
    struct rlimit r;
    getrlimit(RLIMIT_FSIZE, &r);
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_FSIZE, &r);
    MqSendSTART(ctx);
    return MqSendRETURN(ctx);
}

static MkErrorE
full_setup(MqContextC *ctx, void *data)
{
    if (MqServiceCreate(ctx, "PERS", big_pers, NULL, NULL) != MK_OK ||
        MqServiceCreate(ctx, "FREE", free_disk, NULL, NULL) != MK_OK)
        return MK_ERROR;
    return MK_OK;
}

static pid_t
start_full_server(const char *base)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    struct rlimit r;
    signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG */
    getrlimit(RLIMIT_FSIZE, &r);
    r.rlim_cur = 1 << 20;
    setrlimit(RLIMIT_FSIZE, &r);
    alarm(60);
    const char *args[] = {"server", "--uds", "--file", sock, "--fork", "--storage", base,
                          "--sync", "normal", "--silent"};
    MqContextC *s = MqContextCreate();
    MqConfigSetServerSetup(s, full_setup, NULL, NULL);
    if (MqLinkCreate(s, 10, args) == MK_OK)
        MqProcessEvent(s, MQ_WAIT_FOREVER, MQ_TIMEOUT_DEFAULT);
    _exit(0);
}

static int big_answered;

static MkErrorE
on_big_answer(MqContextC *ctx, void *data)
{
    MK_I64 v = 0;
    if (!MqErrorGetCode(ctx) && MqReadI64(ctx, &v) == MK_OK && v == 2)
        big_answered++;
    return MK_OK;
}

/* Serve c for ms milliseconds; a link that went down is created again (the
 * stored call is sent again), as an application would. */
static void
serve_for(MqContextC *c, int ms)
{
    const char *args[] = {"client", "--uds", "--file", sock, "--storage", clidb,
                          "--sync", "normal", "--silent"};
    for (int i = 0; i < ms / 10 && !big_answered; i++) {
        if (MqProcessEvent(c, MQ_WAIT_ONCE, 10) == MK_ERROR && MqErrorGetCode(c) == MQ_ERR_LINK) {
            MqLinkDelete(c);
            MqLinkCreate(c, 9, args);
        }
    }
}

/* A receiver whose disk is full must not run a call again on every retry:
 * at most once per failed commit and once for the record that succeeds. */
static void
disk_full(void)
{
    paths();
    const char *base = server_dir();
    executed = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    memset((void *)executed, 0, 4096);
    pid_t srv = start_full_server(base);
    if (mqt_wait_for_file(sock, 30000) != 0) {
        mqt_fail(__FILE__, __LINE__, "server did not come up");
        kill(srv, SIGKILL);
        waitpid(srv, NULL, 0);
        return;
    }
    MqContextC *c = client();
    MK_I64 back = 0;
    size_t big = 2u << 20;
    char *payload = calloc(1, big);
    MqSendSTART(c);
    MqSendI64(c, 1);
    MqSendBIN(c, "small", 5);
    MQT_OK(MqSendEND_AND_TRANSACTION(c, "PERS", 10000), MqErrorGetText(c));
    MQT_OK(MqReadI64(c, &back), MqErrorGetText(c));
    /* a 2 MiB answer does not fit below the limit */
    MqSendSTART(c);
    MqSendI64(c, 2);
    MqSendBIN(c, payload, big);
    MQT_OK(MqSendEND_AND_TRANSACTION_CALLBACK(c, "PERS", on_big_answer, NULL, NULL, 30000),
           MqErrorGetText(c));
    serve_for(c, 2000);
    int while_full = executed[2];
    MqSendSTART(c);
    if (MqSendEND_AND_WAIT(c, "FREE", 5000) != MK_OK)
        mqt_fail(__FILE__, __LINE__, "FREE: %s", MqErrorGetText(c));
    serve_for(c, 10000);
    printf("# executed %d times while the disk was full, %d in all\n", while_full, executed[2]);
    MQT_CHECK_MSG(while_full <= 1, "the call ran %d times while the disk was full", while_full);
    MQT_CHECK_MSG(big_answered == 1, "answered %d times", big_answered);
    MQT_CHECK_MSG(executed[2] <= 2, "the call ran %d times for one record", executed[2]);
    MqContextDelete(c);
    free(payload);
    kill(srv, SIGTERM);
    waitpid(srv, NULL, 0);
    munmap((void *)executed, 4096);
}

/* --max-senders bounds the sender files a receiver keeps, --max-storage
 * their bytes; a sender that has everything answered leaves no file. */
static void
sender_limits(void)
{
    paths();
    const char *base = server_dir();
    if (start_fork_server(base, "--max-senders", "2") != 0)
        return;
    MqContextC *c[3];
    MK_I64 back = 0;
    for (int i = 0; i < 3; i++) {
        c[i] = client_on(mqt_temp_path("cli-n.db"));
        if (!c[i])
            return;
    }
    MQT_OK(call_pers(c[0], 1, &back), MqErrorGetText(c[0]));
    MQT_OK(call_pers(c[1], 1, &back), MqErrorGetText(c[1]));
    MQT_CHECK(call_pers(c[2], 1, &back) == MK_ERROR);
    MQT_CHECK_MSG(strstr(MqErrorGetText(c[2]), "--max-senders"), "%s", MqErrorGetText(c[2]));
    MQT_CHECK_MSG(sender_files() == 2, "%d sender files", sender_files());
    for (int i = 0; i < 3; i++)
        MqContextDelete(c[i]);
    for (int i = 0; i < 200 && sender_files() > 0; i++)
        usleep(10000);
    MQT_CHECK_MSG(sender_files() == 0, "%d sender files left after every call was answered",
                  sender_files());
    mqt_stop(server);

    /* 1 MiB calls against a 300 kB limit */
    if (start_fork_server(base, "--max-storage", "300000") != 0)
        return;
    MqContextC *b = client_on(clidb);
    size_t big = 1u << 20;
    char *payload = calloc(1, big);
    int refused = 0;
    for (int i = 0; b && i < 5; i++) {
        MqSendSTART(b);
        MqSendBIN(b, payload, big);
        if (MqSendEND_AND_TRANSACTION(b, "ECHO", 10000) == MK_ERROR) {
            refused++;
            MQT_CHECK_MSG(strstr(MqErrorGetText(b), "--max-storage"), "%s", MqErrorGetText(b));
        }
    }
    MQT_CHECK_MSG(refused == 5, "%d of 5 1 MiB calls refused", refused);
    MK_I64 bytes = 0;
    mqt_dir_each(srvdir, add_size, &bytes);
    MQT_CHECK_MSG(bytes < 1000000, "the receiver's files hold %lld bytes", (long long)bytes);
    free(payload);
    MqContextDelete(b);
    mqt_stop(server);
}

static const mqt_case cases[] = {
    {"in memory, not durable", in_memory},
    {"every transport and start mode", modes},
    {"kill -9 the server mid-stream: exactly once", server_killed},
    {"kill -9 the client mid-stream: exactly once", client_killed},
    {"corrupt, locked, unwritable storage refused", bad_storage},
    {"two senders with one identity: refused, never answered wrongly", shared_identity},
    {"full disk: a call runs once, not on every retry", disk_full},
    {"--max-senders, --max-storage; acknowledged senders leave no file", sender_limits},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
