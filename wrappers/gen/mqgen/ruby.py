"""The Ruby extension's glue, gen/glue.c: one C function per CallPlan, the
plain classes (object type, allocation, Create/new, Delete) and
mqrb_glue_init, which defines classes, methods, module functions and
constants under the module.  The runtime (wrappers/ruby/runtime.h) holds
what differs: conversions, exceptions, callbacks, contexts.

Ruby raises by longjmp, so a function converts every input first, in the
plan's order (the callback, which allocates, last), and frees a callback
registration the C call did not take before it raises.  A blocking call
keeps the GVL (the library releases it around each system call that
sleeps: callback.c) and raises the interrupt that ended its wait early, if
any (mqrb_check_ints), before its own error."""
from .plan import VIEW, ends_src_view, ends_views, has_src_views, has_view, src_view
from .text import banner, c_call, c_statement, c_locals, c_string, col

LANG = "ruby"

# MkBufferC's C buffers come from and go back to the runtime's free list
# (wrappers/ruby/bufpool.c): each ReadBUF copy is a new object, and the GC
# frees them a page at a time.
RUNTIME_ALLOC = {"MkBufferCreate": "mqrb_buf_create", "MkBufferDelete": "mqrb_buf_delete"}


def alloc(cfunc):
    return RUNTIME_ALLOC.get(cfunc, cfunc)


def variadic(plan):
    """Fixed arity (the fast path: Ruby passes the arguments as C
    arguments) unless an input is optional or a callback may come as a
    block."""
    return plan.kind == "handwritten" or any(i.optional for i in plan.inputs) or plan.callbacks


def cname(plan, suffix=""):
    return "%s_%s%s" % (plan.cls.name if plan.cls else "module", plan.name, suffix)


# The view form (ReadBUFR) of a context's borrowed read: plan.has_view; the
# runtime ends a view in mqrb_view_end.  Ruby also gives a stream's and a
# list's borrowed BUF (ReadBUF, IndexGet) a view form (src_view): the glue
# sees every call on a stream or list, so each of their methods that may
# change it ends the view first (mqrb_src_end) and a kept view raises
# instead of reading memory the stream has moved or freed
# (wrappers/ruby/view.c).  A query leaves it (plan.ends_src_view).


def any_view(plan):
    return has_view(plan) or src_view(plan)


def view_doc(plan):
    if src_view(plan):
        what = plan.cls.name
        return ("%s%s: the view form of %s, no allocation and no copy: one buffer per %s,"
                " valid until the next call on this %s but a query; after that its methods"
                " raise." % (plan.name, VIEW, plan.name, what, what))
    return ("%s%s: the view form of %s, no allocation and no copy: one buffer per context,"
            " valid until the next %s%s, the end of the service or callback, or the next"
            " blocking call on this context; after that its methods raise." % (
                plan.name, VIEW, plan.name, plan.name, VIEW))


def release(cls, cfunc):
    """What frees a C object of cls: the runtime's free list for buffers, a
    function that first ends the object's view for a class with views."""
    return "%s_release" % cls.name if has_src_views(cls) else alloc(cfunc)


def getter(plan, name=None):
    """The C object of the receiver, which the VM has already checked to be
    of the method's class (runtime.h: mqrb_plain_self)."""
    k, name = plan.cls, name or plan.name
    if k.plain:
        return '%s *obj = mqrb_plain_self(self, "%s");' % (k.c, name)
    return '%s *obj = mqrb_ctx_self(self, "%s");' % (k.c, name)


def error_value(plan):
    return "mqrb_error_ctx(obj)" if plan.error == "context" else "mqrb_error_kernel()"


def raise_stmt(plan):
    return "mqrb_raise_ctx(obj);" if plan.error == "context" else "mqrb_raise_kernel();"


def tls_reset(plan):
    """The C function that empties the object of a tls ctor (CreateTLS):
    its class's Reset.  The runtime then finds the thread's object itself
    on later calls with the same name (mqrb_plain_tls) and empties it
    without the kernel's registry; a class without a Reset keeps the plain
    call."""
    if not (plan.kind == "ctor" and plan.cls.plain and plan.result.kind == "object"
            and not plan.result.owned and len(plan.inputs) == 1
            and plan.inputs[0].param.type == "STR"):
        return None
    resets = [f.cfunc for f in plan.cls.funcs
              if f.name == "Reset" and f.kind == "method" and f.cfunc]
    return resets[0] if resets else None


