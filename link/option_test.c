/* option_test.c — every row of the option table (link/option.h, the core's
 * and each transport's) works in all three places that derive from it: on
 * the command line, as a --config file key, and in --help.  A row a parser
 * cannot take, or a kind one of them forgets, fails here. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "link_int.h"
#include "option.h"
#include "testlib.h"

/* The value a test gives row o, as the command line writes it (NULL: a flag). */
static const char *
value_of(const mqi_option *o, char *buf, size_t n)
{
    switch (o->kind) {
    case MQI_OPT_STR:
        snprintf(buf, n, "v-%s", o->name);
        return buf;
    case MQI_OPT_INT:
    case MQI_OPT_NUMSTR:
        snprintf(buf, n, "%lld", o->max);
        return buf;
    case MQI_OPT_SYNC:
        return "normal";
    default:
        return NULL;
    }
}

/* Whether ctx's configuration holds what row o was given. */
static int
applied(const MqContextC *ctx, const mqi_option *o)
{
    const char *field = (const char *)&ctx->cfg + o->offset;
    char want[64];
    const char *v = value_of(o, want, sizeof want);
    int64_t i64 = 0;
    uint32_t u32 = 0;
    if (o->kind == MQI_OPT_STR || o->kind == MQI_OPT_NUMSTR) {
        const char *s;
        memcpy(&s, field, sizeof s);
        return s && !strcmp(s, v);
    }
    if (o->kind == MQI_OPT_SYNC)
        return ctx->cfg.sync_full == 0;
    if (o->size == sizeof u32)
        memcpy(&u32, field, sizeof u32), i64 = u32;
    else
        memcpy(&i64, field, sizeof i64);
    if (o->kind == MQI_OPT_FLAG)
        return i64 == o->val;
    return i64 == o->max * (o->scale ? o->scale : 1);
}

/* Parse argv into a fresh context and check row o landed; a refusal for
 * another reason (no transport) is fine, an unknown option is not. */
static void
expect_applied(const mqi_option *o, int argc, const char **argv, const char *how)
{
    MqContextC *ctx = MqContextCreate();
    MQT_CHECK(ctx != NULL);
    if (mqi_options_parse(ctx, argc, argv) != MK_OK)
        MQT_CHECK_MSG(!strstr(MkErrorGetText(ctx->err), "unknown"), "--%s %s: %s", o->name,
                      how, MkErrorGetText(ctx->err));
    MQT_CHECK_MSG(applied(ctx, o), "--%s given %s did not set its field", o->name, how);
    MqContextDelete(ctx);
}

static int
takes_value(const mqi_option *o)
{
    return o->kind == MQI_OPT_STR || o->kind == MQI_OPT_INT || o->kind == MQI_OPT_NUMSTR ||
           o->kind == MQI_OPT_SYNC;
}

static void
test_command_line(void)
{
    for (size_t i = 0; mqi_option_list(i); i++)
        for (const mqi_option *o = mqi_option_list(i); o->name; o++) {
            char opt[64], val[64];
            snprintf(opt, sizeof opt, "--%s", o->name);
            const char *argv[] = {"prog", opt, value_of(o, val, sizeof val), NULL};
            if (o->unavailable || o->kind == MQI_OPT_HELP || o->kind == MQI_OPT_VERSION)
                continue; /* refused by design; --help: test_help */
            if (o->kind == MQI_OPT_CONFIG) {
                MqContextC *ctx = MqContextCreate();
                FILE *f = fopen(argv[2] = mqt_temp_path("empty.cfg"), "w");
                MQT_CHECK(f && fclose(f) == 0);
                argv[3] = NULL;
                MQT_CHECK(mqi_options_parse(ctx, 3, argv) == MK_ERROR); /* no transport */
                MQT_CHECK_MSG(strstr(MkErrorGetText(ctx->err), "no transport"), "%s",
                              MkErrorGetText(ctx->err));
                MqContextDelete(ctx);
                continue;
            }
            expect_applied(o, takes_value(o) ? 3 : 2, argv, "on the command line");
        }
}

/* The options every program has had: a list of rows that went missing (a
 * transport's) shows here. */
