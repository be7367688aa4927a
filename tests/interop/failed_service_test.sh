#!/bin/sh
# failed_service_test.sh STACK SERVER... — TAP: a service of SERVER (the
# interop server of one language, a command) that raises is logged by the
# server at the default level with its error text and, in a language that
# has one, its stack (STACK, a grep pattern; "" for none), besides the caller
# getting the error with the side and the token named.
stack=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mqfailed.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/client.py" <<'PY'
import sys
from mqlink import MqContextC, MkExceptionC
c = MqContextC()
c.LinkCreate(["client", "@"] + sys.argv[1:])
c.SendSTART(); c.SendSTR("boom")
try:
    c.SendEND_AND_WAIT("FAIL")
except MkExceptionC as e:
    print(e.text)
c.Delete()
PY
env -u MK_LOG_LEVEL "${PYTHON:-python3}" "$tmp/client.py" "$@" >"$tmp/out" 2>"$tmp/err"
n=0 failed=0
check() { # check DESCRIPTION FILE PATTERN
    n=$((n + 1))
    if grep -q -- "$3" "$2"; then echo "ok $n - $1"; else
        echo "not ok $n - $1"; failed=$((failed + 1)); cat "$tmp/out" "$tmp/err" | sed 's/^/#   /'
    fi
}
check "the server logs the failed service with its text" "$tmp/err" \
    "service FAIL failed (error sent to the caller): boom"
[ -n "$stack" ] && check "... and its stack" "$tmp/err" "$stack"
check "the caller's error names the side and the token" "$tmp/out" \
    "^service FAIL failed on the peer: boom$"
echo "1..$n"
[ "$failed" -eq 0 ]
