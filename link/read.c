/* read.c — reading the message a service or a waiting call received.
 * The reads are the kernel's stream reads on the context's current read
 * stream, whose errors land on the context. */
#include "link_int.h"

/* A received stream belongs to the connection, which may outlive the
 * context reading it (a child its peer deleted): the stream borrows the
 * reader's error object for one read and never keeps it. */
#define LENT(ctx, read)                   \
    do {                                  \
        (ctx)->rd->err = (ctx)->err;      \
        MkErrorE rc_ = (read);            \
        (ctx)->rd->err = NULL;            \
        return rc_;                       \
    } while (0)

static MkErrorE
no_message(MqContextC *ctx, const char *what)
{
    return MkErrorSet(ctx->err, MK_ERR_END, "%s: no message to read on '%s'", what,
                      MqConfigGetName(ctx));
}

#define READ_VALUE(NAME, TYPE)                                             \
    MkErrorE MqRead##NAME(MqContextC *ctx, TYPE *out)                      \
    {                                                                      \
        if (!ctx->rd)                                                      \
            return no_message(ctx, "Read" #NAME);                          \
        LENT(ctx, MkBufferStreamRead##NAME(ctx->rd, out));                 \
    }
READ_VALUE(I8, MK_I8)
READ_VALUE(I16, MK_I16)
READ_VALUE(I32, MK_I32)
READ_VALUE(I64, MK_I64)
READ_VALUE(FLT, MK_FLT)
READ_VALUE(DBL, MK_DBL)
READ_VALUE(BOL, MK_BOL)
READ_VALUE(STR, const char *)
READ_VALUE(BUF, MkBufferC *)
#undef READ_VALUE

MkErrorE
MqReadBIN(MqContextC *ctx, const void **data, size_t *size)
{
    if (!ctx->rd)
        return no_message(ctx, "ReadBIN");
    LENT(ctx, MkBufferStreamReadBIN(ctx->rd, data, size));
}

MkErrorE
MqReadL_START(MqContextC *ctx)
{
    if (!ctx->rd)
        return no_message(ctx, "ReadL_START");
    LENT(ctx, MkBufferStreamReadL_START(ctx->rd));
}

MkErrorE
MqReadL_END(MqContextC *ctx)
{
    if (!ctx->rd)
        return no_message(ctx, "ReadL_END");
    LENT(ctx, MkBufferStreamReadL_END(ctx->rd));
}

MK_BOL
MqReadItemExists(MqContextC *ctx)
{
    return ctx->rd && MkBufferStreamReadItemExists(ctx->rd);
}

MkErrorE
MqProxyItem(MqContextC *from, MqContextC *to)
{
    if (!from->rd)
        return no_message(from, "ProxyItem");
    to->send.err = to->err;
    if (mki_stream_copy_item(&to->send, from->rd) == MK_OK)
        return MK_OK;
    if (from != to && !MkErrorIsSet(from->err))
        MkErrorCopy(from->err, to->err);
    return MK_ERROR;
}
