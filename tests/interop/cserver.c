/* cserver.c — the interop test server in C: the services of pyserver.py. */
#include <stdio.h>
#include <string.h>

#include "mqlink.h"

static MkErrorE
echo(MqContextC *ctx, void *data)
{
    const char *t;
    char type[8];
    MkErrorE rc = MqReadSTR(ctx, &t);
    if (rc != MK_OK)
        return rc;
    snprintf(type, sizeof type, "%s", t);
#define ECHO(T, CT)                                                          \
    if (strcmp(type, #T) == 0) {                                             \
        CT v;                                                                \
        if (MqRead##T(ctx, &v) != MK_OK || MqSendSTART(ctx) != MK_OK ||      \
            MqSend##T(ctx, v) != MK_OK)                                      \
            return MK_ERROR;                                                 \
        return MqSendRETURN(ctx);                                            \
    }
    ECHO(I8, MK_I8)
    ECHO(I16, MK_I16)
    ECHO(I32, MK_I32)
    ECHO(I64, MK_I64)
    ECHO(FLT, MK_FLT)
    ECHO(DBL, MK_DBL)
    ECHO(BOL, MK_BOL)
    ECHO(STR, const char *)
    if (strcmp(type, "BIN") == 0) {
        const void *d;
        size_t n;
        if (MqReadBIN(ctx, &d, &n) != MK_OK || MqSendSTART(ctx) != MK_OK ||
            MqSendBIN(ctx, d, n) != MK_OK)
            return MK_ERROR;
        return MqSendRETURN(ctx);
    }
    return MqErrorSet(ctx, MK_ERR_ARGUMENT, "ECHO: unknown type %s", type);
}

static MkErrorE
elst(MqContextC *ctx, void *data)
{
    if (MqSendSTART(ctx) != MK_OK || MqProxyItem(ctx, ctx) != MK_OK)
        return MK_ERROR;
    return MqSendRETURN(ctx);
}

static MkErrorE
fail(MqContextC *ctx, void *data)
{
    const char *text;
    if (MqReadSTR(ctx, &text) != MK_OK)
        return MK_ERROR;
    return MqErrorSet(ctx, 1234, "%s", text);
}

static MkErrorE
wrng(MqContextC *ctx, void *data)
{
    MK_I32 v;
    char text[512];
    if (MqReadI32(ctx, &v) == MK_OK)
        snprintf(text, sizeof text, "not caught");
    else
        snprintf(text, sizeof text, "caught: %s", MqErrorGetText(ctx));
    MqErrorReset(ctx);
    if (MqSendSTART(ctx) != MK_OK || MqSendSTR(ctx, text) != MK_OK)
        return MK_ERROR;
    return MqSendRETURN(ctx);
}

static MkErrorE
inst(MqContextC *ctx, void *data)
{
    char text[64];
    snprintf(text, sizeof text, "cserver:%p", (void *)ctx);
    if (MqSendSTART(ctx) != MK_OK || MqSendSTR(ctx, text) != MK_OK)
        return MK_ERROR;
    return MqSendRETURN(ctx);
}

static MkErrorE
setup(MqContextC *ctx, void *data)
{
    if (MqServiceCreate(ctx, "ECHO", echo, NULL, NULL) != MK_OK ||
        MqServiceCreate(ctx, "ELST", elst, NULL, NULL) != MK_OK ||
        MqServiceCreate(ctx, "FAIL", fail, NULL, NULL) != MK_OK ||
        MqServiceCreate(ctx, "WRNG", wrng, NULL, NULL) != MK_OK)
        return MK_ERROR;
    return MqServiceCreate(ctx, "INST", inst, NULL, NULL);
}

int
main(int argc, char **argv)
{
    MqContextC *srv = MqContextCreate();
    int rc = 0;
    MqConfigSetServerSetup(srv, setup, NULL, NULL);
    if (MqLinkCreate(srv, argc, (const char **)argv) != MK_OK ||
        MqProcessEvent(srv, MQ_WAIT_FOREVER, MQ_TIMEOUT_DEFAULT) == MK_ERROR) {
        fprintf(stderr, "cserver: %s\n", MqErrorGetText(srv));
        rc = 1;
    }
    MqContextDelete(srv);
    return rc;
}
