#!/usr/bin/env python3
"""mqgen.py — turn the mqlink API description into each language's glue.

    mqgen.py API LANG OUT        write one generated file
    mqgen.py --check API HEADER...   TAP: every public C function is described

LANG is one of: python-glue (C for the CPython module), python-h (its
declarations for the runtime), python-pyi (stubs), cxx (the header-only C++
binding).  Tcl, Ruby and Java add an emitter each;
the parser and the type table below are shared (see wrappers/api/README.md).
Standard library only; the output depends on nothing but the description,
so running the generator twice gives the same bytes.
"""
import keyword
import os
import re
import sys

# ------------------------------------------------------------------ the model

# Logical types: how many C arguments each stands for (in and out).
ARITY = {
    "I8": 1, "I16": 1, "I32": 1, "I64": 1, "FLT": 1, "DBL": 1, "BOL": 1,
    "STR": 1, "TOKEN": 1, "FMT": 1, "BIN": 2, "BUF": 1, "CTX": 1, "ARGV": 2,
    "WAIT": 1, "TYPE": 1, "SIZE": 1, "CALLBACK": 3,
}
C_TYPE = {
    "I8": "MK_I8", "I16": "MK_I16", "I32": "MK_I32", "I64": "MK_I64",
    "FLT": "MK_FLT", "DBL": "MK_DBL", "BOL": "MK_BOL", "WAIT": "MqWaitE",
    "TYPE": "MkTypeE", "SIZE": "size_t",
}
NUMERIC = ("I8", "I16", "I32", "I64", "FLT", "DBL", "BOL")


class ApiError(Exception):
    pass


class Param:
    def __init__(self, name, type_, out=False, default=None, attrs=None):
        self.name, self.type, self.out, self.default = name, type_, out, default
        self.attrs = attrs or {}


class Func:
    def __init__(self, kind, name, cfunc, params, ret, flags, doc, cls):
        self.kind, self.name, self.cfunc, self.params = kind, name, cfunc, params
        self.ret, self.flags, self.doc, self.cls = ret, flags, doc, cls

    @property
    def ret_type(self):
        return self.ret[0]

    def c_arity(self):
        return sum(1 if p.name == "self" else ARITY[p.type] for p in self.params)

    def inputs(self):
        return [p for p in self.params if p.name != "self" and not p.out]

    def outs(self):
        return [p for p in self.params if p.out]


class Klass:
    def __init__(self, name, attrs, doc):
        self.name, self.attrs, self.doc, self.funcs = name, attrs, doc, []
        self.c = attrs.get("c", name)
        self.errors = attrs.get("errors", "kernel")
        self.free = attrs.get("free")
        # A class users may subclass needs the runtime (user data, factory);
        # every other class is plain and generated whole.
        self.plain = "subclass" not in attrs

    def create(self):
        """The ctor that makes a new owned object without arguments (the
        language's constructor), or None."""
        for f in self.funcs:
            if f.kind == "ctor" and not f.inputs() and "tls" not in f.flags:
                return f
        return None


def check_plain(k):
    """A plain class is generated whole; say what it lacks instead of
    emitting glue that does not compile."""
    if k.errors != "kernel":
        raise ApiError("class %s: a class without 'subclass' needs errors=kernel" % k.name)
    if not k.free:
        raise ApiError("class %s: a plain class needs free=CFUNC" % k.name)
    if not k.create():
        raise ApiError("class %s: a plain class needs a ctor without arguments" % k.name)


class Api:
    def __init__(self, source):
        self.source = source
        self.module, self.doc = "mqlink", ""
        self.headers, self.consts, self.functions = [], [], []
        self.runtime, self.classes = {}, []

    def all_funcs(self):
        for f in self.functions:
            yield f
        for k in self.classes:
            for f in k.funcs:
                if f.cfunc:
                    yield f


LINE_FUNC = re.compile(r'^(\w+)\s+(\w+)\s*=\s*(\w+)\((.*?)\)\s*->\s*([^"]*?)\s*"(.*)"$')


def parse_params(text, where):
    params = []
    for item in [s.strip() for s in text.split(",") if s.strip()]:
        if item == "self":
            params.append(Param("self", "self"))
            continue
        words = item.split()
        out = words[0] == "out"
        if out:
            words = words[1:]
        m = re.match(r"^(\w+):(\w+)(?:=(\S+))?$", words[0])
        if not m or m.group(2) not in ARITY:
            raise ApiError("%s: bad parameter '%s'" % (where, item))
        attrs = {}
        for w in words[1:]:
            k, _, v = w.partition("=")
            attrs[k] = v or True
        params.append(Param(m.group(1), m.group(2), out, m.group(3), attrs))
    return params


