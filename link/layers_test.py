#!/usr/bin/env python3
"""layers_test.py — TAP: the link's layers, read from its objects with nm.
A file "calls" another when its object references a function the other's
object defines.  The byte layer (conn.c) calls nothing above it; the core
calls no persistence file (it reaches storage through the hooks a layer
registers, link_int.h mqi_hooks, which persist_load.c forwards to the
persistence module); the start modes call nothing in link.c or
listen.c (they get what they need through their table, start/start.h)."""
import os
import subprocess
import sys

BUILD = os.path.join(os.environ.get("top_builddir", "."), "link")
# libmqlink's objects, and (shared builds) those of the modules beside it
PREFIXES = ("libmqlink_objs_la-", "mqlink_persist_la-", "mqlink_tls_la-")

# The files below the connection: frames, pending calls, id tables, blocking
# sections, the keeper of a client's handshake deadline (a socket and a time).
BELOW_CONN = {"frame", "pending", "idmap", "block", "keeper"}
CORE = {"conn", "context", "event", "link", "listen", "read", "send", "service"}
PERSIST = {"persist", "persist_recv", "persist_resume"}
START = {"fork", "thread", "spawn"}


def objects():
    """name -> object file; the PIC copy (.libs) when there are two."""
    found = {}
    for root, _, files in os.walk(BUILD):
        for f in files:
            prefix = next((p for p in PREFIXES if f.startswith(p)), None)
            if prefix and f.endswith(".o"):
                name = f[len(prefix):-2]
                if name not in found or "/.libs" in root:
                    found[name] = os.path.join(root, f)
    return found


def symbols(path):
    defined, used = set(), set()
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "T":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


objs = objects()
if not objs:
    print("1..0 # SKIP no objects of libmqlink under %s" % BUILD)
    sys.exit(0)
table = {name: symbols(path) for name, path in objs.items()}
owner = {s: name for name, (defined, _) in table.items() for s in defined}


def calls(name):
    """file -> the functions of it that name calls."""
    out = {}
    for s in table.get(name, (set(), set()))[1]:
        if s in owner and owner[s] != name:
            out.setdefault(owner[s], []).append(s)
    return out


cases = []


def case(title, bad):
    cases.append((title, bad))


up = {f: s for f, s in calls("conn").items() if f not in BELOW_CONN}
case("conn.c calls nothing above it (no persistence, no context)", up)

for f in sorted(CORE):
    into = {p: s for p, s in calls(f).items() if p in PERSIST}
    case("%s.c calls no persistence file" % f, into)

for f in sorted(START):
    into = {p: s for p, s in calls(f).items() if p in ("link", "listen")}
    case("start/%s.c calls nothing in link.c or listen.c" % f, into)

print("1..%d" % len(cases))
for i, (title, bad) in enumerate(cases, 1):
    if bad:
        print("not ok %d - %s" % (i, title))
        for f, syms in sorted(bad.items()):
            print("#   calls %s.c: %s" % (f, " ".join(sorted(syms))))
    else:
        print("ok %d - %s" % (i, title))
