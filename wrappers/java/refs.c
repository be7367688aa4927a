/* refs.c — how the library holds a Java object (a context's object, a
 * service's or callback's callable): in a holder, an Object[1] that a JNI
 * global reference keeps, recycled instead of deleted.
 *
 * Why: NewGlobalRef and DeleteGlobalRef take the JVM's OopStorage lock and
 * cost about 270 and 210 instructions (callgrind), six pairs per child
 * context of the perfserver (its object and five services), 27 % of the
 * Java server's instructions per child.  Filling or emptying a holder is
 * one SetObjectArrayElement (142).  A holder goes back to its thread's pool
 * when let go, emptied (what it held may be collected), for the next
 * object to take, with the record around it (mqj_held: what the library
 * keeps beside a context or a callable).  A service has none: its callable
 * lives in its context's object (callback.c's mqj_cb_slot).
 *
 * A thread without a JNIEnv cannot delete a global reference: a holder let
 * go there (the JVM no longer lets the thread attach, mqj_env is NULL) and
 * the pool of a thread that ends without the library's thread hooks (a
 * Java thread: its pool's key destructor runs after the JVM detached it)
 * become orphans, which the next mqj_hold or mqj_let_go on a thread with
 * an env deletes.  A pool thread frees its pool itself as it ends
 * (mqj_hold_pool_free, still attached).
 *
 * The Java side reads a holder's one element (MkObjectC.call): one array
 * load per call, and the JNI call still passes one reference per object. */
#include <pthread.h>
#include <stdlib.h>

#include "runtime.h"

enum { POOL_MAX = 64 };

/* The calling thread's empty ones, each with its holder: taking one costs
 * no malloc and no global reference (malloc and free were 41 and 96
 * instructions, calloc 179, once per context and callable).  keyed: the
 * thread's pool key is set, so its destructor hands the pool over. */
typedef struct {
    mqj_held *head;
    int n;
    int keyed;
} pool_t;
static __thread pool_t pool __attribute__((tls_model("initial-exec")));

/* Holders to delete from a thread that has an env; orphans_n read without
 * the lock, so a thread pays one load per call while there are none. */
static pthread_mutex_t orphans_mu = PTHREAD_MUTEX_INITIALIZER;
static mqj_held *orphans;
static int orphans_n;
static pthread_key_t pool_key;
static pthread_once_t pool_key_once = PTHREAD_ONCE_INIT;
static int pool_key_ok;
static int live; /* holders with a global reference (mqj_held_count) */

/* A holder's end: its global reference deleted, its record freed. */
static void
held_free(JNIEnv *env, mqj_held *r)
{
    (*env)->DeleteGlobalRef(env, r->h);
    __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
    free(r);
}

static void
orphan(mqj_held *first, mqj_held *last, int n)
{
    pthread_mutex_lock(&orphans_mu);
    last->next = orphans;
    orphans = first;
    __atomic_store_n(&orphans_n, orphans_n + n, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&orphans_mu);
}

/* The key's destructor: a thread ends with its pool (its JVM thread, if
 * it was one, already detached). */
static void
pool_orphan(void *p)
{
    pool_t *t = p;
    mqj_held *last = t->head;

    if (!last)
        return;
    while (last->next)
        last = last->next;
    orphan(t->head, last, t->n);
    t->head = NULL;
    t->n = 0;
}

static void
pool_key_create(void)
{
    pool_key_ok = pthread_key_create(&pool_key, pool_orphan) == 0;
}

/* Delete the global references of the orphans: a holder let go without an
 * env still holds its object, and a context's record (stale) its view,
 * whose handles still name the context and the record (ctx_destroyed could
 * not clear them): cleared here first.  A pooled holder is empty and its
 * record's view already deleted. */
static void
drain(JNIEnv *env)
{
    mqj_held *r;

    pthread_mutex_lock(&orphans_mu);
    r = orphans;
    orphans = NULL;
    __atomic_store_n(&orphans_n, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&orphans_mu);
    while (r) {
        mqj_held *next = r->next;
        if (r->stale) {
            jobject self = (*env)->GetObjectArrayElement(env, r->h, 0);
            if (self)
                (*env)->SetLongField(env, self, mqj.hdl, 0);
            (*env)->DeleteLocalRef(env, self);
            if (r->view) {
                (*env)->SetLongField(env, r->view, mqj.hdl, 0);
                (*env)->DeleteGlobalRef(env, r->view);
            }
        }
        held_free(env, r);
        r = next;
    }
}

static inline void
drain_some(JNIEnv *env)
{
    if (__atomic_load_n(&orphans_n, __ATOMIC_RELAXED))
        drain(env);
}

mqj_held *
mqj_hold(JNIEnv *env, jobject o)
{
    mqj_held *r = pool.head;
    jobjectArray a;

    drain_some(env);
    if (r) {
        pool.head = r->next;
        pool.n--;
    } else {
        if (!(r = malloc(sizeof *r)) || !(a = (*env)->NewObjectArray(env, 1, mqj.object, NULL))) {
            free(r);
            return NULL;
        }
        r->h = (*env)->NewGlobalRef(env, a);
        (*env)->DeleteLocalRef(env, a);
        if (!r->h) {
            free(r);
            return NULL;
        }
        __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
    }
    *r = (mqj_held){.h = r->h};
    if (o) /* a pooled or new holder is empty */
        (*env)->SetObjectArrayElement(env, r->h, 0, o);
    return r;
}

jobject
mqj_held_object(JNIEnv *env, mqj_held *r)
{
    return (*env)->GetObjectArrayElement(env, r->h, 0);
}

/* mqj_let_go's rarer cases, out of line so that the common one (a holder
 * back to a keyed pool with room) stays a leaf: without an env, orphans to
 * delete, the thread's first holder, a full pool. */
static void __attribute__((noinline))
let_go_slow(JNIEnv *env, mqj_held *r)
{
    if (!env) { /* a thread the JVM no longer knows: a thread with an env deletes it */
        orphan(r, r, 1);
        return;
    }
    drain_some(env);
    if (pool.n == POOL_MAX) {
        held_free(env, r);
        return;
    }
    if (!pool.keyed) { /* the first time: the thread's end hands its pool over */
        pthread_once(&pool_key_once, pool_key_create);
        pool.keyed = pool_key_ok && pthread_setspecific(pool_key, &pool) == 0;
    }
    (*env)->SetObjectArrayElement(env, r->h, 0, NULL);
    r->next = pool.head;
    pool.head = r;
    pool.n++;
}

void
mqj_let_go(JNIEnv *env, mqj_held *r)
{
    if (__builtin_expect(!env || !pool.keyed || pool.n == POOL_MAX ||
                             __atomic_load_n(&orphans_n, __ATOMIC_RELAXED), 0)) {
        let_go_slow(env, r);
        return;
    }
    (*env)->SetObjectArrayElement(env, r->h, 0, NULL);
    r->next = pool.head;
    pool.head = r;
    pool.n++;
}

void
mqj_hold_pool_free(void)
{
    JNIEnv *env = mqj_tl_env;
    mqj_held *r = pool.head;

    if (!env) { /* not attached: as a thread that ends without the hooks */
        pool_orphan(&pool);
        return;
    }
    while (r) {
        mqj_held *next = r->next;
        held_free(env, r);
        r = next;
    }
    pool.head = NULL;
    pool.n = 0;
    drain_some(env);
}

jint JNICALL
mqj_held_count(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return __atomic_load_n(&live, __ATOMIC_RELAXED);
}
