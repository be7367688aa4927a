#!/bin/sh
# trace_test.sh PYSERVER — TAP: what --debug N shows, level by level (link/
# trace.h), with a Python client against PYSERVER (the interop Python server,
# a command) over a pipe, the server started with the same --debug:
#   default  a service that raises is logged by the server with its
#            traceback; nothing else is printed
#   2        link up and down, with the peer and the transport
#   3        service entry and exit with the duration; one-way errors with
#            their token, on both sides
#   4        every frame in and out with kind, token, child, trans, items, bytes
# and errors name their side and token: a local read past the end and the
# server's read past the end no longer read the same.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mqtrace.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() { # check DESCRIPTION COMMAND...
    n=$((n + 1)) what=$1
    shift
    if "$@"; then echo "ok $n - $what"; else
        echo "not ok $n - $what"; failed=$((failed + 1))
        cat "$tmp/out" "$tmp/err" | tail -5 | sed 's/^/#   /'
    fi
}
has() { grep -q -- "$1" "$tmp/err"; }     # in both sides' stderr
lacks() { ! grep -q -- "$1" "$tmp/err"; }
count_at_least() { [ "$(grep -c -- "$1" "$tmp/err")" -ge "$2" ]; }
out_has() { grep -q -- "$1" "$tmp/out"; } # in the client's stdout

cat > "$tmp/client.py" <<'PY'
import sys
from mqlink import MqContextC, MkExceptionC, MQ_WAIT_ONCE
debug, server = sys.argv[1], sys.argv[2:]
opts = ["--debug", debug] if debug != "default" else []
c = MqContextC()
c.LinkCreate(["client"] + opts + ["@"] + server + opts)
for i in range(1000):
    c.SendSTART(); c.SendSTR("I32"); c.SendI32(i); c.SendEND_AND_WAIT("ECHO")
    assert c.ReadI32() == i
try:
    c.ReadI32()
except MkExceptionC as e:
    print("local:", e.text)
c.SendSTART(); c.SendSTR("I32")
try:
    c.SendEND_AND_WAIT("ECHO")  # the server reads past the end
except MkExceptionC as e:
    print("remote:", e.text)
try:
    c.SendSTART(); c.SendEND_AND_WAIT("PYER")
except MkExceptionC as e:
    print("raised:", e.text)
c.SendSTART(); c.SendSTR("one-way"); c.SendEND("FAIL")
try:
    while c.ProcessEvent(MQ_WAIT_ONCE, 2000):
        pass
except MkExceptionC as e:
    print("one-way:", e.text)
c.Delete()
PY
run() { # run LEVEL SERVER...: the client's stdout in $tmp/out, both sides' stderr in $tmp/err
    "${PYTHON:-python3}" "$tmp/client.py" "$@" >"$tmp/out" 2>"$tmp/err"
}
server="$*"

run default $server
check "default: the server logs the service that raised, with its traceback" \
    has "service PYER failed (error sent to the caller): ValueError: python says no"
check "default: ... the traceback" has "pyserver.py\", line [0-9]*, in PYER"
check "default: no link, service or frame lines" lacks "link up\|service ECHO: \|frame "
check "errors name their side: a local read past the end" out_has "^local: no more items$"
check "errors name their side: the server's read past the end, with the token" \
    out_has "^remote: service ECHO failed on the peer: no more items$"
check "errors name their side: a one-way call's error, with the token" \
    out_has "one-way: one-way call FAIL failed on the peer: one-way"

run 2 $server
check "--debug 2: link up on both sides, with the transport" has "\[client\] link up: client with the server over pipe, server pid"
check "--debug 2: ... the server's" has "link up: server with the client over"
check "--debug 2: link down" has "\[client\] link down: client over pipe"
check "--debug 2: no service or frame lines" lacks "service ECHO: \|frame "

run 3 $server
check "--debug 3: service entry" count_at_least "service ECHO: enter (call-wait, child 0, trans [0-9]*, 2 items)" 1000
check "--debug 3: service exit with its duration" count_at_least "service ECHO: exit ok after [0-9]* us" 1000
check "--debug 3: one-way error on the server, with its token" has "one-way error (FAIL) sent to the caller: one-way"
check "--debug 3: one-way error on the client, with its token" has "\[client\] one-way error (FAIL) received: one-way call FAIL failed on the peer"
check "--debug 3: no frame lines" lacks "frame "

run 4 $server
check "--debug 4: every call frame out" count_at_least "\[client\] frame out call-wait *ECHO child 0 trans [0-9]* items 2 bytes" 1000
check "--debug 4: every answer frame in" count_at_least "\[client\] frame in  return *ECHO child 0 trans [0-9]* items 1 bytes" 1000
check "--debug 4: the server's frames" count_at_least "\[pyserver.py\] frame out return *ECHO child 0" 1000
echo "1..$n"
[ "$failed" -eq 0 ]
