"""The Python module's type stubs, mqlink.pyi, from the plans."""
import keyword

from .text import banner, col

LANG = "python"


def hint_in(t):
    return col(t, LANG).hint_in


def return_hint(plan):
    r = plan.result
    if r.kind == "out":
        return col(r.type, LANG).hint_out
    if r.kind == "value":
        return col(r.type, LANG).hint_out + (" | None" if r.nullable else "")
    return {"continue": "bool", "object": plan.cls.name if plan.cls else None}.get(r.kind, "None")


def signature(plan, indent):
    ps = ["cls" if plan.kind == "ctor" else "self"] if plan.cls else []
    for i in plan.inputs:
        name = i.param.name
        name = name + "_" if keyword.iskeyword(name) else name  # def: in C, not Python
        ps.append("%s: %s%s" % (name, hint_in(i.param.type), " = ..." if i.optional else ""))
    lines = [indent + "@classmethod"] if plan.kind == "ctor" else []
    lines.append('%sdef %s(%s) -> %s:' % (indent, plan.name, ", ".join(ps), return_hint(plan)))
    lines.append('%s    """%s"""' % (indent, plan.doc))
    return lines


def emit(api):
    o = ["# " + banner(api).strip(), '"""%s."""' % api.doc,
         "from typing import Callable, Sequence", ""]
    names = [c.name for c in api.consts] + [f.name for f in api.functions] + \
        [k.name for k in api.classes] + ["MkExceptionC"]
    o.append("__all__ = [%s]" % ", ".join('"%s"' % n for n in names))
    o.append("__version__: str  # the library's version (MqVersion())")
    o.append("")
    o += ["%s: int  # %s" % (c.name, c.doc) for c in api.consts]
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
