/* module.h — shared by the hand-written runtime files of the Python binding:
 * the module state and type checks.  The generated glue sees runtime.h only. */
#ifndef MQPY_MODULE_H
#define MQPY_MODULE_H

#include "runtime.h"

/* Per-module state instead of static globals (one per interpreter). */
struct mqpy_state {
    PyTypeObject *classes[MQPY_CLASS_COUNT]; /* the plain classes, by MQPY_CLASS_* */
    PyTypeObject *MqContextC;
    PyObject *MkExceptionC;
    /* The MkBufferC object the last borrowed BUF was copied into, kept so
     * that the next one reuses it (object and C buffer) once nobody else
     * holds it: see mqpy_from_BUF. */
    PyObject *buf_spare;
};

extern PyModuleDef mqpy_module_def;

/* The state of the module that defined obj's type (obj may be a type);
 * NULL with an exception set when there is none. */
mqpy_state *mqpy_state_of(PyObject *obj);
/* True for an MqContextC or an object of a subclass (no state needed: it
 * compares the C implementation). */
int mqpy_is_context(PyObject *o);

/* Context lifetime (runtime.c): the destroy callback every context gets. */
void mqpy_ctx_destroyed(MqContextC *ctx, void *data);
/* Start the hand-written callback machinery (callback.c): the atfork
 * handler and the library's blocking hooks. */
int mqpy_callback_init(void);

/* Entry from C into Python (callback.c): returns 1 when this thread already
 * held the interpreter lock, else takes it (PyGILState_Ensure into *g) and
 * returns 0; pass both to mqpy_leave. */
int mqpy_enter(PyGILState_STATE *g);
static inline void
mqpy_leave(int held, PyGILState_STATE g)
{
    if (!held)
        PyGILState_Release(g);
}

#endif
