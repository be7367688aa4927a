/* fuzz_frame.c — libFuzzer target: the frame validator.  The input is one
 * option byte (bits 0-1: the maximum frame size) and then a frame as it
 * arrives on a connection: the 32-byte header, the body.  Both byte orders
 * are tried, and each goes through what next_frame (link/event.c) does:
 * mqi_hdr_decode, the length against what arrived, mki_stream_validate, the
 * item count against the header, mki_stream_load; then the reads every
 * receiver makes of such a frame before any service runs (an error answer's
 * code and text, a storage identity, a low-water mark).
 *
 * Checked besides crashes: a header that decodes in our byte order encodes
 * back to the same 32 bytes. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "link_int.h"

static const uint32_t max_frames[] = {MQI_DEFAULT_MAX_FRAME, 4096, 32, 0};

/* The reads of link/event.c and link/persist.c on a received body. */
static void
read_like_the_link(const mqi_hdr *h, MkBufferStreamC *body)
{
    MK_I32 code = 0;
    MK_I64 low = 0;
    const char *text = NULL;
    MkBufferC *buf;
    if (h->kind == MQI_ERROR) {
        MkBufferStreamReadI32(body, &code);
        MkBufferStreamReadSTR(body, &text);
    } else if ((h->flags & MQI_F_INTERNAL) && !memcmp(h->token, "_SID", 4)) {
        MkBufferStreamReadSTR(body, &text);
    } else if ((h->flags & MQI_F_INTERNAL) && !memcmp(h->token, "_LWM", 4)) {
        MkBufferStreamReadI64(body, &low);
    } else {
        while (MkBufferStreamReadItemExists(body) && MkBufferStreamReadBUF(body, &buf) == MK_OK)
            ;
    }
}

static void
one_order(const uint8_t *frame, size_t size, int swap, uint32_t max_frame, MkErrorC *err,
          MkBufferStreamC *body)
{
    mqi_hdr h;
    MK_I32 count = 0;
    MkErrorReset(err);
    if (mqi_hdr_decode(frame, swap, max_frame, &h, err) != MK_OK)
        return;
    if (!swap) {
        unsigned char again[MQI_HDR_SIZE];
        mqi_hdr_encode(again, &h);
        if (memcmp(again, frame, MQI_HDR_SIZE) != 0) {
            fprintf(stderr, "fuzz_frame: header does not encode back to its bytes\n");
            abort();
        }
    }
    if (size - MQI_HDR_SIZE < h.len)
        return; /* next_frame waits for the rest */
    const uint8_t *data = frame + MQI_HDR_SIZE;
    if (mki_stream_validate(data, h.len, swap, MK_STREAM_MAX_DEPTH, &count, err) != MK_OK ||
        (uint32_t)count != h.items)
        return;
    if (mki_stream_load(body, data, h.len, swap) != MK_OK)
        return;
    body->err = err;
    read_like_the_link(&h, body);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 + MQI_HDR_SIZE)
        return 0;
    uint32_t max_frame = max_frames[data[0] & 3];
    MkErrorC *err = MkErrorCreate();
    MkBufferStreamC *body = MkBufferStreamCreate();
    int swap = 0;
    /* the preamble decoder sees the header's first 16 bytes too */
    mqi_preamble_decode(data + 1, &swap, err);
    for (swap = 0; swap <= 1; swap++)
        one_order(data + 1, size - 1, swap, max_frame, err, body);
    MkBufferStreamDelete(body);
    MkErrorDelete(err);
    return 0;
}
