/* frames.c — fuzz_server's input format, structure-aware so that most inputs
 * reach the services, the internal calls and storage instead of dying at
 * the first header check:
 *
 *   input  := pre frame*
 *   pre    bit 0: announce the other byte order ('B' on little-endian), so
 *                 headers and item bodies are written byte-swapped
 *          bit 1: corrupt the preamble (next two bytes: offset, value)
 *   frame  := op token child trans body
 *   op     bits 0-2: kind 0 CALL_WAIT 1 CALL_CB 2,3 ONEWAY 4 RETURN 5 ERROR
 *                    6 raw bytes (length byte, bytes), 7 kind byte follows
 *          bit 3: flip the internal flag (set by default on '_' tokens)
 *          bit 4: persistent (MQI_F_PERSIST)
 *          bits 5-7 body: 0 empty, 1-3 items, 4 items with a wrong item count,
 *                 5 items with a wrong length, 6 raw (length u16, items byte,
 *                 bytes), 7 items with lists left open
 *   token  index into tokens[]; 15: four raw bytes follow
 *   child  below 0xF0: that value mod 4; else a raw u32 follows
 *   trans  below 0xF0: that value; else a raw u64 follows
 *   items  count byte (mod 16), then per item a type byte and its value,
 *          see put_item
 *
 * Raw u16/u32/u64 values are little-endian in the input. */
#include <stdio.h>
#include <stdlib.h>

#include "frames.h"

static const char tokens[16][5] = {
    "NTHT", "RDUL", "ECUL", "BUST", "BFLT", "_CHC", "_CHD", "_SID",
    "_LWM", "_CLS", "ECUL", "RDUL", "NONE", "_XYZ", "BUST", "",
};
#define RAW_TOKEN 15
static const uint8_t kinds[6] = {MQI_CALL_WAIT, MQI_CALL_CB, MQI_ONEWAY, MQI_ONEWAY,
                                 MQI_RETURN, MQI_ERROR};
enum { OP_RAW = 6, OP_KIND = 7 };
enum { BODY_EMPTY = 0, BODY_BAD_COUNT = 4, BODY_BAD_LEN = 5, BODY_RAW = 6, BODY_OPEN = 7 };

void
fuzz_out_put(fuzz_out *o, const void *p, size_t n)
{
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + n)
            cap *= 2;
        unsigned char *t = realloc(o->p, cap);
        if (!t)
            abort();
        o->p = t;
        o->cap = cap;
    }
    if (n)
        memcpy(o->p + o->len, p, n);
    o->len += n;
}

void
fuzz_out_free(fuzz_out *o)
{
    free(o->p);
    *o = (fuzz_out){0};
}

static uint64_t
raw_le(fuzz_in *in, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)fuzz_byte(in) << (8 * i);
    return v;
}

static void
put_le(fuzz_out *o, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        unsigned char b = (unsigned char)(v >> (8 * i));
        fuzz_out_put(o, &b, 1);
    }
}

static void
reverse(unsigned char *v, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        unsigned char t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
}

/* An n-byte number in the announced order (the harness runs on
 * little-endian hosts: memcpy gives the low n bytes). */
static void
put_num(unsigned char *at, uint64_t v, int n, int swap)
{
    memcpy(at, &v, (size_t)n);
    if (swap)
        reverse(at, (size_t)n);
}

static void
header(unsigned char *out, const mqi_hdr *h, int swap)
{
    out[0] = MQI_MAGIC0;
    out[1] = MQI_MAGIC1;
    out[2] = MQI_VERSION;
    out[3] = h->kind;
    memcpy(out + 4, h->token, 4);
    put_num(out + 8, h->child, 4, swap);
    put_num(out + 12, h->flags, 4, swap);
    put_num(out + 16, h->trans, 8, swap);
    put_num(out + 24, h->items, 4, swap);
    put_num(out + 28, h->len, 4, swap);
}

/* A body written natively, turned into the other byte order in place:
 * every number and every STR/BIN length prefix reversed. */
static void
swap_items(unsigned char *p, size_t len)
{
    mki_item it;
    for (size_t pos = 0; pos < len && mki_item_at(p, len, pos, 0, &it) == MKI_ITEM_OK;
         pos += it.size)
        reverse(p + pos + 1, it.type == MK_TYPE_STR || it.type == MK_TYPE_BIN ? 4 : it.size - 1);
}

