/* mqlink.h — the mqlink link: contexts, services, typed send and read, the
 * event loop, transports and server start modes.
 *
 * Lifetime rules, once for the whole file:
 *  - A context (MqContextC) is a handle: created by MqContextCreate (or by the
 *    library's factory for a server instance), freed by MqContextDelete.
 *    Deleting a parent deletes its children first.
 *  - A link is the connection a context owns (parent) or shares (child);
 *    MqLinkCreate opens it, MqLinkDelete closes it, MqContextDelete closes it
 *    too.  A context is single-threaded: one thread at a time uses a context
 *    and its children.  Different parents may live in different threads.
 *  - A call (SendEND*, a service run) is a request: it lives from SendSTART to
 *    its answer.  Read* pointers are borrowed until the next read on the
 *    context or the end of the service / callback that received them.
 *  - Callbacks (services, server setup, call callbacks) get the data pointer
 *    they were registered with; its free function runs when the registration
 *    ends (service replaced or context deleted, callback called once).
 *  - Every call returning MkErrorE leaves the reason on the context:
 *    MqErrorGetText(ctx).
 */
#ifndef MQLINK_H
#define MQLINK_H

#include "mkkernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden: what this header declares is
 * its exported ABI (abi_test.sh compares the two), nothing else leaves it. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* One end of a link. */
typedef struct MqContextC MqContextC;

/* How long MqProcessEvent waits. */
typedef enum MqWaitE {
    MQ_WAIT_NO = 0,     /* handle what has arrived, never block */
    MQ_WAIT_ONCE = 1,   /* block until at least one event or the timeout */
    MQ_WAIT_FOREVER = 2 /* serve until the link ends */
} MqWaitE;

/* A timeout of MQ_TIMEOUT_DEFAULT means the context's --timeout. */
#define MQ_TIMEOUT_DEFAULT (-1)
/* Default --timeout in seconds. */
#define MQ_TIMEOUT_DEFAULT_SEC 90

/* Error codes of the link (beside the kernel's MK_ERR_*). */
enum {
    MQ_ERR_TIMEOUT = 100,   /* no answer within the timeout */
    MQ_ERR_LINK = 101,      /* link not connected, closed or broken */
    MQ_ERR_PROTOCOL = 102,  /* the peer sent a malformed frame */
    MQ_ERR_SERVICE = 103,   /* unknown service token */
    MQ_ERR_OPTION = 104,    /* bad command-line option */
    MQ_ERR_SYSTEM = 105,    /* an operating-system call failed */
    MQ_ERR_STORAGE = 106    /* the persistent storage failed */
};

/* A service, server setup or call callback. */
typedef MkErrorE (*MqServiceCallF)(MqContextC *ctx, void *data);
/* Frees a callback's data when the library drops the callback. */
typedef void (*MqDataFreeF)(void *data);
/* Creates a new server instance from the template context tmpl (a wrapper
 * plugs its class in here); returns NULL after setting an error on tmpl. */
typedef MqContextC *(*MqFactoryF)(MqContextC *tmpl, void *data);

/* ---------------------------------------------------------------- contexts */

/* Create an unconnected context with default configuration. */
MqContextC *MqContextCreate(void);
/* Close the link (children first) and free the context. */
void MqContextDelete(MqContextC *ctx);
/* Attach a pointer for the application or wrapper (not owned). */
void MqContextSetUserData(MqContextC *ctx, void *data);
/* The pointer given to MqContextSetUserData (NULL by default). */
void *MqContextGetUserData(MqContextC *ctx);
/* Called once at the start of MqContextDelete, also when the library deletes
 * a server instance it created; a wrapper drops its reference there. */
void MqContextSetDestroyCallback(MqContextC *ctx, void (*fn)(MqContextC *ctx, void *data),
                                 void *data);

/* Hooks around every wait that can block the calling thread inside the
 * library: for input or output on a link, a storage commit, a listener's
 * accept, a server process to end.  A language runtime with a global lock
 * (CPython's GIL) releases it in enter and takes it back in leave, so other
 * threads run while this one waits, and frames that are handled without
 * waiting cost nothing extra.  enter's result is passed to its leave; no
 * library call is made in between.  Process-wide; set before the first
 * link, NULL for both switches them off. */
