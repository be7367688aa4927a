/* tests.c — the message tests of perfclient: one-way (NOTHING, END), call
 * and wait (WAIT, BUS, BFL) and call with callback (CALLBACK).
 *
 * Every test sends one message of its own kind before the clock starts, so
 * buffers are allocated and code is paged in (the reference's warm-up).  The
 * one-way tests end with one ECUL call: its answer proves the server has
 * processed every message, and that call is inside the measured time. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <stdlib.h>

#include "perfclient.h"

/* The binary blob of --send: small, read on the server as a buffer. */
static const unsigned char blob[32] = "perfclient-blob-0123456789abcdef";

/* Bytes a frame header adds to a message body on the wire (MQI_HDR_SIZE in
 * link/link_int.h, not public);
 * used only to size the limit measurements like the real messages. */
#define PERF_FRAME_HEADER 32

static MkErrorE
send_items(MqContextC *ctx, MK_I32 seq)
{
    if (MqSendSTART(ctx) != MK_OK || MqSendI8(ctx, 8) != MK_OK ||
        MqSendI16(ctx, 16) != MK_OK || MqSendI32(ctx, seq) != MK_OK ||
        MqSendDBL(ctx, 3.25) != MK_OK || MqSendBIN(ctx, blob, sizeof blob) != MK_OK)
        return MK_ERROR;
    return MK_OK;
}

/* Read ECUL's answer and check that it is the echo of message seq. */
static MkErrorE
read_echo(MqContextC *ctx, MK_I32 seq)
{
    MK_I8 i8 = 0;
    MK_I16 i16 = 0;
    MK_I32 i32 = 0;
    MK_DBL dbl = 0;
    const void *data;
    size_t size = 0;
    if (MqReadI8(ctx, &i8) != MK_OK || MqReadI16(ctx, &i16) != MK_OK ||
        MqReadI32(ctx, &i32) != MK_OK || MqReadDBL(ctx, &dbl) != MK_OK ||
        MqReadBIN(ctx, &data, &size) != MK_OK)
        return MK_ERROR;
    if (i32 != seq || size != sizeof blob)
        return MqErrorSet(ctx, MK_ERR_USER, "ECUL answered %d/%zu for %d/%zu", (int)i32, size,
                          (int)seq, sizeof blob);
    return MK_OK;
}

/* One ECUL call: its answer proves the server has processed everything sent
 * before it (a link serves its messages in order).  Only the reference's
 * services are used, so every language's perfserver can be measured. */
static MkErrorE
sync_wait(MqContextC *ctx)
{
    if (send_items(ctx, -1) != MK_OK ||
        MqSendEND_AND_WAIT(ctx, "ECUL", MQ_TIMEOUT_DEFAULT) != MK_OK)
        return MK_ERROR;
    return read_echo(ctx, -1);
}

/* ---------------------------------------------------------- one-way tests */

static MkErrorE
op_nothing(perf_client *pc, void *arg)
{
    if (MqSendSTART(pc->ctx) != MK_OK)
        return MK_ERROR;
    return MqSendEND(pc->ctx, "NTHT", MQ_TIMEOUT_DEFAULT);
}

static MkErrorE
op_send(perf_client *pc, void *arg)
{
    if (send_items(pc->ctx, 1) != MK_OK)
        return MK_ERROR;
    return MqSendEND(pc->ctx, "RDUL", MQ_TIMEOUT_DEFAULT);
}

static MkErrorE
one_way(perf_client *pc, perf_op op, perf_result *res)
{
    if (op(pc, NULL) != MK_OK || sync_wait(pc->ctx) != MK_OK)
        return MK_ERROR;
    if (perf_loop(pc, op, NULL, 100, res) != MK_OK || sync_wait(pc->ctx) != MK_OK)
        return MK_ERROR;
    perf_stop(res);
    return MK_OK;
}

MkErrorE
perf_send_nothing(perf_client *pc, perf_result *res)
{
    return one_way(pc, op_nothing, res);
}

MkErrorE
perf_send(perf_client *pc, perf_result *res)
{
    return one_way(pc, op_send, res);
}

/* ------------------------------------------------------------ call and wait */

MkErrorE
perf_wait_call(MqContextC *ctx, MK_I32 seq)
{
    if (send_items(ctx, seq) != MK_OK || MqSendEND_AND_WAIT(ctx, "ECUL", MQ_TIMEOUT_DEFAULT) != MK_OK)
        return MK_ERROR;
    return read_echo(ctx, seq);
}

