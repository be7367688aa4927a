"""The objects a description is made of.  They hold what the text says and
nothing derived: the C lowering of a call is plan.py's job."""


class ApiError(Exception):
    """A description (or the generator's own tables) says something the
    generator cannot turn into glue.  where is "FILE:LINE" when known, so the
    message reads like a compiler's."""

    def __init__(self, message, where=None):
        super().__init__("%s: %s" % (where, message) if where else message)


class Param:
    def __init__(self, name, type_, out=False, default=None, attrs=None, where=None):
        self.name, self.type, self.out, self.default = name, type_, out, default
        self.attrs = attrs or {}
        self.where = where

    @property
    def is_self(self):
        return self.name == "self"


class Func:
    """function, ctor, dtor, method or handwritten (cfunc None: the runtime
    implements it).  ret is the return word (err, err-continue, void, self or
    a TYPE), ret_mods its modifiers (borrowed, nullable, raises-null)."""

    def __init__(self, kind, name, cfunc, params, ret, ret_mods, flags, doc, cls, where):
        self.kind, self.name, self.cfunc, self.params = kind, name, cfunc, params
        self.ret, self.ret_mods, self.flags = ret, ret_mods, flags
        self.doc, self.cls, self.where = doc, cls, where
        self.plan = None  # set by plan.lower_api

    def inputs(self):
        return [p for p in self.params if not p.is_self and not p.out]

    def outs(self):
        return [p for p in self.params if p.out]


class Klass:
    def __init__(self, name, attrs, doc, where):
        self.name, self.attrs, self.doc, self.where, self.funcs = name, attrs, doc, where, []
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


class Const:
    def __init__(self, name, value, ctype, doc):
        self.name, self.value, self.ctype, self.doc = name, value, ctype, doc


class Api:
    def __init__(self, source):
        self.source = source  # as banners print it: relative to the source tree
        self.module, self.doc = "mqlink", ""
        self.headers, self.consts, self.functions = [], [], []
        self.runtime, self.classes = {}, []

    def all_funcs(self):
        """Every function with a C function behind it."""
        for f in self.functions:
            yield f
        for k in self.classes:
            for f in k.funcs:
                if f.cfunc:
                    yield f

    def has_class(self, name):
        return any(k.name == name for k in self.classes)
