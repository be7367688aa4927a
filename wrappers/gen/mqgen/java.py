"""The Java (JNI) binding: the C glue (gen/glue.c: one JNI function per
CallPlan and the RegisterNatives tables the runtime registers in
JNI_OnLoad) and the Java classes of package org.mqlink whose methods are
those natives (one text holding every class, each after a line
"//// NAME.java" that the build splits on)."""
import itertools
import re

from .model import ApiError
from .plan import VIEW, ends_src_view, ends_views, has_src_views, has_view, src_view
from .text import banner, c_call, c_statement, c_locals, col, failure_check

LANG = "java"
PKG = "org.mqlink"
MODULE = "MqLink"  # the Java class of the constants and module functions


# ---------------------------------------------------------------- helpers

def jcol(type_name):
    return col(type_name, LANG)


def ret_type(plan):
    """The Java type a call returns."""
    r = plan.result
    if r.kind == "continue":
        return "boolean"
    if r.kind in ("out", "value"):
        return jcol(r.type).out
    if r.kind == "object":
        return plan.cls.name
    return "void"


def ret_sig(plan):
    r = plan.result
    if rewinds(plan):
        return "Z"  # the read's first item: ReadItemExists
    if held_callback(plan) and not slotted(plan):
        return "[Ljava/lang/Object;"  # the callable's holder, filled by Java
    if java_made(plan) == "fill":
        return "J"  # what MkObjectC.fill stores (mqj_fill_BUF)
    if r.kind == "continue":
        return "Z"
    if r.kind == "object":
        return "J"  # the C pointer, wrapped on the Java side (java_made)
    if r.kind in ("out", "value"):
        return jcol(r.type).sig
    if r.kind == "object":
        return "L%s/%s;" % (PKG.replace(".", "/"), plan.cls.name)
    return "V"


def ret_jni(plan):
    r = plan.result
    if rewinds(plan):
        return "jboolean"
    if held_callback(plan) and not slotted(plan):
        return "jobjectArray"
    if java_made(plan) == "fill":
        return "jlong"
    if r.kind == "continue":
        return "jboolean"
    if r.kind == "object":
        return "jlong"
    if r.kind in ("out", "value"):
        return jcol(r.type).jni
    if r.kind == "object":
        return "jobject"
    return "void"


def fail_return(plan):
    """What a JNI function returns when it throws."""
    j = ret_jni(plan)
    return "return;" if j == "void" else "return 0;" if j in (
        "jboolean", "jbyte", "jshort", "jint", "jlong", "jfloat", "jdouble") else "return NULL;"


def forms(inp):
    """The Java types an input is offered as (a callback: both interfaces,
    but the server setup takes the new instance, so only Call(ctx))."""
    c = jcol(inp.param.type)
    return c.get("forms") or (c.in_,)


def sigs(inp, hand=False):
    c = jcol(inp.param.type)
    lead = "" if hand else "".join(x.sig for x in leads_of(inp))
    return tuple(lead + s for s in c.get("sigs") or (c.sig,))


def leads_of(inp):
    """The hidden arguments a wrapped method passes before this input
    (types.py's _java_lead): a tuple, empty for none."""
    lead = jcol(inp.param.type).get("lead")
    return () if lead is None else lead if isinstance(lead, tuple) else (lead,)


def pass_of(inp):
    """What a wrapped method passes for the input itself (types.py's pass_:
    a BUF holding its value in Java passes null, so it never escapes)."""
    return (jcol(inp.param.type).get("pass_") or "{n}").format(n=inp.param.name)


def variants(plan):
    """Each combination of the inputs' forms: [(java types, signatures)]."""
    per = []
    for i in plan.inputs:
        fs, ss = forms(i), sigs(i, plan.kind == "handwritten")
        if plan.kind == "handwritten":
            fs, ss = fs[:1], ss[:1]
        per.append(list(zip(fs, ss)))
    return [([f for f, _ in combo], [s for _, s in combo]) for combo in itertools.product(*per)]


def generic(types):
    return "<T extends MqContextC> " if any("<T>" in t for t in types) else ""


def java_doc(text, indent="    "):
    return "%s/** %s */" % (indent, text.replace("*/", "*&#47;"))


def java_default(api, inp):
    """A description default as a Java expression."""
    d = str(inp.param.default)
    if re.match(r"^[A-Z][A-Z0-9_]*$", d) and any(c.name == d for c in api.consts):
        return "%s.%s" % (MODULE, d)
    if inp.param.type == "FLT" and re.match(r"^-?[0-9.]+$", d):
        return d + "f"
    return d


def c_name(plan, suffix=""):
    return "%s_%s%s" % (plan.cls.name if plan.cls else MODULE, plan.name, suffix)


# Results the Java side makes itself: a JNI NewObject runs the constructor
# through JavaCalls and AllocObject takes the slow allocation path, where a
# Java `new` is inlined (measured: the two were 8 % of the perfserver's BUST
# server time, more than its C calls).  "handle": the native (nNAME) returns
# the C pointer and the Java method wraps it; "fill": the native returns the
# type and a small value for a new MkBufferC of the Java method to store
# (MkObjectC.fill): no JNI field store for them, and the object is never
# passed to native code, so a copy passed straight on (SendBUF(ReadBUF()),
# see types.py's BUF) does not escape and C2 allocates nothing for it.
def java_made(plan):
    r = plan.result
    if r.kind == "object":
        return "handle"
    if r.kind in ("out", "value") and r.type == "BUF":
        return "fill"
    return None


