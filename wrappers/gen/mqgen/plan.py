"""Lowering: model -> one CallPlan per function.  Everything about how a
description line becomes a C call is decided here, once, so that every
emitter renders the same plan instead of re-deriving it:

  - the C arguments in order, each with its role (BIN -> data, size;
    ARGV -> argc, argv; CALLBACK -> fn, cbdata, free; FMT -> the literal
    "%s" and the text as its vararg; out parameters as addresses);
  - what the call returns to the language (the first out parameter, a
    value, a new object, MK_OK as a boolean, nothing) and which error
    source an MK_ERROR or a NULL raises from;
  - which converted inputs hold a temporary released after the call;
  - which callback registrations the wrapper still owns when the C call
    returns MK_ERROR (mqlink.h: the call never ran them), so it frees them.
"""
from .model import ApiError
from .types import TYPES

# Literal C arguments the plan supplies for a role.
LITERAL = {"fmt": '"%s"'}
# The variable a role's C argument lives in, besides the parameter's own name.
VAR_SUFFIX = {"size": "_size", "argc": "_argc"}


class CArg:
    """One C argument.  role: self, value, data, size, argc, argv, fn,
    cbdata, free, fmt or vararg; param: the Param it comes from (None for
    self); index: its position among the type's C arguments (the index into
    a type column's `args`); out: pass the address of the local var;
    literal: the text to pass as is; variadic: the argument goes through
    the C function's `...` (the header check does not count it)."""

    def __init__(self, role, param=None, index=0, ctype=None, out=False, literal=None,
                 variadic=False):
        self.role, self.param, self.index, self.ctype = role, param, index, ctype
        self.out, self.literal, self.variadic = out, literal, variadic
        self.var = param.name + VAR_SUFFIX.get(role, "") if param is not None else None


class Input:
    """A parameter the language passes: position among the inputs, whether
    it may be left out (has a default), whether its conversion holds a
    temporary (released after the call)."""

    def __init__(self, param, index):
        self.param, self.index = param, index
        self.type = TYPES[param.type]
        self.optional = param.default is not None
        self.temporary = self.type.temporary


class Result:
    """What the language call returns.  kind: none, continue (MK_OK -> true,
    MK_CONTINUE -> false), out (the out parameter `param`), value (the C
    return value), object (a new wrapper of the class; owned unless tls),
    delete (the dtor: the wrapper frees its object)."""

    def __init__(self, kind, type_=None, param=None, borrowed=False, nullable=False,
                 owned=True):
        self.kind, self.type, self.param = kind, type_, param
        self.borrowed, self.nullable, self.owned = borrowed, nullable, owned


class CallPlan:
    """c_ret: what the C function returns: None (void), status (MkErrorE),
    value (c_ret_type), object (a new C object).  error: the error source
    raised from, 'kernel' or 'context'; raise_on: 'MK_ERROR', 'NULL' or None."""

    def __init__(self, func):
        self.func, self.name, self.doc = func, func.name, func.doc
        self.kind, self.cls, self.cfunc = func.kind, func.cls, func.cfunc
        self.blocking = "blocking" in func.flags
        self.query = "query" in func.flags  # reads its object only: its C self is const
        self.on_object = func.kind == "method"  # runs on an existing C object
        self.inputs = [Input(p, i) for i, p in enumerate(func.inputs())]
        # Callbacks last: a failing conversion before them leaves nothing
        # to free (the registration is the only conversion that allocates
        # something the library may take).
        self.convert_order = sorted(self.inputs, key=lambda i: i.param.type == "CALLBACK")
        self.cleanups = [i for i in self.convert_order if i.temporary]
        self.callbacks = [i for i in self.inputs if i.param.type == "CALLBACK"]
        self.outs = func.outs()
        self.c_args = []
        self.c_ret, self.c_ret_type = None, None
        self.result = Result("none")
        self.error = "context" if func.cls is not None and func.cls.errors == "context" \
            else "kernel"
        self.raise_on = None
        self.free_on_error = []

    def c_arity(self):
        return sum(1 for a in self.c_args if not a.variadic)


