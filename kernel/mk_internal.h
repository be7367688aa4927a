/* mk_internal.h — kernel internals shared with the link (never installed).
 * Internal names use the mki_ prefix. */
#ifndef MK_INTERNAL_H
#define MK_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "mkkernel.h"

/* The few kernel internals libmqlink calls: exported from libmkkernel.so
 * (the two libraries are separate objects) but no part of the API;
 * abi_test.sh allows exactly the functions marked so, nothing else mki_. */
#define MKI_SHARED __attribute__((visibility("default")))

/* A buffer's storage: small values inline, large ones on the heap, or borrowed
 * from a stream (zero copy for ReadBUF). */
struct MkBufferC {
    MkTypeE type;
    union {
        MK_I8 i8;
        MK_I16 i16;
        MK_I32 i32;
        MK_I64 i64;
        MK_FLT flt;
        MK_DBL dbl;
        MK_BOL bol;
    } v;
    const char *data; /* STR (NUL-terminated) or BIN bytes */
    size_t size;      /* bytes, without the NUL of a STR */
    char *heap;       /* owned copy when data does not fit inline */
    size_t heap_cap;
    char text[40];    /* inline copy, or a number rendered as text */
};

/* Stream encoding: items follow each other without padding.
 *   [type u8][value]  fixed types in the writer's byte order
 *   STR: [u32 len][len bytes][NUL]    BIN: [u32 len][len bytes]
 *   LST: [type u8] ... LST_END: [type u8]
 * A reader whose swap flag is set byte-swaps numbers and lengths. */
struct MkBufferStreamC {
    unsigned char *data;
    size_t len;     /* bytes written */
    size_t cap;
    size_t rpos;    /* next byte to read */
    MK_I32 count;   /* items written (or, for received data, as validated) */
    int wdepth;     /* open lists while writing */
    int rdepth;     /* entered lists while reading */
    int swap;       /* data came from a peer of the other byte order */
    int tls;        /* owned by a thread, Delete ignores it */
    MkBufferC rbuf; /* returned by ReadBUF */
    MkErrorC *err;  /* where errors go; NULL means MkErrorDEFAULT() */
};

struct MkBufferListC {
    MkBufferC **items;
    MK_I32 size;
    MK_I32 cap;
    int tls;
};

struct MkErrorC {
    MK_I32 code;
    char *text;
    size_t len;
    size_t cap;
};

/* Release the text of an error embedded in another struct (zeroed
 * storage is an empty error: nothing to initialise). */
MKI_SHARED void mki_error_release(MkErrorC *err);
/* MkErrorSet(err, code, "%s", text) for a text that lives as long as the
 * program (a literal): an error without a buffer yet points at it instead
 * of allocating one (a link's ordinary end, once per parent). */
MKI_SHARED MkErrorE mki_error_set_fixed(MkErrorC *err, MK_I32 code, const char *text);

/* Initialise / release a stream embedded in another struct (zeroed storage
 * is an initialised empty stream: MK_TYPE_NONE is 0).  mki_stream_free
 * leaves it empty and ready again; mki_stream_release leaves garbage, for
 * storage about to be freed (a context's send stream, once per parent). */
MKI_SHARED void mki_stream_init(MkBufferStreamC *bus);
MKI_SHARED void mki_stream_free(MkBufferStreamC *bus);
MKI_SHARED void mki_stream_release(MkBufferStreamC *bus);
/* Make room for n more bytes; MK_ERROR when out of memory. */
MkErrorE mki_stream_reserve(MkBufferStreamC *bus, size_t n);
/* Replace the stream's content with a copy of received bytes, ready to read. */
MKI_SHARED MkErrorE mki_stream_load(MkBufferStreamC *bus, const void *data, size_t len, int swap);
/* Check that len bytes are a well-formed sequence of items: every type
 * known, every length inside the data, lists balanced and no deeper than
 * max_depth.  Sets *count to the number of items.  Reason in err. */
MKI_SHARED MkErrorE mki_stream_validate(const void *data, size_t len, int swap, int max_depth,
                             MK_I32 *count, MkErrorC *err);
/* Copy the next item (a whole list for LST) from src into dst, converting
 * the byte order when needed. */
MKI_SHARED MkErrorE mki_stream_copy_item(MkBufferStreamC *dst, MkBufferStreamC *src);

/* Initialise / release a buffer embedded in another struct. */
void mki_buffer_init(MkBufferC *buf);
void mki_buffer_free(MkBufferC *buf);
/* Point buf at borrowed STR/BIN bytes (no copy). */
void mki_buffer_borrow(MkBufferC *buf, MkTypeE type, const char *data, size_t size);

