#!/usr/bin/env python3
"""mp_baseline.py — what a Python user would otherwise use: round trips of
bytes between two Python processes with multiprocessing.connection, on the
same transport as the link (pipe: a socket pair; uds; tcp on loopback).

    mp_baseline.py --transport pipe|uds|tcp [--sec S] [--size N]

Prints one line in perfclient's shape, for the Python row's .perf file:
    mp-roundtrip ops/s=53000 count=53000 sec=1.000 transport=uds size=88
"""
import argparse
import multiprocessing as mp
import multiprocessing.connection as mpc
import os
import socket
import tempfile
import time


def echo(conn):
    """The peer: answer every message with itself until the end marker."""
    while True:
        msg = conn.recv_bytes()
        if not msg:
            return
        conn.send_bytes(msg)


def connect(transport, tmp):
    """A connected pair of Connection objects and the peer process."""
    if transport == "pipe":
        a, b = mp.Pipe(duplex=True)  # a socket pair on Linux
        peer = mp.Process(target=echo, args=(b,))
        peer.start()
        b.close()
        return a, peer
    family, address = (("AF_UNIX", os.path.join(tmp, "mp.sock")) if transport == "uds"
                       else ("AF_INET", ("127.0.0.1", 0)))
    with mpc.Listener(address, family=family) as listener:
        peer = mp.Process(target=serve, args=(listener.address, family))
        peer.start()
        conn = listener.accept()
    if transport == "tcp":
        socket.socket(fileno=os.dup(conn.fileno())).setsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn, peer


def serve(address, family):
    conn = mpc.Client(address, family=family)
    if family == "AF_INET":
        socket.socket(fileno=os.dup(conn.fileno())).setsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    echo(conn)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--transport", choices=["pipe", "uds", "tcp"], default="pipe")
    ap.add_argument("--sec", type=float, default=1.0)
    ap.add_argument("--size", type=int, default=88)
    args = ap.parse_args()
    mp.set_start_method("fork")
    with tempfile.TemporaryDirectory() as tmp:
        conn, peer = connect(args.transport, tmp)
        msg = b"x" * args.size
        conn.send_bytes(msg)  # warm-up
        conn.recv_bytes()
        n, t0 = 0, time.perf_counter()
        while True:
            for _ in range(100):
                conn.send_bytes(msg)
                conn.recv_bytes()
            n += 100
            sec = time.perf_counter() - t0
            if sec >= args.sec:
                break
        conn.send_bytes(b"")
        peer.join()
    print(f"mp-roundtrip ops/s={n / sec:.0f} count={n} sec={sec:.3f} "
          f"transport={args.transport} size={args.size}")


if __name__ == "__main__":
    main()