def lower_args(plan, func):
    for p in func.params:
        if p.is_self:
            plan.c_args.append(CArg("self"))
            continue
        t = TYPES[p.type]
        parts = t.c_out if p.out else t.c_in
        for i, (role, ctype) in enumerate(parts):
            plan.c_args.append(CArg(role, p, i, ctype, out=p.out, literal=LITERAL.get(role),
                                    variadic=role == "vararg"))


def lower_result(plan, func):
    ret = func.ret
    if func.outs() and ret != "err":
        raise ApiError("%s: out parameters need '-> err' (the first becomes the return value)"
                       % func.name, func.where)
    if func.kind == "dtor":
        plan.result = Result("delete")
    elif ret == "self":
        plan.c_ret = "object"
        plan.result = Result("object", owned="tls" not in func.flags)
    elif ret in ("err", "err-continue"):
        plan.c_ret, plan.raise_on = "status", "MK_ERROR"
        if ret == "err-continue":
            plan.result = Result("continue")
        elif func.outs():
            p = func.outs()[0]
            plan.result = Result("out", p.type, p, borrowed="borrowed" in p.attrs)
    elif ret != "void":
        plan.c_ret, plan.c_ret_type = "value", TYPES[ret].c_ret
        plan.result = Result("value", ret, borrowed="borrowed" in func.ret_mods,
                             nullable="nullable" in func.ret_mods)
        if "raises-null" in func.ret_mods:
            plan.raise_on = "NULL"


def lower_callbacks(plan, func):
    if not plan.callbacks:
        return
    if func.ret not in ("err", "err-continue", "void"):
        raise ApiError("%s: a callback needs a call returning err, err-continue or void"
                       % func.name, func.where)
    # On MK_ERROR the C call never ran the callback and left its
    # registration with the caller (mqlink.h); a void call always takes it.
    if plan.c_ret == "status":
        plan.free_on_error = list(plan.callbacks)


# A context's borrowed read also gets a view form, NAME + VIEW (ReadBUFR), in
# the bindings whose runtime ends the view with the service (Java, Ruby): the
# end of each callback and each blocking call on the context invalidate it,
# so a kept view raises instead of reading freed memory.  A stream's or a
# list's borrowed value ends with its next write: only a binding whose glue
# ends the view at every call on the stream or list gives it one (src_view:
# Ruby and Java); elsewhere the copy stays the only form.
VIEW = "R"


def has_view(plan):
    r = plan.result
    return (plan.on_object and not plan.cls.plain and not plan.inputs and r.kind == "out"
            and r.type == "BUF" and r.borrowed)


def src_view(plan):
    """A stream's or a list's borrowed BUF (ReadBUF, IndexGet), whose view
    form lasts until the next call on that stream or list but a query
    (ends_src_view)."""
    r = plan.result
    return (plan.on_object and plan.cls.plain and r.kind in ("out", "value")
            and r.type == "BUF" and r.borrowed)


def has_src_views(cls):
    return any(src_view(f.plan) for f in cls.funcs)


def ends_src_view(plan):
    """A method of a stream or list with views that ends its view first:
    any but a query (ReadItemExists, ReadGetType, Count, Size...), whose C
    object is const (api_test holds the flag to the header), so the value
    a view lends stays where and what it was.  Ruby and Java alike."""
    return plan.on_object and has_src_views(plan.cls) and not plan.query


def ends_views(plan):
    """A call that may run the event loop, which replaces the read message."""
    return plan.on_object and not plan.cls.plain and plan.blocking


def lower(func):
    plan = CallPlan(func)
    if func.cfunc:
        lower_args(plan, func)
    lower_result(plan, func)
    lower_callbacks(plan, func)
    return plan


def lower_api(api):
    """Attach a plan to every function of the description."""
    for f in api.functions:
        f.plan = lower(f)
    for k in api.classes:
        for f in k.funcs:
            f.plan = lower(f)
    return api