# A callback's callable goes into its holder (the runtime's refs.c: an
# Object[1] kept by a recycled global reference) from Java: the native takes
# an empty holder and returns it, and the Java method stores the callable,
# a plain array store where the runtime's JNI SetObjectArrayElement cost
# 142 instructions (callgrind; five per perfserver child, one per
# SendEND_AND_CALLBACK).  The callable still goes to the native, which
# refuses null.  Nothing can run the callback before the store: it runs
# from this thread's event loop, later.
def held_callback(plan):
    """The CALLBACK input whose holder the native returns, or None."""
    held = [i for i in plan.inputs if i.param.type == "CALLBACK"]
    if not held or plan.kind == "handwritten":
        return None
    if len(held) > 1 or ret_type(plan) != "void" or not wrapped(plan):
        raise ApiError("java: %s: a callback needs a method returning nothing" % plan.name)
    return held[0]


# A service's callable goes into its context's object instead of a holder
# of its own (MkObjectC.services, at a slot the Java method picks by token
# and passes; the runtime's mqj_cb_slot makes no record, only the slot and
# the form): the library runs a service only on the context it was
# registered on and releases it while that context lives only through
# ServiceCreate (a replacement: the token's slot again) and ServiceDelete
# (SLOT_FORGET: the Java method empties the token's slot), or as the
# context is deleted, when the slots go with the object, so releasing a
# service costs no JNI call and no record.  A registration that throws
# frees its slot again.
SLOTTED = ("ServiceCreate",)
SLOT_FORGET = ("ServiceDelete",)


# A server instance's setup defers its ServiceCreate calls on its context
# and hands them to the library in one JNI call (MkObjectC.defer,
# servicesDue) as it returns; a blocking call or a ServiceDelete on the
# context sends them first, so the library sees every registration before
# it can serve a call or delete a service.
def services_due(plan):
    return plan.on_object and not plan.cls.plain and (plan.blocking or
                                                      plan.name in SLOT_FORGET)


def slotted(plan):
    """A context's callback registration whose callable the context keeps."""
    return (plan.name in SLOTTED and plan.on_object and not plan.cls.plain and
            held_callback(plan) is not None)


def slot_token(plan):
    """A slotted method's or SLOT_FORGET's token word: (its local's name,
    the hidden argument's expression), or None."""
    if not (slotted(plan) or (plan.name in SLOT_FORGET and plan.on_object and
                              not plan.cls.plain)):
        return None
    tok = [i for i in plan.inputs if i.param.type == "TOKEN"]
    lead = leads_of(tok[0])[0] if tok and leads_of(tok[0]) else None
    if lead is None:
        raise ApiError("java: %s: a service's slot needs its token" % plan.name)
    n = tok[0].param.name
    return (lead.name.format(n=n), lead.expr.format(n=n))


# The first SLOT_METHODS slots of a context's services have a method each
# that runs the slot's service (ServiceSlots.callServiceN, callServiceCtxN),
# which the JNI library calls for a service at such a slot (mqj_cb_call)
# instead of the slot's number as an argument (callService(ctx, slot): 25
# VM instructions per call more, callgrind, perfclient --bus).  Each calls
# its callable from a call site of its own: the JIT profiles receiver
# classes per call site, and one site for all of a context's services saw
# them all (five in perfserver), so C2 compiled it as a virtual call, the
# service not inlined, in every slot but the first to be compiled
# (-XX:+LogCompilation: inline_fail 'virtual call').  A slot holds the same
# service's callable in every instance of a server class: each site sees
# one.  The runtime sizes its table of their method IDs with the same
# number (gen/glue.h's MQJ_SLOT_METHODS).
SLOT_METHODS = 8
SLOTS_CLASS = "ServiceSlots"


def native(name):
    """The private native behind a Java method (wrapped, java_made)."""
    return "n" + name


# A method on an object passes its C object (the Java field hdl) to its
# native, so the glue reads no field through JNI: the Java method is a plain
# method (inlined by the JIT) calling a private native nNAME(hdl, ...).
# jni GetLongField was the largest single JNI cost of the perfserver's
# services (measured: 2.5 % of BUST's server time, 3.7 % of RDUL's).
def wrapped(plan):
    return bool(plan.on_object or java_made(plan))


# The view form (ReadBUFR) of a context's borrowed read: plan.has_view; the
# runtime ends a view in mqj_view_end.  A stream's and a list's borrowed BUF
# (ReadBUF, IndexGet) have one too (plan.src_view: ReadBUFR, IndexGetR): its
# handle is the borrowed C buffer itself, and every Java method of the
# stream or list but a query ends it first (MkObjectC.srcEnd, a plain field
# store; plan.ends_src_view), so a kept view throws instead of reading
# memory the stream has moved or freed; the view keeps its stream or list
# alive.  Passed on at once
# (SendBUF(bus.ReadBUFR())), the value is never copied into Java and back:
# the copy's fill, take, SetByteArrayRegion and the scratch buffer's
# GetByteArrayRegion were about 1 100 of the perfserver's 11 200
# instructions per BUS message (callgrind).
def any_view(plan):
    return has_view(plan) or src_view(plan)


