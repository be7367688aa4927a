"""The C++ binding: mqlink.hh, header-only (runtime in mqlink_runtime.hh).

Renders each CallPlan as an inline method.  C++ alone returns a borrowed
BUF as the view MkBufferR (it can express the C lifetime), so that type and
its conversions are emitted when some call needs it."""
from .model import ApiError
from .text import arg_text, banner, col

LANG = "cxx"

# The view MkBufferR, emitted after the class MkBufferC when some call
# returns a borrowed BUF.  It is an MkBufferC (every method, and every
# parameter taking const MkBufferC & takes it without a copy) that never frees
# the C buffer; MkBufferC's converting constructor and assignment copy it, so
# a value kept as MkBufferC is always owned.
BUF_MEMBERS = """\
    MkBufferC() = default;
    /// An owned copy of a borrowed buffer (MkBufferDup).
    MkBufferC(const MkBufferR &v);
    /// Replace this buffer by an owned copy of a borrowed one.
    MkBufferC &operator=(const MkBufferR &v);"""

BUF_VIEW = """\
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


def is_view(plan):
    """A borrowed BUF (out or returned) reaches C++ as the view MkBufferR:
    C++ can express the C lifetime, so it skips the copy other wrappers make."""
    r = plan.result
    return r.type == "BUF" and r.borrowed and r.kind in ("out", "value")


def value(plan, expr, size=None):
    """The C++ value of the plan's C result held in expr."""
    if is_view(plan):
        return "MkBufferR(%s)" % expr  # a view: no allocation, no copy
    return col(plan.result.type, LANG).wrap.format(v=expr, size=size)


def return_type(plan):
    r = plan.result
    if is_view(plan):
        return "MkBufferR"
    if r.kind in ("out", "value"):
        return col(r.type, LANG).value
    return {"continue": "bool", "object": plan.cls.name if plan.cls else None}.get(r.kind, "void")


def out_local(a, qualify):
    """A local an out argument points at; C types a class of the binding
    shadows inside namespace mqlink are named from the global scope."""
    ctype = a.ctype
    base = ctype.split()[0]
    if base in qualify:
        ctype = "::" + ctype
    if ctype.endswith("*"):
        return "%s%s = nullptr;" % (ctype, a.var)
    if a.role == "size":
        return "%s %s = 0;" % (ctype, a.var)
    return "%s %s{};" % (ctype, a.var)


def c_call(plan, body, qualify):
    """The C call expression; adds the locals it needs to body."""
    args = []
    body += [out_local(a, qualify) for a in plan.c_args if a.out]
    held = set()
    for a in plan.c_args:
        if a.role == "self":
            args.append("Ptr()")
        elif a.out:
            args.append("&" + a.var)
        else:
            c = col(a.param.type, LANG)
            if c.get("hold") and a.param.name not in held:
                held.add(a.param.name)
                body.append(c.hold.format(n=a.param.name, scope=a.param.attrs.get("scope")))
            args.append(arg_text(LANG, a))
    call = "::%s(%s)" % (plan.cfunc, ", ".join(args))
    # The library takes a registration only when the call succeeds.
    for i in plan.free_on_error:
        call = "%s_d.taken(%s)" % (i.param.name, call)
    return call


def method_body(plan, qualify):
    body = []
    call = c_call(plan, body, qualify)
    r = plan.result
    # A context's error is read from the object only when there is one
    # (check_ctx is out of line then), so the C context is not kept
    # across the call.
    check = "detail::check_ctx(*this, %s)" if plan.error == "context" else "detail::check_kernel(%s)"
    if r.kind == "object":
        body.append("return %s::Adopt(%s, %s);" % (plan.cls.name, call,
                                                    "true" if r.owned else "false"))
    elif r.kind == "delete":
        body.append("Release();")
    elif r.kind == "continue":
        body.append("return %s == MK_OK;" % (check % call))
    elif plan.c_ret == "status":
        body.append((check % call) + ";")
        if r.kind == "out":
            body.append("return %s;" % value(plan, r.param.name, r.param.name + "_size"))
    elif r.kind == "none":
        body.append(call + ";")
        body += ["%s_d.taken();" % i.param.name for i in plan.callbacks]
    else:
        body.append("auto r = %s;" % call)
        if plan.raise_on == "NULL":
            body.append("if (!r) %s;" % (check % "MK_ERROR"))
        if r.nullable and r.type == "STR":
            body.append('if (!r) return std::string();')
        body.append("return %s;" % value(plan, "r"))
    return body


