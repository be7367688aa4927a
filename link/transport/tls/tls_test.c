/* tls_test.c — TCP over TLS 1.3 (issue 17): mutual authentication, the
 * errors of a bad key, certificate or peer (each a clear error at link
 * creation, naming the reason, on both sides where there are two), the
 * non-loopback rule, config-file keys; then the conformance suite's rows
 * over TLS in every start mode (tests/conformance.c). */
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#include "conformance.h"
#include "linktest.h"

#define ERR(ctx) MqErrorGetText(ctx)
#define F(name) lt_tls_file(name)

static char logfile[256];
static char port[16];

/* testserver --tcp --port P START EXTRA, its stderr in logfile. */
static int
serve(const char *start, const char *extra)
{
    char cmd[4096];
    snprintf(port, sizeof port, "%d", mqt_free_port());
    snprintf(logfile, sizeof logfile, "%s", mqt_temp_path("tls-log"));
    snprintf(cmd, sizeof cmd, "exec %s --tcp --port %s %s %s 2>%s",
             mqt_build_path("tests/testserver"), port, start, extra, logfile);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    mqt_launch(argv, 120);
    if (mqt_wait_for_port(atoi(port), 20000) != 0) {
        mqt_fail(__FILE__, __LINE__, "server did not come up: %s", cmd);
        return -1;
    }
    return 0;
}

/* A server with mutual authentication (the CA's server certificate). */
static int
serve_mutual(const char *start)
{
    char extra[2048];
    snprintf(extra, sizeof extra, "--tls-cert %s --tls-key %s --tls-ca %s", F("server.pem"),
             F("server.key"), F("ca.pem"));
    return serve(start, extra);
}

/* Whether the server logged what (it logs as it refuses: give it a moment). */
static int
logged(const char *what)
{
    for (int i = 0; i < 300; i++) {
        if (lt_file_mentions(logfile, what))
            return 1;
        usleep(10000);
    }
    return 0;
}

/* LinkCreate of a client to port with the NULL-terminated options more
 * (after --tcp --port P): the context, linked or not (its error says). */
static MqContextC *
client(const char *const *more)
{
    const char *argv[24] = {"client", "--tcp", "--port", port, "--timeout", "10"};
    int n = 6;
    while (*more && n < 23)
        argv[n++] = *more++;
    MqContextC *c = MqContextCreate();
    MqLinkCreate(c, n, argv);
    return c;
}

/* A client with a certificate of the test CA. */
static MqContextC *
mutual_client(void)
{
    const char *more[] = {"--tls-cert", F("client.pem"), "--tls-key", F("client.key"),
                          "--tls-ca", F("ca.pem"), NULL};
    return client(more);
}

/* A client whose LinkCreate must fail, within a bounded time, with an
 * error containing want; the server log must then contain server_says. */
static void
refused(const char *const *more, const char *want, const char *server_says)
{
    time_t t0 = time(NULL);
    MqContextC *c = client(more);
    MQT_CHECK_MSG(!MqLinkIsConnected(c), "linked although it should not");
    MQT_CHECK_MSG(strstr(ERR(c), want) != NULL, "error without '%s': %s", want, ERR(c));
    MQT_CHECK_MSG(time(NULL) - t0 < 9, "took %ld s", (long)(time(NULL) - t0));
    if (server_says)
        MQT_CHECK_MSG(logged(server_says), "server log without '%s'", server_says);
    lt_dump_on_failure(logfile);
    MqContextDelete(c);
}

static int answered;

static MkErrorE
on_answer(MqContextC *ctx, void *data)
{
    (void)data;
    MK_I32 v = 0;
    if (MqReadI32(ctx, &v) == MK_OK && v == 42)
        answered++;
    return MK_OK;
}

