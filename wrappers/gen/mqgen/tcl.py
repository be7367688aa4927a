"""The Tcl extension's glue: gen/glue.c (one C function per CallPlan, the
static method tables of each class, the class, constant and function
tables the runtime registers) and gen/glue.h (the class indices).

Every method is `int fn(interp, self, objc, objv)` with objv holding its
arguments only: the runtime reaches it through TclOO (`$obj SendI32 5`) and,
for contexts, through the context's own `my`, which looks the name up in the
class's static table (wrappers/tcl/runtime.h).  Numbers are read with the
Tcl_Obj readers and range-checked (the type table's tcl column); scalar
results are set in place (IN_PLACE), others with Tcl_SetObjResult; errors are Tcl errors with -errorcode {MK code}."""
from .text import banner, c_call, c_statement, c_string, col, failure_check, obj_locals

LANG = "tcl"


def raise_expr(plan):
    if plan.error == "context":
        return "mqtcl_raise_ctx(interp, obj)"
    return "mqtcl_raise_kernel(interp)"


def value(t, expr, size=None):
    """A new Tcl_Obj holding a C value."""
    return col(t, LANG).build.format(v=expr, size=size)


# The makers of scalar values whose result the runtime sets in place (the
# interp's unshared empty result reused, no Tcl_Obj per call): maker -> setter.
IN_PLACE = {"mqtcl_from_int": "mqtcl_set_int", "Tcl_NewWideIntObj": "mqtcl_set_int",
            "mqtcl_from_DBL": "mqtcl_set_DBL", "Tcl_NewBooleanObj": "mqtcl_set_BOL"}


def set_result(t, expr, size=None):
    """The statement that makes a C value the method's result."""
    built = value(t, expr, size)
    maker, _, arg = built.partition("(")
    if maker in IN_PLACE:
        return "%s(interp, %s;" % (IN_PLACE[maker], arg)
    return "Tcl_SetObjResult(interp, %s);" % built


# In-place setters with an out-of-line twin that returns TCL_OK: a method
# whose result is its C call's return value ends in a tail call of it
# (nothing of the method's frame is needed by then).  An out parameter's
# value stays inline: its address was taken, so no tail call is made.
RETURNING = {"mqtcl_set_int": "mqtcl_return_int", "mqtcl_set_BOL": "mqtcl_return_BOL"}


def return_result(t, expr):
    """The statement that ends a method with a C value as its result."""
    stmt = set_result(t, expr)
    setter, _, rest = stmt.partition("(")
    if setter in RETURNING:
        return "return %s(%s" % (RETURNING[setter], rest)
    return stmt + "\n    return TCL_OK;"


def usage(plan):
    """The arguments as `wrong # args` spells them: optional ones in ?...?."""
    return " ".join("?%s?" % i.param.name if i.optional else i.param.name for i in plan.inputs)


def c_name(plan):
    k = plan.cls
    return "%s_%s" % (k.name if k else "module", plan.name)


