/* fork_test.c — the --fork start mode and standard output: what an instance
 * prints leaves once when its link ends, and what the listener had buffered
 * before a fork leaves once too (not once from each copy of the process). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"

#include "linktest.h"

/* PRNT: print the string argument on stdout (buffered: stdout is a file). */
static MkErrorE
prnt(MqContextC *ctx, void *data)
{
    const char *s;
    if (MqReadSTR(ctx, &s) != MK_OK)
        return MK_ERROR;
    printf("instance %s\n", s);
    return MqSendRETURN(ctx);
}

static MkErrorE
setup(MqContextC *ctx, void *data)
{
    return MqServiceCreate(ctx, "PRNT", prnt, NULL, NULL);
}

/* The listener, stdout into out: prints a line it never flushes itself, then
 * serves until SIGTERM. */
static void
listener(const char *sock, const char *out)
{
    if (!freopen(out, "w", stdout))
        _exit(3);
    printf("listener before serving\n");
    MqContextC *ctx = MqContextCreate();
    MqConfigSetServerSetup(ctx, setup, NULL, NULL);
    const char *argv[] = {"forktest", "--uds", "--file", sock, "--fork"};
    MqLinkCreate(ctx, 5, argv);
    _exit(4); /* a listener returns only when it cannot listen */
}

static int
count_lines(const char *path, const char *line)
{
    char buf[256];
    int n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(buf, sizeof buf, f))
        n += strcmp(buf, line) == 0;
    fclose(f);
    return n;
}

static void
output_once(void)
{
    char sock[256], out[256];
    snprintf(sock, sizeof sock, "%s", mqt_temp_path("sock"));
    snprintf(out, sizeof out, "%s", mqt_temp_path("out"));
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        listener(sock, out);
    }
    MQT_CHECK(mqt_wait_for_file(sock, 30000) == 0);
    const char *args[] = {"client", "--uds", "--file", sock};
    for (int i = 0; i < 3; i++) {
        MqContextC *c = MqContextCreate();
        MQT_OK(MqLinkCreate(c, 4, args), MqErrorGetText(c));
        char word[16];
        snprintf(word, sizeof word, "%d", i);
        MqSendSTART(c);
        MqSendSTR(c, word);
        MQT_OK(MqSendEND_AND_WAIT(c, "PRNT", MQ_TIMEOUT_DEFAULT), MqErrorGetText(c));
        MqContextDelete(c);
    }
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    MQT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "listener status %d", st);
    usleep(200000); /* the last instance may still be leaving */
    for (int i = 0; i < 3; i++) {
        char line[32];
        snprintf(line, sizeof line, "instance %d\n", i);
        int n = count_lines(out, line);
        MQT_CHECK_MSG(n == 1, "'instance %d' printed %d times", i, n);
    }
    int n = count_lines(out, "listener before serving\n");
    MQT_CHECK_MSG(n == 1, "the listener's line printed %d times", n);
}

static const mqt_case cases[] = {
    {"fork: an instance's and the listener's output leave once each", output_once},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
