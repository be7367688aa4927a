#!/usr/bin/env python3
"""callback_test.py — TAP: who owns a callable registered from Python.  A C
call taking fn, data and free keeps data on MK_OK and leaves it with the
caller on MK_ERROR (mqlink.h); the generated methods then release the
callable themselves, so a failed registration keeps no reference to it."""
import sys
import weakref

import taptest

from mqlink import MkExceptionC, MqContextC


class Probe:
    """A callable that counts its calls; a weak reference shows it freed."""
    calls = 0

    def __call__(self, ctx):
        Probe.calls += 1


def released_after_failure(call):
    """Run call(probe), which must raise MkExceptionC; True when nothing
    keeps the probe afterwards."""
    p = Probe()
    ref = weakref.ref(p)
    try:
        call(p)
    except MkExceptionC:
        pass
    else:
        raise AssertionError("the call did not fail")
    del p
    return ref() is None


def unlinked():
    c = MqContextC()  # never linked: every send fails
    c.SendSTART()
    return c


def test_callback_unlinked():
    c = unlinked()
    try:
        assert released_after_failure(lambda p: c.SendEND_AND_CALLBACK("ECUL", p)), \
            "SendEND_AND_CALLBACK kept the callable after failing"
    finally:
        c.Delete()
    assert Probe.calls == 0


def test_transaction_callback_unlinked():
    c = unlinked()
    try:
        assert released_after_failure(
            lambda p: c.SendEND_AND_TRANSACTION_CALLBACK("ECUL", p)), \
            "SendEND_AND_TRANSACTION_CALLBACK kept the callable after failing"
    finally:
        c.Delete()
    assert Probe.calls == 0


def test_service_bad_token():
    c = MqContextC()
    try:
        assert released_after_failure(lambda p: c.ServiceCreate("AB\tC", p)), \
            "ServiceCreate kept the callable after failing"
    finally:
        c.Delete()


def test_service_registered():
    """MK_OK: the library keeps the callable until it is done with it."""
    c = MqContextC()
    p = Probe()
    ref = weakref.ref(p)
    c.ServiceCreate("PROB", p)
    del p
    assert ref() is not None, "a registered service lost its callable"
    c.Delete()
    assert ref() is None, "the deleted context kept its service's callable"


if __name__ == "__main__":
    sys.exit(taptest.run([
        ("SendEND_AND_CALLBACK failing releases the callable", test_callback_unlinked),
        ("SendEND_AND_TRANSACTION_CALLBACK failing releases the callable",
         test_transaction_callback_unlinked),
        ("ServiceCreate failing releases the callable", test_service_bad_token),
        ("a registered callable lives until the library drops it", test_service_registered),
    ]))
