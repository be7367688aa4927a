"""The one type table: for each logical type of the description, the
directions it may take, its C lowering, and a column per language.

A column holds what that language's emitter needs to know about the type
(`args`: how the glue spells each of the type's C input arguments, in c_in's
order, None where the plan supplies a literal; `{n}` is the parameter's
name);
NEEDS says which fields each language must fill for each direction, and
check_complete() (run when the generator starts) turns a gap into an error
naming the type and the language instead of a KeyError halfway through an
output.  tcl, ruby and java carry the language-facing type of
wrappers/api/README.md's mapping table today; their emitters add the fields
they render (and the NEEDS entries) when they are written.
"""
from .model import ApiError

IN, OUT, RET = "in", "out", "return"
LANGS = ("cxx", "python", "tcl", "ruby", "java")


class Col:
    """One language's cell of a row: named fields, absent when not given."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def get(self, field):
        return self.__dict__.get(field)


class Type:
    """c_in / c_out: the C arguments the type stands for, as (role, C type);
    an out argument is passed as the address of a local of that C type.
    c_ret: the C type of a returned value.  temporary: converting an input
    makes something (a buffer view, an argv array) the glue releases after
    the call."""

    def __init__(self, name, dirs, c_in=(), c_out=(), c_ret=None, temporary=False, **cols):
        self.name, self.dirs = name, frozenset(dirs)
        self.c_in, self.c_out, self.c_ret = tuple(c_in), tuple(c_out), c_ret
        self.temporary, self.cols = temporary, cols


# Fields each language's column must have, per direction (OUT and RET share
# the value fields).  "release" is needed only for a temporary input.
NEEDS = {
    "cxx": {IN: ("param", "args"), OUT: ("value", "wrap"), RET: ("value", "wrap")},
    "python": {IN: ("hint_in", "local", "args", "to"), OUT: ("hint_out", "build"),
               RET: ("hint_out", "build")},
    "tcl": {IN: ("in_", "local", "args", "to"), OUT: ("out", "build"), RET: ("out", "build")},
    "ruby": {IN: ("in_", "local", "args", "to"), OUT: ("out", "build"), RET: ("out", "build")},
    "java": {IN: ("in_", "sig", "jni", "local", "args"), OUT: ("out", "sig", "jni", "value"),
             RET: ("out", "sig", "jni", "value")},
}
TEMPORARY_NEEDS = {"python": ("release",)}

ALL = (IN, OUT, RET)


# Tcl: the runtime's reader (Tcl_GetWideIntFromObj / Tcl_GetDoubleFromObj
# with the range check) and the Tcl_Obj maker, per scalar.
_TCL_TO = {"BOL": "mqtcl_to_BOL", "TYPE": "mqtcl_to_TYPE"}
_TCL_BUILD = {"FLT": "mqtcl_from_DBL({v})", "DBL": "mqtcl_from_DBL({v})",
              "BOL": "Tcl_NewBooleanObj({v})"}


def _tcl_number(name, ctype, tcl):
    return Col(in_=tcl, out=tcl, local=("%s {n}" % ctype,), args=("{n}",),
               to='%s(interp, {arg}, &{n}, "{fn}")' % _TCL_TO.get(name, "mqtcl_to_" + name),
               build=_TCL_BUILD.get(name, "mqtcl_from_int({v})"))


# Java: sig is the JNI type signature, jni the C type of the JNI argument
# or result, value how a C value becomes that result.
JAVA_SIG = {"byte": "B", "short": "S", "int": "I", "long": "J", "float": "F", "double": "D",
            "boolean": "Z"}


def _java_number(ctype, java):
    jni = "j" + java
    value = "({v}) ? JNI_TRUE : JNI_FALSE" if java == "boolean" else "(%s)({v})" % jni
    arg = "(%s)({n} != JNI_FALSE)" % ctype if java == "boolean" else "(%s){n}" % ctype
    return Col(in_=java, out=java, sig=JAVA_SIG[java], jni=jni, local=(), args=(arg,),
               value=value)


def _number(name, ctype, py_build, py_hint, tcl, ruby, java, cxx=None, rb_build=None):
    """A scalar: one C argument in, a local of the same type out."""
    return Type(
        name, ALL, c_in=[("value", ctype)], c_out=[("value", ctype)], c_ret=ctype,
        cxx=Col(param=cxx or ctype, value=cxx or ctype, args=("{n}",),
                wrap="({v}) != 0" if name == "BOL" else "{v}"),
        python=Col(hint_in=py_hint, hint_out=py_hint, local=("%s {n}" % ctype,), args=("{n}",),
                   to='mqpy_to_%s({arg}, &{n}, "{fn}")' % name, build=py_build),
        tcl=_tcl_number(name, ctype, tcl),
        ruby=Col(in_=ruby, out=ruby, local=("%s {n}" % ctype,), args=("{n}",),
                 to='{n} = mqrb_to_%s({arg}, "{fn}");' % name, build=rb_build),
        java=_java_number(ctype, java))


def _java_lead(expr, name, java="int", sig="I", jni="jint"):
    """A hidden argument that a wrapped Java method (java.py) computes from
    a parameter and passes to its native just before it: expr in Java, name
    in the C glue."""
    return Col(java=java, expr=expr, sig=sig, jni=jni, name=name)


# Java: a String converted into a local mqj_str (real UTF-8), released after
# the call; its length goes along from Java (no JNI GetStringLength).
JAVA_STR_IN = dict(in_="String", sig="Ljava/lang/String;", jni="jstring", local=("mqj_str {n}_s",),
                   args=("{n}_s.s",), lead=_java_lead("MkObjectC.length({n})", "{n}_n"),
                   to='mqj_to_STRn(env, {n}, {n}_n, &{n}_s, "{fn}")',
                   release="mqj_str_release(&{n}_s);")


def _text(name, to, tcl_to, rb_to, java=None):
    """STR's input forms: a NUL-terminated UTF-8 string, borrowed for the call."""
    return Type(
        name, (IN,), c_in=[("value", "const char *")],
        cxx=Col(param="MkStringR", args=("{n}.c_str()",)),
        python=Col(hint_in="str", local=("const char *{n}",), args=("{n}",), to=to),
        tcl=Col(in_="string", local=("const char *{n}",), args=("{n}",),
                to=tcl_to + '(interp, {arg}, &{n}, "{fn}")'),
        ruby=Col(in_="String", local=("const char *{n}", "volatile VALUE {n}_keep"),
                 args=("{n}",), to=rb_to, release="RB_GC_GUARD({n}_keep);"),
        java=java or Col(**JAVA_STR_IN))