/* Every call mode, a child context and a persistent call over TLS. */
static void
round_trip(const char *start)
{
    if (serve_mutual(start) != 0)
        return;
    MqContextC *c = mutual_client();
    MQT_OK(MqLinkIsConnected(c) ? MK_OK : MK_ERROR, ERR(c));
    if (!MqLinkIsConnected(c))
        goto out;
    const char *s = NULL;
    MqSendSTART(c);
    MqSendSTR(c, "over tls");
    MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", 10000), ERR(c));
    MQT_CHECK(MqReadSTR(c, &s) == MK_OK && !strcmp(s, "over tls"));
    for (int i = 1; i <= 1000; i++) { /* one-way, coalesced */
        MqSendSTART(c);
        MqSendI32(c, i);
        MQT_OK(MqSendEND(c, "COUN", 10000), ERR(c));
    }
    MK_I64 sum = 0;
    MqSendSTART(c);
    MQT_OK(MqSendEND_AND_WAIT(c, "GETC", 10000), ERR(c));
    MQT_CHECK(MqReadI64(c, &sum) == MK_OK && sum == 1000 * 1001 / 2);
    answered = 0;
    MqSendSTART(c);
    MqSendI32(c, 42);
    MQT_OK(MqSendEND_AND_CALLBACK(c, "ECHO", on_answer, NULL, NULL, 10000), ERR(c));
    for (int i = 0; i < 100 && !answered; i++)
        MqProcessEvent(c, MQ_WAIT_ONCE, 100);
    MQT_CHECK(answered == 1);
    MqContextC *child = MqContextCreate();
    MQT_OK(MqLinkCreateChild(child, c), ERR(child));
    MK_I32 v = 0;
    MqSendSTART(child);
    MqSendI32(child, 7);
    MQT_OK(MqSendEND_AND_WAIT(child, "ECHO", 10000), ERR(child));
    MQT_CHECK(MqReadI32(child, &v) == MK_OK && v == 7);
    MqContextDelete(child);
    MK_I64 back = 0;
    MqSendSTART(c);
    MqSendI64(c, 77);
    MQT_OK(MqSendEND_AND_TRANSACTION(c, "PERS", 10000), ERR(c));
    MQT_CHECK(MqReadI64(c, &back) == MK_OK && back == 77);
out:
    lt_dump_on_failure(logfile);
    MqContextDelete(c);
}

static void fork_round_trip(void) { round_trip("--fork"); }
static void thread_round_trip(void) { round_trip("--thread"); }
static void spawn_round_trip(void) { round_trip("--spawn"); }

/* Writing to a TLS peer that is gone is an error, not SIGPIPE (which
 * would end an application that did not ignore it). */
static void
no_sigpipe(void)
{
    if (serve_mutual("--fork") != 0)
        return;
    signal(SIGPIPE, SIG_DFL); /* testlib ignores it */
    MqContextC *c = mutual_client();
    MQT_OK(MqLinkIsConnected(c) ? MK_OK : MK_ERROR, ERR(c));
    static unsigned char big[200000];
    MqSendSTART(c);
    MQT_OK(MqSendEND(c, "EXIT", 10000), ERR(c)); /* the instance ends at once */
    MqProcessEvent(c, MQ_WAIT_NO, 0); /* sends it (may see the end already) */
    usleep(300000);
    MkErrorE rc = MK_OK;
    for (int i = 0; i < 20 && rc == MK_OK; i++) {
        usleep(20000);
        MqSendSTART(c);
        MqSendBIN(c, big, sizeof big); /* past the write buffer: written at once */
        rc = MqSendEND(c, "COUN", 10000);
    }
    MQT_CHECK(MqLinkIsConnected(c) == 0 || rc == MK_ERROR);
    MqContextDelete(c);
}

/* Mutual authentication: no certificate, or one of another CA, or an
 * expired one, is refused; both sides say why. */
static void
client_refused(void)
{
    if (serve_mutual("--fork") != 0)
        return;
    const char *none[] = {"--tls-ca", F("ca.pem"), NULL};
    refused(none, "certificate required", "the client sent no certificate");
    const char *other[] = {"--tls-cert", F("other.pem"), "--tls-key", F("other.key"),
                           "--tls-ca", F("ca.pem"), NULL};
    refused(other, "unknown ca", "client's certificate is not accepted: unable to get local issuer");
    const char *expired[] = {"--tls-cert", F("expired.pem"), "--tls-key", F("expired.key"),
                             "--tls-ca", F("ca.pem"), NULL};
    refused(expired, "certificate expired", "client's certificate is not accepted: certificate has expired");
}

