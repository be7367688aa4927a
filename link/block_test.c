/* block_test.c — the blocking hooks (MqSetBlockingHooks): every wait of the
 * caller's thread is inside one enter/leave pair with its own token, and no
 * callback of the application runs inside one (a runtime that releases its
 * lock in enter would otherwise run Python without the GIL). */
#include <string.h>
#include <unistd.h>

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

static const mqt_case cases[] = {
    {"every wait inside one enter/leave pair, callbacks outside", waits_are_bracketed},
    {"no section without waiting", no_section_without_waiting},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
