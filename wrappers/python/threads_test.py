"""threads_test.py — TAP: the Python binding and threads.

A thread that waits in the library (SendEND_AND_WAIT, ProcessEvent) keeps the
interpreter lock only while it handles frames, not while it waits: another
Python thread must run meanwhile.  The proof needs no clock: the server's
service SLEP answers "seen" only when a thread of the client, which can start
its work only after the service has begun, shows it ran; if the lock stayed
held during the wait, that thread could not run, and after 5 s SLEP answers
"timeout".

A Python server started with --thread runs each connection's instance in a
thread of the library's pool; such a thread gets its Python thread state once,
when it starts (the module's thread hooks), and keeps it from call to call.

    python3 threads_test.py              the tests (this file is also the server)
    python3 threads_test.py --server ... the server: SLEP and ECHO
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from mqlink import MQ_WAIT_FOREVER, MQ_WAIT_ONCE, MkExceptionC, MqContextC
import taptest

# The directory of the files below: the test makes it and hands it to its
# servers through the environment (a server must not make one of its own:
# each would be left behind).
if "MQPY_THREADS_TMP" not in os.environ:
    os.environ["MQPY_THREADS_TMP"] = tempfile.mkdtemp(prefix="mqpy-threads-")
    os.environ["TMPDIR"] = os.environ["MQPY_THREADS_TMP"]  # what a server makes shows below
TMP = os.environ["MQPY_THREADS_TMP"]
STARTED = os.path.join(TMP, "started")  # the server is in SLEP
SEEN = os.path.join(TMP, "seen")        # a client thread ran after that


class Server(MqContextC):
    def ServerSetup(self):
        self.ServiceCreate("SLEP", self.SLEP)
        self.ServiceCreate("ECHO", self.ECHO)
        self.ServiceCreate("TLSC", self.TLSC)

    def SLEP(self):
        open(STARTED, "w").close()
        end = time.monotonic() + 5
        while not os.path.exists(SEEN) and time.monotonic() < end:
            time.sleep(0.01)
        self.SendSTART()
        self.SendSTR("seen" if os.path.exists(SEEN) else "timeout")
        self.SendRETURN()

    def ECHO(self):
        self.SendSTART()
        self.SendI32(self.ReadI32())
        self.SendI32(os.getpid())
        self.SendSTR(repr(threading.get_ident()))
        self.SendRETURN()


    def TLSC(self):
        """How often this thread has run TLSC: threading.local lives in the
        thread state, so it counts only while the thread keeps one."""
        TLS.calls = getattr(TLS, "calls", 0) + 1
        self.SendSTART()
        self.SendI32(TLS.calls)
        self.SendRETURN()


TLS = threading.local()


def serve(argv):
    srv = Server()
    try:
        srv.ConfigSetServerSetup(srv.ServerSetup)
        srv.LinkCreate(argv)
        srv.ProcessEvent(MQ_WAIT_FOREVER)
    except MkExceptionC as e:
        sys.stderr.write("threads_test.py server: %s\n" % e)
        return 1
    finally:
        srv.Delete()
    return 0


def witness():
    """A thread that marks SEEN once the server's SLEP has started."""
    def run():
        while not os.path.exists(STARTED):
            time.sleep(0.01)
        open(SEEN, "w").close()
    for f in (STARTED, SEEN):
        if os.path.exists(f):
            os.unlink(f)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def client():
    c = MqContextC()
    c.LinkCreate(["client", "@", sys.executable, os.path.abspath(__file__), "--server"])
    return c


def test_wait_releases():
    c = client()
    try:
        t = witness()
        c.SendSTART()
        c.SendEND_AND_WAIT("SLEP")
        got = c.ReadSTR()
        t.join(5)
        assert got == "seen", "another thread could not run during SendEND_AND_WAIT: " + got
    finally:
        c.Delete()


