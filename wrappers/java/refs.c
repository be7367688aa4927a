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
 * object to take; a pool thread's pool goes as the thread ends.
 *
 * The Java side reads a holder's one element (MkObjectC.call): one array
 * load per call, and the JNI call still passes one reference per object. */
#include "runtime.h"

enum { POOL_MAX = 64 };

/* The calling thread's empty holders. */
static __thread struct {
    jobjectArray h[POOL_MAX];
    int n;
} pool __attribute__((tls_model("initial-exec")));

jobjectArray
mqj_hold(JNIEnv *env, jobject o)
{
    jobjectArray h, a;

    if (pool.n > 0) {
        h = pool.h[--pool.n];
    } else {
        if (!(a = (*env)->NewObjectArray(env, 1, mqj.object, NULL)))
            return NULL;
        h = (*env)->NewGlobalRef(env, a);
        (*env)->DeleteLocalRef(env, a);
        if (!h)
            return NULL;
    }
    (*env)->SetObjectArrayElement(env, h, 0, o);
    return h;
}

jobject
mqj_held(JNIEnv *env, jobjectArray h)
{
    return (*env)->GetObjectArrayElement(env, h, 0);
}

void
mqj_let_go(JNIEnv *env, jobjectArray h)
{
    if (!env)
        return; /* a thread the JVM no longer knows: nothing to do but leak */
    if (pool.n == POOL_MAX) {
        (*env)->DeleteGlobalRef(env, h);
        return;
    }
    (*env)->SetObjectArrayElement(env, h, 0, NULL);
    pool.h[pool.n++] = h;
}

void
mqj_hold_pool_free(void)
{
    JNIEnv *env = mqj_tl_env;

    while (pool.n > 0) {
        jobjectArray h = pool.h[--pool.n];
        if (env)
            (*env)->DeleteGlobalRef(env, h);
    }
}