static void
put_text(MkBufferStreamC *b, fuzz_in *in, size_t n)
{
    char s[64];
    fuzz_bytes(in, s, n);
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\0')
            s[i] = 'x';
    s[n] = '\0';
    MkBufferStreamWriteSTR(b, s);
}

/* One item (type byte mod 16, then its value), written with the stream
 * writers as a real sender would; 11-15 are shapes the services and the
 * internal calls expect, so the fuzzer need not discover them. */
static void
put_item(MkBufferStreamC *b, fuzz_in *in)
{
    unsigned t = fuzz_byte(in) & 15;
    unsigned char v[16];
    char s[48];
    switch (t) {
    case 0: MkBufferStreamWriteI8(b, (MK_I8)fuzz_byte(in)); break;
    case 1: fuzz_bytes(in, v, 2); MkBufferStreamWriteI16(b, (MK_I16)(v[0] | v[1] << 8)); break;
    case 2: MkBufferStreamWriteI32(b, (MK_I32)raw_le(in, 4)); break;
    case 3: MkBufferStreamWriteI64(b, (MK_I64)raw_le(in, 8)); break;
    case 4: fuzz_bytes(in, v, 4); { MK_FLT f; memcpy(&f, v, 4); MkBufferStreamWriteFLT(b, f); } break;
    case 5: fuzz_bytes(in, v, 8); { MK_DBL d; memcpy(&d, v, 8); MkBufferStreamWriteDBL(b, d); } break;
    case 6: MkBufferStreamWriteBOL(b, fuzz_byte(in) & 1); break;
    case 7: put_text(b, in, fuzz_byte(in) % 48); break;
    case 8: {
        size_t got, n = fuzz_byte(in);
        const uint8_t *p = fuzz_take(in, n, &got);
        MkBufferStreamWriteBIN(b, p, got);
        break;
    }
    case 9: MkBufferStreamWriteL_START(b); break;
    case 10: MkBufferStreamWriteL_END(b); break;
    case 11: /* a storage identity for _SID: 32 hex digits */
        fuzz_bytes(in, v, 16);
        for (int i = 0; i < 16; i++)
            snprintf(s + 2 * i, 3, "%02x", v[i]);
        MkBufferStreamWriteSTR(b, s);
        break;
    case 12: /* perfclient's row: I8 I16 I32 DBL and a BIN */
        MkBufferStreamWriteI8(b, (MK_I8)fuzz_byte(in));
        MkBufferStreamWriteI16(b, (MK_I16)raw_le(in, 2));
        MkBufferStreamWriteI32(b, (MK_I32)raw_le(in, 4));
        MkBufferStreamWriteDBL(b, (MK_DBL)(MK_I32)raw_le(in, 4));
        fuzz_bytes(in, v, 8);
        MkBufferStreamWriteBIN(b, v, fuzz_byte(in) % 9);
        break;
    case 13: MkBufferStreamWriteI64(b, fuzz_byte(in)); break; /* a low-water mark */
    case 14: MkBufferStreamWriteI32(b, fuzz_byte(in)); break;
    default: snprintf(s, sizeof s, "%d", (int)(int8_t)fuzz_byte(in)); /* text to convert */
        MkBufferStreamWriteSTR(b, s);
        break;
    }
}

/* Items from the input into body; mode says what goes wrong on purpose. */
static void
item_body(fuzz_in *in, int mode, int swap, mqi_hdr *h, fuzz_out *body)
{
    MkBufferStreamC *b = MkBufferStreamCreate();
    unsigned n = fuzz_byte(in) & 15;
    for (unsigned i = 0; i < n; i++)
        put_item(b, in);
    while (mode != BODY_OPEN && b->wdepth > 0)
        MkBufferStreamWriteL_END(b);
    MK_I32 count = 0;
    mki_stream_validate(b->data, b->len, 0, 1000, &count, NULL);
    if (swap)
        swap_items(b->data, b->len);
    fuzz_out_put(body, b->data, b->len);
    h->items = (uint32_t)count;
    h->len = (uint32_t)b->len;
    if (mode == BODY_BAD_COUNT)
        h->items += (uint32_t)(int32_t)(int8_t)(fuzz_byte(in) | 1);
    if (mode == BODY_BAD_LEN)
        h->len += (uint32_t)(int32_t)(int8_t)(fuzz_byte(in) | 1);
    MkBufferStreamDelete(b);
}

