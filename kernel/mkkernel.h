/* mkkernel.h — the mqlink kernel: typed values, buffer streams, buffer lists,
 * errors and logging.  Everything the link puts on the wire passes through
 * the codec declared here.
 *
 * Ownership rules, once for the whole file:
 *  - Objects returned by ...Create() are owned by the caller and freed with
 *    the matching ...Delete().
 *  - Objects returned by ...CreateTLS(name) belong to the calling thread; each
 *    call with the same name returns the same object, emptied.  Never Delete
 *    them (Delete ignores them).
 *  - Pointers returned through out-parameters (strings, binary data, buffers)
 *    are borrowed: valid until the object they came from is next written,
 *    reset or deleted.
 *  - Calls that return MkErrorE leave the reason in MkErrorDEFAULT(), the
 *    calling thread's kernel error.
 */
#ifndef MKKERNEL_H
#define MKKERNEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden: what this header declares is
 * its exported ABI (abi_test.sh compares the two), nothing else leaves it. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef int8_t MK_I8;
typedef int16_t MK_I16;
typedef int32_t MK_I32;
typedef int64_t MK_I64;
typedef float MK_FLT;
typedef double MK_DBL;
typedef bool MK_BOL;

/* The result of every call that can fail. */
typedef enum MkErrorE {
    MK_OK = 0,       /* done */
    MK_CONTINUE = 1, /* nothing to do now: not an error, try again later */
    MK_ERROR = 2     /* failed: the reason is on the error object */
} MkErrorE;

/* Item types; the numbers are the type bytes on the wire. */
typedef enum MkTypeE {
    MK_TYPE_NONE = 0,
    MK_TYPE_I8 = 1,
    MK_TYPE_I16 = 2,
    MK_TYPE_I32 = 3,
    MK_TYPE_I64 = 4,
    MK_TYPE_FLT = 5,
    MK_TYPE_DBL = 6,
    MK_TYPE_BOL = 7,
    MK_TYPE_STR = 8,
    MK_TYPE_BIN = 9,
    MK_TYPE_LST = 10,    /* start of a nested list */
    MK_TYPE_LST_END = 11 /* end of a nested list */
} MkTypeE;

/* Deepest nesting of lists a stream accepts, written or read. */
#define MK_STREAM_MAX_DEPTH 64

/* ------------------------------------------------------------------ errors */

typedef struct MkErrorC MkErrorC;