static MkErrorE
op_wait(perf_client *pc, void *arg)
{
    return perf_wait_call(pc->ctx, (MK_I32)(++*(long *)arg));
}

MkErrorE
perf_send_and_wait(perf_client *pc, perf_result *res)
{
    long seq = 0;
    if (op_wait(pc, &seq) != MK_OK)
        return MK_ERROR;
    return perf_loop(pc, op_wait, &seq, 100, res);
}

/* Seven items of every fixed type and both blobs, as BUF values. */
static MkErrorE
send_bufs(MqContextC *ctx)
{
    if (MqSendSTART(ctx) != MK_OK || MqSendI8(ctx, 8) != MK_OK ||
        MqSendI16(ctx, 16) != MK_OK || MqSendI32(ctx, 32) != MK_OK ||
        MqSendI64(ctx, 64) != MK_OK || MqSendDBL(ctx, 3.25) != MK_OK ||
        MqSendSTR(ctx, "perfclient") != MK_OK || MqSendBIN(ctx, blob, sizeof blob) != MK_OK)
        return MK_ERROR;
    return MK_OK;
}

static MkErrorE
op_data(perf_client *pc, void *token)
{
    MkBufferC *buf;
    int n = 0;
    if (send_bufs(pc->ctx) != MK_OK ||
        MqSendEND_AND_WAIT(pc->ctx, token, MQ_TIMEOUT_DEFAULT) != MK_OK)
        return MK_ERROR;
    for (; MqReadItemExists(pc->ctx); n++)
        if (MqReadBUF(pc->ctx, &buf) != MK_OK)
            return MK_ERROR;
    if (n != 7)
        return MqErrorSet(pc->ctx, MK_ERR_USER, "%s answered %d items, not 7", (char *)token, n);
    return MK_OK;
}

MkErrorE
perf_bus(perf_client *pc, perf_result *res)
{
    if (op_data(pc, "BUST") != MK_OK)
        return MK_ERROR;
    return perf_loop(pc, op_data, "BUST", 100, res);
}

MkErrorE
perf_bfl(perf_client *pc, perf_result *res)
{
    if (op_data(pc, "BFLT") != MK_OK)
        return MK_ERROR;
    return perf_loop(pc, op_data, "BFLT", 100, res);
}

/* ------------------------------------------------------- call with callback */

static MkErrorE
on_echo(MqContextC *ctx, void *data)
{
    perf_client *pc = data;
    pc->outstanding--;
    if (MqErrorGetCode(ctx) != 0 || read_echo(ctx, 1) != MK_OK) {
        pc->failed_cb++;
        return MK_ERROR;
    }
    return MK_OK;
}

/* Serve events until at most max calls are in flight. */
static MkErrorE
drain(perf_client *pc, long max)
{
    while (pc->outstanding > max) {
        MkErrorE rc = MqProcessEvent(pc->ctx, MQ_WAIT_ONCE, MQ_TIMEOUT_DEFAULT);
        if (rc == MK_ERROR)
            return MK_ERROR;
        if (rc == MK_CONTINUE)
            return MqErrorSet(pc->ctx, MQ_ERR_TIMEOUT, "%ld callbacks missing", pc->outstanding);
    }
    if (pc->failed_cb > 0)
        return MqErrorSet(pc->ctx, MK_ERR_USER, "%ld callbacks failed", pc->failed_cb);
    return MK_OK;
}

/* One ECUL call by callback, at most pc->window of them in flight: past
 * that, wait until only keep are left.  The window bounds the answers
 * queued towards us: a client that only writes while the server only
 * writes answers back would block both. */
static MkErrorE
call_in_window(perf_client *pc, long keep)
{
    if (pc->outstanding >= pc->window && drain(pc, keep) != MK_OK)
        return MK_ERROR;
    if (send_items(pc->ctx, 1) != MK_OK ||
        MqSendEND_AND_CALLBACK(pc->ctx, "ECUL", on_echo, pc, NULL, MQ_TIMEOUT_DEFAULT) != MK_OK)
        return MK_ERROR;
    pc->outstanding++;
    return MK_OK;
}

/* Warm up with one call, then op in batches of batch, every answer in. */
static MkErrorE
run_windowed(perf_client *pc, perf_op op, int batch, perf_result *res)
{
    pc->outstanding = pc->failed_cb = 0;
    if (op(pc, NULL) != MK_OK || drain(pc, 0) != MK_OK)
        return MK_ERROR;
    if (perf_loop(pc, op, NULL, batch, res) != MK_OK || drain(pc, 0) != MK_OK)
        return MK_ERROR;
    perf_stop(res);
    return MK_OK;
}