static void
raw_body(fuzz_in *in, mqi_hdr *h, fuzz_out *body)
{
    size_t got, n = (size_t)raw_le(in, 2);
    uint8_t items = fuzz_byte(in);
    h->items = items == 0xFF ? (uint32_t)raw_le(in, 4) : items;
    const uint8_t *p = fuzz_take(in, n, &got);
    fuzz_out_put(body, p, got);
    h->len = (uint32_t)got;
}

/* One frame, or raw bytes, from the input onto the wire. */
static void
build_frame(fuzz_in *in, int swap, fuzz_out *wire)
{
    uint8_t op = fuzz_byte(in);
    mqi_hdr h = {0};
    unsigned k = op & 7;
    if (k == OP_RAW) {
        size_t got;
        const uint8_t *p = fuzz_take(in, fuzz_byte(in), &got);
        fuzz_out_put(wire, p, got);
        return;
    }
    h.kind = k == OP_KIND ? fuzz_byte(in) : kinds[k];
    unsigned t = fuzz_byte(in) & 15;
    if (t == RAW_TOKEN)
        fuzz_bytes(in, h.token, 4);
    else
        memcpy(h.token, tokens[t], 5);
    h.flags = (h.token[0] == '_') ^ ((op >> 3) & 1) ? MQI_F_INTERNAL : 0;
    if (op & 0x10)
        h.flags |= MQI_F_PERSIST;
    uint8_t c = fuzz_byte(in);
    h.child = c < 0xF0 ? c % 4u : (uint32_t)raw_le(in, 4);
    uint8_t tr = fuzz_byte(in);
    h.trans = tr < 0xF0 ? tr : raw_le(in, 8);
    fuzz_out body = {0};
    int mode = op >> 5;
    if (mode == BODY_RAW)
        raw_body(in, &h, &body);
    else if (mode != BODY_EMPTY)
        item_body(in, mode, swap, &h, &body);
    unsigned char hdr[MQI_HDR_SIZE];
    header(hdr, &h, swap);
    fuzz_out_put(wire, hdr, sizeof hdr);
    fuzz_out_put(wire, body.p, body.len);
    fuzz_out_free(&body);
}

void
fuzz_frames_build(fuzz_in *in, fuzz_out *wire)
{
    uint8_t pre = fuzz_byte(in);
    int swap = pre & 1;
    unsigned char p[MQI_PREAMBLE_SIZE];
    mqi_preamble_encode(p, 0);
    if (swap)
        p[5] = 'B';
    if (pre & 2) {
        uint8_t at = fuzz_byte(in);
        p[at % MQI_PREAMBLE_SIZE] = fuzz_byte(in);
    }
    fuzz_out_put(wire, p, sizeof p);
    for (int i = 0; i < FUZZ_MAX_FRAMES && in->left > 0; i++)
        build_frame(in, swap, wire);
}

void
fuzz_frames_seed_start(fuzz_out *seed)
{
    fuzz_out_put(seed, "\0", 1);
}

void
fuzz_frames_seed_frame(fuzz_out *seed, const mqi_hdr *h, const void *body)
{
    int k = 0;
    while (k < 6 && kinds[k] != h->kind)
        k++;
    int t = 0;
    while (t < RAW_TOKEN && memcmp(tokens[t], h->token, 4))
        t++;
    int internal = (h->flags & MQI_F_INTERNAL) != 0;
    uint8_t op = (uint8_t)((k < 6 ? k : OP_KIND) | (internal != (h->token[0] == '_')) << 3 |
                           ((h->flags & MQI_F_PERSIST) ? 0x10 : 0) | BODY_RAW << 5);
    fuzz_out_put(seed, &op, 1);
    if (k == 6)
        fuzz_out_put(seed, &h->kind, 1);
    uint8_t tb = (uint8_t)t;
    fuzz_out_put(seed, &tb, 1);
    if (t == RAW_TOKEN)
        fuzz_out_put(seed, h->token, 4);
    if (h->child < 4) {
        put_le(seed, h->child, 1);
    } else {
        put_le(seed, 0xF0, 1);
        put_le(seed, h->child, 4);
    }
    if (h->trans < 0xF0) {
        put_le(seed, h->trans, 1);
    } else {
        put_le(seed, 0xF0, 1);
        put_le(seed, h->trans, 8);
    }
    put_le(seed, h->len, 2); /* seeds are small frames */
    if (h->items < 0xFF) {
        put_le(seed, h->items, 1);
    } else {
        put_le(seed, 0xFF, 1);
        put_le(seed, h->items, 4);
    }
    fuzz_out_put(seed, body, h->len);
}
