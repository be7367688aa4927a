"""Small text helpers every emitter shares."""
from .types import TYPES


def banner(api, comment=""):
    """The first line of every generated file.  It names the entry point
    (wrappers/gen/mqgen.py), which is what the build runs."""
    return "%s generated from %s by wrappers/gen/mqgen.py — do not edit\n" % (comment, api.source)


def c_string(text):
    """text as a C (and C++) string literal."""
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def c_decl(ctype, name):
    """A C declaration: 'MK_I8 v', 'const char *v'."""
    return ctype + ("" if ctype.endswith("*") else " ") + name


def col(type_name, lang):
    """The type table's cell for a type and a language (check_complete made
    sure it exists)."""
    return TYPES[type_name].cols[lang]


def arg_text(lang, a, **kw):
    """How a language spells one C argument of the plan (an input's)."""
    if a.literal is not None:
        return a.literal
    return col(a.param.type, lang).args[a.index].format(n=a.param.name, **kw)


def out_local(a):
    """The local a C out-argument points at, initialised where a NULL or a
    zero size is its 'nothing read' value."""
    if a.ctype.endswith("*"):
        return "%s = NULL;" % c_decl(a.ctype, a.var)
    if a.role == "size":
        return "%s = 0;" % c_decl(a.ctype, a.var)
    return "%s;" % c_decl(a.ctype, a.var)


def c_locals(plan, lang):
    """The C glue's locals for a call plan in a language whose type column
    gives a 'local' per input: each input (with its default), each out
    argument, and the C result."""
    lines = []
    for i in plan.inputs:
        decls = col(i.param.type, lang).local
        init = " = %s" % i.param.default if i.optional else ""
        lines.append(decls[0].format(n=i.param.name) + init + ";")
        lines += [d.format(n=i.param.name) + ";" for d in decls[1:]]
    lines += [out_local(a) for a in plan.c_args if a.out]
    if plan.c_ret == "status":
        lines.append("MkErrorE rc;")
    elif plan.c_ret == "value":
        lines.append(c_decl(plan.c_ret_type, "r") + ";")
    return lines
