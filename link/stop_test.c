/* stop_test.c — a stop signal that lands between a server's look at the
 * stop flag and the start of its wait is not lost (stop.c).
 *
 * No timing: the server process arms a trap that raises SIGTERM on itself
 * at the entry of its next wait, just before the real system call (this
 * program defines poll, recv and accept4, so the library's calls come here
 * first; a runtime's blocking call is the test's own MqSetBlockingCall).
 * The handler has run, the flag is set, and the wait begins after it: the
 * window exactly.  Meanwhile the client stays connected and silent, so
 * only the signal can end the wait.  The server must end its link ("stopped
 * by signal 15") or stop listening, and exit 0; without the fix the wait
 * sleeps until its timeout (poll: the idle limit, 300 s; a TCP read or
 * accept: half of --timeout 600) and the case fails after 30 s. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#include "link_int.h" /* mqi_stop_fd */
#include "linktest.h"

/* The trap: which wait raises SIGTERM next (in the server process only). */
enum { TRAP_NONE, TRAP_POLL, TRAP_POLL_OTHER, TRAP_RECV, TRAP_ACCEPT, TRAP_BLOCKING_CALL };
static volatile int trap;

static void
spring(int which)
{
    if (trap == which) {
        trap = TRAP_NONE;
        raise(SIGTERM);
    }
}

/* Another thread of the process (a runtime's) that takes the signal: its
 * handler hands it on to the waiting thread (pthread_kill) and returns,
 * then the thread ends. */
static void *
other_thread(void *unused)
{
    while (!mqi_stop_signal())
        usleep(1000); /* the handler ends the sleep */
    return NULL;
}

/* The signal lands on another thread; once that thread's handler is done,
 * the one handed on is taken by this thread (at the return of a system
 * call, sched_yield at the latest) before its wait begins. */
static void
spring_other(int which)
{
    pthread_t t;
    if (trap != which)
        return;
    trap = TRAP_NONE;
    if (pthread_create(&t, NULL, other_thread, NULL) != 0)
        return;
    pthread_kill(t, SIGTERM);
    pthread_join(t, NULL);
    sched_yield();
}

/* A wait: a timeout of 0 only looks. */
int
poll(struct pollfd *p, nfds_t n, int timeout_ms)
{
    struct timespec ts = {timeout_ms / 1000, timeout_ms % 1000 * 1000000L};
    if (timeout_ms != 0) {
        spring(TRAP_POLL);
        spring_other(TRAP_POLL_OTHER);
    }
    return ppoll(p, n, timeout_ms < 0 ? NULL : &ts, NULL);
}

/* A wait: a read that may block (TCP: until SO_RCVTIMEO). */
ssize_t
recv(int fd, void *buf, size_t len, int flags)
{
    if (!(flags & MSG_DONTWAIT))
        spring(TRAP_RECV);
    return recvfrom(fd, buf, len, flags, NULL, NULL);
}

int
accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    spring(TRAP_ACCEPT);
    return (int)syscall(SYS_accept4, fd, addr, len, flags);
}

/* A runtime's blocking call (as Ruby's): every wait runs through it. */
static int
blocking_call(MqBlockingFnF fn, void *arg)
{
    spring(TRAP_BLOCKING_CALL);
    fn(arg);
    return 0;
}

/* STOP: the signal comes while a service runs (no wait armed); the loop's
 * look before its next wait ends the link. */
static MkErrorE
stop_now(MqContextC *ctx, void *data)
{
    raise(SIGTERM);
    return MqSendRETURN(ctx);
}

/* EXEC: a program the service starts can be stopped with SIGTERM (the
 * library changes no signal mask: stop.c).  The program is sleep (a shell
 * would not do: dash clears its mask), its SIGTERM sent once it runs (the
 * close-on-exec pipe closed); it ends by it unless the signal is blocked.
 * Answers whether it did within 30 s. */
