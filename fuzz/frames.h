/* frames.h — fuzz_server's input format: the fuzzer's bytes are decisions
 * that build what a client writes (preamble, then frames with chosen kind,
 * flags, token, child id, transaction and body), and the way back, so real
 * captured frames become seeds in that format (see frames.c). */
#ifndef MQ_FUZZ_FRAMES_H
#define MQ_FUZZ_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz.h"
#include "link_int.h"

/* A growing byte buffer. */
typedef struct fuzz_out {
    unsigned char *p;
    size_t len;
    size_t cap;
} fuzz_out;

void fuzz_out_put(fuzz_out *o, const void *p, size_t n);
void fuzz_out_free(fuzz_out *o);

/* The bytes a client writes, built from the input (at most FUZZ_MAX_FRAMES
 * frames). */
#define FUZZ_MAX_FRAMES 64
void fuzz_frames_build(fuzz_in *in, fuzz_out *wire);

/* Seeds: one input byte for a native preamble, then one frame as it was
 * captured on the wire (header in our byte order, body kept as it is). */
void fuzz_frames_seed_start(fuzz_out *seed);
void fuzz_frames_seed_frame(fuzz_out *seed, const mqi_hdr *h, const void *body);

#endif /* MQ_FUZZ_FRAMES_H */