/* Grow-or-fail helper: realloc to room for at least need items of elem
 * bytes, doubling from 256 bytes' worth. */
MKI_SHARED void *mki_grow(void *p, size_t *cap, size_t need, size_t elem);

/* A zeroed object of size bytes, or NULL.  malloc + memset instead of
 * calloc: glibc's calloc (2.36 here) bypasses the per-thread cache, so an
 * object made and freed over and over (a context and a connection per new
 * parent) went through the allocator's bins both ways.  Per parent on uds
 * (callgrind, perfclient --parent --wrk 5): 560 instructions less on a
 * --thread server (5 290 -> 4 730), 350 on the client (4 080 -> 3 720). */
static inline void *
mki_zalloc(size_t size)
{
    void *p = malloc(size);
    /* hide p from the optimizer, which would fold the two back into calloc */
    __asm__("" : "+r"(p));
    return p ? memset(p, 0, size) : NULL;
}

/* Byte swapping. */
static inline uint16_t mki_swap16(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t mki_swap32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t mki_swap64(uint64_t v) { return __builtin_bswap64(v); }

/* ------------------------------------------------------------------------
 * Added by the kernel (kernel-internal helpers; the link may use them too).
 * ---------------------------------------------------------------------- */

/* Note on mki_stream_load: it leaves bus->count at 0; store the count that
 * mki_stream_validate returned when the stream's count matters.  A loaded
 * stream is for reading: writes always append in native byte order.
 * Note on mki_buffer_borrow: STR data must be followed by a NUL (stream
 * data always is), because conversions parse it as a C string. */

/* Free the calling thread's CreateTLS streams and lists and its
 * MkErrorDEFAULT text; call when a thread ends.  Later CreateTLS calls
 * start afresh. */
MKI_SHARED void mki_tls_free_all(void);

/* The thread registry behind CreateTLS: find an object by kind and name, or
 * add one (destroy frees it in mki_tls_free_all). */
enum { MKI_TLS_STREAM = 1, MKI_TLS_LIST = 2 };
void *mki_tls_find(int kind, const char *name);
MkErrorE mki_tls_add(int kind, const char *name, void *obj, void (*destroy)(void *));
/* Release the text of the calling thread's MkErrorDEFAULT (error.c). */
void mki_error_tls_free(void);

/* Checked conversions behind MkBufferGet* and the stream reads.  The source
 * is only read (type, v, data, size), so a stack MkBufferC that borrows a
 * stream item works without allocating.  err NULL means MkErrorDEFAULT().
 * mki_conv_int checks the range of want (I8..I64); mki_conv_str renders
 * numbers into text (at least sizeof(MkBufferC.text) bytes). */
MkErrorE mki_conv_int(const MkBufferC *b, MkTypeE want, MK_I64 *out, MkErrorC *err);
MkErrorE mki_conv_flt(const MkBufferC *b, MK_FLT *out, MkErrorC *err);
MkErrorE mki_conv_dbl(const MkBufferC *b, MK_DBL *out, MkErrorC *err);
MkErrorE mki_conv_bol(const MkBufferC *b, MK_BOL *out, MkErrorC *err);
MkErrorE mki_conv_str(const MkBufferC *b, char *text, const char **out, MkErrorC *err);
MkErrorE mki_conv_bin(const MkBufferC *b, const void **data, size_t *size, MkErrorC *err);

/* One encoded item, as mki_item_at finds it. */
typedef struct mki_item {
    MkTypeE type;
    const unsigned char *value; /* the fixed value, or the STR/BIN bytes */
    size_t n;                   /* STR/BIN byte count (without the NUL) */
    size_t size;                /* the whole item in bytes */
} mki_item;

enum { MKI_ITEM_OK = 0, MKI_ITEM_UNKNOWN, MKI_ITEM_TRUNCATED, MKI_ITEM_NO_NUL };

/* Decode the item at data[pos] (pos < len) without reading past len;
 * returns MKI_ITEM_OK or why the bytes are not an item. */
int mki_item_at(const unsigned char *data, size_t len, size_t pos, int swap, mki_item *it);
/* Set buf's type and value from a decoded item (numbers by value, STR/BIN
 * borrowed); only type, v, data and size change, so buf keeps its heap. */
void mki_item_value(const mki_item *it, int swap, MkBufferC *buf);

#endif /* MK_INTERNAL_H */
