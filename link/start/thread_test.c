/* thread_test.c — what only --thread does: links served side by side in
 * one process.  One link's long service holds up no other link: one idle
 * since its handshake, a new one, or one that called before.  The long
 * service waits on a FIFO that the test feeds only after the other links'
 * calls have been answered, so a link held up behind it would never be
 * answered (its call fails at its timeout, the case at its time limit): no
 * timing is measured.  The rule any pool that serves several links with
 * one thread must keep (issue 16 point 4: a shared wait for idle links,
 * branch thread7-shared, failed this case when its acceptor ran the
 * service itself instead of handing its place over first). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"

#include "linktest.h"

/* HOLD: open the FIFO named by the string argument and read one byte from
 * it, then answer. */
static MkErrorE
hold(MqContextC *ctx, void *data)
{
    const char *path;
    char b = 0;
    if (MqReadSTR(ctx, &path) != MK_OK)
        return MK_ERROR;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || read(fd, &b, 1) != 1)
        return MqErrorSet(ctx, 1, "HOLD: no byte from the FIFO");
    close(fd);
    return MqSendRETURN(ctx);
}

/* PING: answer the I32 argument plus one. */
static MkErrorE
ping(MqContextC *ctx, void *data)
{
    MK_I32 v;
    if (MqReadI32(ctx, &v) != MK_OK)
        return MK_ERROR;
    MqSendSTART(ctx);
    MqSendI32(ctx, v + 1);
    return MqSendRETURN(ctx);
}

static MkErrorE
setup(MqContextC *ctx, void *data)
{
    if (MqServiceCreate(ctx, "HOLD", hold, NULL, NULL) != MK_OK)
        return MK_ERROR;
    return MqServiceCreate(ctx, "PING", ping, NULL, NULL);
}

/* A --thread listener on sock in a child process, setup_fn its
 * ServerSetup, start and end its thread hooks (NULL: none); its pid once
 * the socket exists. */
static pid_t
listener_start(const char *sock, MqServiceCallF setup_fn, MqThreadHookF start, MqThreadHookF end)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(300);
        MqSetThreadHooks(start, end);
        MqContextC *ctx = MqContextCreate();
        MqConfigSetServerSetup(ctx, setup_fn, NULL, NULL);
        const char *argv[] = {"threadtest", "--uds", "--file", sock, "--thread", "--timeout", "60"};
        MqLinkCreate(ctx, 7, argv);
        _exit(4); /* a listener returns only when it cannot listen */
    }
    MQT_CHECK(mqt_wait_for_file(sock, 60000) == 0);
    return pid;
}

/* SIGTERM ends the listener, which must exit 0. */
static void
listener_stop(pid_t pid)
{
    int st = 0;
    kill(pid, SIGTERM);
    waitpid(pid, &st, 0);
    MQT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "listener status %d", st);
}

static MqContextC *
client(const char *sock)
{
    const char *args[] = {"client", "--uds", "--file", sock, "--timeout", "60"};
    MqContextC *c = MqContextCreate();
    if (MqLinkCreate(c, 6, args) == MK_OK)
        return c;
    MQT_CHECK_MSG(0, "LinkCreate: %s", MqErrorGetText(c));
    MqContextDelete(c);
    return NULL;
}

/* PING on c answered (within the link's timeout, 60 s). */
static int
pinged(MqContextC *c, MK_I32 v)
{
    MK_I32 back = 0;
    MqSendSTART(c);
    MqSendI32(c, v);
    if (MqSendEND_AND_WAIT(c, "PING", MQ_TIMEOUT_DEFAULT) != MK_OK) {
        MQT_CHECK_MSG(0, "PING %d: %s", v, MqErrorGetText(c));
        return 0;
    }
    MQT_CHECK(MqReadI32(c, &back) == MK_OK && back == v + 1);
    return back == v + 1;
}

/* Wait (60 s at most) until HOLD has the FIFO open for reading: the
 * FIFO's writing end then opens without waiting. */