def parse(path, source_name=None):
    api = Api(source_name or path)
    klass = None
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        where = "%s:%d" % (path, n)
        if not line or line.startswith("#"):
            continue
        word = line.split()[0]
        if word == "module":
            m = re.match(r'^module\s+(\w+)\s+"(.*)"$', line)
            api.module, api.doc = m.group(1), m.group(2)
        elif word == "header":
            api.headers.append(line.split()[1])
        elif word == "const":
            m = re.match(r'^const\s+(\w+)\s+(-?\d+)\s+(\w+)\s+"(.*)"$', line)
            if not m:
                raise ApiError(where + ": bad const")
            api.consts.append((m.group(1), int(m.group(2)), m.group(3), m.group(4)))
        elif word == "runtime":
            m = re.match(r'^runtime\s+(\w+)\s+"(.*)"$', line)
            api.runtime[m.group(1)] = m.group(2)
        elif word == "class":
            m = re.match(r'^class\s+(\w+)\s*(.*?)\s*"(.*)"$', line)
            attrs = {}
            for w in m.group(2).split():
                k, _, v = w.partition("=")
                attrs[k] = v or True
            klass = Klass(m.group(1), attrs, m.group(3).replace('\\"', '"'))
            api.classes.append(klass)
        elif word == "handwritten":
            m = re.match(r'^handwritten\s+(\w+)\((.*?)\)\s*->\s*(\S+)\s*"(.*)"$', line)
            if not m or klass is None:
                raise ApiError(where + ": bad handwritten method")
            klass.funcs.append(Func("handwritten", m.group(1), None,
                                    [Param("self", "self")] + parse_params(m.group(2), where),
                                    (m.group(3), ()), (), m.group(4), klass))
        elif word in ("function", "ctor", "dtor", "method"):
            m = LINE_FUNC.match(line)
            if not m:
                raise ApiError(where + ": cannot parse '%s'" % line)
            kind, name, cfunc, ptext, rtext, doc = m.groups()
            rwords = rtext.split()
            ret = (rwords[0], tuple(w for w in rwords[1:] if w in ("borrowed", "nullable", "raises-null")))
            flags = tuple(w for w in rwords[1:] if w not in ret[1])
            f = Func(kind, name, cfunc, parse_params(ptext, where), ret, flags,
                     doc.replace('\\"', '"'), None if kind == "function" else klass)
            if kind == "function":
                api.functions.append(f)
            else:
                if klass is None:
                    raise ApiError(where + ": method outside a class")
                klass.funcs.append(f)
        else:
            raise ApiError(where + ": unknown line kind '%s'" % word)
    for k in api.classes:
        if k.plain:
            check_plain(k)
    return api


def banner(api, comment):
    return "%s generated from %s by wrappers/gen/mqgen.py — do not edit\n" % (comment, api.source)


def c_string(text):
    """text as a C (and C++) string literal."""
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


# --------------------------------------------------------------- python glue

PY_FROM = {
    "I8": "PyLong_FromLong(%s)", "I16": "PyLong_FromLong(%s)", "I32": "PyLong_FromLong(%s)",
    "I64": "PyLong_FromLongLong(%s)", "FLT": "PyFloat_FromDouble(%s)",
    "DBL": "PyFloat_FromDouble(%s)", "BOL": "PyBool_FromLong(%s)",
    "TYPE": "PyLong_FromLong(%s)", "SIZE": "PyLong_FromSize_t(%s)",
}


def py_out_decl(p):
    if p.type == "STR":
        return ["const char *%s = NULL;" % p.name]
    if p.type == "BIN":
        return ["const void *%s = NULL;" % p.name, "size_t %s_size = 0;" % p.name]
    if p.type == "BUF":
        return ["MkBufferC *%s = NULL;" % p.name]
    return ["%s %s;" % (C_TYPE[p.type], p.name)]


def py_value(t, expr, size=None):
    """A new reference to the Python value of a C value."""
    if t in PY_FROM:
        return PY_FROM[t] % expr
    if t == "STR":
        return "mqpy_from_STR(%s)" % expr
    if t == "BIN":
        return "PyBytes_FromStringAndSize((const char *)%s, (Py_ssize_t)%s)" % (expr, size)
    if t == "BUF":
        return "mqpy_from_BUF((PyObject *)self, %s)" % expr
    if t == "CTX":
        return "mqpy_from_CTX(%s)" % expr
    raise ApiError("no Python value for " + t)


def py_convention(f):
    """How CPython passes the arguments: no argument and exactly one get
    their own conventions, which the interpreter calls on its fastest path
    (no argument count to check, no argument array)."""
    ins = f.inputs()
    if f.kind == "handwritten" or any(p.default is not None for p in ins) or len(ins) > 1:
        return "METH_FASTCALL"
    return "METH_O" if ins else "METH_NOARGS"


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


