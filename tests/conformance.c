/* conformance.c — one conformance suite for every transport and start mode:
 * every call mode, every type, errors, children, timeouts and separate
 * server instances per connection.  Each row runs in the test beside the code
 * it checks (see conformance.h): the pipe rows in link/transport/pipe/, the
 * rows of the socket transports per start mode in link/start/. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"

#include "conformance.h"
#include "linktest.h"

#define ERR(ctx) MqErrorGetText(ctx)

static void
calls(const lt_mode *m)
{
    MqContextC *c = lt_connect(m);
    if (!c)
        return;
    /* wait: ECUL answers what it got */
    for (int i = 0; i < 100; i++) {
        MK_I8 a; MK_I16 b; MK_I32 v; MK_DBL d; const char *s;
        MqSendSTART(c);
        MqSendI8(c, (MK_I8)i); MqSendI16(c, -300); MqSendI32(c, i * 1000); MqSendDBL(c, 0.5);
        MqSendSTR(c, "tail");
        MQT_OK(MqSendEND_AND_WAIT(c, "ECUL", MQ_TIMEOUT_DEFAULT), ERR(c));
        MQT_OK(MqReadI8(c, &a), ERR(c)); MQT_OK(MqReadI16(c, &b), ERR(c));
        MQT_OK(MqReadI32(c, &v), ERR(c)); MQT_OK(MqReadDBL(c, &d), ERR(c));
        MQT_OK(MqReadSTR(c, &s), ERR(c));
        MQT_CHECK(a == (MK_I8)i && b == -300 && v == i * 1000 && d == 0.5 && !strcmp(s, "tail"));
    }
    /* one-way: 10000 coalesced calls, then one wait sees them all */
    for (int i = 1; i <= 10000; i++) {
        MqSendSTART(c); MqSendI32(c, i);
        MQT_OK(MqSendEND(c, "COUN", MQ_TIMEOUT_DEFAULT), ERR(c));
    }
    MK_I64 sum = 0; MK_I32 n = 0;
    MqSendSTART(c);
    MQT_OK(MqSendEND_AND_WAIT(c, "GETC", MQ_TIMEOUT_DEFAULT), ERR(c));
    MQT_OK(MqReadI64(c, &sum), ERR(c)); MQT_OK(MqReadI32(c, &n), ERR(c));
    MQT_CHECK(n == 10000 && sum == 50005000LL);
    MqContextDelete(c);
}

static int callbacks_seen;
static MK_I64 callbacks_sum;

static MkErrorE
on_answer(MqContextC *ctx, void *data)
{
    MK_I8 a; MK_I16 b; MK_I32 v; MK_DBL d;
    if (MqReadI8(ctx, &a) || MqReadI16(ctx, &b) || MqReadI32(ctx, &v) || MqReadDBL(ctx, &d))
        return MK_ERROR;
    callbacks_seen++;
    callbacks_sum += v;
    return MK_OK;
}

static void
callback(const lt_mode *m)
{
    MqContextC *c = lt_connect(m);
    if (!c)
        return;
    for (int i = 0; i < 5000; i++) {
        MqSendSTART(c);
        MqSendI8(c, 1); MqSendI16(c, 2); MqSendI32(c, i); MqSendDBL(c, 4.0); MqSendI32(c, 5);
        MQT_OK(MqSendEND_AND_CALLBACK(c, "ECUL", on_answer, NULL, NULL, MQ_TIMEOUT_DEFAULT), ERR(c));
    }
    for (int k = 0; k < 1000 && callbacks_seen < 5000; k++)
        MQT_CHECK(MqProcessEvent(c, MQ_WAIT_ONCE, 5000) != MK_ERROR);
    MQT_CHECK_MSG(callbacks_seen == 5000, "%d callbacks", callbacks_seen);
    MQT_CHECK(callbacks_sum == 5000LL * 4999 / 2);
    MqContextDelete(c);
}

/* Calls sent faster than their answers are read, as a client keeping a
 * window of calls in flight does: both sides block writing and take in
 * what the other sends meanwhile.  What arrived while a side was writing
 * must be handled before it waits again, or both wait for each other
 * (each one's frames sitting unread in the other's buffer). */
