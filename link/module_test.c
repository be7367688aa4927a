/* module_test.c — TLS and persistent delivery are modules (link/module.c,
 * tls_load.c, persist_load.c): a process whose links are plain maps
 * neither OpenSSL nor sqlite3, on either side, while a TLS link loads the
 * one and a persistent call or --storage the other; a missing, broken or
 * foreign module is an error naming the file, never a crash or a hang.
 * Linked against the shared libmqlink, as a user's program is (shared
 * builds only: a static build links both in). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#include "linktest.h"

#define ERR(ctx) MqErrorGetText(ctx)
#define MAX_PIDS 16

/* What a module brings into a process: the files of it, as found in maps. */
static const char *const OPENSSL[] = {"/libssl.so", "/libcrypto.so", "/mqlink_tls.so", NULL};
static const char *const SQLITE[] = {"/libsqlite3.so", "/mqlink_persist.so", NULL};

/* The first file of which that pid maps, "" when none. */
static const char *
mapped(pid_t pid, const char *const *which)
{
    static char found[512];
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    found[0] = '\0';
    if (!f) {
        mqt_fail(__FILE__, __LINE__, "cannot read %s", path);
        return found;
    }
    while (!found[0] && fgets(line, sizeof line, f))
        for (const char *const *w = which; *w && !found[0]; w++)
            if (strstr(line, *w))
                snprintf(found, sizeof found, "%.*s", (int)strcspn(strchr(line, '/'), "\n"),
                         strchr(line, '/'));
    fclose(f);
    return found;
}

/* pid and the processes it started (its main thread's children). */
static int
with_children(pid_t pid, pid_t *out)
{
    char path[64];
    int n = 0, child;
    out[n++] = pid;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *f = fopen(path, "r");
    while (f && n < MAX_PIDS && fscanf(f, "%d", &child) == 1)
        out[n++] = child;
    if (f)
        fclose(f);
    return n;
}

/* Whether every process of pids maps which (want 1) or none does (0). */
static void
check_maps(const pid_t *pids, int n, const char *const *which, int want)
{
    for (int i = 0; i < n; i++) {
        const char *f = mapped(pids[i], which);
        MQT_CHECK_MSG(!!f[0] == want, "process %d (%s) %s%s", (int)pids[i],
                      pids[i] == getpid() ? "the client" : "a server",
                      want ? "maps no " : "maps ", want ? which[0] + 1 : f);
    }
}

/* A plain link over mode: neither the client nor any server process maps
 * OpenSSL or sqlite3; the link works. */
static void
plain(const char *mode)
{
    MqContextC *c = lt_connect(lt_mode_get(mode));
    if (!c)
        return;
    pid_t pids[2 * MAX_PIDS];
    int n = with_children(getpid(), pids);
    if (lt_server_pid() > 0)
        n += with_children(lt_server_pid(), pids + n);
    MQT_CHECK_MSG(n >= 2, "no server process found to look into");
    MK_I32 v = 0;
    MQT_OK(MqSendSTART(c), ERR(c));
    MQT_OK(MqSendI32(c, 7), ERR(c));
    MQT_OK(MqSendEND_AND_WAIT(c, "ECHO", 10), ERR(c));
    MQT_OK(MqReadI32(c, &v), ERR(c));
    MQT_CHECK(v == 7);
    check_maps(pids, n, OPENSSL, 0);
    check_maps(pids, n, SQLITE, 0);
    MqContextDelete(c);
}

static void
plain_pipe(void)
{
    plain("pipe");
}

static void
plain_tcp(void)
{
    plain("tcp_fork");
}

/* A TLS link: the client and the listener have loaded the module. */
static void
tls_loads(void)
{
    pid_t self = getpid();
    check_maps(&self, 1, OPENSSL, 0);
    MqContextC *c = lt_connect(lt_mode_get("tcp_tls_fork"));
    if (!c)
        return;
    pid_t pids[2] = {self, lt_server_pid()};
    check_maps(pids, 2, OPENSSL, 1);
    check_maps(pids, 2, SQLITE, 0);
    MqContextDelete(c);
}

/* One persistent call of v on c; MK_ERROR with c's error when it fails. */
static MkErrorE
persistent_call(MqContextC *c, MK_I64 v)
{
    MK_I64 got = 0;
    if (MqSendSTART(c) != MK_OK || MqSendI64(c, v) != MK_OK ||
        MqSendEND_AND_TRANSACTION(c, "PERS", 10000) != MK_OK || MqReadI64(c, &got) != MK_OK)
        return MK_ERROR;
    MQT_CHECK(got == v);
    return MK_OK;
}

