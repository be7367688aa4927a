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


def c_call(plan, lang, cfunc=None):
    """The C call a glue makes for a plan (one lowering for every glue
    written in C): the object as obj, an out argument as its local's
    address (c_locals declares it), each input as lang's type column
    spells it; cfunc in place of the plan's own function's name."""
    args = []
    for a in plan.c_args:
        if a.role == "self":
            args.append("obj")
        elif a.out:
            args.append("&" + a.var)
        else:
            args.append(arg_text(lang, a))
    return "%s(%s)" % (cfunc or plan.cfunc, ", ".join(args))


def c_statement(plan, call):
    """The call (c_call's) as a statement that keeps its result where
    c_locals declared it: rc for a status, r for a value."""
    return {"status": "rc = %s;", "value": "r = %s;"}.get(plan.c_ret, "%s;") % call


def failure_check(w, test, held, fail):
    """One conversion's check in a C glue: when test (a C condition) holds,
    release held, the temporaries converted before it, in reverse, and
    fail (the function's error return)."""
    if held:
        w("    if (%s) {" % test)
        for c in reversed(held):
            w("        " + c)
        w("        " + fail)
        w("    }")
    else:
        w("    if (%s)" % test)
        w("        " + fail)


def out_local(a):
    """The local a C out-argument points at, zeroed: NULL or 0 is its
    'nothing read' value, and a glue that returns it on an error path (JNI
    must return something) never returns an unset value."""
    return "%s = %s;" % (c_decl(a.ctype, a.var), "NULL" if a.ctype.endswith("*") else "0")


def obj_locals(plan, lang, field):
    """c_locals, after obj (the C object, from the wrapper's field) for a
    method on an object."""
    lines = ["%s *obj = self->%s;" % (plan.cls.c, field)] if plan.on_object else []
    return lines + c_locals(plan, lang)


def c_locals(plan, lang, defaults=True):
    """The C glue's locals for a call plan in a language whose type column
    gives a 'local' per input: each input (with its default, unless the
    glue always receives every argument: Java's overloads pass the
    defaults), each out argument, and the C result."""
    lines = []
    for i in plan.inputs:
        decls = [d.format(n=i.param.name) for d in col(i.param.type, lang).local]
        if decls and i.optional and defaults:
            decls[0] += " = %s" % i.param.default
        lines += [d + ";" for d in decls]
    lines += [out_local(a) for a in plan.c_args if a.out]
    if plan.c_ret == "status":
        lines.append("MkErrorE rc;")
    elif plan.c_ret == "value":
        lines.append(c_decl(plan.c_ret_type, "r") + ";")
    return lines
