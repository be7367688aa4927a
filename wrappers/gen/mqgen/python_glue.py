"""The CPython module's glue, gen/glue.c: one C function per CallPlan, the
method tables, and the types of the plain classes (python_plain.py)."""
from .python_plain import plain_type
from .text import banner, c_call, c_statement, col, failure_check, obj_locals

LANG = "python"


def convention(plan):
    """How CPython passes the arguments: no argument and exactly one get
    their own conventions, which the interpreter calls on its fastest path
    (no argument count to check, no argument array)."""
    ins = plan.inputs
    if plan.kind == "handwritten" or any(i.optional for i in ins) or len(ins) > 1:
        return "METH_FASTCALL"
    return "METH_O" if ins else "METH_NOARGS"


ARGS_DECL = {"METH_NOARGS": "PyObject *Py_UNUSED(ignored)", "METH_O": "PyObject *arg",
             "METH_FASTCALL": "PyObject *const *args, Py_ssize_t nargs"}


def raise_expr(plan):
    if plan.error == "context":
        return "mqpy_raise_ctx((PyObject *)self, obj)"
    return "mqpy_raise_kernel((PyObject *)self)"


def value(t, expr, size=None):
    """A new reference to the Python value of a C value."""
    return col(t, LANG).build.format(v=expr, size=size)


class FuncGlue:
    """One function's C text, rendered from its plan."""

    def __init__(self, plan, out):
        self.plan, self.w = plan, out.append
        self.conv = convention(plan)

    def emit(self):
        p, k = self.plan, self.plan.cls
        selfdecl = "PyObject *self" if k is None or p.kind == "ctor" else "mqpy_%s *self" % k.name
        self.w("/* %s */" % p.doc)
        self.w("static PyObject *")
        self.w("%s_%s(%s, %s)" % (k.name if k else "module", p.name, selfdecl, ARGS_DECL[self.conv]))
        self.w("{")
        if self.declare_locals():
            self.w("")
        if p.on_object:
            self.w("    if (!obj)")
            self.w('        return mqpy_deleted((PyObject *)self, "%s");' % p.name)
        if self.conv == "METH_FASTCALL":
            nreq = len([i for i in p.inputs if not i.optional])
            self.w('    if (!mqpy_check_nargs("%s", nargs, %d, %d))' % (p.name, nreq, len(p.inputs)))
            self.w("        return NULL;")
        self.convert()
        self.call_and_return()
        self.w("}")
        self.w("")

    def declare_locals(self):
        """The function's locals; False when it has none."""
        lines = obj_locals(self.plan, LANG, "obj")
        for line in lines:
            self.w("    " + line)
        return bool(lines)

    def convert(self):
        """Each input in the plan's order; a failure releases the
        temporaries converted before it."""
        p, held = self.plan, []
        for i in p.convert_order:
            a = "arg" if self.conv == "METH_O" else "args[%d]" % i.index
            guard = "nargs > %d && " % i.index if i.optional else ""
            conv = col(i.param.type, LANG).to.format(
                arg=a, n=i.param.name, fn=p.name,
                scope=str(i.param.attrs.get("scope", "")).upper())
            failure_check(self.w, "%s!%s" % (guard, conv), held, "return NULL;")
            if i.temporary:
                held.append(col(i.param.type, LANG).release.format(n=i.param.name))

    def call_and_return(self):
        p, r = self.plan, self.plan.result
        call = c_call(self.plan, LANG)
        if r.kind == "object":
            if p.kind == "ctor":
                self.w("    return mqpy_new_%s(self, %s, %d);" % (p.cls.name, call, r.owned))
            else:
                self.w("    return mqpy_new_%s((PyObject *)self, %s, 1);" % (p.cls.name, call))
            return
        stmt = c_statement(p, call)
        if r.kind == "delete":
            self.w("    mqpy_delete_%s(self);" % p.cls.name)
        elif p.blocking:
            # The lock stays held: frames handled without waiting need no
            # handover; the library's blocking hooks release it in each wait.
            self.w("    /* may wait: the blocking hooks release the lock meanwhile */")
            self.w("    " + stmt)
        else:
            self.w("    " + stmt)
        for i in reversed(p.cleanups):
            self.w("    " + col(i.param.type, LANG).release.format(n=i.param.name))
        self.raise_on_error()
        self.returns()

    def raise_on_error(self):
        p = self.plan
        if p.raise_on != "MK_ERROR":
            return
        if p.free_on_error:
            # Free the registration once the error is the exception, as
            # releasing the callable may run Python code (a __del__) that
            # uses the context.
            self.w("    if (rc == MK_ERROR) {")
            self.w("        %s;" % raise_expr(p))
            for i in p.free_on_error:
                self.w("        mqpy_cb_free(%s); /* not taken: still ours */" % i.param.name)
            self.w("        return NULL;")
            self.w("    }")
        else:
            self.w("    if (rc == MK_ERROR)")
            self.w("        return %s;" % raise_expr(p))

    def returns(self):
        p, r = self.plan, self.plan.result
        if r.kind == "continue":
            self.w("    return PyBool_FromLong(rc == MK_OK);")
        elif r.kind == "out":
            self.w("    return %s;" % value(r.type, r.param.name, r.param.name + "_size"))
        elif r.kind == "value":
            if p.raise_on == "NULL":
                self.w("    if (!r)")
                self.w("        return %s;" % raise_expr(p))
            if r.nullable:
                self.w("    if (!r)")
                self.w("        Py_RETURN_NONE;")
            self.w("    return %s;" % value(r.type, "r"))
        else:
            self.w("    Py_RETURN_NONE;")


def table(out, name, funcs, prefix, static=False):
    out.append("%sPyMethodDef %s[] = {" % ("static " if static else "", name))
    for f in funcs:
        flags = convention(f.plan) + (" | METH_CLASS" if f.kind == "ctor" else "")
        impl = ("mqpy_rt_%s_%s" if f.kind == "handwritten" else "%s_%s") % (prefix, f.name)
        out.append('    {"%s", (PyCFunction)(void (*)(void))%s, %s, "%s"},' % (
            f.name, impl, flags, f.doc.replace('"', '\\"')))
    out += ["    {NULL, NULL, 0, NULL}", "};", ""]


def klass(out, api, k):
    out += ["/* ---- %s: %s */" % (k.name, k.doc), ""]
    for f in k.funcs:
        if f.kind != "handwritten":
            FuncGlue(f.plan, out).emit()
    if k.plain:
        table(out, "%s_methods" % k.name, k.funcs, k.name, static=True)
        out += plain_type(api, k)
    else:
        table(out, "mqpy_%s_methods" % k.name, k.funcs, k.name)


def emit(api):
    out = ["/* " + banner(api).strip() + " */", '#include "runtime.h"', "",
           "const mqpy_const mqpy_consts[] = {"]
    out += ['    {"%s", %d},' % (c.name, c.value) for c in api.consts]
    out += ["    {NULL, 0}", "};", ""]
    for f in api.functions:
        FuncGlue(f.plan, out).emit()
    table(out, "mqpy_module_methods", api.functions, "module")
    for k in api.classes:
        klass(out, api, k)
    out.append("/* The plain classes, in the order of MQPY_CLASS_*, for the module to register. */")
    out.append("const mqpy_class mqpy_classes[] = {")
    out += ['    {"%s", &%s_spec},' % (k.name, k.name) for k in api.classes if k.plain]
    out += ["    {NULL, NULL}", "};"]
    return "\n".join(out).rstrip() + "\n"
