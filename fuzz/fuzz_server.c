/* fuzz_server.c — libFuzzer target: a whole server instance fed over a
 * socketpair.  The input is decoded by frames.c into what a client writes
 * (preamble, then frames of every kind, to the five services and the
 * internal calls _CHC _CHD _SID _LWM _CLS, with valid, miscounted and raw
 * bodies); harness.c serves it on a real instance with in-memory storage
 * and drains the answers. */
#include "frames.h"
#include "harness.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    fuzz_out wire = {0};
    fuzz_frames_build(&in, &wire);
    fuzz_harness_run(fuzz_harness_template(), wire.p, wire.len);
    fuzz_out_free(&wire);
    return 0;
}
