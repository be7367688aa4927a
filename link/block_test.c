/* block_test.c — the blocking hooks (MqSetBlockingHooks): every wait of the
 * caller's thread is inside one enter/leave pair with its own token, and no
 * callback of the application runs inside one (a runtime that releases its
 * lock in enter would otherwise run Python without the GIL). */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"

#include "linktest.h"

#define ERR(ctx) MqErrorGetText(ctx)

static int inside, enters, leaves, bad_tokens, cb_inside, cb_calls;
static char token;

static void *
enter(void)
{
    MQT_CHECK(!inside);
    inside = 1;
    enters++;
    return &token;
}

static void
leave(void *t)
{
    MQT_CHECK(inside);
    inside = 0;
    leaves++;
    bad_tokens += t != &token;
}

static MkErrorE
on_answer(MqContextC *ctx, void *data)
{
    (void)ctx; (void)data;
    cb_inside += inside;
    cb_calls++;
    return MK_OK;
}

static void
waits_are_bracketed(void)
{
    MqSetBlockingHooks(enter, leave);
    MqContextC *c = lt_connect(lt_mode_get("uds_fork"));
    if (!c)
        return;
    int before = enters;
    MqSendSTART(c);
    MqSendI32(c, 50);
    MQT_OK(MqSendEND_AND_WAIT(c, "SLEP", MQ_TIMEOUT_DEFAULT), ERR(c));
    MQT_CHECK_MSG(enters > before, "a 50 ms wait for an answer entered no blocking section");
    for (int i = 0; i < 100; i++) {
        MqSendSTART(c);
        MqSendI32(c, i);
        MQT_OK(MqSendEND_AND_CALLBACK(c, "ECHO", on_answer, NULL, NULL, MQ_TIMEOUT_DEFAULT), ERR(c));
    }
    while (cb_calls < 100 && MqProcessEvent(c, MQ_WAIT_ONCE, 5000) == MK_OK)
        ;
    MQT_CHECK_MSG(cb_calls == 100, "%d of 100 callbacks ran", cb_calls);
    MQT_CHECK_MSG(cb_inside == 0, "%d callbacks ran inside a blocking section", cb_inside);
    MqContextDelete(c);
    MQT_CHECK_MSG(enters == leaves && !inside, "%d enters, %d leaves", enters, leaves);
    MQT_CHECK(bad_tokens == 0);
    MqSetBlockingHooks(NULL, NULL);
}

/* Frames already read are handled without entering a section: the hooks
 * cost nothing on the fast path. */
static void
no_section_without_waiting(void)
{
    MqContextC *c = lt_connect(lt_mode_get("pipe"));
    if (!c)
        return;
    for (int i = 0; i < 1000; i++) {
        MqSendSTART(c);
        MqSendI32(c, i);
        MQT_OK(MqSendEND_AND_CALLBACK(c, "ECHO", on_answer, NULL, NULL, MQ_TIMEOUT_DEFAULT), ERR(c));
    }
    MQT_OK(MqProcessEvent(c, MQ_WAIT_NO, 0), ERR(c)); /* sends them */
    usleep(300000);                                     /* answers queue up */
    MqSetBlockingHooks(enter, leave);
    for (int i = 0; i < 100 && cb_calls < 1000; i++)
        MQT_OK(MqProcessEvent(c, MQ_WAIT_NO, 0), ERR(c));
    MqSetBlockingHooks(NULL, NULL);
    MQT_CHECK_MSG(cb_calls == 1000, "%d of 1000 callbacks ran", cb_calls);
    MQT_CHECK_MSG(enters == 0, "%d blocking sections for frames already there", enters);
    MqContextDelete(c);
}

/* A scoped hook that returns without running the wait and without
 * reporting an interrupt (the Ruby runtime did, when a timer or postponed-job
 * interrupt was set) must not make the library retry at once for ever: the
 * handshake and an event-loop wait end with an error or as timed out. */
