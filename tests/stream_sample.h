/* stream_sample.h — sample streams shared by stream_test and
 * stream_wire_test (test code only, never in the library). */
#ifndef MK_STREAM_SAMPLE_H
#define MK_STREAM_SAMPLE_H

#include "mk_internal.h"

/* Text of the calling thread's kernel error, for MQT_OK. */
#define ERRTEXT MkErrorGetText(MkErrorDEFAULT())
#define ERRCODE MkErrorGetCode(MkErrorDEFAULT())

/* Items write_all_types writes, as MkBufferStreamCount counts them: 24
 * scalars, a list (LST + 2 items) and a final I32. */
#define ALL_TYPES_COUNT 28
/* Top-level items before the list in write_all_types. */
#define ALL_TYPES_SCALARS 24

/* Every type at its boundaries, then a list, then an I32. */
void write_all_types(MkBufferStreamC *s);
/* Read back what write_all_types wrote, checking every value (items that
 * follow are left unread). */
void check_all_types(MkBufferStreamC *s);
/* Level i holds I32 i, STR "level" and the list of level i+1; the deepest
 * holds DBL 1.5; after the lists comes I64 -7.  Count: levels * 3 + 2. */
void write_nested(MkBufferStreamC *s, int levels);
/* Byte-swap every number and length of a native encoding in place: what a
 * peer of the other byte order would have sent. */
void swap_encoding(unsigned char *p, size_t len);

#endif
