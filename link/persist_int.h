/* persist_int.h — what persist.c, persist_recv.c and persist_resume.c share:
 * the state a parent context keeps for persistent delivery beyond its
 * storage handle.  Owned by the context (ctx->pst), made on first use,
 * freed by mqi_persist_close. */
#ifndef MQ_PERSIST_INT_H
#define MQ_PERSIST_INT_H

#include "link_int.h"
#include "storage/storage.h"

typedef struct mqi_persist_state {
    /* receiver: while a record or commit failed, new persistent calls are
     * refused before their service runs, until a probe of probe_bytes
     * commits (a failed commit of N answer bytes needs about that room) */
    int cannot_record;
    size_t probe_bytes;
    size_t open_bytes;       /* answer bytes recorded in the open transaction */
    /* wbuf offsets of the persistent answers written since the last
     * commit: if it fails, they become refusals instead of leaving */
    size_t *answers;
    size_t nanswers, capanswers;
    /* the persistent calls being served, innermost last: their digests */
    struct { uint64_t trans, digest; } serving[MQI_MAX_NEST];
    int nserving;
    char *refusal;           /* why this receiver keeps no storage for its sender */
    MK_I64 others_bytes;     /* the other senders' files, when this one's opened */
    /* sender */
    MK_I64 backoff_ms;       /* wait before sending a refused call again */
    MK_I64 last_lwm;         /* the low-water mark sent last */
} mqi_persist_state;

/* ctx's state, made when missing; NULL when out of memory. */
mqi_persist_state *mqi_persist_state_of(MqContextC *ctx);
/* The records of the open transaction are lost (a record or commit failed
 * with err): roll back, turn every persistent answer still in the write
 * buffer into a refusal the sender retries, refuse new calls until the
 * storage can record again.  MK_ERROR when the buffer could not be rewritten. */
MkErrorE mqi_persist_records_lost(mqi_conn *c, MqContextC *p, MkErrorC *err);

#endif /* MQ_PERSIST_INT_H */