# The Python stubs' enum types (NewType of int) that the hints above name:
# MQ_WAIT_* cannot be passed where an MK_TYPE_* is expected.
PY_ENUMS = ("MkErrorE", "MkTypeE", "MqWaitE")

TYPES = {t.name: t for t in [
    _number("I8", "MK_I8", "PyLong_FromLong({v})", "int", "integer", "Integer", "byte", rb_build="INT2FIX({v})"),
    _number("I16", "MK_I16", "PyLong_FromLong({v})", "int", "integer", "Integer", "short", rb_build="INT2FIX({v})"),
    _number("I32", "MK_I32", "PyLong_FromLong({v})", "int", "integer", "Integer", "int", rb_build="INT2FIX({v})"),
    _number("I64", "MK_I64", "PyLong_FromLongLong({v})", "int", "integer", "Integer", "long", rb_build="LL2NUM({v})"),
    _number("FLT", "MK_FLT", "PyFloat_FromDouble({v})", "float", "double", "Float", "float", rb_build="DBL2NUM({v})"),
    _number("DBL", "MK_DBL", "PyFloat_FromDouble({v})", "float", "double", "Float", "double", rb_build="DBL2NUM({v})"),
    _number("BOL", "MK_BOL", "PyBool_FromLong({v})", "bool", "boolean", "true/false",
            "boolean", cxx="bool", rb_build="(({v}) ? Qtrue : Qfalse)"),
    _number("TYPE", "MkTypeE", "PyLong_FromLong({v})", "MkTypeE", "integer", "Integer", "int",
            rb_build="INT2FIX({v})"),
    Type("WAIT", (IN,), c_in=[("value", "MqWaitE")],
         cxx=Col(param="MqWaitE", args=("{n}",)),
         python=Col(hint_in="MqWaitE", local=("MqWaitE {n}",), args=("{n}",),
                    to='mqpy_to_WAIT({arg}, &{n}, "{fn}")'),
         tcl=Col(in_="integer or MQ_WAIT_* name", local=("MqWaitE {n}",), args=("{n}",),
                 to='mqtcl_to_WAIT(interp, {arg}, &{n}, "{fn}")'),
         ruby=Col(in_="Integer", local=("MqWaitE {n}",), args=("{n}",),
                  to='{n} = mqrb_to_WAIT({arg}, "{fn}");'),
         java=Col(in_="int", sig="I", jni="jint", local=(), args=("(MqWaitE){n}",))),
    Type("SIZE", (OUT, RET), c_out=[("value", "size_t")], c_ret="size_t",
         cxx=Col(value="size_t", wrap="{v}"),
         python=Col(hint_out="int", build="PyLong_FromSize_t({v})"),
         tcl=Col(out="integer", build="Tcl_NewWideIntObj((Tcl_WideInt){v})"),
         ruby=Col(out="Integer", build="SIZET2NUM({v})"),
         java=Col(out="long", sig="J", jni="jlong", value="(jlong)({v})")),
    Type("STR", ALL, c_in=[("value", "const char *")], c_out=[("value", "const char *")],
         c_ret="const char *",
         cxx=Col(param="MkStringR", args=("{n}.c_str()",), value="std::string",
                 wrap="detail::str({v})"),
         python=Col(hint_in="str", hint_out="str", local=("const char *{n}",), args=("{n}",),
                    to='mqpy_to_STR({arg}, &{n}, "{fn}")', build="mqpy_from_STR({v})"),
         tcl=Col(in_="string", out="string", local=("const char *{n}",), args=("{n}",),
                 to='mqtcl_to_STR(interp, {arg}, &{n}, "{fn}")', build="mqtcl_from_STR({v})"),
         ruby=Col(in_="String", out="String", local=("const char *{n}", "volatile VALUE {n}_keep"),
                  args=("{n}",), to='{n} = mqrb_to_STR({arg}, &{n}_keep, "{fn}");',
                  release="RB_GC_GUARD({n}_keep);", build="mqrb_from_STR({v})"),
         java=Col(out="String", value="mqj_from_STR(env, {v})", **JAVA_STR_IN)),
    _text("TOKEN", 'mqpy_to_TOKEN({arg}, &{n}, "{fn}")', "mqtcl_to_TOKEN",
          '{n} = mqrb_to_TOKEN({arg}, &{n}_keep, "{fn}");',
          # Java: the 4 characters as one int made in Java (MkObjectC.token),
          # so a valid token costs no JNI string call; the String still goes
          # along for the error text of an invalid one (word 0).
          java=Col(**dict(JAVA_STR_IN, local=("char {n}_t[5]", "mqj_str {n}_s"),
                          args=("{n}_t[0] ? {n}_t : {n}_s.s",),
                          lead=_java_lead("MkObjectC.token({n})", "{n}_w"),
                          to='mqj_to_TOKEN(env, {n}_w, {n}, {n}_t, &{n}_s, "{fn}")'))),
    # The C function is printf-like; wrappers pass the text as "%s"'s argument
    # (the "fmt" role: plan.py supplies the literal).
    Type("FMT", (IN,), c_in=[("fmt", "const char *"), ("vararg", "const char *")],
         cxx=Col(param="MkStringR", args=(None, "{n}.c_str()")),
         python=Col(hint_in="str", local=("const char *{n}",), args=(None, "{n}"),
                    to='mqpy_to_STR({arg}, &{n}, "{fn}")'),
         tcl=Col(in_="string", local=("const char *{n}",), args=(None, "{n}"),
                 to='mqtcl_to_STR(interp, {arg}, &{n}, "{fn}")'),
         ruby=Col(in_="String", local=("const char *{n}", "volatile VALUE {n}_keep"),
                  args=(None, "{n}"), to='{n} = mqrb_to_STR({arg}, &{n}_keep, "{fn}");',
                  release="RB_GC_GUARD({n}_keep);"),
         java=Col(**dict(JAVA_STR_IN, args=(None, "{n}_s.s")))),
    Type("BIN", (IN, OUT), c_in=[("data", "const void *"), ("size", "size_t")],
         c_out=[("data", "const void *"), ("size", "size_t")], temporary=True,
         cxx=Col(param="MkBinaryR", args=("{n}.data", "{n}.size"), value="std::vector<uint8_t>",
                 wrap="detail::bin({v}, {size})"),
         python=Col(hint_in="bytes | bytearray | memoryview", hint_out="bytes",
                    local=("Py_buffer {n}",), args=("{n}.buf", "(size_t){n}.len"),
                    to='mqpy_to_BIN({arg}, &{n}, "{fn}")',
                    build="PyBytes_FromStringAndSize((const char *){v}, (Py_ssize_t){size})",
                    release="PyBuffer_Release(&{n});"),
         tcl=Col(in_="bytearray", out="bytearray", local=("const void *{n}", "size_t {n}_size"),
                 args=("{n}", "{n}_size"),
                 to='mqtcl_to_BIN(interp, {arg}, &{n}, &{n}_size, "{fn}")',
                 build="mqtcl_from_BIN({v}, {size})"),
         ruby=Col(in_="String (binary)", out="String (binary)",
                  local=("const void *{n}", "size_t {n}_size"), args=("{n}", "{n}_size"),
                  to='{n} = mqrb_to_BIN({arg}, &{n}_size, "{fn}");',
                  build="mqrb_from_BIN({v}, {size})"),
         java=Col(in_="byte[]", out="byte[]", sig="[B", jni="jbyteArray", local=("mqj_bin {n}_b",),
                  args=("{n}_b.p", "{n}_b.n"), to='mqj_to_BIN(env, {n}, &{n}_b, "{fn}")',
                  release="mqj_bin_release(&{n}_b);", value="mqj_from_BIN(env, {v}, {size})")),
    Type("BUF", ALL, c_in=[("value", "const MkBufferC *")], c_out=[("value", "MkBufferC *")],
         c_ret="MkBufferC *",
         cxx=Col(param="const MkBufferC &", args=("{n}.Ptr()",), value="MkBufferC",
                 wrap="MkBufferC::Adopt(::MkBufferDup({v}))"),
         python=Col(hint_in="MkBufferC", hint_out="MkBufferC", local=("MkBufferC *{n}",), args=("{n}",),
                    to='mqpy_to_BUF((PyObject *)self, {arg}, &{n}, "{fn}")',
                    build="mqpy_from_BUF((PyObject *)self, {v})"),
         tcl=Col(in_="MkBufferC or buffer value", out="buffer value",
                 local=("MkBufferC *{n}",), args=("{n}",),
                 to='mqtcl_to_BUF(interp, {arg}, &{n}, "{fn}")', build="mqtcl_from_BUF(self, {v})"),
         ruby=Col(in_="MkBufferC", out="MkBufferC", local=("MkBufferC *{n}",), args=("{n}",),
                  to='{n} = mqrb_to_BUF({arg}, "{fn}");', build="mqrb_from_BUF({v})"),
         java=Col(in_="MkBufferC", out="MkBufferC", sig="Lorg/mqlink/MkBufferC;", jni="jobject",
                  local=("MkBufferC *{n}_p",), args=("{n}_p",),
                  # a value held in Java (a ReadBUF or IndexGet copy) goes
                  # along as its type, bits and bytes (no JNI field read),
                  # and the object only when it holds none: a copy passed
                  # straight on never escapes, so C2 need not allocate it
                  lead=(_java_lead("MkObjectC.type({n})", "{n}_t"),
                        _java_lead("MkObjectC.bits({n})", "{n}_d", "long", "J", "jlong"),
                        _java_lead("MkObjectC.bytes({n})", "{n}_r", "byte[]", "[B", "jbyteArray")),
                  pass_="{n} != null && {n}.dtype > 0 ? null : {n}",
                  to='mqj_to_BUF(env, {n}, {n}_t, {n}_d, {n}_r, &{n}_p, "{fn}")',
                  value="mqj_fill_BUF(env, {v})")),
    Type("CTX", (IN, RET), c_in=[("value", "MqContextC *")], c_ret="MqContextC *",
         cxx=Col(param="MqContextC &", args=("{n}.Ptr()",), value="MqContextC *",
                 wrap="detail::context_of({v})"),
         python=Col(hint_in="MqContextC", hint_out="MqContextC", local=("MqContextC *{n}",), args=("{n}",),
                    to='mqpy_to_CTX((PyObject *)self, {arg}, &{n}, "{fn}")',
                    build="mqpy_from_CTX({v})"),
         tcl=Col(in_="MqContextC", out="MqContextC", local=("MqContextC *{n}",), args=("{n}",),
                 to='mqtcl_to_CTX(interp, {arg}, &{n}, "{fn}")', build="mqtcl_from_CTX({v})"),
         ruby=Col(in_="MqContextC", out="MqContextC", local=("MqContextC *{n}",),
                  args=("{n}",), to='{n} = mqrb_to_CTX_of(self, {arg}, "{fn}");',
                  build="mqrb_from_CTX({v})"),
         # Java: its handle goes along (no JNI field read), the object
         # only for the error of a null or deleted one
         java=Col(in_="MqContextC", out="MqContextC", sig="Lorg/mqlink/MqContextC;",
                  jni="jobject", local=("MqContextC *{n}_p",), args=("{n}_p",),
                  lead=_java_lead("MkObjectC.handle({n})", "{n}_h", "long", "J", "jlong"),
                  to='mqj_to_CTX(env, {n}, {n}_h, &{n}_p, "{fn}")', value="mqj_from_CTX(env, {v})")),
    Type("ARGV", (IN,), c_in=[("argc", "int"), ("argv", "const char **")], temporary=True,
         cxx=Col(param="const std::vector<std::string> &", args=("{n}_v.argc()", "{n}_v.argv()"),
                 hold="detail::Argv {n}_v({n});"),
         python=Col(hint_in="list[str] | tuple[str, ...]", local=("int {n}_argc", "char **{n}"), args=("{n}_argc", "(const char **){n}"),
                    to='mqpy_to_ARGV({arg}, &{n}_argc, &{n}, "{fn}")',
                    release="mqpy_argv_free({n}_argc, {n});"),
         tcl=Col(in_="list", local=("int {n}_argc", "const char **{n}"),
                 args=("{n}_argc", "{n}"),
                 to='mqtcl_to_ARGV(interp, {arg}, &{n}_argc, &{n}, "{fn}")',
                 release="mqtcl_argv_free({n}_argc, {n});"),
         ruby=Col(in_="Array of String", local=("mqrb_argv {n}", "volatile VALUE {n}_keep"),
                  args=("{n}.argc", "{n}.argv"),
                  to='mqrb_to_ARGV({arg}, &{n}, &{n}_keep, "{fn}");',
                  release="mqrb_argv_done(&{n}); RB_GC_GUARD({n}_keep);"),
         java=Col(in_="String[]", sig="[Ljava/lang/String;", jni="jobjectArray",
                  local=("mqj_argv {n}_a",), args=("{n}_a.argc", "(const char **){n}_a.argv"),
                  to='mqj_to_ARGV(env, {n}, &{n}_a, "{fn}")', release="mqj_argv_release(&{n}_a);")),
    Type("CALLBACK", (IN,),
         c_in=[("fn", "MqServiceCallF"), ("cbdata", "void *"), ("free", "MqDataFreeF")],
         cxx=Col(param="MqCallbackF", args=("detail::cb_call", "{n}_d.get()", "detail::cb_free"),
                 # held until the C call takes it: MK_ERROR (or an exception
                 # before the call) leaves it to the holder, which frees it
                 hold="detail::CallbackHold {n}_d(std::move({n}), detail::Scope::{scope});"),
         python=Col(hint_in="Callable[[], object] | Callable[[Self], object]", local=("void *{n}",),
                    args=("mqpy_cb_call", "{n}", "mqpy_cb_free"),
                    to='({n} = mqpy_cb_new((PyObject *)self, {arg}, MQPY_SCOPE_{scope}, "{fn}"))'),
         tcl=Col(in_="command prefix", local=("void *{n}",),
                 args=("mqtcl_cb_call", "{n}", "mqtcl_cb_free"),
                 to='mqtcl_to_CALLBACK(interp, self, {arg}, MQTCL_SCOPE_{scope}, &{n}, "{fn}")'),
         # converted last (plan.convert_order): nothing converted after it can raise
         ruby=Col(in_="Proc", local=("void *{n}",), args=("mqrb_cb_call", "{n}", "mqrb_cb_free"),
                  to='{n} = mqrb_cb_new(self, {arg}, MQRB_SCOPE_{scope}, "{fn}");'),
         # Java: two interfaces, one native: Call(ctx) (lambdas, Server::Svc)
         # and Call() (this::Svc); the overload passes which one it is.
         java=Col(in_="MqServiceIF<T>", forms=("MqServiceIF<T>", "MqServiceNoArgIF"),
                  sig="Lorg/mqlink/MqServiceIF;", sigs=("Lorg/mqlink/MqServiceIF;",
                                                       "Lorg/mqlink/MqServiceNoArgIF;"),
                  jni="jobject", local=("void *{n}_cb",),
                  args=("mqj_cb_call", "{n}_cb", "mqj_cb_free"),
                  # which form the overload names (MkObjectC.noArg: chosen
                  # by the parameter's declared type), so the runtime runs
                  # it through MkObjectC.call with no JNI class lookup
                  lead=_java_lead("MkObjectC.noArg({n})", "{n}_na"),
                  # (java.py's held_callback: the Java method stores the
                  # callable into the holder the native returns)
                  to='({n}_cb = mqj_cb_take(env, {n}, {n}_na, MQJ_SCOPE_{scope}, "{fn}"))',
                  free="mqj_cb_free({n}_cb);")),
]}


def check_complete(types=None, needs=None):
    """Every type has every language's column, with the fields its
    directions need.  Raises ApiError naming the type and the language."""
    types = TYPES if types is None else types
    needs = NEEDS if needs is None else needs
    for t in types.values():
        for lang in LANGS:
            col = t.cols.get(lang)
            if col is None:
                raise ApiError("type table: type %s has no %s column" % (t.name, lang))
            for d in sorted(t.dirs):
                fields = needs.get(lang, {}).get(d, ())
                if d == IN and t.temporary:
                    fields += TEMPORARY_NEEDS.get(lang, ())
                for field in fields:
                    if col.get(field) is None:
                        raise ApiError("type table: type %s, language %s: no '%s' for %s"
                                       % (t.name, lang, field, d))
            args = col.get("args")
            if IN in t.dirs and args is not None and len(args) != len(t.c_in):
                raise ApiError("type table: type %s, language %s: %d args for %d C arguments"
                               % (t.name, lang, len(args), len(t.c_in)))
