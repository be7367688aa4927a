/* module.h — shared by the hand-written runtime files of the Python binding:
 * the module state and type checks.  The generated glue sees runtime.h only. */
#ifndef MQPY_MODULE_H
#define MQPY_MODULE_H

#include "runtime.h"

/* Per-module state instead of static globals (one per interpreter). */
typedef struct {
    PyTypeObject *classes[MQPY_CLASS_COUNT]; /* the plain classes, by MQPY_CLASS_* */
    PyTypeObject *MqContextC;
    PyObject *MkExceptionC;
    /* The MkBufferC object the last borrowed BUF was copied into, kept so
     * that the next one reuses it (object and C buffer) once nobody else
     * holds it: see mqpy_from_BUF. */
    PyObject *buf_spare;
} mqpy_state;

extern PyModuleDef mqpy_module_def;

/* The state of the module that defined obj's type (obj may be a type);
 * NULL with an exception set when there is none. */
mqpy_state *mqpy_state_of(PyObject *obj);
/* True for an MqContextC or an object of a subclass (no state needed: it
 * compares the C implementation). */
int mqpy_is_context(PyObject *o);

/* Context lifetime (runtime.c): the destroy callback every context gets. */
void mqpy_ctx_destroyed(MqContextC *ctx, void *data);
/* Start the hand-written callback machinery (callback.c). */
int mqpy_callback_init(void);

#endif