static void
callback_burst(const lt_mode *m)
{
    enum { CALLS = 60000, WINDOW = 3000 };
    MqContextC *c = lt_connect(m);
    if (!c)
        return;
    int sent = 0;
    while (callbacks_seen < CALLS) {
        while (sent < CALLS && sent - callbacks_seen < WINDOW) {
            MqSendSTART(c);
            MqSendI8(c, 1); MqSendI16(c, 2); MqSendI32(c, sent++); MqSendDBL(c, 4.0);
            MqSendBIN(c, "0123456789abcdef0123456789abcdef", 32);
            MQT_OK(MqSendEND_AND_CALLBACK(c, "ECUL", on_answer, NULL, NULL, MQ_TIMEOUT_DEFAULT),
                   ERR(c));
        }
        /* each turn brings answers long before a side stuck in a wait
         * would give up and look at its buffer again */
        while (callbacks_seen < CALLS && (sent == CALLS || sent - callbacks_seen >= WINDOW / 2)) {
            MkErrorE rc = MqProcessEvent(c, MQ_WAIT_ONCE, 3000);
            MQT_CHECK_MSG(rc == MK_OK, "no answer within 3 s, %d of %d seen: %s", callbacks_seen,
                          CALLS, rc == MK_ERROR ? ERR(c) : "timeout");
            if (rc != MK_OK)
                goto out;
        }
    }
    MQT_CHECK(callbacks_sum == (MK_I64)CALLS * (CALLS - 1) / 2);
out:
    MqContextDelete(c);
}

static void
types(const lt_mode *m)
{
    MqContextC *c = lt_connect(m);
    if (!c)
        return;
    size_t big = 1 << 20;
    char *str = malloc(big + 1);
    unsigned char *bin = malloc(big);
    for (size_t i = 0; i < big; i++) {
        str[i] = (char)('a' + i % 26);
        bin[i] = (unsigned char)(i * 7);
    }
    str[big] = 0;
    MqSendSTART(c);
    MqSendI8(c, INT8_MIN); MqSendI8(c, INT8_MAX); MqSendI16(c, INT16_MIN); MqSendI16(c, INT16_MAX);
    MqSendI32(c, INT32_MIN); MqSendI32(c, INT32_MAX); MqSendI64(c, INT64_MIN); MqSendI64(c, INT64_MAX);
    MqSendFLT(c, FLT_MAX); MqSendDBL(c, NAN); MqSendDBL(c, -0.0); MqSendDBL(c, INFINITY);
    MqSendDBL(c, -INFINITY); MqSendBOL(c, true); MqSendSTR(c, ""); MqSendBIN(c, "", 0);
    MqSendSTR(c, str); MqSendBIN(c, bin, big);
    for (int i = 0; i < 32; i++) { MqSendL_START(c); MqSendI32(c, i); }
    for (int i = 0; i < 32; i++) MqSendL_END(c);
    MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", MQ_TIMEOUT_DEFAULT), ERR(c));

    MK_I8 i8a, i8b; MK_I16 i16a, i16b; MK_I32 i32a, i32b; MK_I64 i64a, i64b;
    MK_FLT f; MK_DBL dn, dz, dpi, dmi; MK_BOL bo; const char *s0, *s1; const void *b0, *b1;
    size_t n0, n1;
    MQT_OK(MqReadI8(c, &i8a), ERR(c)); MQT_OK(MqReadI8(c, &i8b), ERR(c));
    MQT_OK(MqReadI16(c, &i16a), ERR(c)); MQT_OK(MqReadI16(c, &i16b), ERR(c));
    MQT_OK(MqReadI32(c, &i32a), ERR(c)); MQT_OK(MqReadI32(c, &i32b), ERR(c));
    MQT_OK(MqReadI64(c, &i64a), ERR(c)); MQT_OK(MqReadI64(c, &i64b), ERR(c));
    MQT_OK(MqReadFLT(c, &f), ERR(c)); MQT_OK(MqReadDBL(c, &dn), ERR(c));
    MQT_OK(MqReadDBL(c, &dz), ERR(c)); MQT_OK(MqReadDBL(c, &dpi), ERR(c));
    MQT_OK(MqReadDBL(c, &dmi), ERR(c)); MQT_OK(MqReadBOL(c, &bo), ERR(c));
    MQT_OK(MqReadSTR(c, &s0), ERR(c)); MQT_OK(MqReadBIN(c, &b0, &n0), ERR(c));
    MQT_CHECK(i8a == INT8_MIN && i8b == INT8_MAX && i16a == INT16_MIN && i16b == INT16_MAX);
    MQT_CHECK(i32a == INT32_MIN && i32b == INT32_MAX && i64a == INT64_MIN && i64b == INT64_MAX);
    MQT_CHECK(f == FLT_MAX && isnan(dn) && dz == 0.0 && signbit(dz) && dpi == INFINITY);
    MQT_CHECK(dmi == -INFINITY && bo && !strcmp(s0, "") && n0 == 0);
    MQT_OK(MqReadSTR(c, &s1), ERR(c));
    MQT_CHECK(strlen(s1) == big && !memcmp(s1, str, big));
    MQT_OK(MqReadBIN(c, &b1, &n1), ERR(c));
    MQT_CHECK(n1 == big && !memcmp(b1, bin, big));
    for (int i = 0; i < 32; i++) {
        MK_I32 v = -1;
        MQT_OK(MqReadL_START(c), ERR(c));
        MQT_OK(MqReadI32(c, &v), ERR(c));
        MQT_CHECK(v == i);
    }
    for (int i = 0; i < 32; i++)
        MQT_OK(MqReadL_END(c), ERR(c));
    MQT_CHECK(!MqReadItemExists(c));
    /* reading past the end or the wrong type is an error, not a crash */
    MQT_CHECK(MqReadI32(c, &i32a) == MK_ERROR && *ERR(c));
    free(str);
    free(bin);
    MqContextDelete(c);
}