static MkErrorE
exec_stoppable(MqContextC *ctx, void *data)
{
    int st = 0, ended = 0, p[2];
    char c;
    if (pipe2(p, O_CLOEXEC) != 0)
        return MqErrorSet(ctx, MQ_ERR_SYSTEM, "pipe2 failed");
    pid_t pid = fork();
    if (pid == 0) {
        execlp("sleep", "sleep", "60", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    if (pid > 0 && read(p[0], &c, 1) == 0) /* exec'd */
        kill(pid, SIGTERM);
    close(p[0]);
    for (int i = 0; pid > 0 && !ended && i < 3000; i++) {
        ended = waitpid(pid, &st, WNOHANG) == pid;
        if (!ended)
            usleep(10000);
    }
    if (pid > 0 && !ended) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
    }
    MqSendSTART(ctx);
    MqSendI32(ctx, ended && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    return MqSendRETURN(ctx);
}

/* The instance's setup arms its trap: the next wait is the loop's first. */
static MkErrorE
setup(MqContextC *ctx, void *data)
{
    trap = *(int *)data;
    if (MqServiceCreate(ctx, "EXEC", exec_stoppable, NULL, NULL) != MK_OK)
        return MK_ERROR;
    return MqServiceCreate(ctx, "STOP", stop_now, NULL, NULL);
}

/* The server process: stderr into log, INFO lines on; the trap armed at
 * once (a listener's) or by the setup (an instance's).  Exits 0 when its
 * serving ended without an error. */
static void
server(const char *log, int argc, const char **argv, int now, int later)
{
    static int armed;
    alarm(120); /* backstop only: the case gives up after 30 s */
    if (!freopen(log, "w", stderr))
        _exit(5);
    setvbuf(stderr, NULL, _IONBF, 0);
    MkLogSetLevel(MK_LOG_INFO);
    if (later == TRAP_BLOCKING_CALL)
        MqSetBlockingCall(blocking_call);
    MqContextC *ctx = MqContextCreate();
    armed = later;
    MqConfigSetServerSetup(ctx, setup, &armed, NULL);
    trap = now;
    if (MqLinkCreate(ctx, argc, argv) != MK_OK) {
        fprintf(stderr, "server: %s\n", MqErrorGetText(ctx));
        _exit(3);
    }
    MkErrorE rc = MqProcessEvent(ctx, MQ_WAIT_FOREVER, 0);
    if (rc != MK_OK)
        fprintf(stderr, "server: %s\n", MqErrorGetText(ctx));
    /* the link is over: no socket left armed, whose number the next
     * socket made may get (a second signal would shut that one down) */
    int left_armed = mqi_stop_fd != -1;
    if (left_armed)
        fprintf(stderr, "server: the stop signals' socket still armed (%d)\n", (int)mqi_stop_fd);
    MqContextDelete(ctx);
    _exit(rc != MK_OK ? 4 : left_armed ? 6 : 0);
}

static pid_t
start_server(const char *log, int argc, const char **argv, int now, int later)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0)
        server(log, argc, argv, now, later);
    MQT_CHECK(pid > 0);
    return pid;
}

/* Whether pid ended within 30 s (as soon as it does); its status in *st.
 * One that did not is killed: its stop signal was lost. */
static int
ended(pid_t pid, int *st)
{
    for (int i = 0; i < 3000; i++) {
        if (waitpid(pid, st, WNOHANG) == pid)
            return 1;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, st, 0);
    return 0;
}

static int
log_has(const char *log, const char *text)
{
    char line[1024];
    int found = 0;
    FILE *f = fopen(log, "r");
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, text) != NULL;
    fclose(f);
    return found;
}

static void
check_stopped(pid_t pid, const char *log, const char *what, const char *reason)
{
    int st = 0;
    MQT_CHECK_MSG(ended(pid, &st), "%s: the server did not stop within 30 s: its SIGTERM came "
                  "between the look at the flag and the wait, and was lost", what);
    MQT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: server status 0x%x", what, st);
    MQT_CHECK_MSG(log_has(log, reason), "%s: no '%s' in the server's log", what, reason);
}