def test_process_event_releases():
    c = client()
    answers = []

    def answer(ctx):
        answers.append(ctx.ReadSTR())
    try:
        t = witness()
        c.SendSTART()
        c.SendEND_AND_CALLBACK("SLEP", answer)
        while not answers:
            c.ProcessEvent(MQ_WAIT_ONCE, 10000)
        t.join(5)
        assert answers == ["seen"], "another thread could not run during ProcessEvent: %r" % answers
    finally:
        c.Delete()


def start_thread_server(name):
    """A --thread server listening on TMP/name, ready for clients."""
    sock = os.path.join(TMP, name)
    srv = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--server",
                            "--uds", "--file", sock, "--thread"], stderr=subprocess.PIPE)
    for _ in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    return srv, sock


def stop_thread_server(srv):
    srv.send_signal(signal.SIGTERM)
    try:
        rc = srv.wait(10)
    except subprocess.TimeoutExpired:
        srv.kill()
        rc = "hung"
    assert rc == 0, "server exit status %r: %r" % (rc, srv.stderr.read())


def test_thread_server():
    """Clients in parallel threads against a --thread server: each gets its
    own answers, all instances run in the server process, in threads.  The
    four links are all open and answered once before any goes on, so their
    instances are alive together (one client done before the next began
    could be served by one pool thread after another, on a loaded machine)."""
    srv, sock = start_thread_server("thread.sock")
    results, errors = [], []
    together = threading.Barrier(4, timeout=60)

    def run(n):
        c = MqContextC()
        try:
            c.ConfigSetTimeout(20000)  # a hung server fails the test, not the run
            c.LinkCreate(["client", "--uds", "--file", sock])
            for i in range(200):
                if i == 1:
                    together.wait()
                c.SendSTART()
                c.SendI32(n * 1000 + i)
                c.SendEND_AND_WAIT("ECHO")
                if c.ReadI32() != n * 1000 + i:
                    raise AssertionError("wrong answer")
                results.append((c.ReadI32(), c.ReadSTR()))
        except Exception as e:  # reported by the main thread
            errors.append("%s: %s" % (type(e).__name__, e))
        finally:
            c.Delete()
    try:
        ts = [threading.Thread(target=run, args=(n,)) for n in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(60)
        assert not errors, errors
        assert len(results) == 800, len(results)
        assert {pid for pid, _ in results} == {srv.pid}, "instances outside the server process"
        assert len({tid for _, tid in results}) > 1, "instances do not run in their own threads"
        assert srv.poll() is None, "server ended: %r" % srv.stderr.read()
    finally:
        stop_thread_server(srv)


def test_thread_state_kept():
    """The calls of one connection run on one pool thread, which keeps its
    thread state: a threading.local set by one call is there in the next
    (a thread state made per call would answer 1, 1, 1)."""
    srv, sock = start_thread_server("state.sock")
    c = MqContextC()
    try:
        c.ConfigSetTimeout(20000)
        c.LinkCreate(["client", "--uds", "--file", sock])
        counts = []
        for _ in range(3):
            c.SendSTART()
            c.SendEND_AND_WAIT("TLSC")
            counts.append(c.ReadI32())
        assert counts == [1, 2, 3], "the pool thread lost its thread state: %r" % counts
    finally:
        c.Delete()
        stop_thread_server(srv)


def test_nothing_left():
    """The servers leave nothing but the test's own files: no directory of
    their own, no socket file after they ended (each ran with TMPDIR = TMP)."""
    left = sorted(set(os.listdir(TMP)) - {"started", "seen"})
    assert not left, "left behind: %r" % left


def cleanup():
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--server":
        sys.exit(serve([sys.argv[0]] + sys.argv[2:]))
    sys.exit(taptest.run([
        ("SendEND_AND_WAIT lets other threads run while it waits", test_wait_releases),
        ("ProcessEvent lets other threads run while it waits", test_process_event_releases),
        ("a --thread server serves parallel clients", test_thread_server),
        ("a --thread server's pool thread keeps its thread state", test_thread_state_kept),
        ("the servers leave no files behind", test_nothing_left),
    ], cleanup))
