/* testserver.c — the C server every link test talks to.  Services:
 *   ECHO  answer every item received (lists included) in order
 *   ECUL  the performance suite's echo: I8 I16 I32 DBL and one more item
 *   FAIL  fail with the error text "FAIL asked to fail (code 1234)"
 *   SLEP  sleep I32 milliseconds, then answer
 *   EXIT  end this server process at once, without answering
 *   COUN  one-way: add the I32 it carries to this instance's counter
 *   GETC  answer the counter as I64 and the number of COUN calls as I32
 *   NAME  answer the instance's address as I64 (tells instances apart)
 *   PERS  persistent-call target: answer the I64 it carries
 *   BYTS  one-way: add the size of the BIN it carries to this process's
 *         total (all its instances: --thread serves them in one process)
 *   TOTL  answer this process's BYTS total as I64
 * With MQT_COUNT_LOG set in its environment, each instance says as it ends
 * how many COUN calls it served (stderr): what a test sees of the one-way
 * calls of a client that has gone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "mqlink.h"

typedef struct {
    MK_I64 sum;
    MK_I32 calls;
} counter;

static MkErrorE
echo(MqContextC *ctx, void *data)
{
    MqSendSTART(ctx);
    while (MqReadItemExists(ctx))
        if (MqProxyItem(ctx, ctx) != MK_OK)
            return MK_ERROR;
    return MqSendRETURN(ctx);
}

static MkErrorE
ecul(MqContextC *ctx, void *data)
{
    MK_I8 a;
    MK_I16 b;
    MK_I32 c;
    MK_DBL d;
    if (MqReadI8(ctx, &a) || MqReadI16(ctx, &b) || MqReadI32(ctx, &c) || MqReadDBL(ctx, &d))
        return MK_ERROR;
    MqSendSTART(ctx);
    MqSendI8(ctx, a);
    MqSendI16(ctx, b);
    MqSendI32(ctx, c);
    MqSendDBL(ctx, d);
    if (MqProxyItem(ctx, ctx) != MK_OK)
        return MK_ERROR;
    return MqSendRETURN(ctx);
}

static MkErrorE
fail(MqContextC *ctx, void *data)
{
    return MqErrorSet(ctx, 1234, "FAIL asked to fail (code %d)", 1234);
}

static MkErrorE
slep(MqContextC *ctx, void *data)
{
    MK_I32 ms;
    if (MqReadI32(ctx, &ms) != MK_OK)
        return MK_ERROR;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    MqSendSTART(ctx);
    return MqSendRETURN(ctx);
}

static MkErrorE
exit_now(MqContextC *ctx, void *data)
{
    _exit(3);
}

static MkErrorE
coun(MqContextC *ctx, void *data)
{
    counter *c = MqContextGetUserData(ctx);
    MK_I32 v;
    if (MqReadI32(ctx, &v) != MK_OK)
        return MK_ERROR;
    c->sum += v;
    c->calls++;
    return MK_OK;
}

static MkErrorE
getc_(MqContextC *ctx, void *data)
{
    counter *c = MqContextGetUserData(ctx);
    MqSendSTART(ctx);
    MqSendI64(ctx, c->sum);
    MqSendI32(ctx, c->calls);
    return MqSendRETURN(ctx);
}

static MK_I64 process_total;

static MkErrorE
byts(MqContextC *ctx, void *data)
{
    const void *bin;
    size_t size;
    if (MqReadBIN(ctx, &bin, &size) != MK_OK)
        return MK_ERROR;
    __atomic_add_fetch(&process_total, (MK_I64)size, __ATOMIC_RELAXED);
    return MK_OK;
}

static MkErrorE
totl(MqContextC *ctx, void *data)
{
    MqSendSTART(ctx);
    MqSendI64(ctx, __atomic_load_n(&process_total, __ATOMIC_RELAXED));
    return MqSendRETURN(ctx);
}

static MkErrorE
name(MqContextC *ctx, void *data)
{
    MqSendSTART(ctx);
    MqSendI64(ctx, (MK_I64)(intptr_t)ctx);
    return MqSendRETURN(ctx);
}

static MkErrorE
pers(MqContextC *ctx, void *data)
{
    MK_I64 v;
    if (MqReadI64(ctx, &v) != MK_OK)
        return MK_ERROR;
    MqSendSTART(ctx);
    MqSendI64(ctx, v);
    return MqSendRETURN(ctx);
}

static void
drop_counter(MqContextC *ctx, void *data)
{
    counter *c = data;
    if (getenv("MQT_COUNT_LOG"))
        fprintf(stderr, "testserver: instance ended after %d COUN calls, sum %lld\n", (int)c->calls,
                (long long)c->sum);
    free(data);
}

static MkErrorE
setup(MqContextC *ctx, void *data)
{
    counter *c = calloc(1, sizeof *c);
    MqContextSetUserData(ctx, c);
    MqContextSetDestroyCallback(ctx, drop_counter, c);
    static const struct {
        const char *token;
        MqServiceCallF fn;
    } services[] = {{"ECHO", echo}, {"ECUL", ecul}, {"FAIL", fail},  {"SLEP", slep},
                    {"EXIT", exit_now}, {"COUN", coun}, {"GETC", getc_}, {"NAME", name}, {"PERS", pers},
                    {"BYTS", byts}, {"TOTL", totl}};
    for (size_t i = 0; i < sizeof services / sizeof *services; i++)
        if (MqServiceCreate(ctx, services[i].token, services[i].fn, NULL, NULL) != MK_OK)
            return MK_ERROR;
    return MK_OK;
}

int
main(int argc, char **argv)
{
    MqContextC *ctx = MqContextCreate();
    MqConfigSetServerSetup(ctx, setup, NULL, NULL);
    if (MqLinkCreate(ctx, argc, (const char **)argv) != MK_OK ||
        MqProcessEvent(ctx, MQ_WAIT_FOREVER, MQ_TIMEOUT_DEFAULT) != MK_OK) {
        fprintf(stderr, "testserver: %s\n", MqErrorGetText(ctx));
        MqContextDelete(ctx);
        return 1;
    }
    MqContextDelete(ctx);
    return 0;
}
