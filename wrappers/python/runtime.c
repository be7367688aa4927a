/* runtime.c — the mqlink extension module: heap types, object lifetime and
 * module initialisation.  Methods come from the generated glue (gen/glue.c).
 *
 * Who owns what: the wrapper of a plain object frees its C object unless a
 * tls ctor made it (CreateTLS: the thread owns those).  A context wrapper and its C
 * context point at each other; the C context's destroy callback clears the
 * wrapper's pointer whoever deletes the context (Delete, a parent's delete,
 * the library ending a server instance), so a stale wrapper raises instead of
 * touching freed memory.
 *
 * Only what is special lives here: the context (subclassable, with user data
 * and a destroy callback) and the exception.  The plain classes' types are
 * generated whole and registered from the table mqpy_classes. */
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

    if (PyModule_CheckExact(obj)) /* not PyModule_Check: a subtype test per ReadBUF */
        return PyModule_GetState(obj);
    if (!(m = PyType_GetModuleByDef(t, &mqpy_module_def)))
        return NULL;
    return PyModule_GetState(m);
}

/* ------------------------------------------------------------ plain types */

/* The plain classes' types are generated (gen/glue.c); their objects find
 * their type here, in the module state, so that each interpreter has its own. */
PyTypeObject *
mqpy_class_type(PyObject *any, int index, mqpy_state **st)
{
    *st = mqpy_state_of(any);
    return *st ? (*st)->classes[index] : NULL;
}

/* ---------------------------------------------------------------- contexts */

static void Context_tp_dealloc(mqpy_MqContextC *self);

static PyObject *Context_tp_new(PyTypeObject *t, PyObject *args, PyObject *kw);

int
mqpy_is_context(PyObject *o)
{
    if (Py_TYPE(o)->tp_new == Context_tp_new) /* inherited unless a class defines __new__ */
        return 1;
    for (PyTypeObject *t = Py_TYPE(o); t; t = t->tp_base)
        if (t->tp_dealloc == (destructor)Context_tp_dealloc)
            return 1;
    return 0;
}

/* Runs at the start of MqContextDelete, whoever calls it. */
void
mqpy_ctx_destroyed(MqContextC *ctx, void *data)
{
    PyGILState_STATE g;
    int held = mqpy_enter(&g);
    mqpy_MqContextC *self = data;

    MqContextSetUserData(ctx, NULL);
    self->obj = NULL;
    if (self->lib_ref) {
        self->lib_ref = 0;
        Py_DECREF(self);
    }
    mqpy_leave(held, g);
}