/* Where a test's server listens and logs: fresh paths (and a free port
 * when tp is --tcp). */
typedef struct {
    char sock[256], port[16], log[256];
    int tcp;
} where;

static void
where_init(where *w, const char *tp)
{
    snprintf(w->sock, sizeof w->sock, "%s", mqt_temp_path("sock"));
    snprintf(w->log, sizeof w->log, "%s", mqt_temp_path("log"));
    w->tcp = strcmp(tp, "--tcp") == 0;
    snprintf(w->port, sizeof w->port, "%d", w->tcp ? mqt_free_port() : 0);
}

/* A plain server (no start mode) on uds whose instance's wait takes the
 * signal; the client connects and stays silent until the server has ended. */
static void
instance_stops(const char *what, int trap_in_setup)
{
    where w;
    where_init(&w, "--uds");
    const char *sock = w.sock, *log = w.log;
    const char *sargv[] = {"stopsrv", "--uds", "--file", sock, "--timeout", "600"};
    pid_t pid = start_server(log, 6, sargv, TRAP_NONE, trap_in_setup);
    MQT_CHECK(mqt_wait_for_file(sock, 30000) == 0);
    const char *cargv[] = {"client", "--uds", "--file", sock};
    MqContextC *c = MqContextCreate();
    MQT_OK(MqLinkCreate(c, 4, cargv), MqErrorGetText(c));
    check_stopped(pid, log, what, "stopped by signal 15");
    MqContextDelete(c);
}

/* A program a service starts can be stopped with SIGTERM; then the
 * signal comes while a service runs: the loop's look ends the link and
 * leaves no socket armed. */
static void
service_stops(void)
{
    where w;
    where_init(&w, "--uds");
    const char *sock = w.sock, *log = w.log;
    const char *sargv[] = {"stopsrv", "--uds", "--file", sock};
    pid_t pid = start_server(log, 4, sargv, TRAP_NONE, TRAP_NONE);
    MQT_CHECK(mqt_wait_for_file(sock, 30000) == 0);
    const char *cargv[] = {"client", "--uds", "--file", sock, "--silent"};
    MqContextC *c = MqContextCreate();
    MQT_OK(MqLinkCreate(c, 5, cargv), MqErrorGetText(c));
    MK_I32 stoppable = 0;
    MqSendSTART(c);
    MQT_OK(MqSendEND_AND_WAIT(c, "EXEC", 60000), MqErrorGetText(c));
    MQT_OK(MqReadI32(c, &stoppable), MqErrorGetText(c));
    MQT_CHECK_MSG(stoppable, "a program the service started did not end by its SIGTERM");
    MqSendSTART(c);
    MQT_OK(MqSendEND_AND_WAIT(c, "STOP", 30000), MqErrorGetText(c));
    check_stopped(pid, log, "uds, during a service", "stopped by signal 15");
    MqContextDelete(c);
}

static void
poll_wait(void)
{
    instance_stops("uds, poll", TRAP_POLL);
}

static void
other_thread_wait(void)
{
    instance_stops("uds, poll, the signal on another thread", TRAP_POLL_OTHER);
}

static void
blocking_call_wait(void)
{
    instance_stops("uds, runtime's blocking call", TRAP_BLOCKING_CALL);
}

/* A --fork instance (a process of its own, with the listener's handlers
 * and thread) whose wait takes the signal: the client sees its link end.
 * On TCP without an idle limit the wait is the blocking read (SO_RCVTIMEO,
 * inherited from the listening socket: 300 s).  (A plain TCP server would
 * take mqt_wait_for_port's probe for its client.) */