/* --send-and-callback: a full window is drained by half at a time. */
static MkErrorE
op_callback(perf_client *pc, void *arg)
{
    (void)arg;
    return call_in_window(pc, pc->window / 2);
}

MkErrorE
perf_send_and_callback(perf_client *pc, perf_result *res)
{
    return run_windowed(pc, op_callback, 100, res);
}

/* --scale-calls: the WAIT call kept pc->window times in flight on the one
 * link, a new call sent as soon as an answer is in (not in batches like
 * --send-and-callback): round trips per second against calls in flight. */
static MkErrorE
op_in_flight(perf_client *pc, void *arg)
{
    (void)arg;
    return call_in_window(pc, pc->window - 1);
}

MkErrorE
perf_in_flight(perf_client *pc, perf_result *res)
{
    return run_windowed(pc, op_in_flight, 10, res);
}

/* ------------------------------------------------------------- persistent */

/* Like --send-and-callback with persistent calls: each is committed to the
 * sender's storage before it is sent, and recorded by the receiver before
 * it is answered.  A link of its own, so that only this test's link holds
 * the storage (a storage file belongs to one link at a time). */
static MkErrorE
op_persistent(perf_client *pc, void *arg)
{
    if (pc->outstanding >= pc->window && drain(pc, pc->window / 2) != MK_OK)
        return MK_ERROR;
    if (send_items(pc->ctx, 1) != MK_OK ||
        MqSendEND_AND_TRANSACTION_CALLBACK(pc->ctx, "ECUL", on_echo, pc, NULL,
                                           MQ_TIMEOUT_DEFAULT) != MK_OK)
        return MK_ERROR;
    pc->outstanding++;
    return MK_OK;
}

static MkErrorE
persistent_run(perf_client *pc, perf_result *res)
{
    pc->outstanding = pc->failed_cb = 0;
    if (send_items(pc->ctx, -1) != MK_OK ||
        MqSendEND_AND_TRANSACTION(pc->ctx, "ECUL", MQ_TIMEOUT_DEFAULT) != MK_OK ||
        read_echo(pc->ctx, -1) != MK_OK)
        return MK_ERROR;
    if (perf_loop(pc, op_persistent, NULL, 100, res) != MK_OK || drain(pc, 0) != MK_OK)
        return MK_ERROR;
    perf_stop(res);
    return MK_OK;
}

MkErrorE
perf_send_persistent(perf_client *pc, perf_result *res)
{
    perf_client own = *pc;
    const char **argv = calloc((size_t)pc->link_argc + 3, sizeof *argv);
    MkErrorE rc = MK_ERROR;
    if (!argv)
        return MqErrorSet(pc->ctx, MK_ERR_MEMORY, "out of memory");
    argv[0] = pc->link_argv[0];
    own.link_argc = 1;
    if (pc->storage) {
        argv[own.link_argc++] = "--storage";
        argv[own.link_argc++] = pc->storage;
    }
    for (int i = 1; i < pc->link_argc; i++)
        argv[own.link_argc++] = pc->link_argv[i];
    own.link_argv = argv;
    own.ctx = MqContextCreate();
    if (perf_link_create(&own, own.ctx) == MK_OK)
        rc = persistent_run(&own, res);
    if (rc != MK_OK)
        MqErrorSet(pc->ctx, MqErrorGetCode(own.ctx), "%s", MqErrorGetText(own.ctx));
    MqContextDelete(own.ctx);
    free(argv);
    return rc;
}

/* ------------------------------------------------------------------ sizes */

void
perf_message_sizes(size_t *empty, size_t *send)
{
    MkBufferStreamC *bus = MkBufferStreamCreate();
    *empty = MkBufferStreamSize(bus) + PERF_FRAME_HEADER;
    MkBufferStreamWriteI8(bus, 8);
    MkBufferStreamWriteI16(bus, 16);
    MkBufferStreamWriteI32(bus, 1);
    MkBufferStreamWriteDBL(bus, 3.25);
    MkBufferStreamWriteBIN(bus, blob, sizeof blob);
    *send = MkBufferStreamSize(bus) + PERF_FRAME_HEADER;
    MkBufferStreamDelete(bus);
}