static int refusals;

static int
refuse(MqBlockingFnF fn, void *arg)
{
    (void)fn; (void)arg;
    refusals++;
    return 0;
}

static void
unrun_wait_ends(void)
{
    const char *argv[] = {"refcli", "--timeout", "2", "@", mqt_build_path("tests/testserver")};
    alarm(10); /* the hang this case is about fails it in seconds */
    MqContextC *c = MqContextCreate();
    MqSetBlockingCall(refuse);
    MkErrorE rc = MqLinkCreate(c, 5, argv);
    MqSetBlockingCall(NULL);
    MQT_CHECK_MSG(refusals > 0, "the handshake made no blocking call");
    if (rc != MK_OK) /* the handshake's wait ended as interrupted: link again */
        MQT_OK(MqLinkCreate(c, 5, argv), ERR(c));
    refusals = 0;
    MqSetBlockingCall(refuse);
    rc = MqProcessEvent(c, MQ_WAIT_ONCE, 200);
    MqSetBlockingCall(NULL);
    MQT_CHECK_MSG(rc != MK_ERROR, "%s", ERR(c));
    MQT_CHECK_MSG(refusals > 0 && refusals < 1000, "%d refused waits for one wait", refusals);
    MqContextDelete(c);
    alarm(0);
}

/* A runtime that reports an interrupt refuses every new wait until the call
 * returns to it (Ruby after Thread#raise): the handshake must end then, not
 * retry its read until half the timeout (10 s here) has passed. */
static int
interrupted(MqBlockingFnF fn, void *arg)
{
    (void)fn; (void)arg;
    refusals++;
    return 1;
}

static void
interrupted_handshake_ends(void)
{
    /* a server that never answers the handshake; it ends when the link closes */
    const char *argv[] = {"intcli", "--timeout", "20", "@", "sh", "-c", "read x <&$1"};
    alarm(5); /* the spin this case is about lasted 10 s */
    refusals = 0;
    MqContextC *c = MqContextCreate();
    MqSetBlockingCall(interrupted);
    MkErrorE rc = MqLinkCreate(c, 7, argv);
    MqSetBlockingCall(NULL);
    MQT_CHECK_MSG(rc == MK_ERROR, "LinkCreate linked to a server that never answers");
    MQT_CHECK_MSG(refusals < 1000, "%d refused waits in one handshake", refusals);
    MqContextDelete(c);
    alarm(0);
}

/* An interrupt while a write waits for the peer to read (Ruby: Thread#raise
 * during a big send) ends the write: retrying it spun, lock held, until the
 * peer read again or the write's timeout passed. */
static void
interrupted_write_ends(void)
{
    const char *argv[] = {"wrcli", "--timeout", "20", "@", mqt_build_path("tests/testserver")};
    static char big[1 << 20];
    alarm(10);
    MqContextC *c = MqContextCreate();
    MQT_OK(MqLinkCreate(c, 5, argv), ERR(c));
    MqSendSTART(c);
    MqSendI32(c, 4000); /* the server reads nothing for 4 s */
    MQT_OK(MqSendEND(c, "SLEP", MQ_TIMEOUT_DEFAULT), ERR(c));
    MQT_OK(MqProcessEvent(c, MQ_WAIT_NO, 0), ERR(c));
    refusals = 0;
    MqSetBlockingCall(interrupted);
    MkErrorE rc = MK_OK;
    for (int i = 0; i < 64 && rc == MK_OK; i++) {
        MqSendSTART(c);
        MqSendBIN(c, big, sizeof big);
        rc = MqSendEND(c, "ECHO", MQ_TIMEOUT_DEFAULT);
    }
    if (rc == MK_OK)
        rc = MqProcessEvent(c, MQ_WAIT_NO, 0);
    MqSetBlockingCall(NULL);
    MQT_CHECK_MSG(rc == MK_ERROR, "64 MiB written while interrupted, to a peer that did not read");
    MQT_CHECK_MSG(refusals < 1000, "%d refused waits for one interrupted write", refusals);
    MqContextDelete(c);
    alarm(0);
}