static void
errors(const lt_mode *m)
{
    MqContextC *c = lt_connect(m);
    if (!c)
        return;
    MqSendSTART(c);
    MQT_CHECK(MqSendEND_AND_WAIT(c, "FAIL", MQ_TIMEOUT_DEFAULT) == MK_ERROR);
    MQT_CHECK_MSG(strstr(ERR(c), "FAIL asked to fail") && MqErrorGetCode(c) == 1234, "%s", ERR(c));
    MqSendSTART(c);
    MQT_CHECK(MqSendEND_AND_WAIT(c, "XXXX", MQ_TIMEOUT_DEFAULT) == MK_ERROR);
    MQT_CHECK_MSG(strstr(ERR(c), "'XXXX'") != NULL, "%s", ERR(c));
    /* a one-way call's error arrives at the next loop turn */
    MqSendSTART(c);
    MQT_OK(MqSendEND(c, "FAIL", MQ_TIMEOUT_DEFAULT), ERR(c));
    MkErrorE rc = MK_OK;
    for (int i = 0; i < 50 && rc != MK_ERROR; i++)
        rc = MqProcessEvent(c, MQ_WAIT_ONCE, 100);
    MQT_CHECK(rc == MK_ERROR && strstr(ERR(c), "FAIL asked to fail"));
    /* the link still works after errors */
    MqSendSTART(c); MqSendI32(c, 7);
    MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", MQ_TIMEOUT_DEFAULT), ERR(c));
    MK_I32 v = 0;
    MQT_OK(MqReadI32(c, &v), ERR(c));
    MQT_CHECK(v == 7);
    /* a wrong type read */
    MqSendSTART(c); MqSendSTR(c, "300");
    MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", MQ_TIMEOUT_DEFAULT), ERR(c));
    MK_I8 small;
    MQT_CHECK(MqReadI8(c, &small) == MK_ERROR && *ERR(c));
    MqContextDelete(c);
}

static int failed_code;

static MkErrorE
on_failure(MqContextC *ctx, void *data)
{
    failed_code = MqErrorGetCode(ctx);
    return MK_OK;
}

static void
timeout(const lt_mode *m)
{
    MqContextC *c = lt_connect(m);
    if (!c)
        return;
    /* The server sleeps far past the timeout so that a client starved of the
     * CPU on a loaded machine still sees the timeout fire first. */
    MqSendSTART(c); MqSendI32(c, 3000);
    MK_I64 t0 = 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t0 = ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    MQT_CHECK(MqSendEND_AND_WAIT(c, "SLEP", 200) == MK_ERROR);
    MQT_CHECK(MqErrorGetCode(c) == MQ_ERR_TIMEOUT);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    MQT_CHECK(ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - t0 < 2800);
    /* the late answer is dropped, the next call gets its own */
    MqSendSTART(c); MqSendI32(c, 42);
    MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", 10000), ERR(c));
    MK_I32 v = 0;
    MQT_OK(MqReadI32(c, &v), ERR(c));
    MQT_CHECK(v == 42);
    /* a callback whose answer is late runs once, with a timeout error */
    failed_code = 0;
    MqSendSTART(c); MqSendI32(c, 1500);
    MQT_OK(MqSendEND_AND_CALLBACK(c, "SLEP", on_failure, NULL, NULL, 200), ERR(c));
    for (int i = 0; i < 20 && !failed_code; i++)
        MqProcessEvent(c, MQ_WAIT_ONCE, 100);
    MQT_CHECK_MSG(failed_code == MQ_ERR_TIMEOUT, "callback code %d", failed_code);
    MqContextDelete(c);
}

