/* reconnect_test.c — LinkCreate on a link whose server died creates it
 * again (the broken link is deleted first) instead of saying "already
 * linked"; a link that is up still refuses; and what becomes of a callback
 * still waiting when its link is deleted and created again. */
#include <string.h>

#include "../tests/testlib.h"
#include "mqlink.h"

static const char **
pipe_args(int *argc)
{
    static const char *args[] = {"client", "--timeout", "10", "@", NULL, NULL};
    args[4] = mqt_build_path("tests/testserver");
    *argc = 5;
    return args;
}

static MkErrorE
echo_i32(MqContextC *c, MK_I32 v, MK_I32 *out)
{
    if (MqSendSTART(c) != MK_OK || MqSendI32(c, v) != MK_OK ||
        MqSendEND_AND_WAIT(c, "ECHO", MQ_TIMEOUT_DEFAULT) != MK_OK)
        return MK_ERROR;
    return MqReadI32(c, out);
}

/* The server exits in a one-way call: the next wait finds the link down. */
static void
kill_server(MqContextC *c)
{
    MK_I32 v;
    MqSendSTART(c);
    MqSendEND(c, "EXIT", MQ_TIMEOUT_DEFAULT);
    MQT_CHECK(echo_i32(c, 1, &v) == MK_ERROR);
    MQT_CHECK(!MqLinkIsConnected(c));
}

static void
create_again_after_server_died(void)
{
    int argc;
    const char **argv = pipe_args(&argc);
    MqContextC *c = MqContextCreate();
    MK_I32 v = 0;
    MQT_OK(MqLinkCreate(c, argc, argv), MqErrorGetText(c));
    kill_server(c);
    MQT_OK(MqLinkCreate(c, argc, argv), MqErrorGetText(c));
    MQT_CHECK(MqLinkIsConnected(c));
    MQT_OK(echo_i32(c, 42, &v), MqErrorGetText(c));
    MQT_CHECK(v == 42);
    MqContextDelete(c);
}

static void
up_link_still_refuses(void)
{
    int argc;
    const char **argv = pipe_args(&argc);
    MqContextC *c = MqContextCreate();
    MQT_OK(MqLinkCreate(c, argc, argv), MqErrorGetText(c));
    MQT_CHECK(MqLinkCreate(c, argc, argv) == MK_ERROR);
    MQT_CHECK_MSG(strstr(MqErrorGetText(c), "already linked"), "%s", MqErrorGetText(c));
    MQT_CHECK(MqLinkIsConnected(c));
    MqContextDelete(c);
}

static void
child_created_again(void)
{
    int argc;
    const char **argv = pipe_args(&argc);
    MqContextC *c = MqContextCreate(), *k = MqContextCreate();
    MK_I32 v = 0;
    MQT_OK(MqLinkCreate(c, argc, argv), MqErrorGetText(c));
    MQT_OK(MqLinkCreateChild(k, c), MqErrorGetText(k));
    kill_server(c);
    MQT_CHECK(!MqLinkIsConnected(k));
    MQT_OK(MqLinkCreate(c, argc, argv), MqErrorGetText(c));
    MQT_OK(MqLinkCreateChild(k, c), MqErrorGetText(k));
    MQT_OK(echo_i32(k, 7, &v), MqErrorGetText(k));
    MQT_CHECK(v == 7);
    MqContextDelete(k);
    MqContextDelete(c);
}

typedef struct {
    int calls;
    char text[200];
} seen;

static MkErrorE
record(MqContextC *ctx, void *data)
{
    seen *s = data;
    s->calls++;
    snprintf(s->text, sizeof s->text, "%s", MqErrorGetCode(ctx) ? MqErrorGetText(ctx) : "answer");
    return MK_OK;
}

/* A plain call's callback still waiting when its link is deleted runs at
 * once with the link's error (README: its answer cannot arrive on the new
 * link); it never runs again. */
static void
callback_in_flight_across_delete(void)
{
    int argc;
    const char **argv = pipe_args(&argc);
    MqContextC *c = MqContextCreate();
    seen s = {0};
    MQT_OK(MqLinkCreate(c, argc, argv), MqErrorGetText(c));
    MqSendSTART(c);
    MqSendI32(c, 300);
    MQT_OK(MqSendEND_AND_CALLBACK(c, "SLEP", record, &s, NULL, MQ_TIMEOUT_DEFAULT),
           MqErrorGetText(c));
    MQT_OK(MqLinkDelete(c), MqErrorGetText(c));
    MQT_CHECK_MSG(s.calls == 1 && strstr(s.text, "link closed before the answer"), "%d '%s'",
                  s.calls, s.text);
    MQT_OK(MqLinkCreate(c, argc, argv), MqErrorGetText(c));
    MqProcessEvent(c, MQ_WAIT_ONCE, 600);
    MQT_CHECK(s.calls == 1);
    MqContextDelete(c);
}

static const mqt_case cases[] = {
    {"LinkCreate after the server died creates the link again", create_again_after_server_died},
    {"LinkCreate on a link that is up says already linked", up_link_still_refuses},
    {"LinkCreateChild after the parent was created again", child_created_again},
    {"a callback in flight across LinkDelete + LinkCreate", callback_in_flight_across_delete},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
