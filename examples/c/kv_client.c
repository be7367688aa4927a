/* kv_client.c — uses kv_server: SET, GET and DEL on the parent context, then
 * the same through a child context (a second server instance over the same
 * connection).
 *
 *   ./kv_client @ ./kv_server                 (starts the server itself)
 *   ./kv_client --uds --file /tmp/kv          (a listening server) */
#include <stdio.h>
#include <mqlink.h>

static int
set(MqContextC *ctx, const char *key, const char *value)
{
    if (MqSendSTART(ctx) != MK_OK || MqSendSTR(ctx, key) != MK_OK ||
        MqSendSTR(ctx, value) != MK_OK ||
        MqSendEND_AND_WAIT(ctx, "SET_", MQ_TIMEOUT_DEFAULT) != MK_OK)
        return -1;
    printf("SET %s=%s\n", key, value);
    return 0;
}

/* prints the value, or the server's error: a missing key is not fatal */
static int
get(MqContextC *ctx, const char *who, const char *key)
{
    const char *value;
    if (MqSendSTART(ctx) != MK_OK || MqSendSTR(ctx, key) != MK_OK)
        return -1;
    if (MqSendEND_AND_WAIT(ctx, "GET_", MQ_TIMEOUT_DEFAULT) == MK_OK &&
        MqReadSTR(ctx, &value) == MK_OK) {
        printf("%sGET %s -> %s\n", who, key, value);
    } else {
        printf("%sGET %s -> error: %s\n", who, key, MqErrorGetText(ctx));
        MqErrorReset(ctx);
    }
    return 0;
}

static int
del(MqContextC *ctx, const char *key)
{
    MK_I32 found;
    if (MqSendSTART(ctx) != MK_OK || MqSendSTR(ctx, key) != MK_OK ||
        MqSendEND_AND_WAIT(ctx, "DEL_", MQ_TIMEOUT_DEFAULT) != MK_OK ||
        MqReadI32(ctx, &found) != MK_OK)
        return -1;
    printf("DEL %s -> %d\n", key, found);
    return 0;
}

int
main(int argc, char **argv)
{
    MqContextC *ctx = MqContextCreate(), *child = MqContextCreate();
    MqContextC *failed = ctx;
    if (MqLinkCreate(ctx, argc, (const char **)argv) != MK_OK ||
        set(ctx, "color", "blue") || get(ctx, "", "color"))
        goto error;
    /* a child: its own server instance, multiplexed over the parent's link */
    failed = child;
    if (MqLinkCreateChild(child, ctx) != MK_OK || get(child, "child ", "color") ||
        set(child, "size", "10") || MqLinkDelete(child) != MK_OK)
        goto error;
    failed = ctx;
    if (del(ctx, "color") || del(ctx, "color") || get(ctx, "", "color") || get(ctx, "", "size"))
        goto error;
    MqContextDelete(child);
    MqContextDelete(ctx);
    return 0;
error:
    fprintf(stderr, "kv_client: %s\n", MqErrorGetText(failed));
    MqContextDelete(child);
    MqContextDelete(ctx);
    return 1;
}