static void
children(const lt_mode *m)
{
    MqContextC *c = lt_connect(m);
    MqContextC *k[100];
    if (!c)
        return;
    for (int i = 0; i < 100; i++) {
        k[i] = MqContextCreate();
        MQT_OK(MqLinkCreateChild(k[i], c), ERR(k[i]));
    }
    MK_I64 names[100];
    for (int i = 0; i < 100; i++) {
        MqSendSTART(k[i]); MqSendI32(k[i], i);
        MQT_OK(MqSendEND(k[i], "COUN", MQ_TIMEOUT_DEFAULT), ERR(k[i]));
        MqSendSTART(k[i]);
        MQT_OK(MqSendEND_AND_WAIT(k[i], "NAME", MQ_TIMEOUT_DEFAULT), ERR(k[i]));
        MQT_OK(MqReadI64(k[i], &names[i]), ERR(k[i]));
    }
    for (int i = 0; i < 100; i++) {
        MK_I64 sum = -1; MK_I32 n = -1;
        MqSendSTART(k[i]);
        MQT_OK(MqSendEND_AND_WAIT(k[i], "GETC", MQ_TIMEOUT_DEFAULT), ERR(k[i]));
        MqReadI64(k[i], &sum); MqReadI32(k[i], &n);
        MQT_CHECK_MSG(sum == i && n == 1, "child %d: sum %lld calls %d", i, (long long)sum, n);
        for (int j = 0; j < i; j++)
            MQT_CHECK(names[j] != names[i]);
    }
    for (int i = 0; i < 100; i++)
        MqContextDelete(k[i]);
    /* children again after deleting: ids are reused */
    MqContextC *again = MqContextCreate();
    MQT_OK(MqLinkCreateChild(again, c), ERR(again));
    MqSendSTART(again); MqSendI32(again, 9);
    MQT_OK(MqSendEND_AND_WAIT(again, "ECHO", MQ_TIMEOUT_DEFAULT), ERR(again));
    MqContextDelete(again);
    MqContextDelete(c);
}

/* Each connection gets its own instance, also when more parents are open
 * at once than a thread pool keeps idle, and a new one when a pooled thread
 * serves its next connection: COUN state never leaks between them. */
#define NPARENTS 20
static void
instances(const lt_mode *m)
{
    MqContextC *c[NPARENTS] = {0};
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < NPARENTS; i++) {
            c[i] = round == 0 && i == 0 ? lt_connect(m) : lt_connect_again();
            if (!c[i])
                goto out;
            MqSendSTART(c[i]); MqSendI32(c[i], i + round * 100);
            MQT_OK(MqSendEND(c[i], "COUN", MQ_TIMEOUT_DEFAULT), ERR(c[i]));
        }
        for (int i = 0; i < NPARENTS; i++) {
            MK_I64 sum = -1; MK_I32 n = -1;
            MqSendSTART(c[i]);
            MQT_OK(MqSendEND_AND_WAIT(c[i], "GETC", MQ_TIMEOUT_DEFAULT), ERR(c[i]));
            MqReadI64(c[i], &sum); MqReadI32(c[i], &n);
            MQT_CHECK_MSG(sum == i + round * 100 && n == 1, "parent %d of round %d: sum %lld of %d calls",
                          i, round, (long long)sum, n);
        }
        for (int i = 0; i < NPARENTS; i++) {
            MqContextDelete(c[i]);
            c[i] = NULL;
        }
    }
out:
    for (int i = 0; i < NPARENTS; i++)
        if (c[i])
            MqContextDelete(c[i]);
}

/* The server process dies in the middle of a call: an error, not a hang. */
static void
peer_dies(const lt_mode *m)
{
    MqContextC *c = lt_connect(m);
    if (!c)
        return;
    /* a callback still outstanding learns that the link is gone */
    failed_code = 0;
    MqSendSTART(c); MqSendI32(c, 300); /* the server exits while it sleeps */
    MQT_OK(MqSendEND_AND_CALLBACK(c, "SLEP", on_failure, NULL, NULL, 20000), ERR(c));
    MqSendSTART(c);
    MQT_CHECK(MqSendEND_AND_WAIT(c, "EXIT", 10000) == MK_ERROR);
    for (int i = 0; i < 20 && !failed_code; i++)
        MqProcessEvent(c, MQ_WAIT_ONCE, 100);
    MQT_CHECK_MSG(MqErrorGetCode(c) == MQ_ERR_LINK, "code %d: %s", MqErrorGetCode(c), ERR(c));
    MqSendSTART(c);
    MQT_CHECK(MqSendEND_AND_WAIT(c, "ECHO", 1000) == MK_ERROR);
    MQT_CHECK_MSG(failed_code == MQ_ERR_LINK, "code %d", failed_code);
    MqContextDelete(c);
}

