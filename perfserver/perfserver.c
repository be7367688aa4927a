/* perfserver.c — the C server of the performance suite.
 *
 * Services, exactly the reference's (perfclient needs nothing else, so every
 * language's perfserver offers the same five):
 *   NTHT  nothing                      (--send-nothing)
 *   RDUL  read I8 I16 I32 DBL BUF      (--send)
 *   ECUL  echo the same items back     (--send-and-wait, --send-and-callback)
 *   BUST  items through a buffer stream and back   (--bus)
 *   BFLT  items through a buffer list and back     (--bfl)
 *
 * Usage: perfserver [--version] LINK-OPTIONS
 *   pipe:       started by the client as `perfclient ... @ perfserver`
 *   listening:  perfserver --uds --file PATH | --tcp --port P, plus
 *               --fork | --thread | --spawn
 * --version (the library's option) prints "perfserver (mqlink VERSION)" and
 * exits: the suite times `perfserver --version` as the fork+exec limit of a
 * parent start, the shared libraries' loading included. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mqlink.h"

/* Every service returns the first failing call's MK_ERROR; the link leaves
 * the reason on ctx and answers the caller with it. */

static MkErrorE
NTHT(MqContextC *ctx, void *data)
{
    return MK_OK;
}

static MkErrorE
RDUL(MqContextC *ctx, void *data)
{
    MK_I8 i8 = 0;
    MK_I16 i16 = 0;
    MK_I32 i32 = 0;
    MK_DBL dbl = 0;
    MkBufferC *buf = NULL;
    if (MqReadI8(ctx, &i8) != MK_OK || MqReadI16(ctx, &i16) != MK_OK ||
        MqReadI32(ctx, &i32) != MK_OK || MqReadDBL(ctx, &dbl) != MK_OK ||
        MqReadBUF(ctx, &buf) != MK_OK)
        return MK_ERROR;
    return MK_OK;
}

static MkErrorE
ECUL(MqContextC *ctx, void *data)
{
    MK_I8 i8 = 0;
    MK_I16 i16 = 0;
    MK_I32 i32 = 0;
    MK_DBL dbl = 0;
    if (MqSendSTART(ctx) != MK_OK ||
        MqReadI8(ctx, &i8) != MK_OK || MqSendI8(ctx, i8) != MK_OK ||
        MqReadI16(ctx, &i16) != MK_OK || MqSendI16(ctx, i16) != MK_OK ||
        MqReadI32(ctx, &i32) != MK_OK || MqSendI32(ctx, i32) != MK_OK ||
        MqReadDBL(ctx, &dbl) != MK_OK || MqSendDBL(ctx, dbl) != MK_OK ||
        MqProxyItem(ctx, ctx) != MK_OK)
        return MK_ERROR;
    return MqSendRETURN(ctx);
}

/* A kernel error lives in the thread's default error: move it onto ctx. */
static MkErrorE
kernel_error(MqContextC *ctx, const char *token)
{
    return MqErrorSet(ctx, MK_ERR_GENERIC, "%s: %s", token,
                      MkErrorGetText(MkErrorDEFAULT()));
}

static MkErrorE
BUST(MqContextC *ctx, void *data)
{
    MkBufferStreamC *bus = MkBufferStreamCreateTLS("perfserver-BUST");
    MkBufferC *buf = NULL;
    while (MqReadItemExists(ctx)) {
        if (MqReadBUF(ctx, &buf) != MK_OK)
            return MK_ERROR;
        if (MkBufferStreamWriteBUF(bus, buf) != MK_OK)
            return kernel_error(ctx, "BUST");
    }
    MkBufferStreamPosToStart(bus);
    if (MqSendSTART(ctx) != MK_OK)
        return MK_ERROR;
    while (MkBufferStreamReadItemExists(bus)) {
        if (MkBufferStreamReadBUF(bus, &buf) != MK_OK)
            return kernel_error(ctx, "BUST");
        if (MqSendBUF(ctx, buf) != MK_OK)
            return MK_ERROR;
    }
    return MqSendRETURN(ctx);
}

static MkErrorE
BFLT(MqContextC *ctx, void *data)
{
    MkBufferListC *bfl = MkBufferListCreateTLS("perfserver-BFLT");
    MkBufferC *buf = NULL;
    while (MqReadItemExists(ctx)) {
        if (MqReadBUF(ctx, &buf) != MK_OK)
            return MK_ERROR;
        if (MkBufferListAppendBUF(bfl, buf) != MK_OK)
            return kernel_error(ctx, "BFLT");
    }
    if (MqSendSTART(ctx) != MK_OK)
        return MK_ERROR;
    for (MK_I32 i = 0; i < MkBufferListSize(bfl); i++)
        if (MqSendBUF(ctx, MkBufferListIndexGet(bfl, i)) != MK_OK)
            return MK_ERROR;
    return MqSendRETURN(ctx);
}

static const struct {
    const char *token;
    MqServiceCallF fn;
} services[] = {
    {"NTHT", NTHT}, {"RDUL", RDUL}, {"ECUL", ECUL},
    {"BUST", BUST}, {"BFLT", BFLT},
};

/* Runs on every new server instance: each parent and each child. */
static MkErrorE
setup(MqContextC *ctx, void *data)
{
    for (size_t i = 0; i < sizeof services / sizeof services[0]; i++)
        if (MqServiceCreate(ctx, services[i].token, services[i].fn, NULL, NULL) != MK_OK)
            return MK_ERROR;
    return MK_OK;
}

int
main(int argc, char **argv)
{
    MqContextC *ctx = MqContextCreate();
    MqConfigSetName(ctx, "perfserver");
    MqConfigSetServerSetup(ctx, setup, NULL, NULL);
    MkErrorE rc = MqLinkCreate(ctx, argc, (const char **)argv);
    if (rc == MK_OK)
        rc = MqProcessEvent(ctx, MQ_WAIT_FOREVER, MQ_TIMEOUT_DEFAULT);
    if (rc == MK_ERROR)
        fprintf(stderr, "perfserver: %s\n", MqErrorGetText(ctx));
    MqContextDelete(ctx);
    return rc == MK_ERROR ? 1 : 0;
}
