/* callback.c — calls from the library into Python: services, the server
 * setup, call callbacks and the factory that makes each server instance a new
 * object of the user's class.
 *
 * Who holds the interpreter lock: a thread that calls the library from
 * Python keeps it (the glue releases nothing); the library's blocking hooks
 * (MqSetBlockingHooks, installed at module init) release it only while the
 * library really waits in a system call.  So a service run by ProcessEvent
 * or a wait finds the lock held by its own thread and is called directly,
 * with no handover per message.  The threads the library makes itself (the
 * --thread pool) do the same: the thread hooks (MqSetThreadHooks) give each
 * one its thread state and the lock when it starts, and it keeps both, but
 * in the library's waits, until it ends.  Only a thread nobody attached
 * (one of the application's own that calls the library without the lock)
 * enters through PyGILState_Ensure.
 *
 * Calling convention (the same for services, setup and callbacks): a bound
 * method of an MqContextC is called without arguments, its self is the
 * context; any other callable gets the context as its one argument.  A
 * Python exception becomes the context's error (code and text of an
 * MkExceptionC, "TypeName: text" otherwise), so the caller on the other side
 * of the link receives the text. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "module.h"

/* A registered callable, split once at registration: a bound method of a
 * context is called as its function with self, without the bound method's
 * own call layer. */
typedef struct {
    PyObject *callable;
    PyObject *func; /* the function of a bound method of a context, else NULL */
    PyObject *self; /* its self (borrowed from callable) */
    int scope;
} mqpy_cb;

/* Set in the child of a fork the library made (atfork handler, async-signal
 * safe); the next entry from C then lets CPython repair its state. */
static volatile sig_atomic_t forked;

static void
on_fork_child(void)
{
    forked = 1;
}

/* The blocking hooks: release the lock around a wait when this thread holds
 * it (the main thread, a pool thread), else (the caller released it) leave
 * everything as it is. */
static void *
block_enter(void)
{
    if (!Py_IsInitialized() || !PyGILState_Check())
        return NULL;
    return PyEval_SaveThread();
}

static void
block_leave(void *token)
{
    if (token)
        PyEval_RestoreThread(token);
}

/* The thread hooks: a pool thread takes its thread state and the lock once,
 * first thing, and holds the lock like the main thread does, released only
 * by the blocking hooks (its accept included).  Its callbacks then find the
 * lock held (mqpy_enter's fast path) instead of making and destroying a
 * thread state each (PyGILState_Ensure and Release at count 0), and
 * threading.local lasts from one call and one instance to the next.  The end
 * hook runs with the lock held again (outside any blocking section) and
 * destroys the thread state. */
static _Thread_local PyGILState_STATE pool_gil;

static void
pool_thread_start(void)
{
    pool_gil = PyGILState_Ensure();
}

static void
pool_thread_end(void)
{
    PyGILState_Release(pool_gil);
}

int
mqpy_callback_init(void)
{
    static int done;
    if (!done && pthread_atfork(NULL, NULL, on_fork_child) == 0) {
        MqSetBlockingHooks(block_enter, block_leave);
        MqSetThreadHooks(pool_thread_start, pool_thread_end);
        done = 1;
    }
    return done;
}

/* True when this thread holds the interpreter lock: cheaper than
 * PyGILState_Check, which the per-message path cannot afford.  Before 3.12
 * the current thread state is the lock holder's, whichever thread that is,
 * hence the thread id. */
static inline int
gil_held(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    PyThreadState *ts = PyThreadState_GetUnchecked();
#else
    PyThreadState *ts = _PyThreadState_UncheckedGet();
#endif
    return ts && ts->thread_id == PyThread_get_thread_ident();
}

int
mqpy_enter(PyGILState_STATE *g)
{
    int held = gil_held();
    *g = held ? PyGILState_LOCKED : PyGILState_Ensure();
    if (forked) {
        forked = 0;
        PyOS_AfterFork_Child();
    }
    return held;
}

/* The wrapper object of ctx (borrowed); for a context the library made
 * without our factory, a new MqContextC that does not own it. */
static PyObject *
object_of(MqContextC *ctx, PyObject *any)
{
    PyObject *o = MqContextGetUserData(ctx);
    if (o)
        return o;
    o = mqpy_new_MqContextC(any, ctx, 0);
    if (o)
        ((mqpy_MqContextC *)o)->lib_ref = 1; /* released by the destroy callback */
    return o;
}

/* The Python exception in progress as ctx's error. */
static MkErrorE
error_to_ctx(MqContextC *ctx)
{
    PyObject *type, *value, *tb, *text = NULL, *code = NULL;
    MK_I32 c = MK_ERR_GENERIC;

    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    /* at the default level: a failing service shows its traceback */
    if (MkLogGetLevel() >= MK_LOG_WARN) {
        PyErr_Restore(Py_XNewRef(type), Py_XNewRef(value), Py_XNewRef(tb));
        PyErr_Print();
    }
    if (value && (code = PyObject_GetAttrString(value, "code")) && PyLong_Check(code))
        c = (MK_I32)PyLong_AsLong(code);
    PyErr_Clear();
    if (value && code && PyLong_Check(code))
        text = PyObject_Str(value);
    else if (value)
        text = PyUnicode_FromFormat("%s: %S", ((PyTypeObject *)type)->tp_name, value);
    if (!text)
        PyErr_Clear();
    MqErrorSet(ctx, c, "%s", text ? PyUnicode_AsUTF8(text) : "python error");
    PyErr_Clear();
    Py_XDECREF(text);
    Py_XDECREF(code);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return MK_ERROR;
}

