/* callback_client.c — calls that do not wait, against kv_server: five SETs
 * whose answers arrive in a callback, then a persistent SET (committed to
 * this client's storage before it is sent, delivered once even across a
 * crash of either side).
 *
 *   ./callback_client --storage /tmp/kv-client.db @ ./kv_server */
#include <stdio.h>
#include <mqlink.h>

static int answered;

/* runs from the event loop with the answer (or with ctx's error set) */
static MkErrorE
on_answer(MqContextC *ctx, void *data)
{
    const char *what = data;
    if (MqErrorGetCode(ctx) != 0)
        printf("%s failed: %s\n", what, MqErrorGetText(ctx));
    else
        printf("%s answered\n", what);
    answered++;
    return MK_OK;
}

static MkErrorE
send_set(MqContextC *ctx, const char *key, const char *value, const char *what, int persistent)
{
    if (MqSendSTART(ctx) != MK_OK || MqSendSTR(ctx, key) != MK_OK || MqSendSTR(ctx, value) != MK_OK)
        return MK_ERROR;
    /* data is a string literal: nothing to free */
    return persistent
        ? MqSendEND_AND_TRANSACTION_CALLBACK(ctx, "SET_", on_answer, (void *)what, NULL,
                                             MQ_TIMEOUT_DEFAULT)
        : MqSendEND_AND_CALLBACK(ctx, "SET_", on_answer, (void *)what, NULL, MQ_TIMEOUT_DEFAULT);
}

/* serve the event loop until n answers have arrived */
static MkErrorE
wait_for(MqContextC *ctx, int n)
{
    while (answered < n)
        if (MqProcessEvent(ctx, MQ_WAIT_ONCE, MQ_TIMEOUT_DEFAULT) == MK_ERROR)
            return MK_ERROR;
    return MK_OK;
}

int
main(int argc, char **argv)
{
    static const char *keys[] = {"k1", "k2", "k3", "k4", "k5"};
    static const char *whats[] = {"SET k1", "SET k2", "SET k3", "SET k4", "SET k5"};
    MqContextC *ctx = MqContextCreate();
    MK_I64 pending = -1;
    const char *value;

    if (MqLinkCreate(ctx, argc, (const char **)argv) != MK_OK)
        goto error;
    for (int i = 0; i < 5; i++)  /* all five leave before the first answer is read */
        if (send_set(ctx, keys[i], "v", whats[i], 0) != MK_OK)
            goto error;
    if (wait_for(ctx, 5) != MK_OK ||
        send_set(ctx, "saved", "yes", "persistent SET saved", 1) != MK_OK ||
        wait_for(ctx, 6) != MK_OK || MqStoragePendingCount(ctx, &pending) != MK_OK)
        goto error;
    printf("persistent calls not yet answered: %lld\n", (long long)pending);
    if (MqSendSTART(ctx) != MK_OK || MqSendSTR(ctx, "saved") != MK_OK ||
        MqSendEND_AND_WAIT(ctx, "GET_", MQ_TIMEOUT_DEFAULT) != MK_OK ||
        MqReadSTR(ctx, &value) != MK_OK)
        goto error;
    printf("GET saved -> %s\n", value);
    MqContextDelete(ctx);
    return 0;
error:
    fprintf(stderr, "callback_client: %s\n", MqErrorGetText(ctx));
    MqContextDelete(ctx);
    return 1;
}
