"""Description text -> model.  Every line is checked as it is read: an
unknown line kind, attribute, flag or return word, a type used in a
direction it does not take, or a line that does not match its form is an
ApiError naming FILE:LINE, so a typo never turns into odd glue."""
import re

from .model import Api, ApiError, Const, Func, Klass, Param
from .types import IN, OUT, RET, TYPES

LINE_FUNC = re.compile(r'^(\w+)\s+(\w+)\s*=\s*(\w+)\((.*?)\)\s*->\s*([^"]*?)\s*"(.*)"$')
LINE_HANDWRITTEN = re.compile(r'^handwritten\s+(\w+)\((.*?)\)\s*->\s*([^"]*?)\s*"(.*)"$')
LINE_MODULE = re.compile(r'^module\s+(\w+)\s+"(.*)"$')
LINE_HEADER = re.compile(r'^header\s+(\S+)$')
LINE_CONST = re.compile(r'^const\s+(\w+)\s+(-?\d+)\s+(\w+)\s+"(.*)"$')
LINE_RUNTIME = re.compile(r'^runtime\s+(\w+)\s+"(.*)"$')
LINE_CLASS = re.compile(r'^class\s+(\w+)\s*(.*?)\s*"(.*)"$')
PARAM = re.compile(r"^(\w+):(\w+)(?:=(\S+))?$")

RET_WORDS = ("err", "err-continue", "void", "self")
RET_MODS = ("borrowed", "nullable", "raises-null")
FLAGS = {"blocking": ("function", "method"), "tls": ("ctor",), "query": ("method",)}
CLASS_ATTRS = {"c": None, "free": None, "errors": ("kernel", "context"), "subclass": True}
CALLBACK_SCOPES = ("notified", "once")
SELF_FIRST = ("method", "dtor")  # kinds whose first parameter is the object


def unquote(doc):
    return doc.replace('\\"', '"')


def words_to_attrs(words, allowed, what, where):
    """name=value or flag words, each checked against allowed: a tuple of
    the values a name takes, None for any value, True for a bare flag."""
    attrs = {}
    for w in words:
        k, eq, v = w.partition("=")
        if k not in allowed:
            raise ApiError("unknown %s attribute '%s'" % (what, k), where)
        want = allowed[k]
        if want is True and eq:
            raise ApiError("%s attribute '%s' takes no value" % (what, k), where)
        if want is not True and not v:
            raise ApiError("%s attribute '%s' needs a value" % (what, k), where)
        if isinstance(want, tuple) and v not in want:
            raise ApiError("%s attribute %s=%s: expected one of %s"
                           % (what, k, v, "|".join(want)), where)
        attrs[k] = v or True
    return attrs


def parse_param(item, where):
    words = item.split()
    out = words[0] == "out"
    if out:
        words = words[1:]
    m = PARAM.match(words[0]) if words else None
    if not m:
        raise ApiError("malformed parameter '%s' (want [out] name:TYPE[=DEFAULT] [attr...])"
                       % item, where)
    name, type_, default = m.groups()
    t = TYPES.get(type_)
    if t is None:
        raise ApiError("parameter %s: unknown type '%s'" % (name, type_), where)
    if (OUT if out else IN) not in t.dirs:
        raise ApiError("parameter %s: type %s cannot be %s"
                       % (name, type_, "an out parameter" if out else "an input"), where)
    if out and default is not None:
        raise ApiError("parameter %s: an out parameter has no default" % name, where)
    allowed = {"borrowed": True} if out else {}
    if type_ == "CALLBACK":
        allowed["scope"] = CALLBACK_SCOPES
    attrs = words_to_attrs(words[1:], allowed, "parameter", where)
    if type_ == "CALLBACK" and "scope" not in attrs:
        raise ApiError("parameter %s: a CALLBACK needs scope=%s"
                       % (name, "|".join(CALLBACK_SCOPES)), where)
    return Param(name, type_, out, default, attrs, where)


def parse_params(text, kind, where):
    items = [s.strip() for s in text.split(",")]
    if items == [""]:
        items = []
    if "" in items:
        raise ApiError("empty parameter in '(%s)'" % text, where)
    params = []
    for i, item in enumerate(items):
        if item == "self":
            if i != 0 or kind not in SELF_FIRST:
                raise ApiError("'self' is only the first parameter of a method or dtor", where)
            params.append(Param("self", "self", where=where))
        else:
            params.append(parse_param(item, where))
    if kind in SELF_FIRST and not (params and params[0].is_self):
        raise ApiError("a %s's first parameter is self" % kind, where)
    return params


