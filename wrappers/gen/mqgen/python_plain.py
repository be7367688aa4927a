"""The plain classes' Python types (C in gen/glue.c) and gen/glue.h, the
declarations of the glue for the runtime.  A plain class comes entirely from
the description, so its whole type is text here."""
from .text import banner, c_string

# A plain class's type: wrapping and freeing the C object, the type's slots
# and spec (the runtime registers it from mqpy_classes).
PY_PLAIN_TYPE = """\
PyObject *
mqpy_new_%(name)s(PyObject *any, %(c)s *p, int owned)
{
    PyTypeObject *t;
    mqpy_%(name)s *o;
    mqpy_state *st;

    if (!p)
        return mqpy_raise_kernel(any);
    if (!(t = mqpy_class_type(any, MQPY_CLASS_%(name)s, &st)) ||
        !(o = PyObject_New(mqpy_%(name)s, t))) {
        if (owned)
            %(free)s(p);
        return NULL;
    }
    o->st = st;
    o->obj = p;
    o->owned = owned;
    return (PyObject *)o;
}

void
mqpy_delete_%(name)s(mqpy_%(name)s *self)
{
    %(c)s *p = self->obj;

    self->obj = NULL;
    if (p && self->owned)
        %(free)s(p);
}

static PyObject *
%(name)s_tp_new(PyTypeObject *t, PyObject *args, PyObject *kw)
{
    if (PyTuple_GET_SIZE(args) || (kw && PyDict_GET_SIZE(kw))) {
        PyErr_SetString(PyExc_TypeError, "%(name)s() takes no arguments");
        return NULL;
    }
    return mqpy_new_%(name)s((PyObject *)t, %(create)s(), 1);
}

static void
%(name)s_tp_dealloc(mqpy_%(name)s *self)
{
    PyTypeObject *t = Py_TYPE(self);

    mqpy_delete_%(name)s(self);
    PyObject_Free(self);
    Py_DECREF(t);
}

/* Not subclassable, so the deallocator identifies the type. */
int
mqpy_is_%(name)s(PyObject *o)
{
    return Py_TYPE(o)->tp_dealloc == (destructor)%(name)s_tp_dealloc;
}

static PyType_Slot %(name)s_slots[] = {
    {Py_tp_new, %(name)s_tp_new},
    {Py_tp_dealloc, %(name)s_tp_dealloc},
    {Py_tp_methods, %(name)s_methods},
    {Py_tp_doc, (void *)%(doc)s},
    {0, NULL}
};

static PyType_Spec %(name)s_spec = {
    "%(module)s.%(name)s", sizeof(mqpy_%(name)s), 0, Py_TPFLAGS_DEFAULT, %(name)s_slots
};
"""

# Its declarations in gen/glue.h, for the glue and the runtime.
PY_PLAIN_DECL = """\
/* %(name)s: %(doc)s
 * owned == 0 for a thread-owned (tls) object, which the wrapper never frees. */
typedef struct {
    PyObject_HEAD
    mqpy_state *st; /* as in mqpy_object */
    %(c)s *obj;
    int owned;
} mqpy_%(name)s;
/* Wrap p (owned: the wrapper frees it); NULL raises the kernel error. */
PyObject *mqpy_new_%(name)s(PyObject *any, %(c)s *p, int owned);
/* Free the C object once: Delete, then deallocation, find it gone. */
void mqpy_delete_%(name)s(mqpy_%(name)s *self);
int mqpy_is_%(name)s(PyObject *o);
"""


def plain_type(api, k):
    """Everything a plain class needs besides its methods (glue.c)."""
    return (PY_PLAIN_TYPE % dict(
        name=k.name, c=k.c, free=k.free, create=k.create().cfunc, module=api.module,
        doc=c_string(k.doc))).split("\n")


def emit_h(api):
    """gen/glue.h: what the glue defines, for the runtime (runtime.h includes it)."""
    plain = [k for k in api.classes if k.plain]
    o = ["/* " + banner(api).strip() + " */",
         "/* The declarations of gen/glue.c: the plain classes, whose types come",
         " * entirely from the description, and the tables the module registers. */",
         "#ifndef MQPY_GLUE_H", "#define MQPY_GLUE_H", "",
         "/* Index of each plain class in mqpy_classes and in the module state. */",
         "enum {"]
    o += ["    MQPY_CLASS_%s," % k.name for k in plain]
    o += ["    MQPY_CLASS_COUNT", "};", ""]
    for k in plain:
        o += (PY_PLAIN_DECL % dict(name=k.name, c=k.c, doc=k.doc)).split("\n")
    o += ["extern const mqpy_const mqpy_consts[];",
          "extern const mqpy_class mqpy_classes[];",
          "extern PyMethodDef mqpy_module_methods[];"]
    o += ["extern PyMethodDef mqpy_%s_methods[]; /* the runtime defines the type */" % k.name
          for k in api.classes if not k.plain]
    o += ["", "#endif"]
    return "\n".join(o) + "\n"
