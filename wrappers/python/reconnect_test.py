#!/usr/bin/env python3
"""reconnect_test.py — TAP: after the server died, LinkIsConnected() is
False and LinkCreate with the same arguments creates the link again (it
said "already linked"); a callback still waiting when its link is deleted
runs once, with the link's error, and never again."""
import os
import sys

import taptest

from mqlink import MkExceptionC, MqContextC, MQ_WAIT_ONCE

ARGS = ["client", "--timeout", "10", "@",
        os.path.join(os.environ.get("top_builddir", "."), "tests", "testserver")]


def echo(c, v):
    c.SendSTART()
    c.SendI32(v)
    c.SendEND_AND_WAIT("ECHO")
    return c.ReadI32()


def test_create_again():
    c = MqContextC()
    c.LinkCreate(ARGS)
    c.SendSTART()
    c.SendEND("EXIT")  # the server exits: the next wait finds the link down
    try:
        echo(c, 1)
    except MkExceptionC:
        pass
    else:
        raise AssertionError("a call to a dead server succeeded")
    assert not c.LinkIsConnected()
    c.LinkCreate(ARGS)
    assert c.LinkIsConnected()
    assert echo(c, 42) == 42
    c.Delete()


def test_callback_across_delete():
    c = MqContextC()
    c.LinkCreate(ARGS)
    seen = []
    c.SendSTART()
    c.SendI32(300)
    c.SendEND_AND_CALLBACK("SLEP", lambda ctx: seen.append(ctx.ErrorGetText()))
    c.LinkDelete()
    assert len(seen) == 1 and "link closed before the answer" in seen[0], seen
    c.LinkCreate(ARGS)
    c.ProcessEvent(MQ_WAIT_ONCE, 600)
    assert len(seen) == 1, seen
    c.Delete()


if __name__ == "__main__":
    sys.exit(taptest.run([
        ("LinkCreate after the server died creates the link again", test_create_again),
        ("a callback in flight across LinkDelete + LinkCreate runs once, with the error",
         test_callback_across_delete),
    ]))
