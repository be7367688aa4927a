#!/usr/bin/env python3
# pyclient.py LABEL LINK-ARGS... — the interop client in Python: every type
# with boundary values, nested lists, errors both ways, wrong-type reads,
# callbacks and server instances against the server LINK-ARGS reach.
# Prints one TAP line per case ("ok - LABEL: case"); run_matrix.sh numbers them.
import math
import sys
from mqlink import *

label, link = sys.argv[1], sys.argv[2:]
MiB = 1 << 20


def report(ok, case, why=""):
    print("%s - %s: %s" % ("ok" if ok else "not ok", label, case))
    if not ok and why:
        print("#   %s" % why)
    sys.stdout.flush()


def case(fn):
    try:
        fn()
        report(True, fn.__doc__)
    except Exception as e:  # a failing case never stops the others
        report(False, fn.__doc__, "%s: %s" % (type(e).__name__, e))
    return fn


def echo(c, t, v):
    c.SendSTART()
    c.SendSTR(t)
    getattr(c, "Send" + t)(v)
    c.SendEND_AND_WAIT("ECHO", 20000)
    return getattr(c, "Read" + t)()


def same(a, b):
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, float) and a == 0.0:
        return b == 0.0 and math.copysign(1, a) == math.copysign(1, b)
    return a == b


c = MqContextC()
c.LinkCreate(["pyclient"] + link)
c.SendSTART()
c.SendEND_AND_WAIT("INST")
server = c.ReadSTR()

VALUES = {
    "I8": [-128, -1, 0, 127],
    "I16": [-32768, 0, 32767],
    "I32": [-2**31, 0, 2**31 - 1],
    "I64": [-2**63, -1, 0, 2**63 - 1],
    "FLT": [0.0, -0.0, 1.5, float("inf"), float("-inf"), float("nan")],
    "DBL": [0.0, -0.0, 1e308, -5e-324, float("inf"), float("nan")],
    "BOL": [True, False],
    "STR": ["", "text", "\u00e4\u4e2d\U0001f600", "x" * MiB],
    "BIN": [b"", b"\x00\xff\x00", bytes(range(256)) * (MiB // 256)],
}
for t, values in VALUES.items():
    def one(t=t, values=values):
        for v in values:
            r = echo(c, t, v)
            if not same(v, r):
                raise AssertionError("%s %r came back as %r" % (t, v if len(repr(v)) < 40 else "<big>", r if len(repr(r)) < 40 else "<big>"))
    one.__doc__ = "ECHO %s with boundary values" % t
    case(one)


@case
def nested():
    "ELST echoes nested lists"
    c.SendSTART()
    c.SendL_START()
    c.SendI32(1)
    c.SendL_START()
    c.SendSTR("deep")
    c.SendBIN(b"\x01")
    c.SendL_END()
    c.SendDBL(2.5)
    c.SendL_END()
    c.SendEND_AND_WAIT("ELST")
    c.ReadL_START()
    assert c.ReadI32() == 1
    c.ReadL_START()
    assert c.ReadSTR() == "deep" and c.ReadBIN() == b"\x01"
    c.ReadL_END()
    assert c.ReadDBL() == 2.5
    c.ReadL_END()
    assert not c.ReadItemExists()


@case
def fail():
    "a service's error arrives as MkExceptionC with its text"
    c.SendSTART()
    c.SendSTR("broken on purpose")
    try:
        c.SendEND_AND_WAIT("FAIL")
    except MkExceptionC as e:
        assert "broken on purpose" in str(e), str(e)
    else:
        raise AssertionError("no exception")


if server.startswith("TestServer"):
    @case
    def pyerror():
        "a plain Python exception in a service arrives with its text"
        c.SendSTART()
        try:
            c.SendEND_AND_WAIT("PYER")
        except MkExceptionC as e:
            assert "ValueError: python says no" in str(e), str(e)
        else:
            raise AssertionError("no exception")


@case
def wrong_server():
    "reading the wrong type in a service is an error the service can catch"
    c.SendSTART()
    c.SendSTR("abc")
    c.SendEND_AND_WAIT("WRNG")
    text = c.ReadSTR()
    assert text.startswith("caught: "), text


@case
def wrong_client():
    "reading the wrong type raises MkExceptionC"
    assert echo(c, "I32", 300) == 300
    c.SendSTART()
    c.SendSTR("I32")
    c.SendI32(300)
    c.SendEND_AND_WAIT("ECHO")
    try:
        c.ReadI8()
    except MkExceptionC:
        pass
    else:
        raise AssertionError("300 read as I8")
    c.SendSTART()
    c.SendSTR("STR")
    c.SendSTR("abc")
    c.SendEND_AND_WAIT("ECHO")
    try:
        c.ReadI32()
    except MkExceptionC:
        pass
    else:
        raise AssertionError("'abc' read as I32")


@case
def ranges():
    "out-of-range ints raise OverflowError naming the call"
    c.SendSTART()
    try:
        c.SendI8(300)
    except OverflowError as e:
        assert "SendI8: 300 out of range for I8" in str(e), str(e)
    else:
        raise AssertionError("no OverflowError")


@case
def callback():
    "SendEND_AND_CALLBACK runs the callback from the event loop"
    got = []
    c.SendSTART()
    c.SendSTR("I32")
    c.SendI32(42)
    c.SendEND_AND_CALLBACK("ECHO", lambda ctx: got.append(ctx.ReadI32()))
    for _ in range(100):
        if got:
            break
        c.ProcessEvent(MQ_WAIT_ONCE, 1000)
    assert got == [42], got


@case
def callback_raises():
    "a callback that raises does not kill the event loop"
    def bad(ctx):
        raise RuntimeError("callback failed on purpose")
    c.SendSTART()
    c.SendSTR("I8")
    c.SendI8(1)
    c.SendEND_AND_CALLBACK("ECHO", bad)
    c.ProcessEvent(MQ_WAIT_ONCE, 1000)
    assert echo(c, "I16", 7) == 7


@case
def instances():
    "every child gets its own server instance of the server's class"
    names = {server}
    kids = []
    for _ in range(3):
        k = MqContextC()
        k.LinkCreateChild(c)
        k.SendSTART()
        k.SendEND_AND_WAIT("INST")
        names.add(k.ReadSTR())
        assert echo(k, "I64", -5) == -5
        kids.append(k)
    for k in kids:
        k.Delete()
    assert len(names) == 4, names
    prefix = server.split(":")[0]
    assert all(n.split(":")[0] == prefix for n in names), names


c.Delete()
