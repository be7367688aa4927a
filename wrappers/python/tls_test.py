#!/usr/bin/env python3
"""tls_test.py — TAP: a Python client over TLS to the C test server.  The TLS
options pass through the library's own option parser, so a Python client
links with mutual authentication as a C one does, and a refusal reaches it
as an MkExceptionC naming the reason."""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from mqlink import MkExceptionC, MqContextC
import taptest

TOP_SRC = os.environ.get("top_srcdir", ".")
TOP_BUILD = os.environ.get("top_builddir", ".")
TMP = tempfile.mkdtemp(prefix="mqpy-tls-")
subprocess.run([os.path.join(TOP_SRC, "tests", "tls_certs.sh"), TMP], check=True)


def cert(name):
    return os.path.join(TMP, name)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server():
    """The C test server, --fork, requiring client certificates."""
    port = str(free_port())
    srv = subprocess.Popen([os.path.join(TOP_BUILD, "tests", "testserver"), "--tcp", "--port",
                            port, "--fork", "--tls-cert", cert("server.pem"), "--tls-key",
                            cert("server.key"), "--tls-ca", cert("ca.pem")],
                           stderr=subprocess.PIPE)
    for _ in range(200):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", int(port))) == 0:
                return srv, port
        time.sleep(0.05)
    srv.kill()
    raise AssertionError("the server did not come up")


def stop_server(srv):
    srv.send_signal(signal.SIGTERM)
    try:
        srv.wait(10)
    except subprocess.TimeoutExpired:
        srv.kill()
    return srv.stderr.read().decode(errors="replace")


def test_round_trip():
    srv, port = start_server()
    c = MqContextC()
    try:
        c.LinkCreate(["client", "--tcp", "--port", port, "--tls-cert", cert("client.pem"),
                      "--tls-key", cert("client.key"), "--tls-ca", cert("ca.pem")])
        c.SendSTART()
        c.SendSTR("python over tls")
        c.SendEND_AND_WAIT("ECHO")
        got = c.ReadSTR()
        assert got == "python over tls", got
    finally:
        c.Delete()
        stop_server(srv)


def test_refused():
    srv, port = start_server()
    c = MqContextC()
    try:
        try:
            c.LinkCreate(["client", "--tcp", "--port", port, "--tls-ca", cert("ca.pem")])
        except MkExceptionC as e:
            assert "certificate required" in str(e), str(e)
        else:
            raise AssertionError("a client without a certificate was let in")
    finally:
        c.Delete()
        log = stop_server(srv)
    assert "the client sent no certificate" in log, log


def cleanup():
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(taptest.run([
        ("a Python client links over TLS with its certificate", test_round_trip),
        ("a Python client without a certificate is refused, with the reason", test_refused),
    ], cleanup))
