/* convert.c — Python values to C arguments and back, and C errors to
 * MkExceptionC.  Integers are range-checked against the mqlink type: 300 for
 * an I8 is an OverflowError naming the call, never a silent wrap. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

int
mqpy_nargs_error(const char *fn, Py_ssize_t nargs, Py_ssize_t min, Py_ssize_t max)
{
    if (min == max)
        PyErr_Format(PyExc_TypeError, "%s() takes %zd argument%s (%zd given)", fn, min,
                     min == 1 ? "" : "s", nargs);
    else
        PyErr_Format(PyExc_TypeError, "%s() takes %zd to %zd arguments (%zd given)", fn, min, max,
                     nargs);
    return 0;
}

/* o as a long long within [lo, hi]; the message names the call and the type. */
int
mqpy_to_int(PyObject *o, long long lo, long long hi, long long *v, const char *fn,
            const char *type)
{
    int overflow;
    long long x;

    if (!PyLong_Check(o)) {
        if (PyFloat_Check(o) || !PyIndex_Check(o)) {
            PyErr_Format(PyExc_TypeError, "%s: expected int for %s, got %.100s", fn, type,
                         Py_TYPE(o)->tp_name);
            return 0;
        }
    }
    x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (x == -1 && PyErr_Occurred())
        return 0;
    if (overflow || x < lo || x > hi) {
        PyErr_Format(PyExc_OverflowError, "%s: %R out of range for %s", fn, o, type);
        return 0;
    }
    *v = x;
    return 1;
}

int
mqpy_to_double(PyObject *o, MK_DBL *v)
{
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred())
        return 0;
    *v = d;
    return 1;
}

int
mqpy_to_FLT(PyObject *o, MK_FLT *v, const char *fn)
{
    double d;
    if (!mqpy_to_DBL(o, &d, fn))
        return 0;
    if (isfinite(d) && fabs(d) > FLT_MAX) {
        PyErr_Format(PyExc_OverflowError, "%s: %R out of range for FLT", fn, o);
        return 0;
    }
    *v = (MK_FLT)d;
    return 1;
}

int
mqpy_to_BOL(PyObject *o, MK_BOL *v, const char *fn)
{
    int b = PyObject_IsTrue(o);
    if (b < 0)
        return 0;
    *v = b != 0;
    return 1;
}

int
mqpy_to_WAIT(PyObject *o, MqWaitE *v, const char *fn)
{
    long long x;
    if (!mqpy_to_int(o, MQ_WAIT_NO, MQ_WAIT_FOREVER, &x, fn, "MqWaitE"))
        return 0;
    *v = (MqWaitE)x;
    return 1;
}

int
mqpy_to_TYPE(PyObject *o, MkTypeE *v, const char *fn)
{
    long long x;
    if (!mqpy_to_int(o, MK_TYPE_NONE, MK_TYPE_LST_END, &x, fn, "MkTypeE"))
        return 0;
    *v = (MkTypeE)x;
    return 1;
}

int
mqpy_to_STR(PyObject *o, const char **v, const char *fn)
{
    Py_ssize_t len;
    const char *s;

    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected str, got %.100s", fn, Py_TYPE(o)->tp_name);
        return 0;
    }
    if (!(s = PyUnicode_AsUTF8AndSize(o, &len)))
        return 0;
    if ((size_t)len != strlen(s)) {
        PyErr_Format(PyExc_ValueError, "%s: str contains a NUL character", fn);
        return 0;
    }
    *v = s;
    return 1;
}

int
mqpy_to_TOKEN(PyObject *o, const char **v, const char *fn)
{
    if (!mqpy_to_STR(o, v, fn))
        return 0;
    if (strlen(*v) != 4) {
        PyErr_Format(PyExc_ValueError, "%s: token %R is not 4 characters", fn, o);
        return 0;
    }
    return 1;
}

int
mqpy_to_BIN(PyObject *o, Py_buffer *view, const char *fn)
{
    if (PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected bytes, got str (use SendSTR)", fn);
        return 0;
    }
    return PyObject_GetBuffer(o, view, PyBUF_SIMPLE) == 0;
}

/* Why mqpy_to_BUF failed: not an MkBufferC, or a deleted one. */
int
mqpy_buf_error(PyObject *self, PyObject *o, const char *fn)
{
    if (!mqpy_is_MkBufferC(o))
        PyErr_Format(PyExc_TypeError, "%s: expected MkBufferC, got %.100s", fn,
                     Py_TYPE(o)->tp_name);
    else
        mqpy_deleted(self, fn);
    return 0;
}