/* A persistent call (in-memory storage): the client loads the persistence
 * module, and so does the server, when the client's identity arrives. */
static void
persist_loads(void)
{
    MqContextC *c = lt_connect(lt_mode_get("pipe"));
    if (!c)
        return;
    pid_t pids[MAX_PIDS];
    int n = with_children(getpid(), pids);
    check_maps(pids, n, SQLITE, 0);
    MQT_OK(persistent_call(c, 42), ERR(c));
    check_maps(pids, n, SQLITE, 1);
    check_maps(pids, n, OPENSSL, 0);
    MqContextDelete(c);
}

/* --storage FILE: the module is loaded by LinkCreate, which opens it. */
static void
storage_loads(void)
{
    const char *file = mqt_temp_path("storage");
    MqContextC *c = MqContextCreate();
    const char *argv[] = {"client", "--storage", file, "@", mqt_build_path("tests/testserver"),
                          NULL};
    pid_t self = getpid();
    MQT_OK(MqLinkCreate(c, 5, argv), ERR(c));
    check_maps(&self, 1, SQLITE, 1);
    MQT_CHECK(MqStorageIsDurable(c));
    MQT_OK(persistent_call(c, 7), ERR(c));
    MqContextDelete(c);
    unlink(file);
}

/* No module, on the sender: a persistent call and a link with --storage
 * are errors at once, naming the module and where it was looked for. */
static void
persist_missing_sender(void)
{
    const char *dir = mqt_temp_path("nomodule");
    char text[512];
    MQT_CHECK(mkdir(dir, 0700) == 0);
    setenv("MQLINK_MODULE_DIR", dir, 1);
    snprintf(text, sizeof text, "cannot find the module mqlink_persist.so in %s "
             "(MQLINK_MODULE_DIR)", dir);
    MqContextC *c = lt_connect(lt_mode_get("pipe"));
    if (!c)
        return;
    MQT_CHECK(persistent_call(c, 1) == MK_ERROR);
    MQT_CHECK_MSG(strstr(ERR(c), text) && strstr(ERR(c), "needs this module"), "%s", ERR(c));
    MqContextDelete(c);
    c = MqContextCreate();
    const char *argv[] = {"client", "--storage", mqt_temp_path("storage"), "@",
                          mqt_build_path("tests/testserver"), NULL};
    MQT_CHECK(MqLinkCreate(c, 5, argv) == MK_ERROR);
    MQT_CHECK_MSG(strstr(ERR(c), text), "%s", ERR(c));
    pid_t self = getpid();
    check_maps(&self, 1, SQLITE, 0);
    MqContextDelete(c);
    unsetenv("MQLINK_MODULE_DIR");
    rmdir(dir);
}

/* No module, on the receiver only (it inherits MQLINK_MODULE_DIR set
 * after the sender loaded its own): the sender's call is an error, not a
 * wait for an answer that cannot come, and a new link works as before. */
static void
persist_missing_receiver(void)
{
    const char *dir = mqt_temp_path("nomodule");
    MqContextC *c = MqContextCreate();
    MQT_CHECK(persistent_call(c, 1) == MK_ERROR); /* not linked, but loaded */
    MqContextDelete(c);
    MQT_CHECK(mkdir(dir, 0700) == 0);
    setenv("MQLINK_MODULE_DIR", dir, 1);
    c = lt_connect(lt_mode_get("pipe"));
    if (!c)
        return;
    time_t t0 = time(NULL);
    MQT_CHECK(persistent_call(c, 1) == MK_ERROR);
    MQT_CHECK_MSG(time(NULL) - t0 < 8, "the call waited %d s", (int)(time(NULL) - t0));
    MqContextDelete(c);
    unsetenv("MQLINK_MODULE_DIR");
    c = lt_connect(lt_mode_get("pipe"));
    MQT_OK(c ? persistent_call(c, 2) : MK_ERROR, c ? ERR(c) : "no link");
    if (c)
        MqContextDelete(c);
    rmdir(dir);
}

/* A TLS client with the module looked for in dir: the error at LinkCreate
 * holds each of want (NULL-terminated); nothing of OpenSSL is mapped. */