/* Create an empty error object. */
MkErrorC *MkErrorCreate(void);
/* Free an error object created by MkErrorCreate. */
void MkErrorDelete(MkErrorC *err);
/* The calling thread's kernel error: where kernel calls leave their reason. */
MkErrorC *MkErrorDEFAULT(void);
/* Set code and text (printf format); always returns MK_ERROR. */
MkErrorE MkErrorSet(MkErrorC *err, MK_I32 code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* MkErrorSet with a va_list. */
MkErrorE MkErrorSetV(MkErrorC *err, MK_I32 code, const char *fmt, va_list ap);
/* Add one line of context ("while reading ECUL") under the current text. */
void MkErrorStack(MkErrorC *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Clear the error: code 0, empty text. */
void MkErrorReset(MkErrorC *err);
/* Copy code and text from src into dst. */
void MkErrorCopy(MkErrorC *dst, const MkErrorC *src);
/* True when an error is set. */
MK_BOL MkErrorIsSet(const MkErrorC *err);
/* The error text ("" when none); borrowed until the error changes. */
const char *MkErrorGetText(const MkErrorC *err);
/* The error code (0 when none). */
MK_I32 MkErrorGetCode(const MkErrorC *err);

/* Error codes the kernel and the link use; applications use their own >= 1000. */
enum {
    MK_ERR_GENERIC = 1,
    MK_ERR_TYPE = 2,     /* item has another type, or a conversion fails */
    MK_ERR_RANGE = 3,    /* value does not fit the requested type */
    MK_ERR_END = 4,      /* no more items to read */
    MK_ERR_FORMAT = 5,   /* malformed encoded data */
    MK_ERR_NESTING = 6,  /* list nesting too deep or unbalanced */
    MK_ERR_MEMORY = 7,   /* out of memory or over a configured size limit */
    MK_ERR_ARGUMENT = 8, /* bad argument to an API call */
    MK_ERR_USER = 1000   /* first code free for applications */
};

/* ----------------------------------------------------------------- version */

/* The library's version, configure's AC_INIT version ("0.1.0"). */
const char *MkVersion(void);

/* ----------------------------------------------------------------- logging */

/* Log levels for MkLogSetLevel: messages at or below the level are printed. */
enum { MK_LOG_ERROR = 0, MK_LOG_WARN = 1, MK_LOG_INFO = 2, MK_LOG_DEBUG = 3, MK_LOG_TRACE = 4 };

/* Set the process-wide log level (default MK_LOG_WARN). */
void MkLogSetLevel(int level);
/* The process-wide log level. */
int MkLogGetLevel(void);
/* Print one line to stderr as "[who] message" when level <= the log level. */
void MkLog(int level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------------------- MkBufferC */

/* One typed value. */
typedef struct MkBufferC MkBufferC;

/* Create an empty buffer (type MK_TYPE_NONE). */
MkBufferC *MkBufferCreate(void);
/* Free a buffer created by MkBufferCreate or MkBufferDup. */
void MkBufferDelete(MkBufferC *buf);
/* A new buffer holding a copy of buf's value. */
MkBufferC *MkBufferDup(const MkBufferC *buf);
/* Empty the buffer (type MK_TYPE_NONE). */
void MkBufferReset(MkBufferC *buf);
/* The type of the value held. */
MkTypeE MkBufferGetType(const MkBufferC *buf);
/* The type's name ("I32", "STR", ...). */
const char *MkTypeName(MkTypeE type);

void MkBufferSetI8(MkBufferC *buf, MK_I8 v);
void MkBufferSetI16(MkBufferC *buf, MK_I16 v);
void MkBufferSetI32(MkBufferC *buf, MK_I32 v);
void MkBufferSetI64(MkBufferC *buf, MK_I64 v);
void MkBufferSetFLT(MkBufferC *buf, MK_FLT v);
void MkBufferSetDBL(MkBufferC *buf, MK_DBL v);
void MkBufferSetBOL(MkBufferC *buf, MK_BOL v);
/* Store a copy of the NUL-terminated string s. */
MkErrorE MkBufferSetSTR(MkBufferC *buf, const char *s);
/* Store a copy of size bytes at data (data may be NULL when size is 0). */
MkErrorE MkBufferSetBIN(MkBufferC *buf, const void *data, size_t size);
/* Copy src's value into buf. */
MkErrorE MkBufferCopy(MkBufferC *buf, const MkBufferC *src);

/* Checked reads: the value converted to the requested type, or MK_ERROR when
 * it cannot be represented (STR "300" read as I8, "abc" read as I32, a
 * fractional DBL read as an integer).  Numbers read as STR are rendered. */
MkErrorE MkBufferGetI8(MkBufferC *buf, MK_I8 *out);
MkErrorE MkBufferGetI16(MkBufferC *buf, MK_I16 *out);
MkErrorE MkBufferGetI32(MkBufferC *buf, MK_I32 *out);
MkErrorE MkBufferGetI64(MkBufferC *buf, MK_I64 *out);
MkErrorE MkBufferGetFLT(MkBufferC *buf, MK_FLT *out);
MkErrorE MkBufferGetDBL(MkBufferC *buf, MK_DBL *out);
MkErrorE MkBufferGetBOL(MkBufferC *buf, MK_BOL *out);
/* The value as text; borrowed until buf changes. BIN is not text: MK_ERROR. */
MkErrorE MkBufferGetSTR(MkBufferC *buf, const char **out);
/* The value as bytes (STR gives its text without the NUL); borrowed. */
MkErrorE MkBufferGetBIN(MkBufferC *buf, const void **data, size_t *size);

/* ---------------------------------------------------------- MkBufferStreamC */

/* An ordered sequence of typed items, encoded as the link sends them. */
typedef struct MkBufferStreamC MkBufferStreamC;

/* Create an empty stream. */
MkBufferStreamC *MkBufferStreamCreate(void);
/* The calling thread's stream called name, emptied; owned by the thread. */
MkBufferStreamC *MkBufferStreamCreateTLS(const char *name);
/* Free a stream from MkBufferStreamCreate (TLS streams are ignored). */
void MkBufferStreamDelete(MkBufferStreamC *bus);
/* Drop every item: the stream is empty and ready for writing. */
void MkBufferStreamReset(MkBufferStreamC *bus);
/* Move the read position back to the first item. */
void MkBufferStreamPosToStart(MkBufferStreamC *bus);
/* Number of items at the top level and inside lists, as written. */
MK_I32 MkBufferStreamCount(const MkBufferStreamC *bus);
/* Encoded size in bytes. */
size_t MkBufferStreamSize(const MkBufferStreamC *bus);

MkErrorE MkBufferStreamWriteI8(MkBufferStreamC *bus, MK_I8 v);
MkErrorE MkBufferStreamWriteI16(MkBufferStreamC *bus, MK_I16 v);
MkErrorE MkBufferStreamWriteI32(MkBufferStreamC *bus, MK_I32 v);
MkErrorE MkBufferStreamWriteI64(MkBufferStreamC *bus, MK_I64 v);
MkErrorE MkBufferStreamWriteFLT(MkBufferStreamC *bus, MK_FLT v);
MkErrorE MkBufferStreamWriteDBL(MkBufferStreamC *bus, MK_DBL v);
MkErrorE MkBufferStreamWriteBOL(MkBufferStreamC *bus, MK_BOL v);
/* Append the NUL-terminated string s (NULL is written as ""). */
MkErrorE MkBufferStreamWriteSTR(MkBufferStreamC *bus, const char *s);
/* Append size bytes at data as BIN. */
MkErrorE MkBufferStreamWriteBIN(MkBufferStreamC *bus, const void *data, size_t size);
/* Append buf's value with buf's type. */
MkErrorE MkBufferStreamWriteBUF(MkBufferStreamC *bus, const MkBufferC *buf);
/* Open a nested list; every L_START needs its L_END. */
MkErrorE MkBufferStreamWriteL_START(MkBufferStreamC *bus);
/* Close the innermost open list. */
MkErrorE MkBufferStreamWriteL_END(MkBufferStreamC *bus);

/* Reads take the next item, converted as MkBufferGet* converts. */
MkErrorE MkBufferStreamReadI8(MkBufferStreamC *bus, MK_I8 *out);
MkErrorE MkBufferStreamReadI16(MkBufferStreamC *bus, MK_I16 *out);
MkErrorE MkBufferStreamReadI32(MkBufferStreamC *bus, MK_I32 *out);
MkErrorE MkBufferStreamReadI64(MkBufferStreamC *bus, MK_I64 *out);
MkErrorE MkBufferStreamReadFLT(MkBufferStreamC *bus, MK_FLT *out);
MkErrorE MkBufferStreamReadDBL(MkBufferStreamC *bus, MK_DBL *out);
MkErrorE MkBufferStreamReadBOL(MkBufferStreamC *bus, MK_BOL *out);
/* The next item as text; borrowed until the stream is written or reset. */
MkErrorE MkBufferStreamReadSTR(MkBufferStreamC *bus, const char **out);
/* The next item as bytes; borrowed until the stream is written or reset. */
MkErrorE MkBufferStreamReadBIN(MkBufferStreamC *bus, const void **data, size_t *size);
/* The next item as a buffer owned by the stream, valid until the next
 * ReadBUF on this stream; no copy of STR/BIN data is made. */
MkErrorE MkBufferStreamReadBUF(MkBufferStreamC *bus, MkBufferC **out);
/* Enter the nested list that is the next item. */
MkErrorE MkBufferStreamReadL_START(MkBufferStreamC *bus);
/* Leave the current nested list, skipping what was not read of it. */
MkErrorE MkBufferStreamReadL_END(MkBufferStreamC *bus);
/* True when an item is left to read in the current list (or top level). */
MK_BOL MkBufferStreamReadItemExists(const MkBufferStreamC *bus);
/* Type of the next item (MK_TYPE_NONE at the end of the current list). */
MkTypeE MkBufferStreamReadGetType(const MkBufferStreamC *bus);

/* ------------------------------------------------------------ MkBufferListC */

/* An array of typed values. */
typedef struct MkBufferListC MkBufferListC;

/* Create an empty list. */
MkBufferListC *MkBufferListCreate(void);
/* The calling thread's list called name, emptied; owned by the thread. */
MkBufferListC *MkBufferListCreateTLS(const char *name);
/* Free a list from MkBufferListCreate (TLS lists are ignored). */
void MkBufferListDelete(MkBufferListC *bfl);
/* Remove every value. */
void MkBufferListReset(MkBufferListC *bfl);
/* Number of values. */
MK_I32 MkBufferListSize(const MkBufferListC *bfl);
/* The value at index i, borrowed from the list; NULL (and an error) when out of range. */
MkBufferC *MkBufferListIndexGet(MkBufferListC *bfl, MK_I32 i);

MkErrorE MkBufferListAppendI8(MkBufferListC *bfl, MK_I8 v);
MkErrorE MkBufferListAppendI16(MkBufferListC *bfl, MK_I16 v);
MkErrorE MkBufferListAppendI32(MkBufferListC *bfl, MK_I32 v);
MkErrorE MkBufferListAppendI64(MkBufferListC *bfl, MK_I64 v);
MkErrorE MkBufferListAppendFLT(MkBufferListC *bfl, MK_FLT v);
MkErrorE MkBufferListAppendDBL(MkBufferListC *bfl, MK_DBL v);
MkErrorE MkBufferListAppendBOL(MkBufferListC *bfl, MK_BOL v);
/* Append a copy of the string s. */
MkErrorE MkBufferListAppendSTR(MkBufferListC *bfl, const char *s);
/* Append a copy of size bytes at data. */
MkErrorE MkBufferListAppendBIN(MkBufferListC *bfl, const void *data, size_t size);
/* Append a copy of buf's value. */
MkErrorE MkBufferListAppendBUF(MkBufferListC *bfl, const MkBufferC *buf);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* MKKERNEL_H */
