#!/bin/sh
# run_matrix.sh CLIENT SERVER MODES — run the interop CLIENT (a command taking
# LABEL LINK-ARGS...) against SERVER (a command taking link options) over each
# of MODES (pipe uds-fork uds-spawn uds-thread tcp-fork tcp-spawn tcp-thread);
# prints one TAP stream.  Every server started here is stopped and reaped.
client=$1 server=$2 modes=$3
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
    while [ $i -lt 100 ]; do
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
for mode in $modes; do
    case $mode in
    pipe)
        timeout 120 $client "$mode" @ $server >> "$out" 2>"$tmp/err" || echo "not ok - $mode: client exited with $?" >> "$out" ;;
    uds-*|tcp-*)
        start=--${mode#*-}
        if [ "${mode%%-*}" = uds ]; then
            addr="--uds --file $tmp/sock-$mode"; ready=$tmp/sock-$mode
        else
            port=$(free_port); addr="--tcp --port $port"; ready=tcp:$port
        fi
        timeout 150 $server $addr $start 2>"$tmp/srv-err" &
        spid=$!; pids="$pids $spid"
        if wait_for "$ready"; then
            timeout 120 $client "$mode" $addr >> "$out" 2>"$tmp/err" || echo "not ok - $mode: client exited with $?" >> "$out"
        else
            echo "not ok - $mode: server did not start" >> "$out"
            sed 's/^/#   /' "$tmp/srv-err" >> "$out"
        fi
        kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null ;;
    esac
    [ -s "$tmp/err" ] && grep -q . "$tmp/err" && sed 's/^/#   stderr: /' "$tmp/err" | head -20 >> "$out"
done
n=0
awk '/^(ok|not ok)/ { n++; sub(/^ok/, "ok " n); sub(/^not ok/, "not ok " n) } { print } END { print "1.." n }' "$out"
