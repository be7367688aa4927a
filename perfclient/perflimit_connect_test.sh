#!/bin/sh
# perflimit_connect_test.sh — the PARENT floor (perflimit --connect) has as
# many clients as PARENT has (TAP): perfclient --parent runs --wrk worker
# threads, so the floor's connections come from --wrk threads at once too,
# not from one sequential client (issue 16, point 4: like with like).
# Threads are counted from the connect calls strace sees, not from time.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/perflimit_connect_test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. "$top_srcdir/performance/tap.sh"
LIMIT=$top_builddir/perfclient/perflimit
THREADS=$("$LIMIT" --features | sed -n 's/^threads=//p')

# both connect lines of a 60-connection run show wrk=3 and all 60
lines_show_wrk() {
    TMPDIR=$TMP "$LIMIT" --transport uds --connect --wrk 3 --num 60 | tee "$TMP/lines"
    [ "$(grep -c '^limit-connect\(-fork\)\? .*count=60 .*wrk=3' "$TMP/lines")" = 2 ]
}
# wait_lines TRANSPORT: the waiting floors (the server waits for its
# client's close before its own) print a rate for every connection
wait_lines() {
    TMPDIR=$TMP "$LIMIT" --transport "$1" --connect --wrk 2 --num 40 | tee "$TMP/wait"
    grep -q '^limit-connect-wait ops/s=[0-9][0-9.]* count=40 .*wrk=2' "$TMP/wait" &&
        grep -q '^limit-connect-fork-wait ops/s=[0-9][0-9.]* count=40 .*wrk=2' "$TMP/wait"
}
# connecting_threads: how many threads of perflimit itself call connect (the
# forked peer only accepts) in a --wrk 3 run of the four connect floors
connecting_threads() {
    # LeakSanitizer cannot run under ptrace: an ASan build would fail here
    TMPDIR=$TMP ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        strace -f -qq -e trace=connect -o "$TMP/trace" \
        "$LIMIT" --transport uds --connect --wrk 3 --num 300 >/dev/null || return 1
    awk '/ connect\(/ { print $1 }' "$TMP/trace" | sort -u | wc -l
}
several_threads_connect() {
    t=$(connecting_threads) || return 1
    echo "$t threads called connect (at most 3 per floor, 4 floors; one sequential client per floor: 4)"
    [ "$t" -ge 5 ]
}
rejects() {
    "$LIMIT" --connect --wrk "$1" 2>"$TMP/err"
    rc=$?
    cat "$TMP/err"
    [ $rc = 2 ] && grep -q "bad option or value" "$TMP/err"
}

check "limit-connect and limit-connect-fork count every connection and show wrk=3" lines_show_wrk
check "limit-connect-wait and limit-connect-fork-wait print a rate on uds" wait_lines uds
check "limit-connect-wait and limit-connect-fork-wait print a rate on tcp" wait_lines tcp
if [ "$THREADS" = yes ] && command -v strace >/dev/null; then
    check "the connect floors' clients are several threads, as PARENT's workers" several_threads_connect
else
    n=$((n + 1)); echo "ok $n # SKIP no threads or no strace"
fi
check "--wrk 0 is refused" rejects 0
check "--wrk 65 (more than 64) is refused" rejects 65
check "--wrk 2.5 is refused" rejects 2.5
echo "1..$n"
[ $failed = 0 ]
