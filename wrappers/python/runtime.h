/* runtime.h — the hand-written part of the Python binding: the context's
 * object layout, argument conversion, exceptions, callbacks into Python and
 * server-instance creation.  The generated glue (gen/glue.c) calls only what
 * is declared here (with gen/glue.h) and the C API itself. */
#ifndef MQPY_RUNTIME_H
#define MQPY_RUNTIME_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <mqlink.h>

/* The module state (module.h); the glue only passes it on. */
typedef struct mqpy_state mqpy_state;

/* How every object of the module starts: the state of the module that made
 * it, found once at creation, because the lookup from the type
 * (PyType_GetModuleByDef) walks the type's MRO and ReadBUF needs the state
 * per item.  The object holds its type, the type its module: st lives as
 * long as the object. */
typedef struct {
    PyObject_HEAD
    mqpy_state *st;
} mqpy_object;

/* A context.  The C context's user data points back here (borrowed); obj is
 * cleared by the context's destroy callback, whoever deletes it.  A server
 * instance made by the factory is owned by the library, which then holds one
 * reference to this object (lib_ref) until it deletes the context. */
typedef struct {
    PyObject_HEAD
    mqpy_state *st; /* as in mqpy_object */
    MqContextC *obj;
    int lib_ref;
} mqpy_MqContextC;

typedef struct {
    const char *name;
    long value;
} mqpy_const;

/* A plain class for the module to register: its name and type spec. */
typedef struct {
    const char *name;
    PyType_Spec *spec;
} mqpy_class;

/* What the generated glue defines: the plain classes (every class of the
 * description that is not subclassable: object layout, new/delete helpers,
 * type spec) and the tables of constants, classes and methods. */
#include "gen/glue.h"

/* How long the library keeps a callback: for the registration's lifetime
 * (services, setup) or for one call (SendEND_AND_CALLBACK). */
enum { MQPY_SCOPE_NOTIFIED = 1, MQPY_SCOPE_ONCE = 2 };

/* Arguments: each returns 0 with a Python exception set on failure; fn is
 * the method name used in the message ("SendI8: 300 out of range for I8").
 * The common case of the checks and conversions called per item is inline;
 * the general conversions and the messages are in convert.c. */
int mqpy_nargs_error(const char *fn, Py_ssize_t nargs, Py_ssize_t min, Py_ssize_t max);
int mqpy_to_int(PyObject *o, long long lo, long long hi, long long *v, const char *fn,
                const char *type);

static inline int
mqpy_check_nargs(const char *fn, Py_ssize_t nargs, Py_ssize_t min, Py_ssize_t max)
{
    return (nargs >= min && nargs <= max) || mqpy_nargs_error(fn, nargs, min, max);
}

/* The value of an exact int that fits one internal digit (at least 30 bits),
 * read in place; 0 for anything else, which takes mqpy_to_int. */
static inline int
mqpy_small_int(PyObject *o, long long *v)
{
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyLong_CheckExact(o) || !PyUnstable_Long_IsCompact((PyLongObject *)o))
        return 0;
    *v = PyUnstable_Long_CompactValue((PyLongObject *)o);
    return 1;
#elif PY_VERSION_HEX >= 0x030B0000
    Py_ssize_t n = Py_SIZE(o);
    if (!PyLong_CheckExact(o) || n < -1 || n > 1)
        return 0;
    *v = n * (long long)((PyLongObject *)o)->ob_digit[0];
    return 1;
#else
    return 0;
#endif
}