# A thread-owned object (a tls ctor: CreateTLS(name)) is the same C object
# for every call of a thread with that name, emptied: the Java side keeps
# its wrapper per thread and name (MkObjectC.Tls, keyed by the String) and
# empties it with the class's Reset, so a call after the first converts no
# name and makes no object (BUS/BFL: one JNI string call per message).
# Without a Reset method, or with other inputs, the native is called.
# A stream knows on the Java side whether an item is left to read
# (ReadItemExists) after a read that reports it: its view and copy forms of
# ReadBUF return it in bit 62 of their result (mqj_ahead: the class's
# ReadItemExists in C), kept in MkObjectC.next until any other method of
# the stream (each sets next = 0, as each ends its view), so
# `while (bus.ReadItemExists())` costs no JNI call after such a read (8 per
# BUS message).  Only for a class with views: its state changes through
# its own methods alone.
# A context's read also changes with each service and callback run on it
# (and so within its blocking calls): MkObjectC's callService, call and
# callNoArg set its next = 0 as each starts and again as it ends, thrown or
# not (an interrupted read comes back), the points where its ReadBUFR view
# ends and more; so `while (ReadItemExists())` in a service costs one JNI
# call per message, not one per item (BUS, BFL: 8 per message).  Passing
# the message's first item to the service instead (mqj_cb_call's
# MqReadItemExists as an int argument of callServiceN) saved BUS and BFL
# that call but cost every service call the VM's handling of one more
# argument: WAIT 3211 -> 3279 server instructions per message, BUS -52,
# BFL -77 (callgrind, pipe).  Its
# ReadBUFR pays for the C ReadItemExists also in a service that never asks
# (END +36 instructions per message, callgrind): reporting it only once
# asked (a flag passed to the native) cost BUS more than it saved (8839
# against 8775 per message).
AHEAD = "ReadItemExists"


def ahead_fn(k):
    """The C function of a class's ReadItemExists; None for a class without
    views or without one."""
    if k is None or not (has_src_views(k) if k.plain else
                         any(has_view(f.plan) for f in k.funcs)):
        return None
    return next((f.cfunc for f in k.funcs if f.name == AHEAD and f.kind == "method"), None)


def reports_ahead(plan, view):
    return (plan.on_object and ahead_fn(plan.cls) is not None and
            (view or java_made(plan) == "fill"))


# A stream's PosToStart puts its read at the first item, where the loop
# that follows it asks first (BUST: `bus.PosToStart(); while
# (bus.ReadItemExists())`): its native returns the class's ReadItemExists
# there, for next, so that question costs no JNI call (one per BUS message)
# and PosToStart one C call more.
REWINDS = ("PosToStart",)


def rewinds(plan):
    return (plan.on_object and ahead_fn(plan.cls) is not None and plan.name in REWINDS and
            not plan.inputs and plan.result.kind == "none" and plan.c_ret is None)


# A list's Size is answered in Java (MkObjectC.count: the size plus one, 0
# unknown): only the list's own methods change a list (no function of the
# description takes or returns one), so its Java object knows the size once
# Size or Reset told it and counts each Append that returned.
# `for (i = 0; i < l.Size(); i++)` then crosses JNI once per list, not once
# per item (BFLT: 8 per message).  Every other method of the list must be
# read-only (COUNT_KEEP): one the generator cannot classify stops it, since
# a method that changed the list unseen would leave Size stale.
COUNT_SIZE = "Size"
COUNT_KEEP = ("IndexGet",)


def counted(plan):
    """How a method of a class whose Size Java answers keeps the count:
    "size", "append", "reset" or "keep"; None for other classes."""
    k = plan.cls
    names = [f.name for f in k.funcs if f.kind == "method"] if k else []
    if not (plan.on_object and k.plain and COUNT_SIZE in names and
            any(n.startswith("Append") for n in names) and
            any(n in COUNT_KEEP for n in names)):  # a list: what Appends, Size counts
        return None
    if plan.name in COUNT_KEEP:
        return "keep"
    if plan.name == COUNT_SIZE and not plan.inputs:
        return "size"
    if ret_type(plan) == "void":  # a change's count is set after its native returned
        if plan.name.startswith("Append"):
            return "append"
        if plan.name == "Reset" and not plan.inputs:
            return "reset"
    raise ApiError("java: %s.%s: %s's Size is counted in Java, and this method is neither "
                   "read-only (java.py COUNT_KEEP) nor a known count change (Size, Reset, "
                   "Append* returning nothing); classify it in java.py counted()"
                   % (k.name, plan.name, k.name), plan.func.where)


def tls_reset(plan):
    k = plan.cls
    return (plan.kind == "ctor" and not plan.result.owned and len(plan.inputs) == 1 and
            plan.inputs[0].param.type == "STR" and
            any(f.name == "Reset" and not f.inputs() for f in k.funcs))


def is_static(plan):
    return plan.cls is None or plan.kind == "ctor"