typedef void *(*MqBlockEnterF)(void);
typedef void (*MqBlockLeaveF)(void *token);
void MqSetBlockingHooks(MqBlockEnterF enter, MqBlockLeaveF leave);
/* The scoped form of the blocking hooks, for a runtime that can release its
 * lock only around a function (Ruby: rb_thread_call_without_gvl2): at each
 * of the same waits the library calls run(fn, arg), and fn makes exactly the
 * one system call that may sleep.  run calls fn at most once, lock released;
 * it returns nonzero when the thread has an interrupt to handle (fn woken
 * or not called at all): the library then ends the wait in progress early
 * (an event-loop wait returns as if its timeout had passed, a listener
 * stops) and the runtime handles the interrupt when the call returns.
 * Preferred to the enter/leave hooks when both are set; process-wide; set
 * before the first link, NULL switches it off. */
typedef void *(*MqBlockingFnF)(void *arg);
typedef int (*MqBlockingCallF)(MqBlockingFnF fn, void *arg);
void MqSetBlockingCall(MqBlockingCallF run);
/* Hooks run by every thread the library creates (the --thread pool): start
 * first thing in the thread, end as the last thing before it ends, both
 * outside any blocking section.  A runtime attaches the thread once (CPython:
 * one thread state per pool thread instead of one per callback).
 * Process-wide; set before the first link, NULL for both switches them off. */
typedef void (*MqThreadHookF)(void);
void MqSetThreadHooks(MqThreadHookF start, MqThreadHookF end);

/* The library's version, configure's AC_INIT version ("0.1.0"); every
 * program built on the link prints it with --version. */
const char *MqVersion(void);

/* -------------------------------------------------------------- configuration */

/* Register the setup run on every new server instance (each parent and child);
 * a context with a server setup is a server. */
void MqConfigSetServerSetup(MqContextC *ctx, MqServiceCallF fn, void *data, MqDataFreeF free);
/* Register the factory that creates server instances (default: MqContextCreate). */
void MqConfigSetFactory(MqContextC *ctx, MqFactoryF fn, void *data, MqDataFreeF free);
/* Set the name used in logs and errors (--name). */
void MqConfigSetName(MqContextC *ctx, const char *name);
/* The context's name. */
const char *MqConfigGetName(MqContextC *ctx);
/* Set the default timeout in milliseconds (--timeout takes seconds). */
void MqConfigSetTimeout(MqContextC *ctx, MK_I64 timeout_ms);
/* The default timeout in milliseconds. */
MK_I64 MqConfigGetTimeout(MqContextC *ctx);
/* True for a server context. */
MK_BOL MqConfigGetIsServer(MqContextC *ctx);

/* -------------------------------------------------------------------- links */

/* Open the link from command-line style arguments (argv[0] is the program):
 *   client:  [options] @ server-program [server-args]   (pipe)
 *            --uds --file PATH | --tcp --host H --port P
 *   server:  the same options; with --fork, --thread or --spawn a listening
 *            server serves every connection and does not return until the
 *            listener fails or the process is told to stop.
 * Unknown options are errors naming the option; --help prints the options
 * and exits, --version prints "PROGRAM (mqlink VERSION)" and exits. */
MkErrorE MqLinkCreate(MqContextC *ctx, int argc, const char **argv);
/* Open child as a child of parent, multiplexed over the parent's link; the
 * server creates a new instance for it. */
MkErrorE MqLinkCreateChild(MqContextC *child, MqContextC *parent);
/* Close the link (children first); the context can be linked again. */
MkErrorE MqLinkDelete(MqContextC *ctx);
/* True while the link is up. */
MK_BOL MqLinkIsConnected(MqContextC *ctx);
/* The parent of a child context, ctx itself for a parent. */
MqContextC *MqLinkGetParent(MqContextC *ctx);

/* ----------------------------------------------------------------- services */

/* Register fn for the 4-character token (replacing an earlier one, whose
 * data is freed).  Ownership of data, here and for every call taking fn,
 * data and free: MK_OK takes it (free(data) runs when fn is replaced or
 * done with); MK_ERROR leaves it with the caller and fn never runs. */
MkErrorE MqServiceCreate(MqContextC *ctx, const char *token, MqServiceCallF fn, void *data,
                         MqDataFreeF free);
/* Remove the service for token. */
MkErrorE MqServiceDelete(MqContextC *ctx, const char *token);
/* Serve incoming calls, answers and callbacks (see MqWaitE); returns
 * MK_CONTINUE when MQ_WAIT_ONCE saw nothing before the timeout, MK_OK when a
 * server's link ended in order. */
