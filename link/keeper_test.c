/* keeper_test.c — a client's wait for its handshake's answer on uds reads
 * without a timeout of its own, its deadline kept by the process's keeper
 * thread (keeper.c): that deadline still ends it, the sooner of two waits'
 * first, in a forked child too (which starts a keeper of its own). */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef MQ_HAVE_THREADS
#include <pthread.h>
#endif

#include "../tests/testlib.h"
#include "mqlink.h"

/* A server that never answers: a listening socket nobody accepts on (a
 * unix socket's connect succeeds into the backlog).  Its path in *path. */
static int
silent_server(const char **path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    *path = mqt_temp_path("keeper.sock");
    snprintf(a.sun_path, sizeof a.sun_path, "%s", *path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    MQT_CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 8) == 0);
    return fd;
}

/* LinkCreate against path with --timeout seconds: MK_ERROR, its text in
 * text (NULL: not kept). */
static MkErrorE
link_to(const char *path, const char *seconds, char *text, size_t size)
{
    const char *argv[] = {"client", "--uds", "--file", path, "--timeout", seconds};
    MqContextC *c = MqContextCreate();
    MkErrorE rc = MqLinkCreate(c, 6, argv);
    if (text)
        snprintf(text, size, "%s", MqErrorGetText(c));
    MqContextDelete(c);
    return rc;
}

static int
timed_out(const char *text)
{
    return strstr(text, "no handshake from the peer within 1000 ms") != NULL;
}

static void
silent_server_times_out(void)
{
    const char *path;
    char text[512];
    int lfd = silent_server(&path);
    MQT_CHECK(link_to(path, "1", text, sizeof text) == MK_ERROR);
    MQT_CHECK_MSG(timed_out(text), "%s", text);
    MQT_CHECK(link_to(path, "1", text, sizeof text) == MK_ERROR); /* the keeper runs now */
    MQT_CHECK_MSG(timed_out(text), "%s", text);
    close(lfd);
}

#ifdef MQ_HAVE_THREADS
typedef struct {
    const char *path;
    const char *seconds;
    char text[512];
    int done; /* atomic */
} waiter;

static void *
wait_fn(void *arg)
{
    waiter *w = arg;
    link_to(w->path, w->seconds, w->text, sizeof w->text);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* A wait armed after another whose deadline is later ends at its own
 * deadline, not at the other's: the keeper looks sooner. */
static void
sooner_deadline_first(void)
{
    const char *path;
    int lfd = silent_server(&path);
    waiter late = {path, "50", "", 0}, soon = {path, "1", "", 0};
    pthread_t tl, ts;
    MQT_CHECK(pthread_create(&tl, NULL, wait_fn, &late) == 0);
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL); /* late first: the keeper sleeps for its deadline */
    MQT_CHECK(pthread_create(&ts, NULL, wait_fn, &soon) == 0);
    pthread_join(ts, NULL);
    MQT_CHECK_MSG(timed_out(soon.text), "%s", soon.text);
    MQT_CHECK(!__atomic_load_n(&late.done, __ATOMIC_ACQUIRE)); /* 50 s: still waiting */
    close(lfd); /* ends the late wait: its connection is reset */
    pthread_join(tl, NULL);
    MQT_CHECK_MSG(!strstr(late.text, "within"), "%s", late.text);
}
#endif

/* A forked child has no keeper thread: its first wait starts one. */
static void
forked_child_times_out(void)
{
    const char *path;
    char text[512];
    int lfd = silent_server(&path);
    MQT_CHECK(link_to(path, "1", text, sizeof text) == MK_ERROR); /* the parent's keeper */
    pid_t pid = fork();
    if (pid == 0)
        _exit(link_to(path, "1", text, sizeof text) == MK_ERROR && timed_out(text) ? 0 : 1);
    MQT_CHECK(pid > 0);
    int status = -1, i = 0;
    while (i++ < 600 && waitpid(pid, &status, WNOHANG) == 0) {
        struct timespec tick = {0, 100 * 1000 * 1000};
        nanosleep(&tick, NULL);
    }
    if (i > 600) { /* a child whose wait nobody keeps waits for ever */
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    MQT_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    close(lfd);
}

static const mqt_case cases[] = {
    {"a silent uds server: the handshake times out", silent_server_times_out},
#ifdef MQ_HAVE_THREADS
    {"the sooner of two handshake deadlines ends its wait first", sooner_deadline_first},
#endif
    {"a forked child's handshake times out too", forked_child_times_out},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