# A context's natives are static and take its handle alone (mqj_obj): a
# static native passes no receiver, 0.6 of 5.7 ns per call fewer (measured).
# The library's holder (refs.c) keeps a context's object alive until it is
# deleted, so nothing is lost when the JIT no longer holds `this` during the
# call.  A kernel object keeps its receiver: its Cleaner may free the C
# object once the Java one is unreachable, and a MkBufferC's natives need
# the object itself (mqj_self: adopt a value held in Java, name a spent view).
def handle_only(plan):
    return plan.on_object and not plan.cls.plain


# A method whose one input is a BUF (SendBUF, WriteBUF, AppendBUF, Copy)
# has a second native, nNAMEh, for a buffer that is a C object or a view
# (dtype 0 or less, the common case: SendBUF(ReadBUFR())): it takes the
# buffer's handle alone, where the full form takes its type, bits, bytes
# and the object itself for its error.  Two arguments and no references
# instead of five with two cost the JNI call less (HotSpot's native wrapper
# passes each reference as a handle) and the glue less (BUS: 14 per
# message).  A handle that names no buffer (deleted, a spent view) throws
# nothing there: nNAMEh returns false and the Java method calls the full
# form, whose error names why, as it did alone.  Not for a blocking call,
# which ends the context's view before it converts its arguments.
HANDLE_SUFFIX = "h"


def by_handle(plan):
    return (plan.on_object and plan.kind == "method" and len(plan.inputs) == 1 and
            plan.inputs[0].param.type == "BUF" and ret_type(plan) == "void" and
            plan.c_ret in ("status", None) and not any_view(plan) and not slotted(plan) and
            not held_callback(plan) and not java_made(plan) and not ends_views(plan))


# ------------------------------------------------------------------ C glue

