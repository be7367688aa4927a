/* fuzz.h — what the fuzz targets share: the libFuzzer entry point each one
 * defines, and a reader that takes the fuzzer's bytes as decisions and
 * values (an exhausted input reads as zeros, so every input is usable). */
#ifndef MQ_FUZZ_H
#define MQ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Run one input; returns 0.  A crash or a sanitizer report is the finding. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_in {
    const uint8_t *p;
    size_t left;
} fuzz_in;

static inline uint8_t
fuzz_byte(fuzz_in *in)
{
    if (in->left == 0)
        return 0;
    in->left--;
    return *in->p++;
}

/* n bytes into out, zero-filled past the end of the input. */
static inline void
fuzz_bytes(fuzz_in *in, void *out, size_t n)
{
    size_t k = n < in->left ? n : in->left;
    memcpy(out, in->p, k);
    memset((char *)out + k, 0, n - k);
    in->p += k;
    in->left -= k;
}

/* Up to n bytes of the input itself (no copy); sets *got. */
static inline const uint8_t *
fuzz_take(fuzz_in *in, size_t n, size_t *got)
{
    const uint8_t *p = in->p;
    *got = n < in->left ? n : in->left;
    in->p += *got;
    in->left -= *got;
    return p;
}

#endif /* MQ_FUZZ_H */
