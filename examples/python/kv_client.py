#!/usr/bin/env python3
"""kv_client.py — uses kv_server (any language's): SET, GET and DEL on the
parent context, then through a child context (a second server instance over
the same connection).

    python3 kv_client.py @ python3 kv_server.py
    python3 kv_client.py --uds --file /tmp/kv
"""
import sys

from mqlink import MkExceptionC, MqContextC


def kv_set(c, key, value):
    c.SendSTART(); c.SendSTR(key); c.SendSTR(value)
    c.SendEND_AND_WAIT("SET_")
    print(f"SET {key}={value}")


def kv_get(c, key, who=""):
    c.SendSTART(); c.SendSTR(key)
    try:
        c.SendEND_AND_WAIT("GET_")
        print(f"{who}GET {key} -> {c.ReadSTR()}")
    except MkExceptionC as e:  # the server's error text
        print(f"{who}GET {key} -> error: {e.text}")


def kv_del(c, key):
    c.SendSTART(); c.SendSTR(key)
    c.SendEND_AND_WAIT("DEL_")
    print(f"DEL {key} -> {c.ReadI32()}")


def main():
    c = MqContextC()
    child = MqContextC()
    try:
        c.LinkCreate(sys.argv)
        kv_set(c, "color", "blue")
        kv_get(c, "color")
        child.LinkCreateChild(c)  # its own server instance, over c's link
        kv_get(child, "color", who="child ")
        kv_set(child, "size", "10")
        child.LinkDelete()
        kv_del(c, "color")
        kv_del(c, "color")
        kv_get(c, "color")
        kv_get(c, "size")
    except MkExceptionC as e:
        sys.exit(f"kv_client.py: {e}")
    finally:
        child.Delete()
        c.Delete()


if __name__ == "__main__":
    main()