class FuncGlue:
    """One JNI function, rendered from its plan."""

    def __init__(self, plan, out, view=False):
        self.plan, self.w, self.view = plan, out.append, view

    def params(self):
        p = self.plan
        head = "JNIEnv *env, %s" % ("jclass cls" if is_static(p) or handle_only(p)
                                    else "jobject self")
        if p.on_object:
            head += ", jlong hdl"
        return head + "".join(", %s%s %s" % (
            "".join("%s %s, " % (x.jni, x.name.format(n=i.param.name)) for x in leads_of(i)),
            jcol(i.param.type).jni, i.param.name) for i in p.inputs) + (
                ", jint slot" if slotted(p) else "")

    def emit(self):
        p = self.plan
        self.w("/* %s */" % (view_doc(p) if self.view else p.doc))
        self.w("static %s JNICALL" % ("jlong" if self.view else ret_jni(p)))
        self.w("%s(%s)" % (c_name(p, VIEW if self.view else ""), self.params()))
        self.w("{")
        if self.declare_locals():
            self.w("")
        if p.on_object:
            self.w("    if (!obj)")
            self.w("        " + self.fail())
        if ends_views(p):
            self.w("    mqj_view_end(env, obj);")
        self.convert()
        self.call_and_return()
        self.w("}")
        self.w("")

    def emit_by_handle(self):
        """nNAMEh (by_handle): the buffer's handle alone; JNI_FALSE, nothing
        thrown, when it names none."""
        p, n = self.plan, self.plan.inputs[0].param.name
        self.w("/* %s: a C buffer or a view, by its handle (MkObjectC.hdl); false when it"
               " names none, for the full form to say why. */" % p.name)
        self.w("static jboolean JNICALL")
        head = "JNIEnv *env, %s, jlong hdl" % ("jclass cls" if handle_only(p) else
                                               "jobject self")
        self.w("%s(%s, jlong %s_h)" % (c_name(p, HANDLE_SUFFIX), head, n))
        self.w("{")
        if handle_only(p):
            self.w('    %s *obj = mqj_obj(env, hdl, "%s");' % (p.cls.c, p.name))
        else:
            self.w('    %s *obj = mqj_self(env, self, hdl, "%s");' % (p.cls.c, p.name))
        self.w("    MkBufferC *%s_p = mqj_resolve(%s_h);" % (n, n))
        if p.c_ret == "status":
            self.w("    MkErrorE rc;")
        self.w("")
        self.w("    if (!obj || !%s_p)" % n)
        self.w("        return JNI_FALSE;")
        if p.c_ret == "status":
            self.w("    rc = %s;" % c_call(p, LANG))
            self.w("    if (rc == MK_ERROR) {")
            self.w("        " + self.raise_expr())
            self.w("        return JNI_FALSE;")
            self.w("    }")
        else:
            self.w("    %s;" % c_call(p, LANG))
        self.w("    return JNI_TRUE;")
        self.w("}")
        self.w("")

    def fail(self):
        """What the function returns when it throws (a view form: a handle)."""
        return "return 0;" if self.view else fail_return(self.plan)

    def declare_locals(self):
        p = self.plan
        name = p.name + (VIEW if self.view else "")
        lines = c_locals(p, LANG, defaults=False)
        if handle_only(p):
            lines.insert(0, '%s *obj = mqj_obj(env, hdl, "%s");' % (p.cls.c, name))
        elif p.on_object:
            lines.insert(0, '%s *obj = mqj_self(env, self, hdl, "%s");' % (p.cls.c, name))
        for line in lines:
            self.w("    " + line)
        return bool(lines)

    def convert(self):
        """Each input that needs a conversion, in the plan's order; a failure
        releases what was converted before it."""
        p, held = self.plan, []
        for i in p.convert_order:
            c = jcol(i.param.type)
            if not c.get("to"):
                continue
            to = c.to
            if slotted(p) and i is held_callback(p):
                to = '({n}_cb = mqj_cb_slot(env, {n}, {n}_na, slot, "{fn}"))'
            conv = to.format(n=i.param.name, fn=p.name,
                             scope=str(i.param.attrs.get("scope", "")).upper())
            failure_check(self.w, "!" + conv, held, self.fail())
            if c.get("release"):
                held.append(c.release.format(n=i.param.name))

    def releases(self):
        for i in reversed(self.plan.convert_order):
            c = jcol(i.param.type)
            if c.get("release"):
                self.w("    " + c.release.format(n=i.param.name))

    def call_and_return(self):
        p, r = self.plan, self.plan.result
        call = c_call(self.plan, LANG)
        if r.kind == "object":
            self.w("    jlong h = mqj_handle(env, %s);" % call)
            self.releases()
            self.w("    return h;")
            return
        if r.kind == "delete":
            self.w("    mqj_delete_%s(env, self);" % p.cls.name)
            return
        self.w("    " + c_statement(p, call))
        self.releases()
        self.raise_on_error()
        self.returns()

    def raise_expr(self):
        if self.plan.error == "context":
            return "mqj_raise_ctx(env, obj);"
        return "mqj_raise_kernel(env);"

    def raise_on_error(self):
        p = self.plan
        if p.raise_on != "MK_ERROR":
            return
        self.w("    if (rc == MK_ERROR) {")
        self.w("        " + self.raise_expr())
        for i in p.free_on_error:
            self.w("        %s /* not taken: still ours */"
                   % jcol(i.param.type).free.format(n=i.param.name))
        self.w("        " + self.fail())
        self.w("    }")

    def returns(self):
        p, r = self.plan, self.plan.result
        if slotted(p):
            return
        if rewinds(p):
            self.w("    return %s(obj) ? JNI_TRUE : JNI_FALSE;" % ahead_fn(p.cls))
        elif held_callback(p):
            self.w("    return mqj_cb_holder(%s_cb);" % held_callback(p).param.name)
        elif r.kind == "continue":
            self.w("    return rc == MK_OK ? JNI_TRUE : JNI_FALSE;")
        elif r.kind == "out" and self.view and reports_ahead(p, True):
            self.w("    return mqj_ahead(%s, %s(obj));" % (
                ("mqj_view(env, obj, %s)" if has_view(p) else "(jlong)(intptr_t)%s")
                % r.param.name, ahead_fn(p.cls)))
        elif r.kind == "out" and self.view and src_view(p):
            self.w("    return (jlong)(intptr_t)%s;" % r.param.name)
        elif r.kind == "out" and reports_ahead(p, False):
            self.w("    return mqj_ahead(%s, %s(obj));" % (jcol(r.type).value.format(
                v=r.param.name, size=r.param.name + "_size"), ahead_fn(p.cls)))
        elif r.kind == "out" and self.view:
            self.w("    return mqj_view(env, obj, %s);" % r.param.name)
        elif r.kind == "out":
            self.w("    return %s;" % jcol(r.type).value.format(
                v=r.param.name, size=r.param.name + "_size"))
        elif r.kind == "value":
            if p.raise_on == "NULL":
                self.w("    if (!r) {")
                self.w("        " + self.raise_expr())
                self.w("        " + self.fail())
                self.w("    }")
            if self.view:
                self.w("    return (jlong)(intptr_t)r;")
                return
            if r.nullable:
                if java_made(p):
                    raise ApiError("java: %s: a nullable result the Java side makes" % p.name)
                self.w("    if (!r)")
                self.w("        return NULL;")
            self.w("    return %s;" % jcol(r.type).value.format(v="r"))


def constructor_glue(k, f, out):
    """The handle for a plain class's Java constructor (its argument-free ctor)."""
    out += ["/* %s (the constructor %s()) */" % (f.doc, k.name),
            "static jlong JNICALL",
            "%s_New(JNIEnv *env, jclass cls)" % k.name,
            "{",
            "    %s *r = %s();" % (k.c, f.cfunc),
            "    if (!r)",
            '        mqj_throw(env, MK_ERR_MEMORY, "%s: out of memory");' % k.name,
            "    return (jlong)(intptr_t)r;",
            "}", ""]