class FuncGlue:
    def __init__(self, plan, out, view=False):
        self.plan, self.w, self.view = plan, out.append, view
        self.var = variadic(plan)

    def arg(self, i):
        return "a[%d]" % i.index if self.var else "a%d" % i.index

    def signature(self):
        p = self.plan
        if self.var:
            return "int nargs, VALUE *args, VALUE self"
        return ", ".join(["VALUE self"] + ["VALUE a%d" % i.index for i in p.inputs])

    def emit(self):
        p = self.plan
        self.w("/* %s */" % (view_doc(p) if self.view else p.doc))
        self.w("static VALUE")
        self.w("%s(%s)" % (cname(p, VIEW if self.view else ""), self.signature()))
        self.w("{")
        if not self.var and tls_reset(p):
            self.tls_ctor()
            return
        self.declare_locals()
        if ends_views(p):
            self.w("    mqrb_view_end(self);")
        if ends_src_view(p) and not self.view:
            self.w("    mqrb_src_end(obj); /* a call that may change it ends its view */")
        self.convert()
        self.call_and_return()
        self.w("}")
        self.w("")

    def tls_ctor(self):
        p = self.plan
        self.w("    return mqrb_plain_tls(self, &mqrb_%s_type, %s,"
               % (p.cls.name, self.arg(p.inputs[0])))
        self.w("                          (void *(*)(const char *))%s," % p.cfunc)
        self.w('                          (void (*)(void *))%s, "%s");' % (tls_reset(p), p.name))
        self.w("}")
        self.w("")

    def declare_locals(self):
        p = self.plan
        if p.on_object:
            self.w("    " + getter(p, p.name + (VIEW if self.view else "")))
        if self.var:
            self.w("    VALUE a[%d];" % len(p.inputs))
        for line in c_locals(p, LANG):
            self.w("    " + line)
        if self.var:
            nreq = len([i for i in p.inputs if not i.optional])
            cb = p.callbacks[0].index if p.callbacks else -1
            self.w("")
            self.w("    mqrb_args(nargs, args, %d, %d, %d, a);" % (nreq, len(p.inputs), cb))
        elif p.inputs or p.on_object:
            self.w("")

    def convert(self):
        p = self.plan
        for i in p.convert_order:
            conv = col(i.param.type, LANG).to.format(
                arg=self.arg(i), n=i.param.name, fn=p.name + (VIEW if self.view else ""),
                scope=str(i.param.attrs.get("scope", "")).upper())
            if i.optional:
                self.w("    if (%s != Qundef)" % self.arg(i))
                self.w("        " + conv)
            else:
                self.w("    " + conv)

    def call_and_return(self):
        p, r = self.plan, self.plan.result
        call = c_call(p, LANG, alloc(p.cfunc))
        if r.kind == "object":
            if p.cls.plain and p.kind == "ctor" and not r.owned:
                # the thread's object (CreateTLS): its wrapper is reused too
                self.w("    return mqrb_plain_wrap_tls(self, &mqrb_%s_type, %s);"
                       % (p.cls.name, call))
            elif p.cls.plain:
                klass = "self" if p.kind == "ctor" else "rb_obj_class(self)"
                self.w("    return mqrb_plain_wrap(%s, &mqrb_%s_type, %s, %d);"
                       % (klass, p.cls.name, call, r.owned))
            else:
                klass = "self" if p.kind == "ctor" else "rb_obj_class(self)"
                self.w("    return mqrb_ctx_new(%s, %s);" % (klass, call))
            return
        if r.kind == "delete":
            if p.cls.plain:
                self.w("    mqrb_plain_delete(self, &mqrb_%s_type, (void (*)(void *))%s);"
                       % (p.cls.name, release(p.cls, p.cfunc)))
            else:
                self.w("    mqrb_ctx_delete(self);")
            self.w("    return Qnil;")
            return
        stmt = c_statement(p, call)
        self.w("    " + stmt)
        for i in p.inputs:
            rel = col(i.param.type, LANG).get("release")
            if rel:
                self.w("    " + rel.format(n=i.param.name))
        self.raise_on_error()
        self.returns()

    def raise_on_error(self):
        p = self.plan
        if p.raise_on != "MK_ERROR":
            return
        if p.free_on_error:
            self.w("    if (rc == MK_ERROR) {")
            self.w("        VALUE e = %s;" % error_value(p))
            for i in p.free_on_error:
                self.w("        mqrb_cb_free(%s); /* not taken: still ours */" % i.param.name)
            if p.blocking:
                self.w("        mqrb_check_ints();")
            self.w("        rb_exc_raise(e);")
            self.w("    }")
            if p.blocking:
                self.w("    mqrb_check_ints();")
        else:
            if p.blocking:
                self.w("    mqrb_check_ints();")
            self.w("    if (rc == MK_ERROR)")
            self.w("        " + raise_stmt(p))

    def returns(self):
        p, r = self.plan, self.plan.result
        if r.kind == "continue":
            self.w("    return rc == MK_OK ? Qtrue : Qfalse;")
        elif r.kind == "out" and self.view and src_view(p):
            self.w("    return mqrb_src_view(obj, %s);" % r.param.name)
        elif r.kind == "out" and self.view:
            self.w("    return mqrb_view(self, %s);" % r.param.name)
        elif r.kind == "out":
            self.w("    return %s;" % col(r.type, LANG).build.format(
                v=r.param.name, size=r.param.name + "_size"))
        elif r.kind == "value":
            if p.raise_on == "NULL":
                self.w("    if (!r)")
                self.w("        " + raise_stmt(p))
            if r.nullable:
                self.w("    if (!r)")
                self.w("        return Qnil;")
            if self.view:
                self.w("    return mqrb_src_view(obj, r);")
            else:
                self.w("    return %s;" % col(r.type, LANG).build.format(v="r"))
        else:
            self.w("    return Qnil;")