#define MODE_CASES(M)                                                          \
    static void M##_calls(void) { calls(lt_mode_get(#M)); }                    \
    static void M##_callback(void) { callback(lt_mode_get(#M)); }              \
    static void M##_burst(void) { callback_burst(lt_mode_get(#M)); }           \
    static void M##_types(void) { types(lt_mode_get(#M)); }                    \
    static void M##_errors(void) { errors(lt_mode_get(#M)); }                  \
    static void M##_timeout(void) { timeout(lt_mode_get(#M)); }                \
    static void M##_children(void) { children(lt_mode_get(#M)); }              \
    static void M##_instances(void) { instances(lt_mode_get(#M)); }            \
    static void M##_peer_dies(void) { peer_dies(lt_mode_get(#M)); }
#define MODE_LIST(M)                                                          \
    {#M " wait and one-way", M##_calls}, {#M " callback", M##_callback},        \
    {#M " callback burst", M##_burst},                                          \
    {#M " every type", M##_types}, {#M " errors", M##_errors},                 \
    {#M " timeout", M##_timeout}, {#M " 100 children", M##_children},          \
    {#M " peer dies mid-wait", M##_peer_dies}

MODE_CASES(pipe)
MODE_CASES(uds_fork)
MODE_CASES(uds_thread)
MODE_CASES(uds_spawn)
MODE_CASES(tcp_fork)
MODE_CASES(tcp_thread)
MODE_CASES(tcp_spawn)
#ifdef MQ_HAVE_OPENSSL
MODE_CASES(tcp_tls_fork)
MODE_CASES(tcp_tls_thread)
MODE_CASES(tcp_tls_spawn)
#endif

static const mqt_case rows[] = {
    MODE_LIST(pipe), {"pipe separate instances", pipe_instances},
    MODE_LIST(uds_fork), {"uds_fork separate instances", uds_fork_instances},
#ifdef MQ_HAVE_THREADS
    MODE_LIST(uds_thread), {"uds_thread separate instances", uds_thread_instances},
#endif
    MODE_LIST(uds_spawn), {"uds_spawn separate instances", uds_spawn_instances},
    MODE_LIST(tcp_fork), {"tcp_fork separate instances", tcp_fork_instances},
#ifdef MQ_HAVE_THREADS
    MODE_LIST(tcp_thread), {"tcp_thread separate instances", tcp_thread_instances},
#endif
    MODE_LIST(tcp_spawn), {"tcp_spawn separate instances", tcp_spawn_instances},
#ifdef MQ_HAVE_OPENSSL
    MODE_LIST(tcp_tls_fork), {"tcp_tls_fork separate instances", tcp_tls_fork_instances},
#ifdef MQ_HAVE_THREADS
    MODE_LIST(tcp_tls_thread), {"tcp_tls_thread separate instances", tcp_tls_thread_instances},
#endif
    MODE_LIST(tcp_tls_spawn), {"tcp_tls_spawn separate instances", tcp_tls_spawn_instances},
#endif
    {NULL, NULL},
};

/* Whether row name belongs to one of modes: its first word is the mode. */
static int
row_of(const char *name, const char *const *modes)
{
    for (; *modes; modes++) {
        size_t n = strlen(*modes);
        if (!strncmp(name, *modes, n) && name[n] == ' ')
            return 1;
    }
    return 0;
}

int
lt_conformance_main(int argc, char **argv, const char *const *modes, const mqt_case *own)
{
    static mqt_case cases[sizeof rows / sizeof *rows + 64];
    size_t n = 0;
    for (; own && own->name && n + 1 < sizeof cases / sizeof *cases; own++)
        cases[n++] = *own;
    for (const mqt_case *r = rows; r->name && n + 1 < sizeof cases / sizeof *cases; r++)
        if (row_of(r->name, modes))
            cases[n++] = *r;
    cases[n] = (mqt_case){NULL, NULL};
    return mqt_main(argc, argv, cases);
}
