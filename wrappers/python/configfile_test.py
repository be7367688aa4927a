#!/usr/bin/env python3
"""configfile_test.py — TAP: MqConfigFileC in Python, a plain class that comes
entirely from the API description (no line of it in the runtime): typed reads,
defaults for absent paths, MkExceptionC naming FILE:LINE, the object's
lifetime, and the generated stubs."""
import ast
import os
import shutil
import sys
import tempfile

import taptest

from mqlink import *  # noqa: F403 — the export of the new class is under test
import mqlink

CFG = """\
name = "srv";
server: {
  timeout = 45;
  ratio = 2.5;
  retries = 3;
  verbose = true;
};
port = "8080";
"""

tmp = tempfile.mkdtemp(prefix="mqcfgpy.")


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def read(text=CFG):
    cfg = MqConfigFileC()
    cfg.Read(write("app.cfg", text))
    return cfg


def raises(fn, exc=None):
    """The MkExceptionC (or exc) fn raises; AssertionError when none."""
    try:
        fn()
    except exc or MkExceptionC as e:
        return e
    raise AssertionError("no exception from %r" % fn)


def test_export():
    assert "MqConfigFileC" in mqlink.__all__
    assert MqConfigFileC is mqlink.MqConfigFileC
    assert MqConfigFileC.__doc__ == "Typed reads from a libconfig file."


def test_typed_reads():
    cfg = read()
    assert cfg.GetI64("server.timeout", 30) == 45
    assert type(cfg.GetI64("server.timeout")) is int
    assert cfg.GetSTR("name") == "srv"
    assert cfg.GetBOL("server.verbose") is True
    assert cfg.GetDBL("server.ratio") == 2.5
    assert cfg.GetDBL("server.retries") == 3.0  # an integer reads as a double
    assert type(cfg.GetDBL("server.retries")) is float


def test_defaults():
    cfg = read()
    assert cfg.GetI64("server.missing", 30) == 30
    assert cfg.GetI64("server.missing") == 0
    assert cfg.GetSTR("missing") == ""
    assert cfg.GetSTR("missing", "dflt") == "dflt"
    assert cfg.GetBOL("missing") is False
    assert cfg.GetBOL("missing", True) is True
    assert cfg.GetDBL("missing", 1.5) == 1.5
    empty = MqConfigFileC()  # nothing read: every Get gives its default
    assert empty.GetI64("server.timeout", 7) == 7


def test_exists():
    cfg = read()
    assert cfg.Exists("server.timeout") is True
    assert cfg.Exists("server.nope") is False


def test_wrong_type():
    path = write("app.cfg", CFG)
    cfg = MqConfigFileC()
    cfg.Read(path)
    e = raises(lambda: cfg.GetI64("port", 1))
    assert e.text.startswith(path + ":8:"), e.text
    assert "'port' is a string, not an integer" in e.text, e.text
    assert e.code == MK_ERR_TYPE
    # the error was reset: the next call works
    assert cfg.GetSTR("port") == "8080"


def test_syntax_error():
    path = write("broken.cfg", "a = 1;\nb = ;\n")
    cfg = read()
    e = raises(lambda: cfg.Read(path))
    assert e.text.startswith(path + ":2:"), e.text
    assert e.code == MK_ERR_FORMAT
    assert cfg.GetI64("server.timeout", 30) == 30  # a half-read file answers nothing


def test_missing_file():
    e = raises(lambda: MqConfigFileC().Read(os.path.join(tmp, "absent.cfg")))
    assert "absent.cfg" in e.text, e.text


def test_arguments():
    cfg = read()
    raises(lambda: cfg.GetI64(), TypeError)
    raises(lambda: cfg.GetI64("a", 1, 2), TypeError)
    raises(lambda: cfg.GetI64("a", "1"), TypeError)
    raises(lambda: cfg.GetI64("a", 1 << 64), OverflowError)
    raises(lambda: MqConfigFileC("x"), TypeError)


def test_lifetime():
    cfg = MqConfigFileC.Create()
    s = read().GetSTR("name")  # a copy: outlives the object it came from
    assert s == "srv"
    cfg.Delete()
    cfg.Delete()  # idempotent
    e = raises(lambda: cfg.GetI64("x"))
    assert "GetI64: the object was deleted" in e.text, e.text


def test_not_subclassable():
    # a plain class: only subclass classes (MqContextC) are base types
    def subclass():
        class Mine(MqConfigFileC):
            pass
    raises(subclass, TypeError)


def test_stubs():
    pyi = os.path.join(os.environ.get("top_builddir", "."), "wrappers", "python", "mqlink-stubs",
                       "__init__.pyi")
    with open(pyi, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())  # e.g. a C parameter named def must not break it
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    assert "MqConfigFileC" in classes


CASES = [
    ("from mqlink import * exports MqConfigFileC", test_export),
    ("typed reads", test_typed_reads),
    ("absent paths give the default", test_defaults),
    ("Exists", test_exists),
    ("wrong type raises MkExceptionC with FILE:LINE", test_wrong_type),
    ("syntax error in Read raises MkExceptionC with FILE:LINE", test_syntax_error),
    ("missing file raises MkExceptionC", test_missing_file),
    ("argument checks", test_arguments),
    ("Delete is idempotent, use after Delete raises", test_lifetime),
    ("plain classes are not subclassable", test_not_subclassable),
    ("generated stubs parse and declare MqConfigFileC", test_stubs),
]


def main():
    return taptest.run(CASES, cleanup=lambda: shutil.rmtree(tmp, ignore_errors=True))


if __name__ == "__main__":
    sys.exit(main())