def parse_ret(text, kind, where):
    """'-> RET [modifiers] [flags]' as (ret, mods, flags)."""
    words = text.split()
    if not words:
        raise ApiError("missing return after '->'", where)
    ret, rest = words[0], words[1:]
    if ret not in RET_WORDS and (ret not in TYPES or RET not in TYPES[ret].dirs):
        raise ApiError("unknown return word '%s' (want %s or a TYPE that can be returned)"
                       % (ret, ", ".join(RET_WORDS)), where)
    mods, flags = [], []
    for w in rest:
        if w in RET_MODS and ret in TYPES:
            mods.append(w)
        elif w in FLAGS and kind in FLAGS[w]:
            flags.append(w)
        else:
            raise ApiError("unknown return word or flag '%s' for a %s returning %s"
                           % (w, kind, ret), where)
    if kind == "ctor" and ret != "self":
        raise ApiError("a ctor returns self", where)
    if ret == "self" and kind not in ("ctor", "method"):
        raise ApiError("only a ctor or a method returns self", where)
    if kind == "dtor" and ret != "void":
        raise ApiError("a dtor returns void", where)
    return ret, tuple(mods), tuple(flags)


class Parser:
    def __init__(self, path, source_name):
        self.api = Api(source_name or path)
        self.path, self.klass = path, None

    def line(self, line, where):
        kind = line.split()[0]
        handler = getattr(self, "do_" + kind, None)
        if kind in ("function", "ctor", "dtor", "method"):
            handler = self.do_func
        if handler is None:
            raise ApiError("unknown line kind '%s'" % kind, where)
        handler(line, where)

    def match(self, regex, line, what, where):
        m = regex.match(line)
        if not m:
            raise ApiError("malformed %s line: %s" % (what, line), where)
        return m

    def do_module(self, line, where):
        m = self.match(LINE_MODULE, line, "module", where)
        self.api.module, self.api.doc = m.group(1), unquote(m.group(2))

    def do_header(self, line, where):
        self.api.headers.append(self.match(LINE_HEADER, line, "header", where).group(1))

    def do_const(self, line, where):
        name, value, ctype, doc = self.match(LINE_CONST, line, "const", where).groups()
        self.api.consts.append(Const(name, int(value), ctype, unquote(doc)))

    def do_runtime(self, line, where):
        m = self.match(LINE_RUNTIME, line, "runtime", where)
        self.api.runtime[m.group(1)] = m.group(2)

    def do_class(self, line, where):
        name, attrs, doc = self.match(LINE_CLASS, line, "class", where).groups()
        self.klass = Klass(name, words_to_attrs(attrs.split(), CLASS_ATTRS, "class", where),
                           unquote(doc), where)
        self.api.classes.append(self.klass)

    def do_handwritten(self, line, where):
        name, ptext, rtext, doc = self.match(LINE_HANDWRITTEN, line, "handwritten", where).groups()
        k = self.member_of("handwritten", where)
        params = [Param("self", "self", where=where)] + parse_params(ptext, "handwritten", where)
        ret, mods, flags = parse_ret(rtext, "handwritten", where)
        k.funcs.append(Func("handwritten", name, None, params, ret, mods, flags,
                            unquote(doc), k, where))

    def do_func(self, line, where):
        kind, name, cfunc, ptext, rtext, doc = self.match(
            LINE_FUNC, line, line.split()[0], where).groups()
        params = parse_params(ptext, kind, where)
        ret, mods, flags = parse_ret(rtext, kind, where)
        k = None if kind == "function" else self.member_of(kind, where)
        f = Func(kind, name, cfunc, params, ret, mods, flags, unquote(doc), k, where)
        (self.api.functions if k is None else k.funcs).append(f)

    def member_of(self, kind, where):
        if self.klass is None:
            raise ApiError("%s outside a class" % kind, where)
        return self.klass


def check_plain(k):
    """A plain class is generated whole; say what it lacks instead of
    emitting glue that does not compile."""
    if k.errors != "kernel":
        raise ApiError("class %s: a class without 'subclass' needs errors=kernel" % k.name, k.where)
    if not k.free:
        raise ApiError("class %s: a plain class needs free=CFUNC" % k.name, k.where)
    if not k.create():
        raise ApiError("class %s: a plain class needs a ctor without arguments" % k.name, k.where)


def parse(path, source_name=None):
    p = Parser(path, source_name)
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if line and not line.startswith("#"):
            p.line(line, "%s:%d" % (path, n))
    for k in p.api.classes:
        if k.plain:
            check_plain(k)
    return p.api
