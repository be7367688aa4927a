/* persist_int.h — inside the persistence module (persist.h: mqlink_persist.so
 * in a shared build), what persist.c, persist_recv.c and persist_resume.c share:
 * the state a parent context keeps for persistent delivery beyond its
 * storage handle.  Owned by the context (ctx->pst), made on first use,
 * freed by mqi_persist_close. */
#ifndef MQ_PERSIST_INT_H
#define MQ_PERSIST_INT_H

#include "persist.h"
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

/* The hooks (link_int.h, mqi_hooks) of persistent delivery, by file; the
 * core reaches them through persist_load.c. */
/* persist.c: link_create — open ctx's storage as configured, if it has none
 * yet (a client; a receiver checks where its per-sender files go). */
MkErrorE mqi_persist_open(MqContextC *ctx);
/* persist.c: the connection's before_flush — commit what the storage of the
 * connection's parent has open: before any answer or stored call leaves.
 * Fails the connection when it cannot. */
MkErrorE mqi_persist_commit(mqi_conn *c);
/* persist.c: context_delete — close ctx's storage (committing what is
 * open), drop the transaction handler. */
void mqi_persist_close(MqContextC *ctx);
/* persist.c: internal — _SID / _LWM frames on the receiver. */
void mqi_persist_internal(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body);
/* persist_resume.c: link_up — after a (re)connect: commit before every
 * flush, announce our identity, re-send unanswered calls. */
MkErrorE mqi_persist_resume(MqContextC *ctx);
/* persist_resume.c: answer — the answer h of a persistent call arrived
 * (sender side): forget the call, or, for a refusal with MQI_F_RETRY, keep
 * it and send it again later (MK_CONTINUE: the call is not answered). */
MkErrorE mqi_persist_answered(mqi_conn *c, const mqi_hdr *h, MkBufferStreamC *body,
                              uint64_t *key);
/* persist_recv.c: call — a persistent call arrived: answer a duplicate
 * from storage or serve it. */
void mqi_persist_serve(MqContextC *ctx, const mqi_hdr *h, MkBufferStreamC *body);
/* persist_recv.c: answer_write — record the answer r of the persistent
 * call being served on ctx, then write it. */
MkErrorE mqi_persist_answer_write(MqContextC *ctx, mqi_hdr *r, const MkBufferStreamC *body);

/* Tell the peer our storage identity, once per connection. */
MkErrorE mqi_persist_announce(MqContextC *ctx, struct mqi_storage *st);
/* From now on, p's connection commits p's storage before it flushes. */
void mqi_persist_hook_flush(MqContextC *p);

/* ctx's state, made when missing; NULL when out of memory. */
mqi_persist_state *mqi_persist_state_of(MqContextC *ctx);
/* The records of the open transaction are lost (a record or commit failed
 * with err): roll back, turn every persistent answer still in the write
 * buffer into a refusal the sender retries, refuse new calls until the
 * storage can record again.  MK_ERROR when the buffer could not be rewritten. */
MkErrorE mqi_persist_records_lost(mqi_conn *c, MqContextC *p, MkErrorC *err);

#endif /* MQ_PERSIST_INT_H */
