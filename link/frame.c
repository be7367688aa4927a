/* frame.c — the frame header and the connect preamble on the wire. */
#include <string.h>

#include "link_int.h"

static const int native_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

static uint32_t
get32(const unsigned char *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? mki_swap32(v) : v;
}

static uint64_t
get64(const unsigned char *p, int swap)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return swap ? mki_swap64(v) : v;
}

void
mqi_hdr_encode(unsigned char *out, const mqi_hdr *h)
{
    out[0] = MQI_MAGIC0;
    out[1] = MQI_MAGIC1;
    out[2] = MQI_VERSION;
    out[3] = h->kind;
    memcpy(out + 4, h->token, 4);
    memcpy(out + 8, &h->child, 4);
    memcpy(out + 12, &h->flags, 4);
    memcpy(out + 16, &h->trans, 8);
    memcpy(out + 24, &h->items, 4);
    memcpy(out + 28, &h->len, 4);
}

MkErrorE
mqi_hdr_decode(const unsigned char *in, int swap, uint32_t max_frame, mqi_hdr *h, MkErrorC *err)
{
    if (in[0] != MQI_MAGIC0 || in[1] != MQI_MAGIC1)
        return MkErrorSet(err, MQ_ERR_PROTOCOL, "bad frame magic 0x%02x%02x", in[0], in[1]);
    if (in[2] != MQI_VERSION)
        return MkErrorSet(err, MQ_ERR_PROTOCOL, "unsupported frame version %d", in[2]);
    h->kind = in[3];
    if (h->kind < MQI_CALL_WAIT || h->kind > MQI_KIND_MAX)
        return MkErrorSet(err, MQ_ERR_PROTOCOL, "unknown frame kind %d", h->kind);
    memcpy(h->token, in + 4, 4);
    h->token[4] = '\0';
    if (!mqi_token_valid(h->token))
        return MkErrorSet(err, MQ_ERR_PROTOCOL, "frame token is not 4 printable characters");
    h->child = get32(in + 8, swap);
    h->flags = get32(in + 12, swap);
    h->trans = get64(in + 16, swap);
    h->items = get32(in + 24, swap);
    h->len = get32(in + 28, swap);
    if (h->len > max_frame)
        return MkErrorSet(err, MQ_ERR_PROTOCOL, "frame of %u bytes exceeds the maximum of %u",
                          h->len, max_frame);
    return MK_OK;
}

void
mqi_preamble_encode(unsigned char *out, int is_server)
{
    uint32_t flags = is_server ? 1u : 0u;
    memset(out, 0, MQI_PREAMBLE_SIZE);
    memcpy(out, "MQLK", 4);
    out[4] = MQI_VERSION;
    out[5] = native_big ? 'B' : 'L';
    memcpy(out + 8, &flags, 4);
}

MkErrorE
mqi_preamble_decode(const unsigned char *in, int *swap, MkErrorC *err)
{
    if (memcmp(in, "MQLK", 4) != 0)
        return MkErrorSet(err, MQ_ERR_PROTOCOL, "peer is not an mqlink peer (bad preamble)");
    if (in[4] != MQI_VERSION)
        return MkErrorSet(err, MQ_ERR_PROTOCOL, "peer speaks protocol version %d, we speak %d",
                          in[4], MQI_VERSION);
    if (in[5] != 'B' && in[5] != 'L')
        return MkErrorSet(err, MQ_ERR_PROTOCOL, "peer sent an unknown byte order '%c'", in[5]);
    *swap = (in[5] == 'B') != native_big;
    return MK_OK;
}