class PyGlue:
    def __init__(self, api):
        self.api = api
        self.out = []

    def w(self, s=""):
        self.out.append(s)

    def raise_expr(self, f):
        if f.cls is not None and f.cls.errors == "context":
            return "mqpy_raise_ctx((PyObject *)self, obj)"
        return "mqpy_raise_kernel((PyObject *)self)"

    def func(self, f):
        k = f.cls
        cname = "%s_%s" % (k.name if k else "module", f.name)
        selfdecl = "PyObject *self" if k is None else (
            "PyObject *self" if f.kind == "ctor" else "mqpy_%s *self" % k.name)
        conv = py_convention(f)
        argsdecl = {"METH_NOARGS": "PyObject *Py_UNUSED(ignored)", "METH_O": "PyObject *arg",
                    "METH_FASTCALL": "PyObject *const *args, Py_ssize_t nargs"}[conv]
        self.w("/* %s */" % f.doc)
        self.w("static PyObject *")
        self.w("%s(%s, %s)" % (cname, selfdecl, argsdecl))
        self.w("{")
        ins, outs = f.inputs(), f.outs()
        if k is not None and f.kind not in ("ctor", "dtor"):
            self.w("    %s *obj = self->obj;" % k.c)
        for p in ins:
            init = " = %s" % p.default if p.default else ""
            if p.type in C_TYPE:
                self.w("    %s %s%s;" % (C_TYPE[p.type], p.name, init))
            elif p.type in ("STR", "TOKEN", "FMT"):
                self.w("    const char *%s%s;" % (p.name, init))
            elif p.type == "BIN":
                self.w("    Py_buffer %s;" % p.name)
            elif p.type == "BUF":
                self.w("    MkBufferC *%s;" % p.name)
            elif p.type == "CTX":
                self.w("    MqContextC *%s;" % p.name)
            elif p.type == "ARGV":
                self.w("    int %s_argc;" % p.name)
                self.w("    char **%s;" % p.name)
            elif p.type == "CALLBACK":
                self.w("    void *%s;" % p.name)
        for p in outs:
            for d in py_out_decl(p):
                self.w("    " + d)
        rt = f.ret_type
        if rt in ("err", "err-continue"):
            self.w("    MkErrorE rc;")
        elif rt == "self":
            pass
        elif rt != "void":
            decl = {"STR": "const char *", "BUF": "MkBufferC *", "CTX": "MqContextC *"}.get(rt)
            self.w("    %sr;" % (decl or C_TYPE[rt] + " "))
        if self.out[-1] != "{":
            self.w("")
        if k is not None and f.kind not in ("ctor", "dtor"):
            self.w("    if (!obj)")
            self.w('        return mqpy_deleted((PyObject *)self, "%s");' % f.name)
        if conv == "METH_FASTCALL":
            nreq = len([p for p in ins if p.default is None])
            self.w('    if (!mqpy_check_nargs("%s", nargs, %d, %d))' % (f.name, nreq, len(ins)))
            self.w("        return NULL;")
        cleanup = []
        order = sorted(enumerate(ins), key=lambda ip: ip[1].type == "CALLBACK")
        for i, p in order:
            a = "arg" if conv == "METH_O" else "args[%d]" % i
            guard = "nargs > %d && " % i if p.default is not None else ""
            if p.type in C_TYPE:
                conv = 'mqpy_to_%s(%s, &%s, "%s")' % (p.type, a, p.name, f.name)
            elif p.type in ("STR", "FMT"):
                conv = 'mqpy_to_STR(%s, &%s, "%s")' % (a, p.name, f.name)
            elif p.type == "TOKEN":
                conv = 'mqpy_to_TOKEN(%s, &%s, "%s")' % (a, p.name, f.name)
            elif p.type == "BIN":
                conv = 'mqpy_to_BIN(%s, &%s, "%s")' % (a, p.name, f.name)
            elif p.type == "BUF":
                conv = 'mqpy_to_BUF((PyObject *)self, %s, &%s, "%s")' % (a, p.name, f.name)
            elif p.type == "CTX":
                conv = 'mqpy_to_CTX((PyObject *)self, %s, &%s, "%s")' % (a, p.name, f.name)
            elif p.type == "ARGV":
                conv = 'mqpy_to_ARGV(%s, &%s_argc, &%s, "%s")' % (a, p.name, p.name, f.name)
            elif p.type == "CALLBACK":
                scope = p.attrs.get("scope", "call").upper()
                conv = '(%s = mqpy_cb_new((PyObject *)self, %s, MQPY_SCOPE_%s, "%s"))' % (
                    p.name, a, scope, f.name)
            if cleanup:
                self.w("    if (%s!%s) {" % (guard, conv))
                for c in reversed(cleanup):
                    self.w("        " + c)
                self.w("        return NULL;")
                self.w("    }")
            else:
                self.w("    if (%s!%s)" % (guard, conv))
                self.w("        return NULL;")
            if p.type == "BIN":
                cleanup.append("PyBuffer_Release(&%s);" % p.name)
            elif p.type == "ARGV":
                cleanup.append("mqpy_argv_free(%s_argc, %s);" % (p.name, p.name))
        # the C call
        cargs = []
        for p in f.params:
            if p.name == "self":
                cargs.append("obj")
            elif p.out:
                if p.type == "BIN":
                    cargs += ["&%s" % p.name, "&%s_size" % p.name]
                else:
                    cargs.append("&%s" % p.name)
            elif p.type == "BIN":
                cargs += ["%s.buf" % p.name, "(size_t)%s.len" % p.name]
            elif p.type == "ARGV":
                cargs += ["%s_argc" % p.name, "(const char **)%s" % p.name]
            elif p.type == "CALLBACK":
                cargs += ["mqpy_cb_call", p.name, "mqpy_cb_free"]
            elif p.type == "FMT":
                cargs += ['"%s"', p.name]
            else:
                cargs.append(p.name)
        call = "%s(%s)" % (f.cfunc, ", ".join(cargs))
        if rt in ("err", "err-continue"):
            stmt = "rc = %s;" % call
        elif rt in ("void", "self"):
            stmt = "%s;" % call if rt == "void" else None
        else:
            stmt = "r = %s;" % call
        if rt == "self":
            if f.kind == "ctor":
                owned = "0" if "tls" in f.flags else "1"
                self.w("    return mqpy_new_%s(self, %s, %s);" % (k.name, call, owned))
            else:
                self.w("    return mqpy_new_%s((PyObject *)self, %s, 1);" % (k.name, call))
            self.w("}")
            self.w("")
            return
        if f.kind == "dtor":
            self.w("    mqpy_delete_%s(self);" % k.name)
        elif "blocking" in f.flags:
            # The lock stays held: frames handled without waiting need no
            # handover; the library's blocking hooks release it in each wait.
            self.w("    /* may wait: the blocking hooks release the lock meanwhile */")
            self.w("    " + stmt)
        else:
            self.w("    " + stmt)
        for c in reversed(cleanup):
            self.w("    " + c)
        # MK_ERROR leaves a callback's data with the caller (mqlink.h): free
        # it once the error is the exception, as releasing the callable may
        # run Python code (a __del__) that uses the context.
        cbs = [p.name for p in ins if p.type == "CALLBACK"]
        if rt in ("err", "err-continue") and cbs:
            self.w("    if (rc == MK_ERROR) {")
            self.w("        %s;" % self.raise_expr(f))
            for n in cbs:
                self.w("        mqpy_cb_free(%s); /* not taken: still ours */" % n)
            self.w("        return NULL;")
            self.w("    }")
        elif rt in ("err", "err-continue"):
            self.w("    if (rc == MK_ERROR)")
            self.w("        return %s;" % self.raise_expr(f))
        if rt == "err-continue":
            self.w("    return PyBool_FromLong(rc == MK_OK);")
        elif rt == "err" and outs:
            p = outs[0]
            self.w("    return %s;" % py_value(p.type, p.name, p.name + "_size"))
        elif rt in ("err", "void"):
            self.w("    Py_RETURN_NONE;")
        else:
            if "raises-null" in f.ret[1]:
                self.w("    if (!r)")
                self.w("        return %s;" % self.raise_expr(f))
            if "nullable" in f.ret[1]:
                self.w("    if (!r)")
                self.w("        Py_RETURN_NONE;")
            self.w("    return %s;" % py_value(rt, "r"))
        self.w("}")
        self.w("")

    def table(self, name, funcs, prefix, static=False):
        self.w("%sPyMethodDef %s[] = {" % ("static " if static else "", name))
        for f in funcs:
            flags = py_convention(f) + (" | METH_CLASS" if f.kind == "ctor" else "")
            impl = ("mqpy_rt_%s_%s" if f.kind == "handwritten" else "%s_%s") % (prefix, f.name)
            self.w('    {"%s", (PyCFunction)(void (*)(void))%s, %s, "%s"},' % (
                f.name, impl, flags, f.doc.replace('"', '\\"')))
        self.w("    {NULL, NULL, 0, NULL}")
        self.w("};")
        self.w("")

    def plain_type(self, k):
        """Everything a plain class needs besides its methods."""
        self.out += (PY_PLAIN_TYPE % dict(
            name=k.name, c=k.c, free=k.free, create=k.create().cfunc, module=self.api.module,
            doc=c_string(k.doc))).split("\n")

    def klass(self, k):
        self.w("/* ---- %s: %s */" % (k.name, k.doc))
        self.w("")
        for f in k.funcs:
            if f.kind != "handwritten":
                self.func(f)
        if k.plain:
            self.table("%s_methods" % k.name, k.funcs, k.name, static=True)
            self.plain_type(k)
        else:
            self.table("mqpy_%s_methods" % k.name, k.funcs, k.name)

    def emit(self):
        api = self.api
        self.w("/* " + banner(api, "").strip() + " */")
        self.w('#include "runtime.h"')
        self.w("")
        self.w("const mqpy_const mqpy_consts[] = {")
        for name, value, _, _ in api.consts:
            self.w('    {"%s", %d},' % (name, value))
        self.w("    {NULL, 0}")
        self.w("};")
        self.w("")
        for f in api.functions:
            self.func(f)
        self.table("mqpy_module_methods", api.functions, "module")
        for k in api.classes:
            self.klass(k)
        self.w("/* The plain classes, in the order of MQPY_CLASS_*, for the module to register. */")
        self.w("const mqpy_class mqpy_classes[] = {")
        for k in api.classes:
            if k.plain:
                self.w('    {"%s", &%s_spec},' % (k.name, k.name))
        self.w("    {NULL, NULL}")
        self.w("};")
        return "\n".join(self.out).rstrip() + "\n"