int
mqpy_to_CTX(PyObject *self, PyObject *o, MqContextC **v, const char *fn)
{
    if (!mqpy_is_context(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected MqContextC, got %.100s", fn,
                     Py_TYPE(o)->tp_name);
        return 0;
    }
    if (!(*v = ((mqpy_MqContextC *)o)->obj)) {
        mqpy_deleted(self, fn);
        return 0;
    }
    return 1;
}

/* Copies, because the blocking LinkCreate runs without the interpreter lock
 * and another thread could change the list meanwhile. */
int
mqpy_to_ARGV(PyObject *o, int *argc, char ***argv, const char *fn)
{
    PyObject *seq;
    Py_ssize_t n, i;
    char **a;

    /* a str is a sequence of str: without this, LinkCreate("c @ s") would
     * take each character for an argument */
    if (PyUnicode_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: expected a list of str (the arguments, program first), not %s",
                     fn, Py_TYPE(o)->tp_name);
        return 0;
    }
    if (!(seq = PySequence_Fast(o, "LinkCreate: expected a sequence of str")))
        return 0;
    n = PySequence_Fast_GET_SIZE(seq);
    if (!(a = calloc((size_t)n + 1, sizeof *a))) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return 0;
    }
    for (i = 0; i < n; i++) {
        const char *s;
        if (!mqpy_to_STR(PySequence_Fast_GET_ITEM(seq, i), &s, fn) || !(a[i] = strdup(s))) {
            if (!PyErr_Occurred())
                PyErr_NoMemory();
            mqpy_argv_free((int)i, a);
            Py_DECREF(seq);
            return 0;
        }
    }
    Py_DECREF(seq);
    *argc = (int)n;
    *argv = a;
    return 1;
}

void
mqpy_argv_free(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

PyObject *
mqpy_from_STR(const char *s)
{
    if (!s)
        s = "";
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

/* A borrowed buffer becomes an owned copy, safe to keep.  The copy goes into
 * the module's spare object when only the module still holds it (the caller
 * dropped the previous result: RDUL's ReadBUF(), BUST's WriteBUF(ReadBUF())),
 * as zip() reuses its result tuple: nobody can tell the object was used
 * before, and the steady state allocates nothing.  Otherwise a new object,
 * which becomes the spare. */
PyObject *
mqpy_from_BUF(PyObject *self, MkBufferC *buf)
{
    mqpy_state *st;
    mqpy_MkBufferC *o;
    PyObject *r;

    if (!buf)
        return mqpy_new_MkBufferC(self, NULL, 1);
    st = ((mqpy_object *)self)->st;
    o = (mqpy_MkBufferC *)st->buf_spare;
    if (o && Py_REFCNT(o) == 1 && o->obj && o->owned) {
        if (MkBufferCopy(o->obj, buf) != MK_OK)
            return mqpy_raise_kernel(self);
        Py_INCREF(o); /* not Py_NewRef: the module supports Python 3.9 */
        return (PyObject *)o;
    }
    if (!(r = mqpy_new_MkBufferC(self, MkBufferDup(buf), 1)))
        return NULL;
    Py_INCREF(r);
    Py_XSETREF(st->buf_spare, r);
    return r;
}

PyObject *
mqpy_from_CTX(MqContextC *ctx)
{
    PyObject *o = ctx ? MqContextGetUserData(ctx) : NULL;
    if (!o)
        Py_RETURN_NONE;
    Py_INCREF(o);
    return o;
}

/* ------------------------------------------------------------------ errors */

static PyObject *
raise_text(PyObject *self, const char *text, MK_I32 code)
{
    mqpy_state *st = mqpy_state_of(self);
    PyObject *exc;

    if (!st)
        return NULL;
    exc = PyObject_CallFunction(st->MkExceptionC, "si", text && *text ? text : "unknown error",
                                (int)code);
    if (exc) {
        PyErr_SetObject(st->MkExceptionC, exc);
        Py_DECREF(exc);
    }
    return NULL;
}

PyObject *
mqpy_raise_kernel(PyObject *self)
{
    MkErrorC *err = MkErrorDEFAULT();
    raise_text(self, MkErrorGetText(err), MkErrorGetCode(err));
    MkErrorReset(err);
    return NULL;
}

PyObject *
mqpy_raise_ctx(PyObject *self, MqContextC *ctx)
{
    raise_text(self, MqErrorGetText(ctx), MqErrorGetCode(ctx));
    MqErrorReset(ctx);
    return NULL;
}

PyObject *
mqpy_deleted(PyObject *self, const char *fn)
{
    char text[160];
    snprintf(text, sizeof text, "%s: the object was deleted", fn);
    return raise_text(self, text, MK_ERR_ARGUMENT);
}
