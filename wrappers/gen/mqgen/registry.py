"""The emitters, by output name.  The build rules (wrappers/local.mk), the
golden test and `mqgen.py --list-outputs` / `--update-golden` all read this
list; adding a language is one module with an emit(api) -> str and one line
here (golden/sample.NAME then comes from `mqgen.py --update-golden`)."""
from . import cxx, java, python_glue, python_plain, python_stubs, ruby, tcl


class Output:
    def __init__(self, name, emit, what):
        self.name, self.emit, self.what = name, emit, what


OUTPUTS = [
    Output("python-glue", python_glue.emit, "C for the CPython module (gen/glue.c)"),
    Output("python-h", python_plain.emit_h, "its declarations for the runtime (gen/glue.h)"),
    Output("python-pyi", python_stubs.emit, "the Python stubs (mqlink-stubs/__init__.pyi)"),
    Output("cxx", cxx.emit, "the header-only C++ binding (mqlink.hh)"),
    Output("java-glue", java.emit_glue, "C for the JNI library (gen/glue.c)"),
    Output("java-classes", java.emit_classes, "the Java classes, split on '//// NAME.java'"),
    Output("java-h", java.emit_h, "its slot count for the runtime (gen/glue.h)"),
    Output("ruby", ruby.emit, "C for the Ruby extension (gen/glue.c)"),
    Output("tcl-glue", tcl.emit, "C for the Tcl extension (gen/glue.c)"),
    Output("tcl-h", tcl.emit_h, "its class indices for the runtime (gen/glue.h)"),
]

BY_NAME = {o.name: o for o in OUTPUTS}