def emit_python_h(api):
    """gen/glue.h: what the glue defines, for the runtime (runtime.h includes it)."""
    plain = [k for k in api.classes if k.plain]
    o = ["/* " + banner(api, "").strip() + " */",
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


# ------------------------------------------------------------- python stubs

PYI_TYPE = {
    "I8": "int", "I16": "int", "I32": "int", "I64": "int", "FLT": "float", "DBL": "float",
    "BOL": "bool", "STR": "str", "TOKEN": "str", "FMT": "str", "BIN": "bytes",
    "BUF": "MkBufferC", "CTX": "MqContextC", "ARGV": "Sequence[str]", "WAIT": "int",
    "TYPE": "int", "SIZE": "int", "CALLBACK": "Callable[..., object]",
}
PYI_IN = dict(PYI_TYPE, BIN="bytes | bytearray | memoryview")


def emit_pyi(api):
    o = ["# " + banner(api, "").strip(), '"""%s."""' % api.doc,
         "from typing import Callable, Sequence", ""]
    names = [c[0] for c in api.consts] + [f.name for f in api.functions] + \
        [k.name for k in api.classes] + ["MkExceptionC"]
    o.append("__all__ = [%s]" % ", ".join('"%s"' % n for n in names))
    o.append("")
    for name, value, _, doc in api.consts:
        o.append("%s: int  # %s" % (name, doc))
    o.append("")
    o.append("class MkExceptionC(Exception):")
    o.append('    """An mqlink call failed: text and code of the C error."""')
    o.append("    text: str")
    o.append("    code: int")
    o.append("    def __init__(self, text: str = ..., code: int = ...) -> None: ...")
    o.append("")

    def sig(f, indent):
        ps = ["cls" if f.kind == "ctor" else "self"] if f.cls else []
        for p in f.inputs():
            name = p.name + "_" if keyword.iskeyword(p.name) else p.name  # def: in C, not Python
            ps.append("%s: %s%s" % (name, PYI_IN[p.type], " = ..." if p.default else ""))
        rt = f.ret_type
        if rt == "err":
            r = PYI_TYPE[f.outs()[0].type] if f.outs() else "None"
        elif rt == "err-continue":
            r = "bool"
        elif rt == "self":
            r = f.cls.name
        elif rt == "void":
            r = "None"
        else:
            r = PYI_TYPE[rt] + (" | None" if "nullable" in f.ret[1] else "")
        lines = []
        if f.kind == "ctor":
            lines.append(indent + "@classmethod")
        lines.append('%sdef %s(%s) -> %s:' % (indent, f.name, ", ".join(ps), r))
        lines.append('%s    """%s"""' % (indent, f.doc))
        return lines

    for f in api.functions:
        o += sig(f, "")
    o.append("")
    for k in api.classes:
        o.append("class %s:" % k.name)
        o.append('    """%s"""' % k.doc)
        o.append("    def __init__(self) -> None: ...")
        for f in k.funcs:
            o += sig(f, "    ")
        o.append("")
    return "\n".join(o).rstrip() + "\n"


# ----------------------------------------------------------------------- C++

CXX_IN = {
    "I8": "MK_I8", "I16": "MK_I16", "I32": "MK_I32", "I64": "MK_I64", "FLT": "MK_FLT",
    "DBL": "MK_DBL", "BOL": "bool", "STR": "MkStringR", "TOKEN": "MkStringR", "FMT": "MkStringR",
    "BIN": "MkBinaryR", "BUF": "const MkBufferC &",
    "CTX": "MqContextC &", "ARGV": "const std::vector<std::string> &", "WAIT": "MqWaitE",
    "TYPE": "MkTypeE", "CALLBACK": "MqCallbackF",
}
CXX_OUT = {
    "I8": "MK_I8", "I16": "MK_I16", "I32": "MK_I32", "I64": "MK_I64", "FLT": "MK_FLT",
    "DBL": "MK_DBL", "BOL": "bool", "STR": "std::string", "BIN": "std::vector<uint8_t>",
    "BUF": "MkBufferC", "CTX": "MqContextC *", "TYPE": "MkTypeE", "SIZE": "size_t",
}


def cxx_value(t, expr, size=None, borrowed=False):
    if t == "STR":
        return "detail::str(%s)" % expr
    if t == "BIN":
        return "detail::bin(%s, %s)" % (expr, size)
    if t == "BUF" and borrowed:
        return "MkBufferR(%s)" % expr  # a view: no allocation, no copy
    if t == "BUF":
        return "MkBufferC::Adopt(::MkBufferDup(%s))" % expr
    if t == "CTX":
        return "detail::context_of(%s)" % expr
    if t == "BOL":
        return "(%s) != 0" % expr
    return expr


def cxx_borrows_buf(f):
    """A borrowed BUF (out or returned) reaches C++ as the view MkBufferR:
    C++ can express the C lifetime, so it skips the copy other wrappers make."""
    if f.ret_type == "BUF":
        return "borrowed" in f.ret[1]
    return f.ret_type == "err" and bool(f.outs()) and f.outs()[0].type == "BUF" \
        and "borrowed" in f.outs()[0].attrs


# The view MkBufferR, emitted after the class MkBufferC when some call
# returns a borrowed BUF.  It is an MkBufferC (every method, and every
# parameter taking const MkBufferC & takes it without a copy) that never frees
# the C buffer; MkBufferC's converting constructor and assignment copy it, so
# a value kept as MkBufferC is always owned.
CXX_BUF_MEMBERS = """\
    MkBufferC() = default;
    /// An owned copy of a borrowed buffer (MkBufferDup).
    MkBufferC(const MkBufferR &v);
    /// Replace this buffer by an owned copy of a borrowed one.
    MkBufferC &operator=(const MkBufferR &v);"""

CXX_BUF_VIEW = """\
/// A borrowed MkBufferC, as ReadBUF and IndexGet return it: no allocation and
/// no copy.  It names the C object's own buffer and is valid only as long as
/// that is (until the next ReadBUF on the same object, or until the list
/// changes); Dup(), or keeping it as an MkBufferC (`MkBufferC keep =
/// ctx.ReadBUF();`), makes an owned copy.  Copying the view copies the name.
class MkBufferR : public MkBufferC {
  public:
    explicit MkBufferR(::MkBufferC *p) : MkBufferC(detail::adopt_t{}, p, false) {}
    MkBufferR(const MkBufferR &o) : MkBufferR(o.Ptr()) {}
    MkBufferR &operator=(const MkBufferR &o)
    {
        // an rvalue MkBufferC: the move assignment, not the copying one
        static_cast<MkBufferC &>(*this) = MkBufferC(detail::adopt_t{}, o.Ptr(), false);
        return *this;
    }
};

inline MkBufferC::MkBufferC(const MkBufferR &v) : MkBufferC(Adopt(::MkBufferDup(v.Ptr()))) {}
inline MkBufferC &MkBufferC::operator=(const MkBufferR &v)
{
    return *this = Adopt(::MkBufferDup(v.Ptr()));
}
"""


def emit_cxx(api):
    o = ["// " + banner(api, "").strip(),
         "// %s: C++ binding (header-only; runtime in mqlink_runtime.hh)." % api.module,
         "#ifndef MQLINK_HH", "#define MQLINK_HH", "",
         "#include <mqlink.h>", "",
         "#include \"mqlink_runtime.hh\"", "", "namespace mqlink {", ""]
    for name, value, ctype, doc in api.consts:
        if not name.startswith(("MK_OK", "MK_CONTINUE", "MK_ERROR", "MK_TYPE_", "MQ_WAIT_")):
            o.append("constexpr int k%s = %s; // %s" % (name, name, doc))
    o.append("")

    def method(f, k):
        ins, outs, rt = f.inputs(), f.outs(), f.ret_type
        ps = []
        for p in ins:
            ps.append("%s %s%s" % (CXX_IN[p.type], p.name,
                                    " = %s" % p.default if p.default else ""))
        if rt == "err":
            r = CXX_OUT[outs[0].type] if outs else "void"
        elif rt == "err-continue":
            r = "bool"
        elif rt == "void":
            r = "void"
        elif rt == "self":
            r = k.name
        else:
            r = CXX_OUT[rt]
        view = cxx_borrows_buf(f)
        if view:
            r = "MkBufferR"
        static = "static " if f.kind == "ctor" or k is None else ""
        lines = ["    /// %s" % f.doc]
        if view:
            lines.append("    /// Returns a view, valid while the C buffer is; Dup() or an MkBufferC keeps a copy.")
        name = f.name if f.kind != "dtor" else "Delete"
        lines.append("    %s%s %s(%s) {" % ("inline " if k is None else static, r, name,
                                           ", ".join(ps)))
        body = []
        for p in outs:
            if p.type == "STR":
                body.append("const char *%s = nullptr;" % p.name)
            elif p.type == "BIN":
                body += ["const void *%s = nullptr;" % p.name, "size_t %s_size = 0;" % p.name]
            elif p.type == "BUF":
                body.append("MkBufferC *%s = nullptr;" % p.name)
                body[-1] = "::MkBufferC *%s = nullptr;" % p.name
            else:
                body.append("%s %s{};" % (C_TYPE[p.type], p.name))
        cargs = []
        for p in f.params:
            if p.name == "self":
                cargs.append("Ptr()")
            elif p.out:
                cargs += ["&%s" % p.name] + (["&%s_size" % p.name] if p.type == "BIN" else [])
            elif p.type in ("STR", "TOKEN"):
                cargs.append("%s.c_str()" % p.name)
            elif p.type == "FMT":
                cargs += ['"%s"', "%s.c_str()" % p.name]
            elif p.type == "BIN":
                cargs += ["%s.data" % p.name, "%s.size" % p.name]
            elif p.type in ("BUF", "CTX"):
                cargs.append("%s.Ptr()" % p.name)
            elif p.type == "ARGV":
                body.append("detail::Argv %s_v(%s);" % (p.name, p.name))
                cargs += ["%s_v.argc()" % p.name, "%s_v.argv()" % p.name]
            elif p.type == "CALLBACK":
                # held until the C call takes it: MK_ERROR (or an exception
                # before the call) leaves it to the holder, which frees it
                scope = p.attrs.get("scope", "call")
                body.append("detail::CallbackHold %s_d(std::move(%s), detail::Scope::%s);"
                            % (p.name, p.name, scope))
                cargs += ["detail::cb_call", "%s_d.get()" % p.name, "detail::cb_free"]
            else:
                cargs.append(p.name)
        call = "::%s(%s)" % (f.cfunc, ", ".join(cargs))
        holds = ["%s_d" % p.name for p in f.params if p.type == "CALLBACK" and not p.out]
        if holds and rt not in ("err", "err-continue", "void"):
            raise ApiError("%s: a callback needs a call returning err, err-continue or void"
                           % f.name)
        for h in holds:
            if rt != "void":
                call = "%s.taken(%s)" % (h, call)
        # A context's error is read from the object only when there is one
        # (check_ctx is out of line then), so the C context is not kept
        # across the call.
        check = "detail::check_ctx(*this, %s)" if k is not None and k.errors == "context" \
            else "detail::check_kernel(%s)"
        if f.kind == "ctor":
            body.append("return %s::Adopt(%s, %s);" % (k.name, call,
                                                        "false" if "tls" in f.flags else "true"))
        elif f.kind == "dtor":
            body.append("Release();")
        elif rt == "self":
            body.append("return %s::Adopt(%s, true);" % (k.name, call))
        elif rt == "err":
            body.append((check % call) + ";")
            if outs:
                p = outs[0]
                body.append("return %s;" % cxx_value(p.type, p.name, p.name + "_size", view))
        elif rt == "err-continue":
            body.append("return %s == MK_OK;" % (check % call))
        elif rt == "void":
            body.append(call + ";")
            body += ["%s.taken();" % h for h in holds]
        else:
            body.append("auto r = %s;" % call)
            if "raises-null" in f.ret[1]:
                body.append("if (!r) detail::check_kernel(MK_ERROR);")
            if "nullable" in f.ret[1] and rt == "STR":
                body.append('if (!r) return std::string();')
            body.append("return %s;" % cxx_value(rt, "r", borrowed=view))
        lines += ["        " + b for b in body]
        lines.append("    }")
        return lines

    for f in api.functions:
        o += [l[4:] if l.startswith("    ") else l for l in method(f, None)]
    o.append("")
    buf_view = any(cxx_borrows_buf(f) for f in api.all_funcs())
    if buf_view:
        if not any(k.name == "MkBufferC" and k.plain for k in api.classes):
            raise ApiError("a borrowed BUF needs the plain class MkBufferC (C++: its view MkBufferR)")
        o += ["class MkBufferR;", ""]
    for k in api.classes:
        # A plain class is an RAII handle whose constructor is the argument-free
        # ctor; a subclassable one builds on the runtime's ContextCore.
        base = "detail::ContextCore" if not k.plain else \
            "detail::Handle<%s, ::%s, ::%s, ::%s>" % (k.name, k.c, k.create().cfunc, k.free)
        o.append("/// %s" % k.doc)
        o.append("class %s : public %s {" % (k.name, base))
        o.append("  public:")
        o.append("    using %s;" % ("Handle::Handle" if k.plain
                                    else "detail::ContextCore::ContextCore"))
        if not k.plain:
            o.append("    MQLINK_CONTEXT_MEMBERS(%s)" % k.name)
        is_buf_view = buf_view and k.name == "MkBufferC"
        if is_buf_view:
            o += CXX_BUF_MEMBERS.split("\n")
        for f in k.funcs:
            if (not k.plain and f.kind == "ctor") or f.kind == "handwritten":
                continue  # MqContextC() is the constructor; runtime methods are in ContextCore
            o += method(f, k)
        o.append("};")
        o.append("")
        if is_buf_view:
            o += CXX_BUF_VIEW.split("\n")
    o += ["} // namespace mqlink", "", "#include \"mqlink_context.hh\"", "",
          "#endif // MQLINK_HH"]
    return "\n".join(o).rstrip() + "\n"


# --------------------------------------------------------------- header check

DECL = re.compile(r"^[A-Za-z_][\w \*]*?\b((?:Mk|Mq)\w+)\s*\(([^;{]*)\)\s*(?:__attribute__.*)?;",
                  re.S)


def header_functions(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    text = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", " ", text)
    out = {}
    for stmt in text.split(";"):
        stmt = " ".join(stmt.split()) + ";"
        if stmt.startswith(("typedef", "enum", "struct", "}", "extern")):
            stmt = re.sub(r'^extern "C" \{ ', "", stmt)
            if stmt.startswith(("typedef", "enum", "struct", "}")):
                continue
        m = DECL.match(stmt)
        if m:
            args = m.group(2).strip()
            n = 0 if args in ("", "void") else len([a for a in args.split(",")])
            out[m.group(1)] = (n, "..." in args)
    return out


def check(api, headers):
    described = {f.cfunc: f for f in api.all_funcs()}
    results = []
    seen = set()
    for h in headers:
        for name, (n, variadic) in sorted(header_functions(h).items()):
            seen.add(name)
            if name in api.runtime:
                results.append((True, "%s: hand-written in each runtime (%s)" % (name, api.runtime[name]), ""))
                continue
            f = described.get(name)
            if not f:
                results.append((False, "%s (%s) is described in %s" % (name, os.path.basename(h), api.source),
                                "add it to the description, or list it as runtime with a reason"))
                continue
            want = n - (1 if variadic else 0)
            ok = f.c_arity() == want
            results.append((ok, "%s: description has the C arity %d of the header" % (name, want),
                            "" if ok else "description stands for %d C arguments" % f.c_arity()))
    for name in sorted(set(described) | set(api.runtime)):
        if name not in seen:
            results.append((False, "%s of the description is declared in a header" % name,
                            "remove it or fix its name"))
    lines = ["1..%d" % len(results)]
    for i, (ok, text, why) in enumerate(results, 1):
        lines.append("%s %d - %s" % ("ok" if ok else "not ok", i, text))
        if why:
            lines.append("#   " + why)
    return all(r[0] for r in results), "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- main

EMITTERS = {
    "python-glue": lambda api: PyGlue(api).emit(),
    "python-h": emit_python_h,
    "python-pyi": emit_pyi,
    "cxx": emit_cxx,
}


def source_name(path):
    """The description's name as printed in banners: relative to the source tree."""
    norm = path.replace(os.sep, "/")
    i = norm.rfind("wrappers/")
    return norm[i:] if i >= 0 else os.path.basename(norm)


def main(argv):
    if len(argv) >= 3 and argv[1] == "--check":
        try:
            api = parse(argv[2], source_name(argv[2]))
        except ApiError as e:
            sys.stdout.write("1..1\nnot ok 1 - the description parses\n#   %s\n" % e)
            return 1
        ok, text = check(api, argv[3:])
        sys.stdout.write(text)
        return 0 if ok else 1
    if len(argv) != 4 or argv[2] not in EMITTERS:
        sys.stderr.write("usage: mqgen.py API {%s} OUT | mqgen.py --check API HEADER...\n"
                         % ",".join(sorted(EMITTERS)))
        return 2
    try:
        api = parse(argv[1], source_name(argv[1]))
        text = EMITTERS[argv[2]](api)
    except ApiError as e:
        sys.stderr.write("mqgen.py: %s\n" % e)
        return 1
    tmp = argv[3] + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    os.replace(tmp, argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