/* The client checks the server: its CA, its expiry, its name. */
static void
server_refused(void)
{
    const char *ca[] = {"--tls-ca", F("ca.pem"), NULL};
    char extra[2048];
    snprintf(extra, sizeof extra, "--tls-cert %s --tls-key %s", F("other.pem"), F("other.key"));
    if (serve("--fork", extra) == 0)
        refused(ca, "server's certificate is not accepted: unable to get local issuer certificate",
                "the client refused the link: tlsv1 alert unknown ca");
    snprintf(extra, sizeof extra, "--tls-cert %s --tls-key %s", F("expired.pem"), F("expired.key"));
    if (serve("--fork", extra) == 0)
        refused(ca, "server's certificate is not accepted: certificate has expired", NULL);
    snprintf(extra, sizeof extra, "--tls-cert %s --tls-key %s", F("badname.pem"), F("badname.key"));
    if (serve("--fork", extra) == 0) {
        refused(ca, "IP address mismatch", NULL); /* the default name: the host, 127.0.0.1 */
        const char *named[] = {"--tls-ca", F("ca.pem"), "--tls-name", "localhost", NULL};
        refused(named, "hostname mismatch", NULL);
        const char *right[] = {"--tls-ca", F("ca.pem"), "--tls-name", "elsewhere.invalid", NULL};
        MqContextC *c = client(right);
        MQT_OK(MqLinkIsConnected(c) ? MK_OK : MK_ERROR, ERR(c));
        MqContextDelete(c);
    }
}

static MkErrorE
no_setup(MqContextC *ctx, void *data)
{
    (void)ctx;
    (void)data;
    return MK_OK;
}

/* Bad key material: a clear error at LinkCreate, client and server. */
static void
bad_files(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", mqt_temp_path("tls-dir"));
    MQT_CHECK(mkdir(dir, 0700) == 0);
    struct {
        const char *cert, *key, *want;
    } cases[] = {
        {F("missing.pem"), F("client.key"), "--tls-cert"},
        {F("client.pem"), F("missing.key"), "No such file or directory"},
        {dir, F("client.key"), "cannot read it"}, /* unreadable (even by root) */
        {F("client.pem"), F("wrong.key"), "does not match the certificate"},
        {F("client.key"), F("client.key"), "not a PEM certificate"},
        {F("client.pem"), F("client.pem"), "not a PEM private key"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int server = 0; server < 2; server++) {
            const char *argv[] = {server ? "server" : "client", "--tcp", "--port", "1",
                                  "--tls-cert", cases[i].cert, "--tls-key", cases[i].key,
                                  "--tls-ca", F("ca.pem")};
            MqContextC *c = MqContextCreate();
            if (server)
                MqConfigSetServerSetup(c, no_setup, NULL, NULL);
            MQT_CHECK(MqLinkCreate(c, 10, argv) == MK_ERROR);
            MQT_CHECK_MSG(strstr(ERR(c), cases[i].want) != NULL, "%s: %s", cases[i].want, ERR(c));
            MqContextDelete(c);
        }
    rmdir(dir);
    const char *noca[] = {"client", "--tcp", "--port", "1", "--tls-ca", F("missing-ca.pem")};
    MqContextC *c = MqContextCreate();
    MQT_CHECK(MqLinkCreate(c, 6, noca) == MK_ERROR && strstr(ERR(c), "--tls-ca"));
    MqContextDelete(c);
}

/* A plaintext client on a TLS port and a TLS client on a plaintext port:
 * an error at once, never a hang; the server says what came. */
static void
wrong_protocol(void)
{
    if (serve_mutual("--fork") != 0)
        return;
    const char *plain[] = {NULL};
    refused(plain, "", "does not speak TLS");
    if (serve("--fork", "") != 0)
        return;
    const char *tls[] = {"--tls-cert", F("client.pem"), "--tls-key", F("client.key"),
                         "--tls-ca", F("ca.pem"), NULL};
    refused(tls, "TLS: the server closed the connection during the handshake", "not an mqlink peer");
}

/* A peer that says nothing: the server gives up after --frame-timeout,
 * the client after its --timeout. */
static void
silent_peer(void)
{
    char extra[2048];
    snprintf(extra, sizeof extra, "--fork --frame-timeout 1 --tls-cert %s --tls-key %s",
             F("server.pem"), F("server.key"));
    if (serve("", extra) != 0)
        return;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    MQT_CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    MQT_CHECK_MSG(logged("TLS: no handshake from the client within 1000 ms (--frame-timeout)"),
                  "server did not give up");
    close(fd);
    lt_dump_on_failure(logfile);
    /* a listener that never answers */
    int l = socket(AF_INET, SOCK_STREAM, 0);
    socklen_t len = sizeof a;
    a.sin_port = 0;
    MQT_CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 4) == 0 &&
              getsockname(l, (struct sockaddr *)&a, &len) == 0);
    snprintf(port, sizeof port, "%d", ntohs(a.sin_port));
    const char *quiet[] = {"--timeout", "1", "--tls-ca", F("ca.pem"), NULL};
    refused(quiet, "TLS: no handshake from the server within 1000 ms", NULL);
    close(l);
}

