#!/usr/bin/env python3
"""callback_client.py — calls that do not wait, against kv_server: five
SETs whose answers arrive in a callback, then a persistent SET (committed to
this client's storage before it is sent, delivered once even across a crash
of either side).

    python3 callback_client.py --storage /tmp/kv-client.db @ python3 kv_server.py
"""
import sys

from mqlink import MQ_WAIT_ONCE, MkExceptionC, MqContextC

answered = 0


def on_answer(what):
    """A callback for one call: it runs from the event loop with the answer."""
    def callback(ctx):
        global answered
        if ctx.ErrorGetCode():
            print(f"{what} failed: {ctx.ErrorGetText()}")
        else:
            print(f"{what} answered")
        answered += 1
    return callback


def wait_for(c, n):
    """Serve the event loop until n answers have arrived."""
    while answered < n:
        c.ProcessEvent(MQ_WAIT_ONCE)


def main():
    c = MqContextC()
    try:
        c.LinkCreate(sys.argv)
        for i in range(1, 6):  # all five leave before the first answer is read
            c.SendSTART(); c.SendSTR(f"k{i}"); c.SendSTR("v")
            c.SendEND_AND_CALLBACK("SET_", on_answer(f"SET k{i}"))
        wait_for(c, 5)
        c.SendSTART(); c.SendSTR("saved"); c.SendSTR("yes")
        c.SendEND_AND_TRANSACTION_CALLBACK("SET_", on_answer("persistent SET saved"))
        wait_for(c, 6)
        print(f"persistent calls not yet answered: {c.StoragePendingCount()}")
        c.SendSTART(); c.SendSTR("saved")
        c.SendEND_AND_WAIT("GET_")
        print(f"GET saved -> {c.ReadSTR()}")
    except MkExceptionC as e:
        sys.exit(f"callback_client.py: {e}")
    finally:
        c.Delete()


if __name__ == "__main__":
    main()
