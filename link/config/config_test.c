/* config_test.c — link options from a libconfig file (globals, per-name
 * override, errors naming FILE:LINE) and the typed config-file getters. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mqlink.h"
#include "config_load.h"
#include "link_int.h"
#include "option.h"
#include "testlib.h"

static MkErrorC *err;

/* mqi_config_load with the link's own keys (option.h). */
static MkErrorE
load(const char *file, const char *name, int *argc, char ***argv)
{
    mqi_cfgkey keys[MQI_CFG_MAXKEYS];
    size_t n = mqi_option_keys(keys, MQI_CFG_MAXKEYS);
    return mqi_config_load(file, name, keys, n, argc, argv, err);
}

static const char *
write_cfg(const char *text)
{
    const char *file = mqt_temp_path("cfg");
    FILE *f = fopen(file, "w");
    MQT_CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    return file;
}

/* argv joined with spaces, for one comparison per case. */
static const char *
joined(int argc, char **argv)
{
    static char buf[1024];
    buf[0] = '\0';
    for (int i = 0; i < argc; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? " " : "", argv[i]);
    return buf;
}

static void
expect_options(const char *file, const char *name, const char *want)
{
    int argc = -1;
    char **argv = NULL;
    MQT_OK(load(file, name, &argc, &argv), MkErrorGetText(err));
    MQT_CHECK(argv && argv[argc] == NULL);
    MQT_CHECK_MSG(argv && !strcmp(joined(argc, argv), want), "%s: got '%s', want '%s'",
                  name ? name : "(globals)", argv ? joined(argc, argv) : "", want);
    mqi_config_argv_free(argv);
}

static const char sample[] =
    "# globals\n"
    "timeout = 30;\n"
    "buffersize = 65536;\n"
    "storage = \"/var/lib/app/calls.db\";\n"
    "tcp = true;\n"
    "port = 7777;\n"
    "myclient: { timeout = 5; sync = \"full\"; };\n"
    "quiet: { silent = true; tcp = false; uds = true; file = \"/tmp/s\"; sync = false; };\n";

static void
test_defaults_and_override(void)
{
    const char *file = write_cfg(sample);
    expect_options(file, NULL,
                   "--buffersize 65536 --timeout 30 --storage /var/lib/app/calls.db --tcp --port 7777");
    expect_options(file, "myclient", "--buffersize 65536 --timeout 5 --storage "
                                     "/var/lib/app/calls.db --sync full --tcp --port 7777");
    expect_options(file, "quiet", "--buffersize 65536 --timeout 30 --silent --storage "
                                  "/var/lib/app/calls.db --sync normal --uds --file /tmp/s "
                                  "--port 7777");
    expect_options(file, "nosuchname",
                   "--buffersize 65536 --timeout 30 --storage /var/lib/app/calls.db --tcp --port 7777");
}

/* The link reads the file before its command line, wherever --config
 * stands, so the command line overrides the file; the group named like
 * --name overrides the file's globals.  Runs the link's own option parser. */
static void
test_command_line_overrides_file(void)
{
    const char *file = write_cfg("timeout = 30;\nbuffersize = 1000;\nmax-frame = 4096;\n"
                                 "prog: { max-frame = 2048; debug = 2; };\n");
    const char *before[] = {"prog", "--timeout", "5", "--config", file, "--name", "prog",
                            "--tcp", "--port", "1"};
    const char *after[] = {"prog", "--config", file, "--debug", "3", "--tcp", "--port", "1"};
    MqContextC *ctx = MqContextCreate();
    MQT_OK(mqi_options_parse(ctx, 10, before), MkErrorGetText(ctx->err));
    MQT_CHECK_MSG(ctx->cfg.timeout_ms == 5000, "timeout %lld ms", (long long)ctx->cfg.timeout_ms);
    MQT_CHECK(ctx->cfg.buffersize == 1000);
    MQT_CHECK(ctx->cfg.max_frame == 2048 && ctx->cfg.debug == 2);
    MqContextDelete(ctx);
    ctx = MqContextCreate();
    MQT_OK(mqi_options_parse(ctx, 8, after), MkErrorGetText(ctx->err));
    MQT_CHECK(ctx->cfg.timeout_ms == 30000 && ctx->cfg.max_frame == 4096);
    MQT_CHECK_MSG(ctx->cfg.debug == 3, "debug %d", ctx->cfg.debug);
    MqContextDelete(ctx);
}

static void
expect_error(const char *text, const char *name, const char *want)
{
    const char *file = write_cfg(text);
    char full[1024];
    int argc = 7;
    char **argv = (char **)1;
    snprintf(full, sizeof full, want, file);
    MQT_CHECK(load(file, name, &argc, &argv) == MK_ERROR);
    MQT_CHECK(argc == 0 && argv == NULL);
    MQT_CHECK_MSG(strstr(MkErrorGetText(err), full), "error '%s' lacks '%s'",
                  MkErrorGetText(err), full);
}

static void
test_syntax_error(void)
{
    expect_error("timeout = 30;\nbuffersize = 1;\ntimeout = ;\n", NULL, "%s:3: ");
    expect_error("a: { timeout = 1; \n", NULL, "%s:2: ");
}

