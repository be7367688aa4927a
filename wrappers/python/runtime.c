/* runtime.c — the mqlink extension module: heap types, object lifetime and
 * module initialisation.  Methods come from the generated glue (gen/glue.c).
 *
 * Who owns what: a kernel object wrapper frees its C object unless it came
 * from CreateTLS (the thread owns those).  A context wrapper and its C
 * context point at each other; the C context's destroy callback clears the
 * wrapper's pointer whoever deletes the context (Delete, a parent's delete,
 * the library ending a server instance), so a stale wrapper raises instead of
 * touching freed memory. */
#include "module.h"

static const char exception_src[] =
    "class MkExceptionC(Exception):\n"
    "    '''An mqlink call failed: text and code of the C error.'''\n"
    "    def __init__(self, text='', code=1000):\n"
    "        super().__init__(text)\n"
    "        self.text = text\n"
    "        self.code = code\n"
    "    def __str__(self):\n"
    "        return str(self.text)\n";

mqpy_state *
mqpy_state_of(PyObject *obj)
{
    PyTypeObject *t = PyType_Check(obj) ? (PyTypeObject *)obj : Py_TYPE(obj);
    PyObject *m;

    if (PyModule_Check(obj))
        return PyModule_GetState(obj);
    if (!(m = PyType_GetModuleByDef(t, &mqpy_module_def)))
        return NULL;
    return PyModule_GetState(m);
}

/* ------------------------------------------------------------ kernel types */