class FuncGlue:
    """One function's C text, rendered from its plan."""

    def __init__(self, plan, out):
        self.plan, self.w = plan, out.append

    def emit(self):
        p = self.plan
        self.w("/* %s %s — %s */" % (p.name, usage(p), p.doc) if p.inputs else
               "/* %s — %s */" % (p.name, p.doc))
        self.w("static int")
        if p.cls is None:
            self.w("%s(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])"
                   % c_name(p))
        elif p.kind == "ctor":
            self.w("%s(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])" % c_name(p))
        else:
            self.w("%s(Tcl_Interp *interp, mqtcl_obj *self, int objc, Tcl_Obj *const objv[])"
                   % c_name(p))
        self.w("{")
        if self.declare_locals():
            self.w("")
        if p.cls is None:
            self.w("    objc--, objv++; /* the command's name */")
        self.check_count()
        self.convert()
        self.call_and_return()
        self.w("}")
        self.w("")

    def declare_locals(self):
        """The function's locals; False when it has none."""
        lines = obj_locals(self.plan, LANG, "c")
        for line in lines:
            self.w("    " + line)
        return bool(lines)

    def check_count(self):
        p = self.plan
        n, nreq = len(p.inputs), len([i for i in p.inputs if not i.optional])
        if n == nreq:
            cond = "objc != %d" % n
        elif nreq == 0:
            cond = "objc > %d" % n
        else:
            cond = "objc < %d || objc > %d" % (nreq, n)
        self.w("    if (%s)" % cond)
        self.w("        return mqtcl_wrong_args(interp, %s, %s);" % (c_string(p.name),
                                                                  c_string(usage(p))))

    def convert(self):
        """Each input in the plan's order; a failure releases the
        temporaries converted before it."""
        p, held = self.plan, []
        for i in p.convert_order:
            guard = "objc > %d && " % i.index if i.optional else ""
            conv = col(i.param.type, LANG).to.format(
                arg="objv[%d]" % i.index, n=i.param.name, fn=p.name,
                scope=str(i.param.attrs.get("scope", "")).upper())
            failure_check(self.w, "%s%s != TCL_OK" % (guard, conv), held, "return TCL_ERROR;")
            release = col(i.param.type, LANG).get("release")
            if i.temporary and release:
                held.append(release.format(n=i.param.name))

    def call_and_return(self):
        p, r = self.plan, self.plan.result
        call = c_call(self.plan, LANG)
        if r.kind == "object":
            self.w("    return mqtcl_new_object(interp, MQTCL_CLASS_%s, %s, %d);"
                   % (p.cls.name, call, 1 if r.owned else 0))
            return
        if r.kind == "delete":
            self.w("    return mqtcl_delete(interp, self);")
            return
        stmt = c_statement(p, call)
        if p.blocking:
            self.w("    /* may wait: Tcl has no lock to release */")
        self.w("    " + stmt)
        for i in reversed(p.cleanups):
            release = col(i.param.type, LANG).get("release")
            if release:
                self.w("    " + release.format(n=i.param.name))
        self.raise_on_error()
        self.returns()

    def raise_on_error(self):
        p = self.plan
        if p.raise_on != "MK_ERROR":
            return
        if p.free_on_error:
            self.w("    if (rc == MK_ERROR) {")
            for i in p.free_on_error:
                self.w("        mqtcl_cb_free(%s); /* not taken: still ours */" % i.param.name)
            self.w("        return %s;" % raise_expr(p))
            self.w("    }")
        else:
            self.w("    if (rc == MK_ERROR)")
            self.w("        return %s;" % raise_expr(p))

    def returns(self):
        p, r = self.plan, self.plan.result
        if r.kind == "continue":
            self.w("    mqtcl_set_BOL(interp, rc == MK_OK);")
        elif r.kind == "out":
            self.w("    " + set_result(r.type, r.param.name, r.param.name + "_size"))
        elif r.kind == "value":
            if p.raise_on == "NULL":
                self.w("    if (!r)")
                self.w("        return mqtcl_raise_null(interp, %s);" % c_string(p.name))
            if r.nullable:
                self.w("    if (!r)")
                self.w("        return TCL_OK;")
            self.w("    " + return_result(r.type, "r"))
            return
        self.w("    return TCL_OK;")


def tables(out, k):
    methods = [f for f in k.funcs if f.kind != "ctor"]
    ctors = [f for f in k.funcs if f.kind == "ctor"]
    out.append("static const mqtcl_method %s_methods[] = {" % k.name)
    for f in methods:
        impl = ("mqtcl_rt_%s_%s" if f.kind == "handwritten" else "%s_%s") % (k.name, f.name)
        out.append('    {"%s", %s},' % (f.name, impl))
    out += ["    {NULL, NULL}", "};", ""]
    out.append("static const mqtcl_ctor %s_ctors[] = {" % k.name)
    for f in ctors:
        out.append('    {"%s", %s_%s},' % (f.name, k.name, f.name))
    out += ["    {NULL, NULL}", "};", ""]
    create = k.create()
    out += ["static void *", "%s_create(void)" % k.name, "{"]
    out.append("    return %s;" % ("%s()" % create.cfunc if create else "NULL"))
    out += ["}", "", "static void", "%s_destroy(void *c)" % k.name, "{"]
    out.append("    %s;" % ("%s(c)" % k.free if k.free else "(void)c"))
    out += ["}", ""]


def emit(api):
    out = ["/* " + banner(api).strip() + " */", '#include "runtime.h"', "",
           "const mqtcl_const mqtcl_consts[] = {"]
    out += ['    {"%s", %d},' % (c.name, c.value) for c in api.consts]
    out += ["    {NULL, 0}", "};", ""]
    for f in api.functions:
        FuncGlue(f.plan, out).emit()
    out.append("const mqtcl_function mqtcl_functions[] = {")
    out += ['    {"%s", module_%s},' % (f.name, f.name) for f in api.functions]
    out += ["    {NULL, NULL}", "};", ""]
    for k in api.classes:
        out += ["/* ---- %s: %s */" % (k.name, k.doc), ""]
        for f in k.funcs:
            if f.kind != "handwritten":
                FuncGlue(f.plan, out).emit()
        tables(out, k)
    out.append("/* The classes, in the order of MQTCL_CLASS_*, for the runtime to register. */")
    out.append("const mqtcl_class mqtcl_classes[MQTCL_CLASS_COUNT] = {")
    for k in api.classes:
        out.append("    {%s, %s, %s_methods, %s_ctors, %s_create, %s_destroy, %d}," % (
            c_string(k.name), c_string(k.doc), k.name, k.name, k.name, k.name,
            0 if k.plain else 1))
    out.append("};")
    return "\n".join(out).rstrip() + "\n"


def emit_h(api):
    out = ["/* " + banner(api).strip() + " */",
           "/* The classes of the description, by index into mqtcl_classes. */",
           "enum {"]
    out += ["    MQTCL_CLASS_%s," % k.name for k in api.classes]
    out += ["    MQTCL_CLASS_COUNT", "};"]
    return "\n".join(out) + "\n"