static void
test_unknown_key(void)
{
    expect_error("timeout = 30;\ntimout = 5;\n", NULL, "%s:2: unknown key 'timout'");
    expect_error("x: {\n  timeout = 1;\n  bogus = 2;\n};\n", "other",
                 "%s:3: unknown key 'bogus' in group 'x'");
    expect_error("x: { y: { timeout = 1; }; };\n", "x", "%s:1: unknown key 'y' in group 'x'");
    expect_error("timeout = \"30\";\n", NULL, "%s:1: 'timeout' must be an integer, not a string");
    expect_error("sync = \"fast\";\n", NULL, "%s:1: 'sync' must be \"full\", \"normal\"");
    expect_error("tcp = 1;\n", NULL, "%s:1: 'tcp' must be a boolean, not an integer");
}

static void
test_missing_file(void)
{
    int argc;
    char **argv;
    MQT_CHECK(load("/nonexistent/app.cfg", NULL, &argc, &argv) == MK_ERROR);
    MQT_CHECK(strstr(MkErrorGetText(err), "config file /nonexistent/app.cfg: No such file") !=
              NULL);
    MQT_CHECK(load("/tmp", NULL, &argc, &argv) == MK_ERROR);
    MQT_CHECK(strstr(MkErrorGetText(err), "config file /tmp: Is a directory") != NULL);
}

static void
test_typed_getters(void)
{
    const char *file = write_cfg("name = \"svc\";\ncount = 42;\nbig = 5000000000L;\n"
                                 "on = true;\nratio = 0.25;\nsrv: { port = 8080; };\n");
    MqConfigFileC *cfg = MqConfigFileCreate();
    const char *s = NULL;
    MK_I64 i = 0;
    MK_BOL b = 0;
    MK_DBL d = 0;
    MQT_OK(MqConfigFileRead(cfg, file), MkErrorGetText(MkErrorDEFAULT()));
    MQT_OK(MqConfigFileGetSTR(cfg, "name", NULL, &s), MkErrorGetText(MkErrorDEFAULT()));
    MQT_CHECK(s && !strcmp(s, "svc"));
    MQT_OK(MqConfigFileGetSTR(cfg, "missing", "dflt", &s), MkErrorGetText(MkErrorDEFAULT()));
    MQT_CHECK(!strcmp(s, "dflt"));
    MQT_OK(MqConfigFileGetI64(cfg, "big", 0, &i), MkErrorGetText(MkErrorDEFAULT()));
    MQT_CHECK(i == 5000000000LL);
    MQT_OK(MqConfigFileGetI64(cfg, "srv.port", 0, &i), MkErrorGetText(MkErrorDEFAULT()));
    MQT_CHECK(i == 8080);
    MQT_OK(MqConfigFileGetBOL(cfg, "on", 0, &b), MkErrorGetText(MkErrorDEFAULT()));
    MQT_CHECK(b);
    MQT_OK(MqConfigFileGetDBL(cfg, "ratio", 0, &d), MkErrorGetText(MkErrorDEFAULT()));
    MQT_CHECK(d == 0.25);
    MQT_OK(MqConfigFileGetDBL(cfg, "count", 0, &d), MkErrorGetText(MkErrorDEFAULT()));
    MQT_CHECK(d == 42.0);
    MQT_OK(MqConfigFileGetDBL(cfg, "srv.none", 1.5, &d), MkErrorGetText(MkErrorDEFAULT()));
    MQT_CHECK(d == 1.5);
    MQT_CHECK(MqConfigFileExists(cfg, "srv.port") && !MqConfigFileExists(cfg, "srv.host"));

    char want[600];
    MQT_CHECK(MqConfigFileGetI64(cfg, "name", 0, &i) == MK_ERROR);
    snprintf(want, sizeof want, "%s:1: 'name' is a string, not an integer", file);
    MQT_CHECK_MSG(!strcmp(MkErrorGetText(MkErrorDEFAULT()), want), "got '%s'",
                  MkErrorGetText(MkErrorDEFAULT()));
    MQT_CHECK(MkErrorGetCode(MkErrorDEFAULT()) == MK_ERR_TYPE);
    MQT_CHECK(MqConfigFileGetI64(cfg, "ratio", 0, &i) == MK_ERROR);
    MQT_CHECK(MqConfigFileGetBOL(cfg, "count", 0, &b) == MK_ERROR);
    MQT_CHECK(MqConfigFileGetSTR(cfg, "srv", NULL, &s) == MK_ERROR);
    MQT_CHECK(strstr(MkErrorGetText(MkErrorDEFAULT()), "is a group, not a string") != NULL);

    MQT_CHECK(MqConfigFileRead(cfg, write_cfg("a = 1;\nb = ;\n")) == MK_ERROR);
    MQT_CHECK(strstr(MkErrorGetText(MkErrorDEFAULT()), ":2: ") != NULL);
    MQT_OK(MqConfigFileGetI64(cfg, "a", 7, &i), MkErrorGetText(MkErrorDEFAULT()));
    MQT_CHECK(i == 7); /* a failed read leaves nothing behind */
    MqConfigFileDelete(cfg);
}

static const mqt_case cases[] = {
    {"globals and per-name override", test_defaults_and_override},
    {"the command line overrides the file", test_command_line_overrides_file},
    {"syntax error names file:line", test_syntax_error},
    {"unknown key or wrong type names file:line", test_unknown_key},
    {"missing file is a clear error", test_missing_file},
    {"typed getters", test_typed_getters},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    err = MkErrorCreate();
    return mqt_main(argc, argv, cases);
}