#define MQPY_TO_INT(T, LO, HI)                                                 \
    static inline int mqpy_to_##T(PyObject *o, MK_##T *v, const char *fn)      \
    {                                                                          \
        long long x;                                                           \
        if (!(mqpy_small_int(o, &x) && x >= (LO) && x <= (HI)) &&              \
            !mqpy_to_int(o, (LO), (HI), &x, fn, #T))                           \
            return 0;                                                          \
        *v = (MK_##T)x;                                                        \
        return 1;                                                              \
    }
MQPY_TO_INT(I8, INT8_MIN, INT8_MAX)
MQPY_TO_INT(I16, INT16_MIN, INT16_MAX)
MQPY_TO_INT(I32, INT32_MIN, INT32_MAX)
MQPY_TO_INT(I64, INT64_MIN, INT64_MAX)
#undef MQPY_TO_INT

/* Any object with __float__ (mqpy_to_DBL's general case). */
int mqpy_to_double(PyObject *o, MK_DBL *v);

static inline int
mqpy_to_DBL(PyObject *o, MK_DBL *v, const char *fn)
{
    if (!PyFloat_CheckExact(o))
        return mqpy_to_double(o, v);
    *v = PyFloat_AS_DOUBLE(o);
    return 1;
}

int mqpy_to_FLT(PyObject *o, MK_FLT *v, const char *fn);
int mqpy_to_BOL(PyObject *o, MK_BOL *v, const char *fn);
int mqpy_to_WAIT(PyObject *o, MqWaitE *v, const char *fn);
int mqpy_to_TYPE(PyObject *o, MkTypeE *v, const char *fn);
/* The UTF-8 text of a str, borrowed from o (no embedded NUL). */
int mqpy_to_STR(PyObject *o, const char **v, const char *fn);
/* A str of exactly 4 characters. */
int mqpy_to_TOKEN(PyObject *o, const char **v, const char *fn);
/* Any bytes-like object; release the view with PyBuffer_Release. */
int mqpy_to_BIN(PyObject *o, Py_buffer *view, const char *fn);
/* An MkBufferC's C buffer (per item in BUST: WriteBUF, SendBUF). */
int mqpy_buf_error(PyObject *self, PyObject *o, const char *fn);
static inline int
mqpy_to_BUF(PyObject *self, PyObject *o, MkBufferC **v, const char *fn)
{
    if (mqpy_is_MkBufferC(o) && (*v = ((mqpy_MkBufferC *)o)->obj))
        return 1;
    return mqpy_buf_error(self, o, fn);
}
int mqpy_to_CTX(PyObject *self, PyObject *o, MqContextC **v, const char *fn);
/* A sequence of str as a NULL-terminated argv of copies; mqpy_argv_free it. */
int mqpy_to_ARGV(PyObject *o, int *argc, char ***argv, const char *fn);
void mqpy_argv_free(int argc, char **argv);

/* Results: new references. */
PyObject *mqpy_from_STR(const char *s);
/* A new MkBufferC holding a copy of buf (buf is borrowed from a stream or
 * context); self is an object of the module (an mqpy_object). */
PyObject *mqpy_from_BUF(PyObject *self, MkBufferC *buf);
/* The wrapper object of ctx, or None. */
PyObject *mqpy_from_CTX(MqContextC *ctx);

/* Errors: raise MkExceptionC and return NULL. */
PyObject *mqpy_raise_kernel(PyObject *self);
PyObject *mqpy_raise_ctx(PyObject *self, MqContextC *ctx);
PyObject *mqpy_deleted(PyObject *self, const char *fn);

/* The type of plain class index (MQPY_CLASS_*) in the module of any (an
 * object or type of the module), and that module's state in *st; borrowed,
 * NULL with an exception set. */
PyTypeObject *mqpy_class_type(PyObject *any, int index, mqpy_state **st);

/* Wrap a new C context in an object of cls (or of MqContextC when given an
 * object); NULL raises. */
PyObject *mqpy_new_MqContextC(PyObject *cls_or_obj, MqContextC *p, int owned);
/* Delete: deletes the C context (its destroy callback clears obj). */
void mqpy_delete_MqContextC(mqpy_MqContextC *self);

/* Callbacks: data for the C registration (holds a reference to callable). */
void *mqpy_cb_new(PyObject *self, PyObject *callable, int scope, const char *fn);
MkErrorE mqpy_cb_call(MqContextC *ctx, void *data);
void mqpy_cb_free(void *data);

/* Hand-written methods named in the description. */
PyObject *mqpy_rt_MqContextC_ConfigSetServerSetup(mqpy_MqContextC *self, PyObject *const *args,
                                                  Py_ssize_t nargs);

#endif