#define KERNEL_TYPE(C, CREATE, DELETE)                                         \
    PyObject *mqpy_new_##C(PyObject *any, C *p, int owned)                     \
    {                                                                          \
        mqpy_state *st;                                                        \
        mqpy_##C *o;                                                           \
        if (!p)                                                                \
            return mqpy_raise_kernel(any);                                     \
        if (!(st = mqpy_state_of(any)) || !(o = PyObject_New(mqpy_##C, st->C))) { \
            if (owned)                                                         \
                DELETE(p);                                                     \
            return NULL;                                                       \
        }                                                                      \
        o->obj = p;                                                            \
        o->owned = owned;                                                      \
        return (PyObject *)o;                                                  \
    }                                                                          \
    void mqpy_delete_##C(mqpy_##C *self)                                       \
    {                                                                          \
        C *p = self->obj;                                                      \
        self->obj = NULL;                                                      \
        if (p && self->owned)                                                  \
            DELETE(p);                                                         \
    }                                                                          \
    static PyObject *C##_tp_new(PyTypeObject *t, PyObject *args, PyObject *kw) \
    {                                                                          \
        if (PyTuple_GET_SIZE(args) || (kw && PyDict_GET_SIZE(kw))) {           \
            PyErr_SetString(PyExc_TypeError, #C "() takes no arguments");      \
            return NULL;                                                       \
        }                                                                      \
        return mqpy_new_##C((PyObject *)t, CREATE(), 1);                       \
    }                                                                          \
    static void C##_tp_dealloc(mqpy_##C *self)                                 \
    {                                                                          \
        PyTypeObject *t = Py_TYPE(self);                                       \
        mqpy_delete_##C(self);                                                 \
        PyObject_Free(self);                                                   \
        Py_DECREF(t);                                                          \
    }                                                                          \
    static PyType_Slot C##_slots[] = {                                         \
        {Py_tp_new, C##_tp_new},                                               \
        {Py_tp_dealloc, C##_tp_dealloc},                                       \
        {Py_tp_methods, mqpy_##C##_methods},                                   \
        {0, NULL}};                                                            \
    static PyType_Spec C##_spec = {"mqlink." #C, sizeof(mqpy_##C), 0,          \
                                   Py_TPFLAGS_DEFAULT, C##_slots};

KERNEL_TYPE(MkBufferC, MkBufferCreate, MkBufferDelete)
KERNEL_TYPE(MkBufferStreamC, MkBufferStreamCreate, MkBufferStreamDelete)
KERNEL_TYPE(MkBufferListC, MkBufferListCreate, MkBufferListDelete)

int
mqpy_is_buffer(PyObject *o)
{
    return Py_TYPE(o)->tp_dealloc == (destructor)MkBufferC_tp_dealloc;
}

/* ---------------------------------------------------------------- contexts */

static void Context_tp_dealloc(mqpy_MqContextC *self);

int
mqpy_is_context(PyObject *o)
{
    for (PyTypeObject *t = Py_TYPE(o); t; t = t->tp_base)
        if (t->tp_dealloc == (destructor)Context_tp_dealloc)
            return 1;
    return 0;
}

/* Runs at the start of MqContextDelete, whoever calls it. */
void
mqpy_ctx_destroyed(MqContextC *ctx, void *data)
{
    PyGILState_STATE g = PyGILState_Ensure();
    mqpy_MqContextC *self = data;

    MqContextSetUserData(ctx, NULL);
    self->obj = NULL;
    if (self->lib_ref) {
        self->lib_ref = 0;
        Py_DECREF(self);
    }
    PyGILState_Release(g);
}

/* Wrap ctx in a new object of cls (or of MqContextC when given an object). */
PyObject *
mqpy_new_MqContextC(PyObject *any, MqContextC *ctx, int owned)
{
    PyTypeObject *t;
    mqpy_MqContextC *o;

    if (!ctx)
        return PyErr_NoMemory();
    if (PyType_Check(any)) {
        t = (PyTypeObject *)any;
    } else {
        mqpy_state *st = mqpy_state_of(any);
        if (!st)
            return NULL;
        t = st->MqContextC;
    }
    if (!(o = (mqpy_MqContextC *)t->tp_alloc(t, 0))) {
        if (owned)
            MqContextDelete(ctx);
        return NULL;
    }
    o->obj = ctx;
    o->lib_ref = 0;
    MqContextSetUserData(ctx, o);
    MqContextSetDestroyCallback(ctx, mqpy_ctx_destroyed, o);
    return (PyObject *)o;
}

void
mqpy_delete_MqContextC(mqpy_MqContextC *self)
{
    if (self->obj)
        MqContextDelete(self->obj); /* the destroy callback clears obj */
}

static PyObject *
Context_tp_new(PyTypeObject *t, PyObject *args, PyObject *kw)
{
    return mqpy_new_MqContextC((PyObject *)t, MqContextCreate(), 1);
}

/* Subclasses may take constructor arguments of their own. */
static int
Context_tp_init(PyObject *self, PyObject *args, PyObject *kw)
{
    return 0;
}

static void
Context_tp_dealloc(mqpy_MqContextC *self)
{
    PyTypeObject *t = Py_TYPE(self);
    if (self->obj) {
        MqContextSetDestroyCallback(self->obj, NULL, NULL);
        MqContextSetUserData(self->obj, NULL);
        MqContextDelete(self->obj);
        self->obj = NULL;
    }
    t->tp_free((PyObject *)self);
    Py_DECREF(t);
}

static PyType_Slot Context_slots[] = {
    {Py_tp_new, Context_tp_new},
    {Py_tp_init, Context_tp_init},
    {Py_tp_dealloc, Context_tp_dealloc},
    {Py_tp_methods, mqpy_MqContextC_methods},
    {Py_tp_doc, "One end of a link; subclass it for a server."},
    {0, NULL}};
static PyType_Spec Context_spec = {"mqlink.MqContextC", sizeof(mqpy_MqContextC), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, Context_slots};

/* ------------------------------------------------------------------ module */

static int
add_name(PyObject *all, const char *name)
{
    PyObject *s = PyUnicode_FromString(name);
    int rc = s ? PyList_Append(all, s) : -1;
    Py_XDECREF(s);
    return rc;
}

static PyObject *
make_exception(void)
{
    PyObject *g = PyDict_New(), *r, *exc = NULL;
    if (!g)
        return NULL;
    if (PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) == 0 &&
        PyDict_SetItemString(g, "__name__", PyUnicode_FromString("mqlink")) == 0 &&
        (r = PyRun_String(exception_src, Py_file_input, g, g))) {
        Py_DECREF(r);
        exc = PyDict_GetItemString(g, "MkExceptionC");
        Py_XINCREF(exc);
    }
    Py_DECREF(g);
    return exc;
}

static int
mqpy_exec(PyObject *m)
{
    mqpy_state *st = PyModule_GetState(m);
    PyObject *all = PyList_New(0);
    int rc = -1;

    if (!all || !mqpy_callback_init())
        goto error;
    if (!(st->MkBufferC = (PyTypeObject *)PyType_FromModuleAndSpec(m, &MkBufferC_spec, NULL)) ||
        !(st->MkBufferStreamC =
              (PyTypeObject *)PyType_FromModuleAndSpec(m, &MkBufferStreamC_spec, NULL)) ||
        !(st->MkBufferListC =
              (PyTypeObject *)PyType_FromModuleAndSpec(m, &MkBufferListC_spec, NULL)) ||
        !(st->MqContextC = (PyTypeObject *)PyType_FromModuleAndSpec(m, &Context_spec, NULL)) ||
        !(st->MkExceptionC = make_exception()))
        goto error;
    if (PyModule_AddObjectRef(m, "MkBufferC", (PyObject *)st->MkBufferC) < 0 ||
        PyModule_AddObjectRef(m, "MkBufferStreamC", (PyObject *)st->MkBufferStreamC) < 0 ||
        PyModule_AddObjectRef(m, "MkBufferListC", (PyObject *)st->MkBufferListC) < 0 ||
        PyModule_AddObjectRef(m, "MqContextC", (PyObject *)st->MqContextC) < 0 ||
        PyModule_AddObjectRef(m, "MkExceptionC", st->MkExceptionC) < 0)
        goto error;
    if (add_name(all, "MkBufferC") || add_name(all, "MkBufferStreamC") ||
        add_name(all, "MkBufferListC") || add_name(all, "MqContextC") ||
        add_name(all, "MkExceptionC"))
        goto error;
    for (const mqpy_const *c = mqpy_consts; c->name; c++)
        if (PyModule_AddIntConstant(m, c->name, c->value) < 0 || add_name(all, c->name))
            goto error;
    for (PyMethodDef *f = mqpy_module_methods; f->ml_name; f++)
        if (add_name(all, f->ml_name))
            goto error;
    if (PyModule_AddObjectRef(m, "__all__", all) < 0)
        goto error;
    rc = 0;
error:
    Py_XDECREF(all);
    return rc;
}

static int
mqpy_traverse(PyObject *m, visitproc visit, void *arg)
{
    mqpy_state *st = PyModule_GetState(m);
    Py_VISIT(st->MkBufferC);
    Py_VISIT(st->MkBufferStreamC);
    Py_VISIT(st->MkBufferListC);
    Py_VISIT(st->MqContextC);
    Py_VISIT(st->MkExceptionC);
    return 0;
}

static int
mqpy_clear(PyObject *m)
{
    mqpy_state *st = PyModule_GetState(m);
    Py_CLEAR(st->MkBufferC);
    Py_CLEAR(st->MkBufferStreamC);
    Py_CLEAR(st->MkBufferListC);
    Py_CLEAR(st->MqContextC);
    Py_CLEAR(st->MkExceptionC);
    return 0;
}

static PyModuleDef_Slot mqpy_slots[] = {{Py_mod_exec, mqpy_exec}, {0, NULL}};

PyModuleDef mqpy_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mqlink",
    .m_doc = "mqlink: typed message passing between processes and threads.",
    .m_size = sizeof(mqpy_state),
    .m_methods = mqpy_module_methods,
    .m_slots = mqpy_slots,
    .m_traverse = mqpy_traverse,
    .m_clear = mqpy_clear,
};

PyMODINIT_FUNC
PyInit_mqlink(void)
{
    return PyModuleDef_Init(&mqpy_module_def);
}
