/* persist.h — persistent delivery as the core sees it: the hooks it calls
 * (mqi_persist_hooks, registered in hooks.c) and mqlink.h's persistent
 * calls, all in persist_load.c, which forwards to the persistence module.
 * The module (persist.c, persist_recv.c, persist_resume.c on storage/, its
 * own header persist_int.h) is the only code on sqlite3.  In a shared
 * build it is mqlink_persist.so, loaded on the first persistent need (a
 * link created with --storage, a persistent call sent, a sender's identity
 * or persistent call arriving), so a process with plain links never maps
 * libsqlite3; without shared libraries it is linked in. */
#ifndef MQ_PERSIST_H
#define MQ_PERSIST_H

#include "link_int.h"

/* Pending-table keys of persistent calls, apart from ordinary transactions
 * (which count up from 1 and never get near). */
#define MQI_PERSIST_KEY (1ull << 63)

/* The module's one export (mqi_module_load). */
#define MQI_PERSIST_MODULE "mqlink_persist"
#define MQI_PERSIST_SYMBOL "mqi_persist_module"
struct mqi_storage;
typedef struct mqi_persist_ops {
    mqi_module_head head;
    /* what mqi_persist_hooks forwards to */
    const mqi_hooks *hooks;
    /* MqSendEND_AND_TRANSACTION, MqSendEND_AND_TRANSACTION_CALLBACK */
    MkErrorE (*send_wait)(MqContextC *ctx, const char *token, MK_I64 timeout_ms);
    MkErrorE (*send_callback)(MqContextC *ctx, const char *token, MqServiceCallF fn, void *data,
                              MqDataFreeF free_fn, MK_I64 timeout_ms);
    /* MqStorageIsDurable, MqStoragePendingCount of an open storage */
    int (*durable)(const struct mqi_storage *st);
    MkErrorE (*pending_count)(struct mqi_storage *st, MK_I64 *count, MkErrorC *err);
} mqi_persist_ops;
extern MQI_MODULE_TABLE const mqi_persist_ops mqi_persist_module;

#endif