/* Call cb for ctx.  The function is called through its vectorcall slot
 * directly: PyObject_Vectorcall adds only a result check, and a NULL without
 * an exception still ends in error_to_ctx as "python error". */
static PyObject *
call(mqpy_cb *cb, MqContextC *ctx)
{
    PyObject *args[2] = {NULL, cb->self}, *f = cb->func;
    vectorcallfunc vc;

    if (!f) {
        f = cb->callable;
        if (!(args[1] = object_of(ctx, f)))
            return NULL;
    }
    if ((vc = PyVectorcall_Function(f)))
        return vc(f, args + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    return PyObject_CallOneArg(f, args[1]);
}

void *
mqpy_cb_new(PyObject *self, PyObject *callable, int scope, const char *fn)
{
    mqpy_cb *cb;
    if (!PyCallable_Check(callable)) {
        PyErr_Format(PyExc_TypeError, "%s: %.100s object is not callable", fn,
                     Py_TYPE(callable)->tp_name);
        return NULL;
    }
    if (!(cb = malloc(sizeof *cb)))
        return PyErr_NoMemory();
    Py_INCREF(callable);
    cb->callable = callable;
    cb->func = cb->self = NULL;
    if (PyMethod_Check(callable) && mqpy_is_context(PyMethod_GET_SELF(callable))) {
        cb->func = PyMethod_GET_FUNCTION(callable);
        cb->self = PyMethod_GET_SELF(callable);
    }
    cb->scope = scope;
    return cb;
}

MkErrorE
mqpy_cb_call(MqContextC *ctx, void *data)
{
    mqpy_cb *cb = data;
    PyGILState_STATE g;
    int held = mqpy_enter(&g);
    PyObject *r = call(cb, ctx);
    MkErrorE rc;

    if (r)
        rc = MK_OK;
    else if (cb->scope == MQPY_SCOPE_ONCE) {
        /* The library has no one to hand a call callback's error to: report
         * it the way Python reports exceptions it cannot raise. */
        PyErr_WriteUnraisable(cb->callable);
        rc = MK_ERROR;
    } else
        rc = error_to_ctx(ctx);
    Py_XDECREF(r);
    mqpy_leave(held, g);
    return rc;
}

void
mqpy_cb_free(void *data)
{
    mqpy_cb *cb = data;
    PyGILState_STATE g;
    int held;

    if (!cb)
        return;
    held = mqpy_enter(&g);
    Py_DECREF(cb->callable);
    mqpy_leave(held, g);
    free(cb);
}

/* ------------------------------------------------- server setup and factory */

/* The setup of a new instance: a setup that is a bound method of another
 * context (the template) runs as the same-named method of the instance. */
static MkErrorE
setup_call(MqContextC *ctx, void *data)
{
    mqpy_cb *cb = data;
    PyGILState_STATE g;
    int held = mqpy_enter(&g);
    PyObject *inst = object_of(ctx, cb->callable), *r = NULL;
    MkErrorE rc;

    if (inst) {
        PyObject *owner = PyMethod_Check(cb->callable) ? PyMethod_GET_SELF(cb->callable) : NULL;
        if (owner && mqpy_is_context(owner) && owner != inst) {
            PyObject *fn = PyMethod_GET_FUNCTION(cb->callable);
            PyObject *name = PyObject_GetAttrString(fn, "__name__");
            PyObject *meth = name ? PyObject_GetAttr(inst, name) : NULL;
            if (meth)
                r = PyObject_CallNoArgs(meth);
            Py_XDECREF(meth);
            Py_XDECREF(name);
        } else {
            r = call(cb, ctx);
        }
    }
    rc = r ? MK_OK : error_to_ctx(ctx);
    Py_XDECREF(r);
    mqpy_leave(held, g);
    return rc;
}

/* A new object of the template's class; its C context goes to the library,
 * which holds a reference to the object until it deletes the context. */
static MqContextC *
factory(MqContextC *tmpl, void *data)
{
    PyGILState_STATE g;
    int held = mqpy_enter(&g);
    PyObject *t = MqContextGetUserData(tmpl), *inst;
    MqContextC *ctx = NULL;

    if (!t) {
        ctx = MqContextCreate();
    } else if ((inst = PyObject_CallNoArgs((PyObject *)Py_TYPE(t)))) {
        mqpy_MqContextC *o = (mqpy_MqContextC *)inst;
        if ((ctx = o->obj))
            o->lib_ref = 1; /* the reference from CallNoArgs */
        else
            Py_DECREF(inst);
    } else {
        error_to_ctx(tmpl);
    }
    mqpy_leave(held, g);
    return ctx;
}

PyObject *
mqpy_rt_MqContextC_ConfigSetServerSetup(mqpy_MqContextC *self, PyObject *const *args,
                                        Py_ssize_t nargs)
{
    void *cb;
    if (!self->obj)
        return mqpy_deleted((PyObject *)self, "ConfigSetServerSetup");
    if (!mqpy_check_nargs("ConfigSetServerSetup", nargs, 1, 1))
        return NULL;
    if (!(cb = mqpy_cb_new((PyObject *)self, args[0], MQPY_SCOPE_NOTIFIED,
                           "ConfigSetServerSetup")))
        return NULL;
    MqConfigSetServerSetup(self->obj, setup_call, cb, mqpy_cb_free);
    MqConfigSetFactory(self->obj, factory, NULL, NULL);
    Py_RETURN_NONE;
}
