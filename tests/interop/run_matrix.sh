#!/bin/sh
# run_matrix.sh CLIENT SERVER MODES CASES — run the interop CLIENT (a command
# taking LABEL LINK-ARGS...) against SERVER (a command taking link options)
# over each of MODES (pipe uds-fork uds-spawn uds-thread tcp-fork tcp-spawn
# tcp-thread); prints one TAP stream.  Every server started here is stopped
# and reaped.
#
# The plan comes from CASES, the number of cases the client runs (one TAP line
# each), not from what the client printed: per mode CASES lines plus one for
# the client's exit.  A client that stops early gets a 'not ok' for every case
# it did not run; one that runs more than CASES fails until CASES is updated
# (INTEROP_CASES_* in tests/interop/local.mk).
client=$1 server=$2 modes=$3 cases=$4
case $cases in
''|*[!0-9]*) echo "run_matrix.sh: CASES must be a number, not '$cases'" >&2; exit 2 ;;
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mqinterop.XXXXXX") || exit 1
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
free_port() {
    "${PYTHON:-python3}" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_for() { # $1: a file to appear, or tcp:PORT to accept
    i=0
    while [ $i -lt 600 ]; do
        case $1 in
        tcp:*) "${PYTHON:-python3}" -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1).close()" "${1#tcp:}" 2>/dev/null && return 0 ;;
        *) [ -S "$1" ] && return 0 ;;
        esac
        sleep 0.1; i=$((i + 1))
    done
    return 1
}
out=$tmp/out
: > "$out"
# The client's lines for one mode, then a 'not ok' per case it did not run
# and the line for its exit.  $1: mode, $2: what the client's exit said.
finish_mode() {
    ran=$(grep -cE '^(ok|not ok)' "$tmp/mode") || ran=0
    cat "$tmp/mode" >> "$out"
    i=$ran
    while [ "$i" -lt "$cases" ]; do
        i=$((i + 1))
        echo "not ok - $1: case $i of $cases did not run (the client stopped after $ran)" >> "$out"
    done
    if [ "$ran" -gt "$cases" ]; then
        echo "not ok - $1: $ran cases ran, $cases planned (update INTEROP_CASES_* in tests/interop/local.mk)" >> "$out"
    else
        echo "$2" >> "$out"
    fi
}
nmodes=0
for mode in $modes; do
    nmodes=$((nmodes + 1))
    : > "$tmp/mode"; : > "$tmp/err"
    case $mode in
    pipe)
        if timeout 120 $client "$mode" @ $server >> "$tmp/mode" 2>"$tmp/err"; then
            finish_mode "$mode" "ok - $mode: the client exited cleanly"
        else
            finish_mode "$mode" "not ok - $mode: client exited with $?"
        fi ;;
    uds-*|tcp-*)
        start=--${mode#*-}
        if [ "${mode%%-*}" = uds ]; then
            addr="--uds --file $tmp/sock-$mode"; ready=$tmp/sock-$mode
        else
            port=$(free_port); addr="--tcp --port $port"; ready=tcp:$port
        fi
        timeout 150 $server $addr $start 2>"$tmp/srv-err" &
        spid=$!; pids="$pids $spid"
        if ! wait_for "$ready"; then
            sed 's/^/#   /' "$tmp/srv-err" >> "$tmp/mode"
            finish_mode "$mode" "not ok - $mode: server did not start"
        elif timeout 120 $client "$mode" $addr >> "$tmp/mode" 2>"$tmp/err"; then
            finish_mode "$mode" "ok - $mode: the client exited cleanly"
        else
            finish_mode "$mode" "not ok - $mode: client exited with $?"
        fi
        kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null ;;
    esac
    [ -s "$tmp/err" ] && grep -q . "$tmp/err" && sed 's/^/#   stderr: /' "$tmp/err" | head -20 >> "$out"
done
echo "1..$((nmodes * (cases + 1)))"
awk '/^(ok|not ok)/ { n++; sub(/^ok/, "ok " n); sub(/^not ok/, "not ok " n) } { print }' "$out"