static void
test_known_rows(void)
{
    static const char *const names[] = {
        "name", "srvname", "buffersize", "timeout", "max-frame", "max-children", "debug",
        "storage", "sync", "max-senders", "max-storage", "config", "silent", "max-buffered",
        "max-connections", "idle-timeout", "frame-timeout", "uds", "file", "tcp", "host",
        "port", "fork", "thread", "spawn", "help", "socket",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        MQT_CHECK_MSG(mqi_option_find(names[i]), "no row for --%s", names[i]);
}

/* The lookup (indexed by first letter) finds each row itself, and no row
 * for a name that only shares a row's first letters or extends it. */
static void
test_find_each_row(void)
{
    static const char *const none[] = {"", "f", "fil", "files", "forks", "t", "x-none"};
    for (size_t i = 0; mqi_option_list(i); i++)
        for (const mqi_option *o = mqi_option_list(i); o->name; o++)
            MQT_CHECK_MSG(mqi_option_find(o->name) == o, "--%s: another row found", o->name);
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        MQT_CHECK_MSG(!mqi_option_find(none[i]), "a row for '--%s'", none[i]);
}

/* Numbers: plain digits (read without strtoll) and any other text read
 * as strtoll reads it, the row's range checked either way. */
static void
test_numbers(void)
{
    static const struct {
        const char *text;
        long long want; /* -1: refused */
    } cases[] = {
        {"4096", 4096},     {"007", 7},  {"+8", 8},   {" 9", 9},  {"1073741824", 1073741824},
        {"1073741825", -1}, {"5x", -1},  {"", -1},    {"-1", -1}, {"99999999999999999999", -1},
        {"0x10", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        MqContextC *ctx = MqContextCreate();
        const char *argv[] = {"prog", "--buffersize", cases[i].text, "--uds", "--file", "x"};
        MkErrorE rc = mqi_options_parse(ctx, 6, argv);
        if (cases[i].want < 0)
            MQT_CHECK_MSG(rc == MK_ERROR, "--buffersize '%s' taken", cases[i].text);
        else
            MQT_CHECK_MSG(rc == MK_OK && ctx->cfg.buffersize == (size_t)cases[i].want,
                          "--buffersize '%s': %zu (%s)", cases[i].text, ctx->cfg.buffersize,
                          MkErrorGetText(ctx->err));
        MqContextDelete(ctx);
    }
}

static void
test_config_keys(void)
{
    mqi_cfgkey keys[MQI_CFG_MAXKEYS];
    size_t nkeys = mqi_option_keys(keys, MQI_CFG_MAXKEYS);
    for (size_t i = 0; mqi_option_list(i); i++)
        for (const mqi_option *o = mqi_option_list(i); o->name; o++) {
            int is_key = 0;
            for (size_t k = 0; k < nkeys; k++)
                is_key |= !strcmp(keys[k].name, o->name);
            MQT_CHECK_MSG(is_key == !(o->flags & MQI_OPT_CLI_ONLY), "--%s: key %d", o->name,
                          is_key);
            if (!is_key || o->unavailable)
                continue;
            char val[64];
            const char *v = value_of(o, val, sizeof val);
            const char *file = mqt_temp_path("opt.cfg");
            FILE *f = fopen(file, "w");
            MQT_CHECK(f != NULL);
            if (o->kind == MQI_OPT_FLAG)
                fprintf(f, "%s = true;\n", o->name);
            else if (o->kind == MQI_OPT_INT || o->kind == MQI_OPT_NUMSTR)
                fprintf(f, "%s = %sL;\n", o->name, v);
            else
                fprintf(f, "%s = \"%s\";\n", o->name, v);
            fclose(f);
            const char *argv[] = {"prog", "--config", file};
            expect_applied(o, 3, argv, "in a config file");
        }
}

static void
test_help(void)
{
    const char *out = mqt_temp_path("help.txt");
    pid_t pid = fork();
    MQT_CHECK(pid >= 0);
    if (pid == 0) {
        const char *argv[] = {"prog", "--help"};
        MqContextC *ctx = MqContextCreate();
        if (!freopen(out, "w", stdout))
            _exit(3);
        mqi_options_parse(ctx, 2, argv);
        _exit(4); /* --help exits 0 itself */
    }
    int status = 0;
    MQT_CHECK(waitpid(pid, &status, 0) == pid);
    MQT_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "--help: status %d", status);
    FILE *f = fopen(out, "r");
    MQT_CHECK(f != NULL);
    char text[8192];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    for (size_t i = 0; mqi_option_list(i); i++)
        for (const mqi_option *o = mqi_option_list(i); o->name; o++) {
            char want[64]; /* the name ends at a space: its value or the padding */
            snprintf(want, sizeof want, "  --%s ", o->name);
            int listed = strstr(text, want) != NULL;
            MQT_CHECK_MSG(listed == !(o->flags & MQI_OPT_HIDDEN), "--%s: listed %d in:\n%s",
                          o->name, listed, text);
        }
}

/* A NULL word in the list (anywhere but after argc) is the caller's error,
 * reported as one, not a crash: the --config look over argv ran before
 * the parser's check and read it (SIGSEGV).  In a child, so that a crash
 * fails this case alone. */
static void
test_null_word(void)
{
    pid_t pid = fork();
    MQT_CHECK(pid >= 0);
    if (pid == 0) {
        const char *argv[] = {"prog", NULL, "--uds", "--file", "x"};
        MqContextC *ctx = MqContextCreate();
        MkErrorE rc = mqi_options_parse(ctx, 5, argv);
        _exit(rc == MK_ERROR && strstr(MkErrorGetText(ctx->err), "NULL") ? 0 : 5);
    }
    int status = 0;
    MQT_CHECK(waitpid(pid, &status, 0) == pid);
    MQT_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "a NULL argument: %s %d", WIFSIGNALED(status) ? "signal" : "status",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* A configuration's strings live in its text while they fit, on the heap
 * after (link_int.h): names and paths short and long, set again and again,
 * copied to another configuration and borrowed from one, read back whole
 * wherever they live, and each freed once (ASan, valgrind). */
#define CHECK_STR(a, b) MQT_CHECK_MSG(!strcmp((a), (b)), "'%s', not '%s'", (a), (b))

static void
test_strings_in_text(void)
{
    char name[200], path[120];
    MqContextC *ctx = MqContextCreate();
    for (int i = 0; i < 60; i++) {
        int n = i * 3 % 90; /* 0 to 87 letters, then the number */
        memset(name, 'n', (size_t)n);
        snprintf(name + n, sizeof name - (size_t)n, "%d", i);
        MqConfigSetName(ctx, name);
        CHECK_STR(MqConfigGetName(ctx), name);
        MqConfigSetName(ctx, MqConfigGetName(ctx)); /* itself */
        CHECK_STR(MqConfigGetName(ctx), name);
        snprintf(path, sizeof path, "/tmp/%0*d.sock", i % 2 ? 90 : 1, i);
        const char *argv[] = {"prog", "--uds", "--file", path, "--srvname", "s"};
        MQT_CHECK(mqi_options_parse(ctx, 6, argv) == MK_OK);
        CHECK_STR(ctx->cfg.file, path);
        CHECK_STR(ctx->cfg.srvname, "s");
    }
    MqContextC *copy = MqContextCreate(), *borrow = MqContextCreate();
    mqi_config_copy(&copy->cfg, &ctx->cfg);
    mqi_config_borrow(&borrow->cfg, &ctx->cfg);
    CHECK_STR(MqConfigGetName(copy), "s"); /* the server's name */
    CHECK_STR(MqConfigGetName(borrow), "s");
    MQT_CHECK(borrow->cfg.file == ctx->cfg.file);
    mqi_config_own(&borrow->cfg); /* its own copies now */
    MqContextDelete(ctx); /* the strings copied from it stay */
    CHECK_STR(copy->cfg.file, path);
    CHECK_STR(borrow->cfg.file, path);
    MqConfigSetName(copy, "renamed");
    CHECK_STR(MqConfigGetName(copy), "renamed");
    MqContextDelete(copy);
    MqContextDelete(borrow);
}

static const mqt_case cases[] = {
    {"the known options have rows", test_known_rows},
    {"each row is found by its name, no row by another", test_find_each_row},
    {"numbers: digits, and other text as strtoll reads it", test_numbers},
    {"every option is taken on the command line", test_command_line},
    {"every option is a config key (unless command-line only)", test_config_keys},
    {"--help lists every option (unless hidden)", test_help},
    {"a NULL argument is an error, not a crash", test_null_word},
    {"strings in the configuration's text and on the heap", test_strings_in_text},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