static void
fork_instance_stops(const char *what, const char *tp, int trap_in_setup)
{
    where w;
    where_init(&w, tp);
    const char *sock = w.sock, *port = w.port, *log = w.log;
    int tcp = w.tcp;
    const char *sargv[] = {"stopsrv", tp, tcp ? "--port" : "--file", tcp ? port : sock,
                           "--fork", "--timeout", "600", "--idle-timeout", tcp ? "0" : "300"};
    pid_t pid = start_server(log, 9, sargv, TRAP_NONE, trap_in_setup);
    MQT_CHECK(tcp ? mqt_wait_for_port(atoi(port), 30000) == 0
                  : mqt_wait_for_file(sock, 30000) == 0);
    const char *cargv[] = {"client", tp, tcp ? "--port" : "--file", tcp ? port : sock,
                           "--silent"};
    MqContextC *c = MqContextCreate();
    MQT_OK(MqLinkCreate(c, 5, cargv), MqErrorGetText(c));
    /* returns as soon as the link ends; MK_CONTINUE after 30 s of nothing */
    MkErrorE rc = MqProcessEvent(c, MQ_WAIT_ONCE, 30000);
    MQT_CHECK_MSG(rc == MK_ERROR, "%s: the instance did not stop within 30 s (%d: %s)", what,
                  (int)rc, MqErrorGetText(c));
    MqContextDelete(c);
    MQT_CHECK_MSG(log_has(log, "stopped by signal 15"), "%s: no 'stopped by signal 15' in the log",
                  what);
    kill(pid, SIGTERM);
    check_stopped(pid, log, what, "listener stopped by signal 15");
}

static void
fork_poll_wait(void)
{
    fork_instance_stops("uds --fork, poll", "--uds", TRAP_POLL);
}

static void
fork_tcp_read_wait(void)
{
    fork_instance_stops("tcp --fork, blocking read", "--tcp", TRAP_RECV);
}

/* A listener whose accept (or, --thread, its wait for the signal) takes
 * the signal: it removes its socket file and exits 0. */
static void
listener_stops(const char *what, const char *tp, const char *start, int trap_now)
{
    where w;
    where_init(&w, tp);
    const char *sock = w.sock, *port = w.port, *log = w.log;
    int tcp = w.tcp;
    const char *sargv[] = {"stopsrv", tp, tcp ? "--port" : "--file", tcp ? port : sock,
                           "--timeout", "600", start};
    pid_t pid = start_server(log, start ? 7 : 6, sargv, trap_now, TRAP_NONE);
    check_stopped(pid, log, what, "listener stopped by signal 15");
    MQT_CHECK_MSG(tcp || access(sock, F_OK) != 0, "%s: socket file left behind", what);
}

static void
plain_accept(void)
{
    listener_stops("uds, accept of the first client", "--uds", NULL, TRAP_ACCEPT);
}

static void
fork_accept(void)
{
    listener_stops("tcp --fork, accept", "--tcp", "--fork", TRAP_ACCEPT);
}

#ifdef MQ_HAVE_THREADS
static void
thread_wait(void)
{
    listener_stops("uds --thread, the listener's wait", "--uds", "--thread", TRAP_POLL);
}
#endif

static const mqt_case cases[] = {
    {"what a service starts can be stopped; a stop signal during a service ends the link",
     service_stops},
    {"a stop signal before the instance's poll ends it", poll_wait},
    {"a stop signal handed on from another thread before the poll ends it", other_thread_wait},
    {"a stop signal before a runtime's blocking call ends it", blocking_call_wait},
    {"a stop signal before a --fork instance's poll ends it", fork_poll_wait},
    {"a stop signal before a TCP --fork instance's blocking read ends it", fork_tcp_read_wait},
    {"a stop signal before the first accept ends the listener", plain_accept},
    {"a stop signal before a --fork listener's accept ends it", fork_accept},
#ifdef MQ_HAVE_THREADS
    {"a stop signal before a --thread listener's wait ends it", thread_wait},
#endif
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