def natives(out, decl, k, funcs):
    """The RegisterNatives table of a class (or the module)."""
    out.append("%s[] = {" % decl)
    if k is not None and k.plain and k.create():
        out.append('    {"New", "()J", (void *)%s_New},' % k.name)
    for f in funcs:
        p = f.plan
        if f.kind == "ctor" and k is not None and not k.plain:
            impl, sig = "mqj_rt_%s_Init" % k.name, "()J"  # the handle, stored by Java
            out.append('    {"Init", "%s", (void *)%s},' % (sig, impl))
            continue
        if f.kind == "dtor" and k.plain:
            continue
        impl = ("mqj_rt_%s_%s" % (k.name, f.name)) if f.kind == "handwritten" else c_name(p)
        hand = f.kind == "handwritten"
        name = native(f.name) if wrapped(p) and not hand else f.name
        head = "J" if p.on_object and not hand else ""
        tail = "I" if slotted(p) else ""  # the slot
        for _, ss in variants(p):
            out.append('    {"%s", "(%s%s%s)%s", (void *)%s},' % (name, head, "".join(ss), tail,
                                                                    ret_sig(p), impl))
        if any_view(p):
            out.append('    {"%s", "(J%s)J", (void *)%s},' % (
                native(f.name + VIEW), "".join(variants(p)[0][1]), c_name(p, VIEW)))
        if by_handle(p):
            out.append('    {"%s", "(JJ)Z", (void *)%s},' % (
                native(f.name + HANDLE_SUFFIX), c_name(p, HANDLE_SUFFIX)))
    out += ["};", ""]


def emit_glue(api):
    out = ["/* " + banner(api).strip() + " */", '#include "runtime.h"', ""]
    out.append("enum {")
    out += ["    MQJ_%s = %d," % (k.name, i) for i, k in enumerate(api.classes)]
    out += ["};", ""]
    for f in api.functions:
        FuncGlue(f.plan, out).emit()
    natives(out, "const JNINativeMethod mqj_module_natives", None, api.functions)
    out += ["const int mqj_module_count = %d;" % sum(len(variants(f.plan)) for f in api.functions),
            ""]
    for k in api.classes:
        out += ["/* ---- %s: %s */" % (k.name, k.doc), ""]
        if k.plain and k.create():
            constructor_glue(k, k.create(), out)
        for f in k.funcs:
            if f.kind == "handwritten" or (f.kind == "ctor" and not k.plain) or \
                    (f.kind == "dtor" and k.plain):
                continue
            FuncGlue(f.plan, out).emit()
            if any_view(f.plan):
                FuncGlue(f.plan, out, view=True).emit()
            if by_handle(f.plan):
                FuncGlue(f.plan, out).emit_by_handle()
        natives(out, "static const JNINativeMethod %s_natives" % k.name, k, k.funcs)
        if k.plain:
            out += ["static void", "%s_free(void *o)" % k.name, "{",
                    "    %s((%s *)o);" % (k.free, k.c), "}", ""]
    out.append("/* The classes in the order of MQJ_*, for JNI_OnLoad to register. */")
    out.append("const mqj_class mqj_classes[] = {")
    for k in api.classes:
        out.append('    {"%s", %s_natives, (int)(sizeof %s_natives / sizeof *%s_natives), %s},'
                   % (k.name, k.name, k.name, k.name, "%s_free" % k.name if k.plain else "NULL"))
    out += ["};", "const int mqj_class_count = %d;" % len(api.classes)]
    return "\n".join(out).rstrip() + "\n"


# ---------------------------------------------------------------- Java side

def view_doc(plan):
    if src_view(plan):
        what = plan.cls.name
        return ("%s%s: the view form of %s, no allocation and no copy: one buffer per %s,"
                " valid until the next call on this %s; after that its methods throw.  %s"
                " returns a copy to keep." % (plan.name, VIEW, plan.name, what, what, plan.name))
    return ("%s: the view form of %s, no allocation and no copy: one buffer per context,"
            " valid until the next %s%s, the end of the service or callback, or the next"
            " blocking call on this context; after that its methods throw.  %s returns a"
            " copy to keep." % (plan.name + VIEW, plan.name, plan.name, VIEW, plan.name))


def java_params(plan, types, leads=False):
    """The Java parameters; leads: a native's, with each hidden argument first."""
    return ", ".join("%s%s %s" % ("".join("%s %s, " % (x.java, x.name.format(n=i.param.name))
                                          for x in leads_of(i)) if leads else "",
                                  t, i.param.name) for t, i in zip(types, plan.inputs))


def java_args(plan):
    """A wrapped method's arguments to its native: each hidden argument first."""
    return ["".join(x.expr.format(n=i.param.name) + ", " for x in leads_of(i)) + pass_of(i)
            for i in plan.inputs]


def java_method(api, plan, out, native_name=None):
    """The native declaration(s) of one function and an overload per
    trailing default left out."""
    static = "static " if is_static(plan) else ""
    rt = ret_type(plan)
    for types, _ in variants(plan):
        out.append(java_doc(plan.doc))
        if wrapped(plan):
            java_wrapped_method(plan, types, static, rt, out)
        else:
            if any(leads_of(i) for i in plan.inputs) and plan.kind != "handwritten":
                raise ApiError("java: %s: a hidden argument needs a wrapped method" % plan.name)
            out.append("    public %snative %s%s %s(%s);" % (static, generic(types), rt, plan.name,
                                                              java_params(plan, types)))
        ins = plan.inputs
        n = len(ins)
        while n > 0 and ins[n - 1].optional:
            n -= 1
            call = ", ".join([i.param.name for i in ins[:n]] +
                             [java_default(api, i) for i in ins[n:]])
            out.append(java_doc(plan.doc))
            ret = "" if rt == "void" else "return "
            out.append("    public %s%s%s %s(%s) {" % (static, generic(types[:n]), rt, plan.name,
                                                         java_params(plan, types[:n])))
            out.append("        %s%s(%s);" % (ret, plan.name, call))
            out.append("    }")
    out.append("")


