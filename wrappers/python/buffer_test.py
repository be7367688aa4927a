#!/usr/bin/env python3
"""buffer_test.py — TAP: a borrowed BUF in Python is an owned copy, safe to
keep, even though the runtime reuses the previous result's object and C
buffer when the caller dropped it (convert.c, mqpy_from_BUF)."""
import sys

import taptest

from mqlink import MkBufferC, MkBufferListC, MkBufferStreamC


def stream(*values):
    bus = MkBufferStreamC()
    for v in values:
        if isinstance(v, int):
            bus.WriteI32(v)
        else:
            bus.WriteSTR(v)
    bus.PosToStart()
    return bus


def test_kept_values_survive():
    bus = stream(1, "two", 3, "x" * 200)
    kept = [bus.ReadBUF() for _ in range(4)]
    assert kept[0].GetI32() == 1 and kept[1].GetSTR() == "two"
    assert kept[2].GetI32() == 3 and kept[3].GetSTR() == "x" * 200
    assert len({id(b) for b in kept}) == 4, "a kept result was reused"


def test_dropped_result_is_reused_safely():
    bus = stream(*range(100))
    for i in range(100):
        assert bus.ReadBUF().GetI32() == i  # dropped at once: reused
    bus = stream("a" * 100, "b", 7)
    first = bus.ReadBUF()
    bus.ReadBUF()                            # dropped
    third = bus.ReadBUF()
    assert first.GetSTR() == "a" * 100 and third.GetI32() == 7


def test_changed_or_deleted_result():
    bus = stream(1, 2, 3)
    b = bus.ReadBUF()
    b.SetSTR("changed")                      # the user's value, then dropped
    del b
    assert bus.ReadBUF().GetI32() == 2
    b = bus.ReadBUF()
    b.Delete()                               # a deleted spare is not reused
    del b
    bus = stream(4)
    assert bus.ReadBUF().GetI32() == 4


def test_list_and_back():
    bfl = MkBufferListC()
    bus = stream(10, "eleven")
    while bus.ReadItemExists():
        bfl.AppendBUF(bus.ReadBUF())
    got = [bfl.IndexGet(i) for i in range(bfl.Size())]
    bfl.Reset()                              # the copies do not depend on the list
    assert got[0].GetI32() == 10 and got[1].GetSTR() == "eleven"
    assert isinstance(got[0], MkBufferC)


CASES = [
    ("kept ReadBUF results are distinct copies that survive later reads",
     test_kept_values_survive),
    ("a dropped result is reused, and kept ones are not touched", test_dropped_result_is_reused_safely),
    ("a changed or deleted result does not leak into the next read", test_changed_or_deleted_result),
    ("IndexGet copies outlive the list", test_list_and_back),
]


def main():
    return taptest.run(CASES)


if __name__ == "__main__":
    sys.exit(main())