/* Wrap ctx in a new object of cls (or of MqContextC when given an object). */
PyObject *
mqpy_new_MqContextC(PyObject *any, MqContextC *ctx, int owned)
{
    PyTypeObject *t;
    mqpy_MqContextC *o;
    mqpy_state *st;

    if (!ctx)
        return PyErr_NoMemory();
    st = mqpy_state_of(any);
    t = !st ? NULL : PyType_Check(any) ? (PyTypeObject *)any : st->MqContextC;
    if (!t || !(o = (mqpy_MqContextC *)t->tp_alloc(t, 0))) {
        if (owned)
            MqContextDelete(ctx);
        return NULL;
    }
    o->st = st;
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

/* The method of MqContextC that name finds on cls (borrowed), or NULL when
 * cls or a class between overrides it. */
static PyMethodDef *
inherited(PyTypeObject *cls, PyObject *name)
{
    PyObject *mro = cls->tp_mro, *v = NULL;

    for (Py_ssize_t i = 0; !v && mro && i < PyTuple_GET_SIZE(mro); i++)
        v = PyDict_GetItemWithError(((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_dict, name);
    if (!v || !Py_IS_TYPE(v, &PyMethodDescr_Type))
        return NULL;
    for (PyMethodDef *m = mqpy_MqContextC_methods; m->ml_name; m++)
        if (((PyMethodDescrObject *)v)->d_method == m)
            return m;
    return NULL;
}

/* CPython runs a call of a C method on its fast path only when the object's
 * type is exactly the class the method was found on; for a subclass
 * (every server) each self.SendI32() took the generic path, about a third
 * more per call.  So each subclass gets its own descriptors, made for it, of
 * the MqContextC methods it does not override. */
static PyObject *
Context_init_subclass(PyObject *cls, PyObject *args, PyObject *kw)
{
    mqpy_state *st = mqpy_state_of(cls);
    PyObject *sup, *f, *r;

    if (!st || !(sup = PyObject_CallFunctionObjArgs((PyObject *)&PySuper_Type,
                                                    (PyObject *)st->MqContextC, cls, NULL)))
        return NULL;
    f = PyObject_GetAttrString(sup, "__init_subclass__");
    Py_DECREF(sup);
    r = f ? PyObject_Call(f, args, kw) : NULL;
    Py_XDECREF(f);
    if (!r)
        return NULL;
    for (PyMethodDef *m = mqpy_MqContextC_methods; m->ml_name; m++) {
        PyObject *name = PyUnicode_InternFromString(m->ml_name), *d = NULL;
        int rc = -1;
        if (name && inherited((PyTypeObject *)cls, name) == m &&
            (d = PyDescr_NewMethod((PyTypeObject *)cls, m)))
            rc = PyObject_SetAttr(cls, name, d);
        else if (name && !PyErr_Occurred())
            rc = 0;
        Py_XDECREF(d);
        Py_XDECREF(name);
        if (rc < 0) {
            Py_DECREF(r);
            return NULL;
        }
    }
    return r;
}

static PyMethodDef Context_init_subclass_def = {
    "__init_subclass__", (PyCFunction)(void (*)(void))Context_init_subclass,
    METH_VARARGS | METH_KEYWORDS, "Give the subclass its own descriptors of the C methods."};

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

/* Add a type or the exception as attribute name, listed in __all__. */
static int
add_object(PyObject *m, PyObject *all, const char *name, PyObject *o)
{
    if (PyModule_AddObjectRef(m, name, o) < 0)
        return -1;
    return add_name(all, name);
}

/* The types: the plain classes of the description (mqpy_classes), then the
 * hand-written context and the exception. */
static int
add_types(PyObject *m, mqpy_state *st, PyObject *all)
{
    PyObject *d;

    for (int i = 0; i < MQPY_CLASS_COUNT; i++) {
        const mqpy_class *c = &mqpy_classes[i];
        st->classes[i] = (PyTypeObject *)PyType_FromModuleAndSpec(m, c->spec, NULL);
        if (!st->classes[i] || add_object(m, all, c->name, (PyObject *)st->classes[i]))
            return -1;
    }
    if (!(st->MqContextC = (PyTypeObject *)PyType_FromModuleAndSpec(m, &Context_spec, NULL)) ||
        add_object(m, all, "MqContextC", (PyObject *)st->MqContextC))
        return -1;
    if (!(d = PyDescr_NewClassMethod(st->MqContextC, &Context_init_subclass_def)) ||
        PyObject_SetAttrString((PyObject *)st->MqContextC, "__init_subclass__", d) < 0) {
        Py_XDECREF(d);
        return -1;
    }
    Py_DECREF(d);
    if (!(st->MkExceptionC = make_exception()) ||
        add_object(m, all, "MkExceptionC", st->MkExceptionC))
        return -1;
    return 0;
}

static int
mqpy_exec(PyObject *m)
{
    mqpy_state *st = PyModule_GetState(m);
    PyObject *all = PyList_New(0);
    int rc = -1;

    if (!all || !mqpy_callback_init() || add_types(m, st, all))
        goto error;
    for (const mqpy_const *c = mqpy_consts; c->name; c++)
        if (PyModule_AddIntConstant(m, c->name, c->value) < 0 || add_name(all, c->name))
            goto error;
    for (PyMethodDef *f = mqpy_module_methods; f->ml_name; f++)
        if (add_name(all, f->ml_name))
            goto error;
    if (PyModule_AddObjectRef(m, "__all__", all) < 0)
        goto error;
    /* the library's version, not the one this module was built with */
    if (PyModule_AddStringConstant(m, "__version__", MqVersion()) < 0)
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
    for (int i = 0; i < MQPY_CLASS_COUNT; i++)
        Py_VISIT(st->classes[i]);
    Py_VISIT(st->MqContextC);
    Py_VISIT(st->MkExceptionC);
    Py_VISIT(st->buf_spare);
    return 0;
}

static int
mqpy_clear(PyObject *m)
{
    mqpy_state *st = PyModule_GetState(m);
    for (int i = 0; i < MQPY_CLASS_COUNT; i++)
        Py_CLEAR(st->classes[i]);
    Py_CLEAR(st->MqContextC);
    Py_CLEAR(st->MkExceptionC);
    Py_CLEAR(st->buf_spare);
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
