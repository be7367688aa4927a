/* cclient.c LABEL LINK-ARGS... — the interop client in C against any
 * interop server (pyserver.py, cserver, cxxserver): boundary values of every
 * type, nested lists, a service's error text, wrong-type reads and server
 * instances.  Prints one TAP line per case; run_matrix.sh numbers them. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mqlink.h"

static const char *label;
static MqContextC *c;

static void
report(int ok, const char *what, const char *why)
{
    printf("%s - %s: %s\n", ok ? "ok" : "not ok", label, what);
    if (!ok && why)
        printf("#   %s\n", why);
    fflush(stdout);
}

static int
call(MqContextC *ctx, const char *token)
{
    return MqSendEND_AND_WAIT(ctx, token, 20000) == MK_OK;
}

#define ECHO_CASE(T, CT, FMT, EQ, ...)                                                \
    static void echo_##T(void)                                                     \
    {                                                                              \
        CT vals[] = {__VA_ARGS__};                                                 \
        char why[256] = "";                                                        \
        for (size_t i = 0; i < sizeof vals / sizeof vals[0] && !*why; i++) {       \
            CT v = vals[i], r;                                                     \
            if (MqSendSTART(c) || MqSendSTR(c, #T) || MqSend##T(c, v) ||           \
                !call(c, "ECHO") || MqRead##T(c, &r))                              \
                snprintf(why, sizeof why, "%s", MqErrorGetText(c));                \
            else if (!(EQ))                                                        \
                snprintf(why, sizeof why, FMT " came back as " FMT, v, r);         \
        }                                                                          \
        report(!*why, "ECHO " #T " with boundary values", why);                    \
    }

static int
same_dbl(double a, double b)
{
    return isnan(a) ? isnan(b) : a == b && signbit(a) == signbit(b);
}

ECHO_CASE(I8, MK_I8, "%d", v == r, INT8_MIN, -1, 0, INT8_MAX)
ECHO_CASE(I16, MK_I16, "%d", v == r, INT16_MIN, 0, INT16_MAX)
ECHO_CASE(I32, MK_I32, "%d", v == r, INT32_MIN, 0, INT32_MAX)
ECHO_CASE(I64, MK_I64, "%" PRId64, v == r, INT64_MIN, -1, 0, INT64_MAX)
ECHO_CASE(FLT, MK_FLT, "%g", same_dbl(v, r), 0.0f, -0.0f, FLT_MAX, -FLT_MIN, INFINITY, NAN)
ECHO_CASE(DBL, MK_DBL, "%g", same_dbl(v, r), 0.0, -0.0, DBL_MAX, -DBL_MIN, -INFINITY, NAN)
ECHO_CASE(BOL, MK_BOL, "%d", v == r, true, false)

static void
echo_big(void)
{
    size_t n = 1 << 20;
    char *s = malloc(n + 1);
    const char *rs;
    const void *rb;
    size_t rn;
    int ok;
    memset(s, 'x', n);
    s[n] = 0;
    ok = !MqSendSTART(c) && !MqSendSTR(c, "STR") && !MqSendSTR(c, s) && call(c, "ECHO") &&
         !MqReadSTR(c, &rs) && strcmp(rs, s) == 0;
    ok = ok && !MqSendSTART(c) && !MqSendSTR(c, "STR") && !MqSendSTR(c, "") && call(c, "ECHO") &&
         !MqReadSTR(c, &rs) && *rs == 0;
    for (size_t i = 0; i < n; i++)
        s[i] = (char)i;
    ok = ok && !MqSendSTART(c) && !MqSendSTR(c, "BIN") && !MqSendBIN(c, s, n) &&
         call(c, "ECHO") && !MqReadBIN(c, &rb, &rn) && rn == n && memcmp(rb, s, n) == 0;
    ok = ok && !MqSendSTART(c) && !MqSendSTR(c, "BIN") && !MqSendBIN(c, "", 0) &&
         call(c, "ECHO") && !MqReadBIN(c, &rb, &rn) && rn == 0;
    free(s);
    report(ok, "ECHO empty and 1 MiB STR and BIN", MqErrorGetText(c));
}

static void
nested(void)
{
    MK_I32 i = 0;
    const char *s = "";
    int ok = !MqSendSTART(c) && !MqSendL_START(c) && !MqSendI32(c, 1) && !MqSendL_START(c) &&
             !MqSendSTR(c, "deep") && !MqSendL_END(c) && !MqSendL_END(c) && call(c, "ELST") &&
             !MqReadL_START(c) && !MqReadI32(c, &i) && !MqReadL_START(c) && !MqReadSTR(c, &s) &&
             !MqReadL_END(c) && !MqReadL_END(c);
    report(ok && i == 1 && strcmp(s, "deep") == 0, "ELST echoes nested lists", MqErrorGetText(c));
}

static void
fail(void)
{
    int ok = !MqSendSTART(c) && !MqSendSTR(c, "broken on purpose") && !call(c, "FAIL") &&
             strstr(MqErrorGetText(c), "broken on purpose") != NULL;
    report(ok, "a service's error arrives as the error text", MqErrorGetText(c));
    MqErrorReset(c);
}

static void
wrong(void)
{
    MK_I8 v8;
    MK_I32 v32;
    const char *s = "";
    int ok = !MqSendSTART(c) && !MqSendSTR(c, "abc") && call(c, "WRNG") && !MqReadSTR(c, &s) &&
             strncmp(s, "caught: ", 8) == 0;
    report(ok, "reading the wrong type in a service is an error it can catch", s);
    ok = !MqSendSTART(c) && !MqSendSTR(c, "I32") && !MqSendI32(c, 300) && call(c, "ECHO") &&
         MqReadI8(c, &v8) == MK_ERROR;
    MqErrorReset(c);
    ok = ok && !MqSendSTART(c) && !MqSendSTR(c, "STR") && !MqSendSTR(c, "abc") &&
         call(c, "ECHO") && MqReadI32(c, &v32) == MK_ERROR;
    MqErrorReset(c);
    report(ok, "reading the wrong type is an error", NULL);
}

static void
instances(const char *parent)
{
    char names[4][128];
    int ok = 1;
    MqContextC *kids[3];
    snprintf(names[0], sizeof names[0], "%s", parent);
    for (int i = 0; i < 3; i++) {
        const char *s = "";
        kids[i] = MqContextCreate();
        ok = ok && !MqLinkCreateChild(kids[i], c) && !MqSendSTART(kids[i]) &&
             call(kids[i], "INST") && !MqReadSTR(kids[i], &s);
        snprintf(names[i + 1], sizeof names[0], "%s", s);
        for (int j = 0; j <= i; j++)
            ok = ok && strcmp(names[j], names[i + 1]) != 0;
    }
    for (int i = 0; i < 3; i++)
        MqContextDelete(kids[i]);
    report(ok, "every child gets its own server instance", names[0]);
}

int
main(int argc, char **argv)
{
    const char *inst = "";
    char parent[128];
    if (argc < 2)
        return 2;
    label = argv[1];
    argv[1] = "cclient";
    c = MqContextCreate();
    if (MqLinkCreate(c, argc - 1, (const char **)argv + 1) != MK_OK || MqSendSTART(c) ||
        !call(c, "INST") || MqReadSTR(c, &inst)) {
        report(0, "link", MqErrorGetText(c));
        return 1;
    }
    snprintf(parent, sizeof parent, "%s", inst);
    echo_I8();
    echo_I16();
    echo_I32();
    echo_I64();
    echo_FLT();
    echo_DBL();
    echo_BOL();
    echo_big();
    nested();
    fail();
    wrong();
    instances(parent);
    MqContextDelete(c);
    return 0;
}