def java_wrapped_method(plan, types, static, rt, out, name=None):
    """A Java method calling its private native nNAME (wrapped): with the C
    object first, and making the result object itself (java_made)."""
    name = name or plan.name
    view = name != plan.name  # the view form: MkObjectC.view/srcView points the object's view
    made = java_made(plan) if not view else None
    ins = java_args(plan)
    params = java_params(plan, types)
    nparams_in = java_params(plan, types, leads=True)
    args = (["hdl"] if plan.on_object else []) + ins
    nparams = (["long hdl"] if plan.on_object else []) + ([nparams_in] if nparams_in else [])
    token_w = slot_token(plan)
    if token_w:  # the token's word, passed to the native and kept by its slot
        args = [a.replace(token_w[1], token_w[0]) for a in args]
    if slotted(plan):
        args, nparams = args + ["slot"], nparams + ["int slot"]
    call = "%s(%s)" % (native(name), ", ".join(args))
    out.append("    public %s%s%s %s(%s) {" % (static, generic(types), rt, name, params))
    if ends_src_view(plan):
        out.append("        srcEnd();")
    if token_w:
        out.append("        int %s = %s;" % token_w)
    if reports_ahead(plan, view):
        call = "ahead(%s)" % call
    elif plan.on_object and ahead_fn(plan.cls) and plan.name == AHEAD:
        out += ["        if (next != 0 && hdl != 0)", "            return next > 0;"]
    elif plan.on_object and ahead_fn(plan.cls):
        out.append("        next = 0;")
    if services_due(plan):
        out.append("        servicesDue();")
    if made == "handle" and tls_reset(plan):
        out += ["        %s o = TLS.find(%s);" % (rt, plan.inputs[0].param.name),
                "        if (o != null) {", "            o.Reset();", "            return o;",
                "        }",
                "        return TLS.keep(%s, new %s(%s, false));" % (plan.inputs[0].param.name,
                                                                     rt, call)]
    elif made == "handle":
        out.append("        return new %s(%s, %s);" % (rt, call, "true" if plan.result.owned
                                                       else "false"))
    elif made == "fill":
        out += ["        MkBufferC into = new MkBufferC(0, false);",
                "        into.fill(%s);" % call, "        return into;"]
    elif view:
        out.append("        return %s(%s);" % ("srcView" if src_view(plan) else "view", call))
    elif slotted(plan):
        fn = held_callback(plan).param.name
        out += ["        int slot = serviceSlot(%s, %s);" % (token_w[0], fn),
                "        if (defer(slot, %s, MkObjectC.noArg(%s)))" % (token_w[0], fn),
                "            return;",
                "        try {", "            %s;" % call,
                "        } catch (RuntimeException | Error e) {",
                "            serviceDrop(slot);", "            throw e;", "        }"]
    elif held_callback(plan):
        out.append("        %s[0] = %s;" % (call, held_callback(plan).param.name))
    elif counted(plan) == "size":
        out += ["        if (count > 0)", "            return count - 1;",
                "        int n = %s;" % call, "        count = n + 1;", "        return n;"]
    elif counted(plan) in ("append", "reset"):
        out += handle_first(plan, name, call) + ["        count = %s;" % {
            "append": "count > 0 ? count + 1 : 0", "reset": "1"}[counted(plan)]]
    elif token_w and rt == "void":
        out += ["        %s;" % call, "        serviceForget(%s);" % token_w[0]]
    elif rewinds(plan):
        out.append("        next = %s ? 1 : -1;" % call)
    elif by_handle(plan):
        out += handle_first(plan, name, call)
    else:
        out.append("        %s%s;" % ("" if rt == "void" else "return ", call))
    nrt = "long" if made or view else "Object[]" if held_callback(plan) and not slotted(
        plan) else "boolean" if rewinds(plan) else rt
    nstatic = "static " if static or handle_only(plan) else ""
    out += ["    }", "", "    private %snative %s%s %s(%s);" % (nstatic, generic(types), nrt,
                                                             native(name), ", ".join(nparams))]
    if by_handle(plan):
        out += ["", "    private %snative boolean %s(long hdl, long %s);" % (
            nstatic, native(name + HANDLE_SUFFIX), plan.inputs[0].param.name)]


def handle_first(plan, name, call):
    """The statement calling a void method's native: its handle form first
    (by_handle), the full one when that cannot."""
    if not by_handle(plan):
        return ["        %s;" % call]
    n = plan.inputs[0].param.name
    return ["        if (%s == null || %s.dtype > 0 || !%s(hdl, %s.hdl))" % (
        n, n, native(name + HANDLE_SUFFIX), n), "            %s;" % call]


def java_file(api, name, head, body):
    while body and body[-1] == "":
        body = body[:-1]
    return ["//// %s.java" % name, "// " + banner(api).strip(), "package %s;" % PKG, ""] + \
        head + body + ["}", ""]


