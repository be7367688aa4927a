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
