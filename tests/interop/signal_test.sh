#!/bin/sh
# signal_test.sh MODES SERVER... — TAP: SIGINT and SIGTERM (and SIGHUP) stop
# SERVER (a command taking link options, the interop server of one language)
# in order in each of MODES ("plain": no start mode, "fork", "spawn",
# "thread"), over uds:
#   - listening, no client: exit status 0, socket file removed;
#   - plain, serving a client that made a persistent call, with --storage:
#     the link ends as if the client had closed it, exit 0, the receiver's
#     storage file committed and closed (no -wal file left);
#   - fork and spawn, the listener stopped while an instance serves an open
#     link: the listener exits 0 and removes the socket file, the instance
#     goes on answering that link until the client closes it.
# Every process started here is stopped and reaped.  The servers start with
# the signals at their defaults (a background job of sh ignores SIGINT).
modes=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mqsignal.XXXXXX") || exit 1
pids=
cleanup() {
    for p in $pids; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1)) failed=$((failed + 1))
    echo "not ok $n - $1"; [ -s "$tmp/err" ] && sed 's/^/#   /' "$tmp/err" | tail -5
}
wait_sock() { i=0; while [ ! -S "$1" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done; [ -S "$1" ]; }
# stopped PID: waits up to 30 s for PID to end; its exit status in $status
stopped() {
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    kill -0 "$1" 2>/dev/null && { status=running; return 1; }
    wait "$1"; status=$?
}
start_server() { # start_server SOCK ARGS...: the server's pid in $spid
    sock=$1; shift
    rm -f "$sock"
    env --default-signal=INT,TERM,HUP "$@" --uds --file "$sock" 2>"$tmp/err" &
    spid=$!; pids="$pids $spid"
    wait_sock "$sock"
}
# The client: connects, calls ECHO once, then on each line of its input
# calls again, printing "echo ok" or the error; ends at the end of input.
cat > "$tmp/client.py" <<'PY'
import sys
from mqlink import MqContextC, MkExceptionC, MQ_WAIT_ONCE
c = MqContextC.Create()
c.LinkCreate(["client", "--uds", "--file", sys.argv[1]])
if sys.argv[2:] == ["persist"]:  # a persistent call: the server records it
    got = []
    c.SendSTART(); c.SendSTR("I32"); c.SendI32(7)
    c.SendEND_AND_TRANSACTION_CALLBACK("ECHO", lambda ctx: got.append(ctx.ReadI32()), 5000)
    while not got and c.ProcessEvent(MQ_WAIT_ONCE, 5000):
        pass
def call():
    try:
        c.SendSTART(); c.SendSTR("I32"); c.SendI32(7); c.SendEND_AND_WAIT("ECHO", 5000)
        print("echo ok" if c.ReadI32() == 7 else "echo wrong", flush=True)
    except MkExceptionC as e:
        print("echo failed: %s" % e.text, flush=True)
call()
for line in sys.stdin:
    call()
c.Delete()
PY
start_client() { # start_client SOCK [persist]: fifo $tmp/in feeds it, $tmp/out has its lines
    rm -f "$tmp/in" "$tmp/out"; mkfifo "$tmp/in"
    "${PYTHON:-python3}" "$tmp/client.py" "$@" <"$tmp/in" >"$tmp/out" 2>>"$tmp/err" &
    cpid=$!; pids="$pids $cpid"
    exec 3>"$tmp/in"
    i=0; while ! grep -q "echo" "$tmp/out" && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
    grep -q "echo ok" "$tmp/out"
}

for mode in $modes; do
    start=--$mode; [ "$mode" = plain ] && start=
    for sig in INT TERM HUP; do
        what="$mode, listening: SIG$sig"
        if ! start_server "$tmp/s" "$@" $start; then not_ok "$what: server did not start"; continue; fi
        kill -"$sig" "$spid"
        if ! stopped "$spid"; then not_ok "$what: still running after 30 s"
        elif [ "$status" != 0 ]; then not_ok "$what: exit status $status, not 0"
        elif [ -e "$tmp/s" ]; then not_ok "$what: socket file left"
        else ok "$what: exit 0, socket file removed"; fi
    done
done

# A stop signal sent as soon as the socket file appears, before the listener
# is done setting up (strace holds for 1 s the link(2) that puts the uds
# socket file in place): the handlers must be in place before the socket
# exists, or the default action kills the server and leaves the file.
if strace -o /dev/null -e inject=link:delay_exit=1 true 2>/dev/null; then
    what="plain, SIGTERM as the socket file appears"
    rm -f "$tmp/s"
    env --default-signal=INT,TERM,HUP strace -f -o /dev/null -e trace=link \
        -e inject=link:delay_exit=1000000 "$@" --uds --file "$tmp/s" 2>"$tmp/err" &
    tpid=$!; pids="$pids $tpid"
    if ! wait_sock "$tmp/s"; then not_ok "$what: server did not start"
    else
        kill -TERM "$(pgrep -P "$tpid" | head -1)"
        if ! stopped "$tpid"; then not_ok "$what: still running after 30 s"
        elif [ "$status" != 0 ]; then not_ok "$what: exit status $status, not 0"
        elif [ -e "$tmp/s" ]; then not_ok "$what: socket file left"
        else ok "$what: exit 0, socket file removed"; fi
    fi
else
    n=$((n + 1)); echo "ok $n - # SKIP strace cannot delay a system call here"
fi

for mode in $modes; do
    for sig in INT TERM; do
        case $mode in
        plain)
            what="plain, serving a client: SIG$sig"
            rm -f "$tmp"/st.db*
            start_server "$tmp/s" "$@" --storage "$tmp/st.db" &&
                start_client "$tmp/s" persist || { not_ok "$what: no link"; exec 3>&-; continue; }
            kill -"$sig" "$spid"
            if ! stopped "$spid"; then not_ok "$what: still running after 30 s"
            elif [ "$status" != 0 ]; then not_ok "$what: exit status $status, not 0"
            elif ls "$tmp" | grep -q '^st\.db.*-wal$'; then
                not_ok "$what: storage not closed: $(ls "$tmp" | grep st.db | tr '\n' ' ')"
            else ok "$what: link ended, exit 0, storage closed"; fi
            exec 3>&-; stopped "$cpid" ;;
        fork|spawn)
            what="$mode, listener stopped with an open link: SIG$sig"
            start_server "$tmp/s" "$@" --$mode &&
                start_client "$tmp/s" || { not_ok "$what: no link"; exec 3>&-; continue; }
            kill -"$sig" "$spid"
            if ! stopped "$spid"; then not_ok "$what: listener still running after 30 s"
            elif [ "$status" != 0 ]; then not_ok "$what: listener exit status $status, not 0"
            elif [ -e "$tmp/s" ]; then not_ok "$what: socket file left"
            else
                echo >&3 # the second answer: 60 s at most, as slow as the machine is
                i=0; while [ "$(grep -c "echo" "$tmp/out")" -lt 2 ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
                if [ "$(grep -c "echo ok" "$tmp/out")" = 2 ]; then
                    ok "$what: listener exit 0, the instance still answers"
                else
                    not_ok "$what: the instance did not answer: $(tail -1 "$tmp/out")"
                fi
            fi
            exec 3>&-
            stopped "$cpid" || not_ok "$what: client did not end" ;;
        esac
    done
done
echo "1..$n"
[ "$failed" -eq 0 ]