def java_class(api, index, k):
    out = [java_doc(k.doc, ""),
           "public %sclass %s extends MkObjectC {" % ("final " if k.plain else "", k.name),
           "    static { MqNative.load(); }", ""]
    body = []
    if k.plain:
        body += ["    static final int KIND = %d;" % index, ""]
        if any(tls_reset(f.plan) for f in k.funcs):
            body += ["    /** Each thread's objects of CreateTLS, by name. */",
                     "    private static final MkObjectC.Tls<%s> TLS = new MkObjectC.Tls<>();"
                     % k.name, ""]
        if k.create():
            body += [java_doc(k.create().doc), "    public %s() {" % k.name,
                     "        super(New(), true, KIND);", "    }", "",
                     "    private static native long New();", ""]
        body += ["    %s(long hdl, boolean owned) {" % k.name,
                 "        super(hdl, owned, KIND);", "    }", ""]
    for f in k.funcs:
        p = f.plan
        if f.kind == "ctor" and not k.plain:
            body += [java_doc(f.doc), "    public %s() {" % k.name,
                     "        if (hdl == 0) // else a server instance's, adopted (MkObjectC())",
                     "            hdl = Init();", "    }", "", "    private native long Init();", "",
                     java_doc(f.doc), "    public static %s %s() {" % (k.name, f.name),
                     "        return new %s();" % k.name, "    }", ""]
        elif f.kind == "dtor" and k.plain:
            body += [java_doc(f.doc + " Idempotent; an object not deleted is freed when it is"
                              " collected."),
                     "    @Override", "    public void %s() {" % f.name,
                     "        super.%s();" % f.name, "    }", ""]
        elif f.kind == "dtor":
            body += [java_doc(f.doc + " Idempotent."), "    @Override",
                     "    public native void %s();" % f.name, ""]
        else:
            java_method(api, p, body)
            if any_view(p):
                body.append(java_doc(view_doc(p)))
                java_wrapped_method(p, variants(p)[0][0], "", ret_type(p), body,
                                    name=p.name + VIEW)
                body.append("")
    return java_file(api, k.name, out, body)


def java_module(api):
    head = [java_doc("%s: the constants and module functions." % api.doc, ""),
            "public final class %s {" % MODULE,
            "    static { MqNative.load(); }", "",
            "    private %s() {" % MODULE, "    }", ""]
    body = []
    for c in api.consts:
        body += [java_doc(c.doc), "    public static final int %s = %s;" % (c.name, c.value)]
    body.append("")
    for f in api.functions:
        java_method(api, f.plan, body)
    return java_file(api, MODULE, head, body)


def emit_classes(api):
    out = []
    for i, k in enumerate(api.classes):
        out += java_class(api, i, k)
    out += java_module(api)
    out += java_slots(api)
    return "\n".join(out).rstrip() + "\n"


def emit_h(api):
    """gen/glue.h: what the runtime takes from the generator (runtime.h includes it)."""
    return "\n".join(["/* " + banner(api).strip() + " */",
                      "/* The slots whose services have a method of their own (%s.callServiceN)."
                      " */" % SLOTS_CLASS,
                      "enum { MQJ_SLOT_METHODS = %d };" % SLOT_METHODS]) + "\n"


def slot_method(head, index, noarg, note=()):
    """A method of ServiceSlots: head its signature, the service the one at
    context slot index (a number, or the slot argument's name)."""
    call = ("((MqServiceNoArgIF) c.services[%s]).Call();" % index if noarg else
            "((MqServiceIF) c.services[%s]).Call((MqContextC) c);" % index)
    return ([] if noarg else ['    @SuppressWarnings({"unchecked", "rawtypes"})']) + [
        "    static boolean %s throws Exception {" % head,
        "        MkObjectC c = MkObjectC.enter(ctx);", "        try {"] + [
        "            // " + n for n in note] + [
        "            " + call, "        } finally {",
        "            MkObjectC.leave(c);", "        }", "        return true;", "    }"]


def java_slots(api):
    """The class of the slots' methods (see SLOT_METHODS) and of the slots past them."""
    head = [java_doc("The services of a context's slots (MkObjectC.services) as the JNI library"
                     " runs them (mqj_cb_call): a method per slot for the first %d, true once"
                     " the service returned (see MkObjectC.callNoArg)." % SLOT_METHODS, ""),
            "final class %s {" % SLOTS_CLASS, "    private %s() {" % SLOTS_CLASS, "    }", ""]
    body = []
    for noarg, name in ((1, "callService"), (0, "callServiceCtx")):
        for slot in range(SLOT_METHODS):
            body += slot_method("%s%d(Object[] ctx)" % (name, slot), slot, noarg) + [""]
    body += [java_doc("A service at a slot past them: Call().")]
    body += slot_method("callService(Object[] ctx, int slot)", "slot", 1) + [""]
    body += [java_doc("The same for a service that takes its context: Call(ctx).")]
    body += slot_method("callServiceCtx(Object[] ctx, int slot)", "slot", 0,
                        ["a context of another class than the callable's T: ClassCastException"])
    return java_file(api, SLOTS_CLASS, head, body)