/* A server other hosts can reach speaks TLS or says it means not to. */
static void
non_loopback(void)
{
    const char *argv[] = {"server", "--tcp", "--host", "0.0.0.0", "--port", "1", "--fork"};
    MqContextC *c = MqContextCreate();
    MqConfigSetServerSetup(c, no_setup, NULL, NULL);
    MQT_CHECK(MqLinkCreate(c, 7, argv) == MK_ERROR);
    MQT_CHECK_MSG(strstr(ERR(c), "not a loopback address") && strstr(ERR(c), "--allow-plaintext"),
                  "%s", ERR(c));
    MqContextDelete(c);
    const char *none[] = {NULL};
    if (serve("--fork", "--host 0.0.0.0 --allow-plaintext") == 0) {
        MqContextC *k = client(none);
        MQT_OK(MqLinkIsConnected(k) ? MK_OK : MK_ERROR, ERR(k));
        MqContextDelete(k);
    }
    char extra[2048];
    snprintf(extra, sizeof extra, "--fork --host 0.0.0.0 --tls-cert %s --tls-key %s --tls-ca %s",
             F("server.pem"), F("server.key"), F("ca.pem"));
    if (serve("", extra) == 0) {
        MqContextC *k = mutual_client();
        MQT_OK(MqLinkIsConnected(k) ? MK_OK : MK_ERROR, ERR(k));
        MqContextDelete(k);
    }
}

/* The options are config-file keys as well. */
static void
config_keys(void)
{
    char file[256], extra[512];
    snprintf(file, sizeof file, "%s", mqt_temp_path("tls-cfg"));
    FILE *f = fopen(file, "w");
    MQT_CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "tls-ca = \"%s\";\nserver: { tls-cert = \"%s\"; tls-key = \"%s\"; };\n"
            "client: { tls-cert = \"%s\"; tls-key = \"%s\"; };\n", F("ca.pem"), F("server.pem"),
            F("server.key"), F("client.pem"), F("client.key"));
    fclose(f);
    snprintf(extra, sizeof extra, "--config %s --name server", file);
    if (serve("--thread", extra) != 0)
        return;
    const char *cfg[] = {"--config", file, "--name", "client", NULL};
    MqContextC *c = client(cfg);
    MQT_OK(MqLinkIsConnected(c) ? MK_OK : MK_ERROR, ERR(c));
    MqContextDelete(c);
    /* and the server does require the certificate the file gave the client */
    const char *bare[] = {"--tls-ca", F("ca.pem"), NULL};
    refused(bare, "certificate required", "the client sent no certificate");
}

int
main(int argc, char **argv)
{
    static const mqt_case own[] = {
        {"tls: fork: every call mode, a child, a persistent call", fork_round_trip},
#ifdef MQ_HAVE_THREADS
        {"tls: thread: every call mode, a child, a persistent call", thread_round_trip},
#endif
        {"tls: spawn: every call mode, a child, a persistent call", spawn_round_trip},
        {"tls: a client without an accepted certificate is refused", client_refused},
        {"tls: writing to a peer that is gone is an error, not SIGPIPE", no_sigpipe},
        {"tls: a server without an accepted certificate is refused", server_refused},
        {"tls: bad key material is an error at LinkCreate", bad_files},
        {"tls: plaintext on a TLS port and TLS on a plaintext port", wrong_protocol},
        {"tls: a silent peer is given up on", silent_peer},
        {"tls: a non-loopback server needs TLS or --allow-plaintext", non_loopback},
        {"tls: config-file keys", config_keys},
        {NULL, NULL},
    };
    static const char *const modes[] = {"tcp_tls_fork", "tcp_tls_thread", "tcp_tls_spawn", NULL};
    if (!lt_tls_dir())
        return 1;
    return lt_conformance_main(argc, argv, modes, own);
}
