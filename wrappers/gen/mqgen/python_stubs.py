"""The Python module's type stubs from the plans.  Installed as the stub-only
package mqlink-stubs/__init__.pyi (PEP 561): a type checker ignores a lone
mqlink.pyi beside an extension module in site-packages."""
import keyword

from .text import banner, col
from .types import PY_ENUMS

LANG = "python"


def hint_in(t):
    return col(t, LANG).hint_in


def return_hint(plan):
    r = plan.result
    if r.kind == "out":
        return col(r.type, LANG).hint_out
    if r.kind == "value":
        return col(r.type, LANG).hint_out + (" | None" if r.nullable else "")
    # a constructor makes the caller's own class (Server.Create() is a Server)
    return {"continue": "bool", "object": "Self" if plan.cls else None}.get(r.kind, "None")


def signature(plan, indent):
    # a callback gets the context it runs for, of the caller's own class:
    # the callback hint names Self
    ps = ["cls" if plan.kind == "ctor" else "self"] if plan.cls else []
    for i in plan.inputs:
        name = i.param.name
        name = name + "_" if keyword.iskeyword(name) else name  # def: in C, not Python
        ps.append("%s: %s%s" % (name, hint_in(i.param.type), " = ..." if i.optional else ""))
    lines = [indent + "@classmethod"] if plan.kind == "ctor" else []
    lines.append('%sdef %s(%s) -> %s:' % (indent, plan.name, ", ".join(ps), return_hint(plan)))
    lines.append('%s    """%s"""' % (indent, plan.doc))
    return lines


def enums(api):
    """The enum types the constants and the type table's hints name."""
    names = list(PY_ENUMS)
    names += [c.ctype for c in api.consts if c.ctype != "int" and c.ctype not in names]
    return names


def emit(api):
    o = ["# " + banner(api).strip(), '"""%s."""' % api.doc,
         "from typing import Callable, NewType", "",
         "from typing_extensions import Self  # typing.Self from Python 3.11 on", "",
         "# Enum types for type checkers only (at run time the constants are int):",
         "# a constant of one enum is refused where another is expected."]
    o += ['%s = NewType("%s", int)' % (e, e) for e in enums(api)]
    o.append("")
    names = [c.name for c in api.consts] + [f.name for f in api.functions] + \
        [k.name for k in api.classes] + ["MkExceptionC"]
    o.append("__all__ = [%s]" % ", ".join('"%s"' % n for n in names))
    o.append("__version__: str  # the library's version (MqVersion())")
    o.append("")
    o += ["%s: %s  # %s" % (c.name, c.ctype, c.doc) for c in api.consts]
    o += ["",
          "class MkExceptionC(Exception):",
          '    """An mqlink call failed: text and code of the C error."""',
          "    text: str",
          "    code: int",
          "    def __init__(self, text: str = ..., code: int = ...) -> None: ...",
          ""]
    for f in api.functions:
        o += signature(f.plan, "")
    o.append("")
    for k in api.classes:
        o.append("class %s:" % k.name)
        o.append('    """%s"""' % k.doc)
        o.append("    def __init__(self) -> None: ...")
        for f in k.funcs:
            o += signature(f.plan, "    ")
        o.append("")
    return "\n".join(o).rstrip() + "\n"