MkErrorE MqProcessEvent(MqContextC *ctx, MqWaitE wait, MK_I64 timeout_ms);
/* The token of the service running on ctx (NULL outside a service). */
const char *MqServiceGetToken(MqContextC *ctx);

/* --------------------------------------------------------------------- send */

/* Start a new message on ctx. */
MkErrorE MqSendSTART(MqContextC *ctx);
MkErrorE MqSendI8(MqContextC *ctx, MK_I8 v);
MkErrorE MqSendI16(MqContextC *ctx, MK_I16 v);
MkErrorE MqSendI32(MqContextC *ctx, MK_I32 v);
MkErrorE MqSendI64(MqContextC *ctx, MK_I64 v);
MkErrorE MqSendFLT(MqContextC *ctx, MK_FLT v);
MkErrorE MqSendDBL(MqContextC *ctx, MK_DBL v);
MkErrorE MqSendBOL(MqContextC *ctx, MK_BOL v);
/* Append a copy of the NUL-terminated UTF-8 string s. */
MkErrorE MqSendSTR(MqContextC *ctx, const char *s);
/* Append a copy of size bytes at data. */
MkErrorE MqSendBIN(MqContextC *ctx, const void *data, size_t size);
/* Append a copy of buf's value with its type. */
MkErrorE MqSendBUF(MqContextC *ctx, const MkBufferC *buf);
/* Open a nested list. */
MkErrorE MqSendL_START(MqContextC *ctx);
/* Close the innermost nested list. */
MkErrorE MqSendL_END(MqContextC *ctx);
/* One-way call: queue the message for token and return; the message is
 * coalesced with others and flushed when the buffer fills, before anything
 * blocks and when the event loop goes idle.  The service's error reaches the
 * sender's next MqProcessEvent.  timeout_ms bounds the wait of a flush this
 * call makes when the buffer is full and the peer does not read
 * (MQ_TIMEOUT_DEFAULT: the context's --timeout, below -1: no bound): past
 * it, the call fails with MQ_ERR_TIMEOUT and the link is closed with the
 * reason "peer did not read for N ms" (part of a frame may have left, so the
 * stream cannot go on; what was still buffered is not sent). */
MkErrorE MqSendEND(MqContextC *ctx, const char *token, MK_I64 timeout_ms);
/* Call token and serve events until its answer arrives (then read it with
 * Read*) or timeout_ms passes.  The service's error becomes ctx's error. */
MkErrorE MqSendEND_AND_WAIT(MqContextC *ctx, const char *token, MK_I64 timeout_ms);
/* Call token and return at once; fn runs from the event loop with the answer
 * to read (or with ctx's error set when the service failed); fn's data is
 * freed with free after that one run. */
MkErrorE MqSendEND_AND_CALLBACK(MqContextC *ctx, const char *token, MqServiceCallF fn,
                                void *data, MqDataFreeF free, MK_I64 timeout_ms);
/* In a service: send the message built since SendSTART as the answer. */
MkErrorE MqSendRETURN(MqContextC *ctx);

/* --------------------------------------------------------------------- read */

MkErrorE MqReadI8(MqContextC *ctx, MK_I8 *out);
MkErrorE MqReadI16(MqContextC *ctx, MK_I16 *out);
MkErrorE MqReadI32(MqContextC *ctx, MK_I32 *out);
MkErrorE MqReadI64(MqContextC *ctx, MK_I64 *out);
MkErrorE MqReadFLT(MqContextC *ctx, MK_FLT *out);
MkErrorE MqReadDBL(MqContextC *ctx, MK_DBL *out);
MkErrorE MqReadBOL(MqContextC *ctx, MK_BOL *out);
/* The next item as text, borrowed until the next read or the end of the call. */
MkErrorE MqReadSTR(MqContextC *ctx, const char **out);
/* The next item as bytes, borrowed until the next read or the end of the call. */
MkErrorE MqReadBIN(MqContextC *ctx, const void **data, size_t *size);
/* The next item as a buffer owned by ctx (no copy), valid until the next ReadBUF. */
MkErrorE MqReadBUF(MqContextC *ctx, MkBufferC **out);
/* Enter the nested list that is the next item. */
MkErrorE MqReadL_START(MqContextC *ctx);
/* Leave the current nested list. */
MkErrorE MqReadL_END(MqContextC *ctx);
/* True while an item is left in the current list of the message being read. */
MK_BOL MqReadItemExists(MqContextC *ctx);
/* Move the next read item of from (a whole list for a list) into the message
 * being built on to; from == to echoes an item back. */
