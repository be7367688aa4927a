#!/bin/sh
# usage_test.sh — a user's first mistakes get a message that fits: a server
# started with no transport is told how a server is started (not a client's
# '@ server-program'), and LinkCreate given one string instead of a list of
# arguments is a type error, not the string's characters taken as arguments.
: "${top_builddir:?run from make check}"
b=$top_builddir
export LD_LIBRARY_PATH="$b/link/.libs:$b/kernel/.libs" PYTHONPATH="$b/wrappers/python" \
    RUBYLIB="$b/wrappers/ruby"
n=0 failed=0
check() { # check DESCRIPTION PATTERN COMMAND...: COMMAND fails and prints PATTERN (grep -E)
    n=$((n + 1)) what=$1 pattern=$2
    shift 2
    if out=$("$@" 2>&1); then
        echo "not ok $n - $what"; echo "#   exited 0: $out"; failed=$((failed + 1))
    elif echo "$out" | grep -Eq "$pattern"; then
        echo "ok $n - $what"
    else
        echo "not ok $n - $what"; echo "#   expected /$pattern/"; echo "$out" | sed 's/^/#   got: /' | head -5
        failed=$((failed + 1))
    fi
}
skip() { n=$((n + 1)); echo "ok $n - # SKIP $1"; }

check "a server with no transport is told how a server starts" \
    "no transport: a server listens with --uds --file PATH or --tcp --port P" "$b/perfserver/perfserver"
check "a client with no transport is told how a client links" \
    "no transport: give '@ server-program', --uds or --tcp" "$b/perfclient/perfclient" --send --num 1

if ls "$b"/wrappers/python/mqlink*.so >/dev/null 2>&1; then
    check "python LinkCreate('a string') is a TypeError" \
        "TypeError: LinkCreate: expected a list of str .*, not str" ${PYTHON:-python3} -c \
        'import mqlink; mqlink.MqContextC().LinkCreate("client @ server")'
    check "python LinkCreate(b'bytes') is a TypeError" \
        "TypeError: LinkCreate: expected a list of str .*, not bytes" ${PYTHON:-python3} -c \
        'import mqlink; mqlink.MqContextC().LinkCreate(b"client @ server")'
else skip "python not built"; skip "python not built"; fi

if [ -e "$b/wrappers/ruby/mqlink.so" ]; then
    check "ruby LinkCreate('a string') is a TypeError" \
        "expected Array of String, got String \(TypeError\)" ${RUBY:-ruby} -e \
        'require "mqlink"; Mqlink::MqContextC.new.LinkCreate("client @ server")'
else skip "ruby not built"; fi
echo "1..$n"
[ "$failed" -eq 0 ]