static void
tls_client_fails(const char *dir, const char *const *want)
{
    char port[16];
    snprintf(port, sizeof port, "%d", mqt_free_port());
    setenv("MQLINK_MODULE_DIR", dir, 1);
    MqContextC *c = MqContextCreate();
    const char *argv[] = {"client", "--tcp", "--port", port, "--tls-ca",
                          lt_tls_file("ca.pem"), NULL};
    MQT_CHECK(MqLinkCreate(c, 6, argv) == MK_ERROR);
    for (; *want; want++)
        MQT_CHECK_MSG(strstr(ERR(c), *want), "error without '%s': %s", *want, ERR(c));
    pid_t self = getpid();
    check_maps(&self, 1, OPENSSL, 0);
    MqContextDelete(c);
}

/* A MQLINK_MODULE_DIR too long for a path is an error naming it, not a
 * directory cut short and looked in. */
static void
module_dir_too_long(void)
{
    static char dir[5000];
    memset(dir, 'd', sizeof dir - 1);
    dir[0] = '/';
    const char *want[] = {"cannot find the module mqlink_tls.so: MQLINK_MODULE_DIR is longer "
                          "than 4095 bytes", NULL};
    tls_client_fails(dir, want);
}

static void
module_missing(void)
{
    const char *dir = mqt_temp_path("nomodule");
    char text[512];
    MQT_CHECK(mkdir(dir, 0700) == 0);
    snprintf(text, sizeof text, "cannot find the module mqlink_tls.so in %s (MQLINK_MODULE_DIR)",
             dir);
    const char *want[] = {text, "TLS (--tls-cert, --tls-ca) needs this module", NULL};
    tls_client_fails(dir, want);
    rmdir(dir);
}

/* A file that is no shared object: dlopen's reason, and the file named. */
static void
module_broken(void)
{
    const char *dir = mqt_temp_path("badmodule");
    char file[512];
    MQT_CHECK(mkdir(dir, 0700) == 0);
    snprintf(file, sizeof file, "%s/mqlink_tls.so", dir);
    FILE *f = fopen(file, "w");
    for (int i = 0; f && i < 16; i++) /* longer than an ELF header */
        fputs("not a shared object\n", f);
    MQT_CHECK(f && fclose(f) == 0);
    const char *want[] = {"cannot load the module", file, "invalid ELF header", NULL};
    tls_client_fails(dir, want);
    unlink(file);
    rmdir(dir);
}

/* A shared object made from source (by $CC): a module of another version,
 * or none at all. */
static void
foreign(const char *source, const char *want_text)
{
    const char *dir = mqt_temp_path("foreign");
    char cmd[2048];
    MQT_CHECK(mkdir(dir, 0700) == 0);
    snprintf(cmd, sizeof cmd, "printf '%%s\\n' '%s' > %s/m.c && %s -shared -fPIC -o "
             "%s/mqlink_tls.so %s/m.c", source, dir, getenv("CC") ? getenv("CC") : "cc", dir,
             dir);
    MQT_CHECK_MSG(system(cmd) == 0, "cannot build a stand-in module: %s", cmd);
    char file[512];
    snprintf(file, sizeof file, "%s/mqlink_tls.so", dir);
    const char *want[] = {file, want_text, NULL};
    tls_client_fails(dir, want);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    MQT_CHECK(system(cmd) == 0);
}

static void
module_other_version(void)
{
    foreign("const struct { const char *v; } mqi_tls_module = {\"0.0.1-other\"};",
            "is of mqlink 0.0.1-other, this library is " PACKAGE_VERSION);
}

static void
module_without_table(void)
{
    foreign("int mqi_tls_something_else = 1;", "is not an mqlink module (no mqi_tls_module");
}

int
main(int argc, char **argv)
{
    static const mqt_case cases[] = {
        {"a plain pipe link maps no OpenSSL or sqlite3 (client, server)", plain_pipe},
        {"a plain tcp link maps no OpenSSL or sqlite3 (client, listener, instance)", plain_tcp},
        {"a TLS link loads the TLS module (client, listener)", tls_loads},
        {"a persistent call loads the persistence module (client, server)", persist_loads},
        {"--storage loads the persistence module at LinkCreate", storage_loads},
        {"a missing module is an error at LinkCreate naming where", module_missing},
        {"a module directory too long for a path is an error naming it", module_dir_too_long},
        {"a broken module is an error naming the file and the reason", module_broken},
        {"a module of another version is refused", module_other_version},
        {"a shared object without the table is refused", module_without_table},
        {"no persistence module at the sender: errors naming it", persist_missing_sender},
        {"no persistence module at the receiver: the call fails, no hang", persist_missing_receiver},
        {NULL, NULL},
    };
    if (!lt_tls_dir())
        return 1;
    return mqt_main(argc, argv, cases);
}