static int
hold_started(const char *fifo)
{
    for (int i = 0; i < 6000; i++) {
        int fd = open(fifo, O_WRONLY | O_NONBLOCK);
        if (fd >= 0)
            return fd;
        if (errno != ENXIO)
            break;
        usleep(10000);
    }
    MQT_CHECK_MSG(0, "HOLD did not start: %s", strerror(errno));
    return -1;
}

static void
service_holds_up_no_link(void)
{
    char sock[256], fifo[256];
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("sock"));
    snprintf(fifo, sizeof fifo, "%s", mqt_temp_path("fifo"));
    MQT_CHECK(mkfifo(fifo, 0600) == 0);
    pid_t pid = listener_start(sock, setup, NULL, NULL);
    MqContextC *busy = client(sock), *idle = client(sock), *called = client(sock);
    int wfd = -1;
    if (!busy || !idle || !called)
        goto out;
    MQT_CHECK(pinged(called, 1)); /* a link that called before */
    /* busy's first call is the long one: it leaves the shared wait for it */
    MqSendSTART(busy);
    MqSendSTR(busy, fifo);
    MQT_OK(MqSendEND(busy, "HOLD", MQ_TIMEOUT_DEFAULT), MqErrorGetText(busy));
    MQT_OK(MqProcessEvent(busy, MQ_WAIT_NO, 0), MqErrorGetText(busy)); /* sends it */
    if ((wfd = hold_started(fifo)) < 0)
        goto out;
    MQT_CHECK(pinged(idle, 10));   /* idle since its handshake until now */
    MQT_CHECK(pinged(called, 20)); /* has a thread of its own */
    MqContextC *late = client(sock); /* came while HOLD runs */
    MQT_CHECK(late && pinged(late, 30));
    if (late)
        MqContextDelete(late);
    MQT_CHECK(write(wfd, "x", 1) == 1); /* HOLD may end now */
    MQT_CHECK(pinged(busy, 40));       /* after HOLD, on the same link */
out:
    if (wfd >= 0)
        close(wfd);
    MqContextC *all[] = {busy, idle, called};
    for (int i = 0; i < 3; i++)
        if (all[i])
            MqContextDelete(all[i]);
    listener_stop(pid);
}

/* A pool thread's CreateTLS objects last until its end hook has run: a
 * runtime's end hook (a Tcl interpreter deleted, a Python thread state
 * cleared) may run its objects' destructors, which may still use them.
 * KEEP makes this thread's stream hold 7; the end hook reads it back and
 * appends what it found to the file end_log names. */
static __thread MkBufferStreamC *kept;
static const char *end_log;

static MkErrorE
keep(MqContextC *ctx, void *data)
{
    kept = MkBufferStreamCreateTLS("thread-test-keep");
    MkBufferStreamWriteI32(kept, 7);
    return MqSendRETURN(ctx);
}

static void
thread_end(void)
{
    MK_I32 v = 0;
    if (!kept)
        return; /* served no KEEP */
    MkBufferStreamPosToStart(kept);
    MkErrorE rc = MkBufferStreamReadI32(kept, &v);
    FILE *f = fopen(end_log, "a");
    if (f) {
        fprintf(f, "%s %d\n", rc == MK_OK && v == 7 ? "kept" : "lost", (int)v);
        fclose(f);
    }
}

static void
thread_start(void)
{
}

static MkErrorE
setup_keep(MqContextC *ctx, void *data)
{
    return MqServiceCreate(ctx, "KEEP", keep, NULL, NULL);
}