MkErrorE MqProxyItem(MqContextC *from, MqContextC *to);

/* ------------------------------------------------------ persistent delivery */

/* Persistent call: the message is committed to the sender's storage
 * (--storage FILE; without it an in-memory one that is not durable) before
 * anything is sent, delivered at least once — calls not yet answered are
 * re-sent when the link is created again, also after a restart with the same
 * storage — and processed once: a receiver records each call it processed
 * in its own storage and answers a duplicate with the stored answer.  Then
 * serves events until the answer arrives, like SendEND_AND_WAIT.  After a
 * timeout the call stays stored and is re-sent with the next link. */
MkErrorE MqSendEND_AND_TRANSACTION(MqContextC *ctx, const char *token, MK_I64 timeout_ms);
/* The callback flavour of MqSendEND_AND_TRANSACTION: committed before it
 * returns, fn runs from the event loop with the answer. */
MkErrorE MqSendEND_AND_TRANSACTION_CALLBACK(MqContextC *ctx, const char *token, MqServiceCallF fn,
                                            void *data, MqDataFreeF free, MK_I64 timeout_ms);
/* Run fn with the answers of persistent calls re-sent from storage, whose
 * original waiter or callback is gone (after a timeout or a restart). */
void MqConfigSetTransactionHandler(MqContextC *ctx, MqServiceCallF fn, void *data,
                                   MqDataFreeF free);
/* True when ctx's storage survives the process (--storage FILE). */
MK_BOL MqStorageIsDurable(MqContextC *ctx);
/* The number of persistent calls stored and not yet answered. */
MkErrorE MqStoragePendingCount(MqContextC *ctx, MK_I64 *count);

/* -------------------------------------------------------- configuration files
 *
 * Typed reads from a libconfig file (the file --config reads too):
 *  - A path is libconfig's: "timeout", "myclient.timeout", "hosts.[0]".
 *  - A path that is not in the file gives the default and MK_OK; a path
 *    whose value has another type is MK_ERROR naming FILE:LINE, the path and
 *    both types ("app.cfg:3: 'timeout' is a string, not an integer").  An
 *    integer is read as a double where a double is asked for, never the
 *    reverse.
 *  - Strings handed out are borrowed until the next Read or the Delete.
 *  - Every MK_ERROR leaves the reason in MkErrorDEFAULT(), as kernel calls do. */

/* A parsed configuration file. */
typedef struct MqConfigFileC MqConfigFileC;

/* Create an empty configuration (no file read; every Get gives its default). */
MqConfigFileC *MqConfigFileCreate(void);
/* Free a configuration and everything borrowed from it. */
void MqConfigFileDelete(MqConfigFileC *cfg);
/* Read and parse file, replacing what was read before; a syntax error
 * reports FILE:LINE and libconfig's message. */
MkErrorE MqConfigFileRead(MqConfigFileC *cfg, const char *file);
/* True when path names a setting of the file. */
MK_BOL MqConfigFileExists(MqConfigFileC *cfg, const char *path);
/* The string at path, or def (which may be NULL) when path is absent. */
MkErrorE MqConfigFileGetSTR(MqConfigFileC *cfg, const char *path, const char *def,
                            const char **out);
/* The integer at path, or def when path is absent. */
MkErrorE MqConfigFileGetI64(MqConfigFileC *cfg, const char *path, MK_I64 def, MK_I64 *out);
/* The boolean at path, or def when path is absent. */
MkErrorE MqConfigFileGetBOL(MqConfigFileC *cfg, const char *path, MK_BOL def, MK_BOL *out);
/* The number at path (a float or an integer), or def when path is absent. */
MkErrorE MqConfigFileGetDBL(MqConfigFileC *cfg, const char *path, MK_DBL def, MK_DBL *out);

/* ------------------------------------------------------------------- errors */

/* The error text of ctx ("" when none); borrowed until the error changes. */
const char *MqErrorGetText(MqContextC *ctx);
/* The error code of ctx (0 when none). */
MK_I32 MqErrorGetCode(MqContextC *ctx);
/* Set ctx's error (printf format); returns MK_ERROR, so a service can
 * `return MqErrorSet(ctx, ...)`. */
MkErrorE MqErrorSet(MqContextC *ctx, MK_I32 code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Clear ctx's error. */
void MqErrorReset(MqContextC *ctx);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* MQLINK_H */