def method(plan, qualify):
    ps = ["%s %s%s" % (col(i.param.type, LANG).param, i.param.name,
                       " = %s" % i.param.default if i.optional else "") for i in plan.inputs]
    k = plan.cls
    lines = ["    /// %s" % plan.doc]
    if is_view(plan):
        lines.append("    /// Returns a view, valid while the C buffer is; Dup() or an MkBufferC keeps a copy.")
    prefix = "inline " if k is None else "static " if plan.kind == "ctor" else ""
    name = plan.name if plan.kind != "dtor" else "Delete"
    lines.append("    %s%s %s(%s) {" % (prefix, return_type(plan), name, ", ".join(ps)))
    lines += ["        " + b for b in method_body(plan, qualify)]
    lines.append("    }")
    return lines


def klass(k, buf_view, qualify):
    """A plain class is an RAII handle whose constructor is the argument-free
    ctor; a subclassable one builds on the runtime's ContextCore."""
    base = "detail::ContextCore" if not k.plain else \
        "detail::Handle<%s, ::%s, ::%s, ::%s>" % (k.name, k.c, k.create().cfunc, k.free)
    o = ["/// %s" % k.doc, "class %s : public %s {" % (k.name, base), "  public:",
         "    using %s;" % ("Handle::Handle" if k.plain else "detail::ContextCore::ContextCore")]
    if not k.plain:
        o.append("    MQLINK_CONTEXT_MEMBERS(%s)" % k.name)
    is_buf_view = buf_view and k.name == "MkBufferC"
    if is_buf_view:
        o += BUF_MEMBERS.split("\n")
    for f in k.funcs:
        if (not k.plain and f.kind == "ctor") or f.kind == "handwritten":
            continue  # MqContextC() is the constructor; runtime methods are in ContextCore
        o += method(f.plan, qualify)
    o += ["};", ""]
    if is_buf_view:
        o += BUF_VIEW.split("\n")
    return o


def emit(api):
    o = ["// " + banner(api).strip(),
         "// %s: C++ binding (header-only; runtime in mqlink_runtime.hh)." % api.module,
         "#ifndef MQLINK_HH", "#define MQLINK_HH", "",
         "#include <mqlink.h>", "",
         "#include \"mqlink_runtime.hh\"", "", "namespace mqlink {", ""]
    for c in api.consts:
        if not c.name.startswith(("MK_OK", "MK_CONTINUE", "MK_ERROR", "MK_TYPE_", "MQ_WAIT_")):
            o.append("constexpr int k%s = %s; // %s" % (c.name, c.name, c.doc))
    o.append("")
    qualify = {k.name for k in api.classes}
    for f in api.functions:
        o += [l[4:] if l.startswith("    ") else l for l in method(f.plan, qualify)]
    o.append("")
    buf_view = any(is_view(f.plan) for f in api.all_funcs())
    if buf_view:
        if not any(k.name == "MkBufferC" and k.plain for k in api.classes):
            raise ApiError("a borrowed BUF needs the plain class MkBufferC (C++: its view MkBufferR)")
        o += ["class MkBufferR;", ""]
    for k in api.classes:
        o += klass(k, buf_view, qualify)
    o += ["} // namespace mqlink", "", "#include \"mqlink_context.hh\"", "",
          "#endif // MQLINK_HH"]
    return "\n".join(o).rstrip() + "\n"