static void
tls_lasts_until_end_hook(void)
{
    enum { LINKS = 12 }; /* more than the pool parks (thread.c: MAX_IDLE), so some end */
    char sock[256], log[256];
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("sock"));
    snprintf(log, sizeof log, "%s", mqt_temp_path("endlog"));
    end_log = log;
    pid_t pid = listener_start(sock, setup_keep, thread_start, thread_end); /* both or none */
    MqContextC *c[LINKS] = {0};
    for (int i = 0; i < LINKS; i++) /* all open at once: a thread each */
        if ((c[i] = client(sock)) != NULL)
            MQT_OK(MqSendEND_AND_WAIT(c[i], "KEEP", MQ_TIMEOUT_DEFAULT), MqErrorGetText(c[i]));
    for (int i = 0; i < LINKS; i++)
        if (c[i])
            MqContextDelete(c[i]);
    MQT_CHECK_MSG(mqt_wait_for_file(log, 30000) == 0, "no pool thread ended");
    usleep(200000); /* the other ending threads' lines */
    FILE *f = fopen(log, "r");
    char line[64];
    int kept_n = 0, lost_n = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "kept 7", 6) == 0)
            kept_n++;
        else
            lost_n++;
    if (f)
        fclose(f);
    MQT_CHECK_MSG(kept_n > 0 && lost_n == 0, "end hooks: %d found their stream, %d did not", kept_n,
                  lost_n);
    listener_stop(pid);
}

/* NAME: answer the instance's name; RENM: rename the instance to the STR
 * argument. */
static MkErrorE
name(MqContextC *ctx, void *data)
{
    MqSendSTART(ctx);
    MqSendSTR(ctx, MqConfigGetName(ctx));
    return MqSendRETURN(ctx);
}

static MkErrorE
rename_instance(MqContextC *ctx, void *data)
{
    const char *to;
    if (MqReadSTR(ctx, &to) != MK_OK)
        return MK_ERROR;
    MqConfigSetName(ctx, to);
    return MqSendRETURN(ctx);
}

static MkErrorE
setup_name(MqContextC *ctx, void *data)
{
    if (MqServiceCreate(ctx, "NAME", name, NULL, NULL) != MK_OK)
        return MK_ERROR;
    return MqServiceCreate(ctx, "RENM", rename_instance, NULL, NULL);
}

/* The NAME c's instance answers is want. */
static void
named(MqContextC *c, const char *want)
{
    const char *got = "";
    MQT_OK(MqSendEND_AND_WAIT(c, "NAME", MQ_TIMEOUT_DEFAULT), MqErrorGetText(c));
    MQT_CHECK(MqReadSTR(c, &got) == MK_OK);
    MQT_CHECK_MSG(strcmp(got, want) == 0, "instance named '%s', not '%s'", got, want);
}

/* An instance shares its listener's configuration strings until it writes
 * one (link_int.h: mqi_config_borrow): a rename is its own, and the
 * listener's name stays for the next instances (served by the same pool
 * threads) and a child gets its parent instance's new name.  Under ASan a
 * shared string freed with an instance shows at the next one. */
static void
instance_rename_is_its_own(void)
{
    char sock[256];
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("sock"));
    pid_t pid = listener_start(sock, setup_name, NULL, NULL);
    for (int i = 0; i < 3; i++) {
        MqContextC *c = client(sock), *child = MqContextCreate();
        if (!c)
            break;
        named(c, "threadtest");
        MqSendSTART(c);
        MqSendSTR(c, "renamed");
        MQT_OK(MqSendEND_AND_WAIT(c, "RENM", MQ_TIMEOUT_DEFAULT), MqErrorGetText(c));
        named(c, "renamed");
        MQT_OK(MqLinkCreateChild(child, c), MqErrorGetText(child));
        named(child, "renamed");
        MqContextDelete(child);
        MqContextDelete(c);
    }
    listener_stop(pid);
}

static const mqt_case cases[] = {
    {"thread: an instance's rename is its own, not its listener's or the next instance's",
     instance_rename_is_its_own},
    {"thread: a long service holds up no other link (idle, new, or serving)",
     service_holds_up_no_link},
    {"thread: a pool thread's CreateTLS objects last until its end hook has run",
     tls_lasts_until_end_hook},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
#ifndef MQ_HAVE_THREADS
    printf("1..0 # SKIP this build has no threads\n");
    return 0;
#endif
    return mqt_main(argc, argv, cases);
}