def plain_type(out, k):
    """The object type of a plain class, its allocation and new."""
    create = k.create()
    out += ["VALUE mqrb_c%s;" % k.name, ""]
    if has_src_views(k):
        out += [
            "/* Free a C %s; its view ends first. */" % k.name,
            "static void",
            "%s(void *p)" % release(k, k.free),
            "{",
            "    mqrb_src_forget(p);",
            "    %s(p);" % alloc(k.free),
            "}",
            "",
        ]
    out += [
        "static void",
        "%s_free(void *p)" % k.name,
        "{",
        "    if (mqrb_plain_owned(p))",
        "        %s(p);" % release(k, k.free),
        "}",
        "",
        "/* WB_PROTECTED: the object holds no Ruby reference, so there is no",
        " * write to guard, and Ruby makes it on its fast path (an unprotected",
        " * object takes the VM lock at each allocation).  data: the class, for",
        " * the runtime's exact-class test (mqrb_plain_typed). */",
        "const rb_data_type_t mqrb_%s_type = {" % k.name,
        '    "Mqlink::%s", {NULL, %s_free, NULL}, NULL, (void *)&mqrb_c%s,' % (
            k.name, k.name, k.name),
        "    RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED};",
        "",
        "static VALUE",
        "%s_alloc(VALUE klass)" % k.name,
        "{",
        "    return TypedData_Wrap_Struct(klass, &mqrb_%s_type, NULL);" % k.name,
        "}",
        "",
        "/* new: %s */" % create.doc,
        "static VALUE",
        "%s_initialize(VALUE self)" % k.name,
        "{",
        "    if (!rb_check_typeddata(self, &mqrb_%s_type)) {" % k.name,
        "        void *obj = %s();" % alloc(create.cfunc),
        "        if (!obj)",
        "            rb_memerror();",
        "        RTYPEDDATA_DATA(self) = obj;",
        "    }",
        "    return self;",
        "}",
        "",
    ]


def on_instance(f):
    """A generated method that runs on an existing object: defined without
    the VM's Ractor check (runtime.h: mqrb_ractor_safe)."""
    return f.kind in ("method", "dtor")


def define(out, var, f):
    p = f.plan
    arity = -1 if variadic(p) else len(p.inputs)
    impl = ("mqrb_rt_%s_%s" if f.kind == "handwritten" else "%s_%s") % (
        f.cls.name if f.cls else "module", f.name)
    if f.kind == "handwritten" and not f.cls.plain:
        return  # the runtime defines it on the class it makes
    if f.cls is None:
        out.append('    rb_define_module_function(%s, "%s", %s, %d);' % (var, f.name, impl, arity))
    elif f.kind == "ctor":
        out.append('    rb_define_singleton_method(%s, "%s", %s, %d);' % (var, f.name, impl, arity))
    else:
        out.append('    rb_define_method(%s, "%s", %s, %d);' % (var, f.name, impl, arity))
    if any_view(p):
        out.append('    rb_define_method(%s, "%s%s", %s, %d);' % (var, f.name, VIEW, cname(p, VIEW),
                                                                 arity))


def emit(api):
    out = ["/* " + banner(api).strip() + " */", '#include "runtime.h"', ""]
    for f in api.functions:
        FuncGlue(f.plan, out).emit()
    for k in api.classes:
        out += ["/* ---- %s: %s */" % (k.name, k.doc), ""]
        if k.plain:
            plain_type(out, k)
        for f in k.funcs:
            if f.kind != "handwritten":
                FuncGlue(f.plan, out).emit()
            if any_view(f.plan):
                FuncGlue(f.plan, out, view=True).emit()
    out += ["/* Classes, methods, module functions and constants, under module. */",
            "void", "mqrb_glue_init(VALUE module, VALUE cContext)", "{", "    VALUE c;", ""]
    for c in api.consts:
        out.append('    rb_define_const(module, "%s", INT2FIX(%d));' % (c.name, c.value))
    for f in api.functions:
        define(out, "module", f)
    for k in api.classes:
        out.append("")
        if k.plain:
            out.append('    c = mqrb_c%s = rb_define_class_under(module, "%s", rb_cObject);'
                       % (k.name, k.name))
            out.append("    rb_define_alloc_func(c, %s_alloc);" % k.name)
            out.append('    rb_define_method(c, "initialize", %s_initialize, 0);' % k.name)
            out.append('    rb_define_method(c, "initialize_copy", mqrb_no_copy, 1);')
        else:
            out.append("    c = cContext; /* %s: the runtime's class */" % k.name)
        for f in k.funcs:
            if not on_instance(f):
                define(out, "c", f)
        out.append("    mqrb_ractor_safe(1); /* its instance methods: runtime.h */")
        for f in k.funcs:
            if on_instance(f):
                define(out, "c", f)
        out.append("    mqrb_ractor_safe(0);")
    out.append("}")
    return "\n".join(out).rstrip() + "\n"
