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
 * keeps beside a context or a callable); a pool thread's pool goes as the
 * thread ends.
 *
 * The Java side reads a holder's one element (MkObjectC.call): one array
 * load per call, and the JNI call still passes one reference per object. */
#include <stdlib.h>

#include "runtime.h"

enum { POOL_MAX = 64 };

/* The calling thread's empty ones, each with its holder: taking one costs
 * no malloc and no global reference (malloc and free were 41 and 96
 * instructions, calloc 179, once per context and callable). */
static __thread struct {
    mqj_held *head;
    int n;
} pool __attribute__((tls_model("initial-exec")));

mqj_held *
mqj_hold(JNIEnv *env, jobject o)
{
    mqj_held *r = pool.head;
    jobjectArray a;

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

void
mqj_let_go(JNIEnv *env, mqj_held *r)
{
    if (!env) { /* a thread the JVM no longer knows: the holder cannot go back */
        free(r);
        return;
    }
    if (pool.n == POOL_MAX) {
        (*env)->DeleteGlobalRef(env, r->h);
        free(r);
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
    mqj_held *r;

    while ((r = pool.head)) {
        pool.head = r->next;
        if (env)
            (*env)->DeleteGlobalRef(env, r->h);
        free(r);
    }
    pool.n = 0;
}