/* ------------------------------------------- hooks of the library's threads */

static int hook_pipe = -1;
static void thread_start(void) { (void)!write(hook_pipe, "s", 1); }
static void thread_end(void) { (void)!write(hook_pipe, "e", 1); }

static MkErrorE
echo_i32(MqContextC *ctx, void *data)
{
    MK_I32 v = 0;
    MqReadI32(ctx, &v);
    MqSendSTART(ctx);
    MqSendI32(ctx, v);
    return MqSendRETURN(ctx);
}

static MkErrorE
setup(MqContextC *ctx, void *data)
{
    return MqServiceCreate(ctx, "ECHI", echo_i32, NULL, NULL);
}

/* A --thread listener in a child process whose thread hooks report to fd. */
static pid_t
thread_listener(const char *sock, int fd)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    hook_pipe = fd;
    MqSetThreadHooks(thread_start, thread_end);
    MqContextC *srv = MqContextCreate();
    MqConfigSetServerSetup(srv, setup, NULL, NULL);
    const char *argv[] = {"hooksrv", "--uds", "--file", sock, "--thread"};
    MqLinkCreate(srv, 5, argv);
    _exit(1); /* only a failed LinkCreate returns */
}

/* Every pool thread runs start once before its first instance and end once
 * when it leaves; N parents at once need N threads, and more than the pool
 * keeps idle make some leave. */
static void
thread_hooks_pair(void)
{
    enum { N = 12 };
    int p[2];
    MQT_CHECK(pipe(p) == 0);
    const char *sock = mqt_temp_path("hooks.sock");
    pid_t srv = thread_listener(sock, p[1]);
    close(p[1]);
    MQT_CHECK(mqt_wait_for_file(sock, 30000) == 0);
    MqContextC *c[N];
    const char *argv[] = {"hookcli", "--uds", "--file", sock};
    for (int i = 0; i < N; i++) {
        c[i] = MqContextCreate();
        MQT_OK(MqLinkCreate(c[i], 4, argv), ERR(c[i]));
    }
    for (int i = 0; i < N; i++) {
        MK_I32 v = -1;
        MqSendSTART(c[i]);
        MqSendI32(c[i], i);
        MQT_OK(MqSendEND_AND_WAIT(c[i], "ECHI", MQ_TIMEOUT_DEFAULT), ERR(c[i]));
        MqReadI32(c[i], &v);
        MQT_CHECK(v == i);
    }
    for (int i = 0; i < N; i++)
        MqContextDelete(c[i]);
    usleep(300000); /* the instances see their links close */
    kill(srv, SIGTERM);
    waitpid(srv, NULL, 0);
    char buf[256];
    int starts = 0, ends = 0;
    ssize_t n;
    while ((n = read(p[0], buf, sizeof buf)) > 0)
        for (ssize_t k = 0; k < n; k++)
            buf[k] == 's' ? starts++ : ends++;
    close(p[0]);
    MQT_CHECK_MSG(starts >= N, "%d thread starts for %d parents at once", starts, N);
    MQT_CHECK_MSG(ends >= 1 && ends < starts, "%d thread ends after %d starts", ends, starts);
}

static const mqt_case cases[] = {
    {"every wait inside one enter/leave pair, callbacks outside", waits_are_bracketed},
    {"no section without waiting", no_section_without_waiting},
    {"a hook that does not run the wait ends it", unrun_wait_ends},
    {"an interrupted handshake ends at once", interrupted_handshake_ends},
    {"an interrupted write ends at once", interrupted_write_ends},
#ifdef MQ_HAVE_THREADS
    {"thread hooks start and end each pool thread", thread_hooks_pair},
#endif
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
