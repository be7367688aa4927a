#!/bin/sh
# thread_pool_test.sh — the --thread pool (link/start/thread.c) keeps at
# most one thread waiting in accept (TAP).  After 2000 parents from five
# perfclient --parent workers, the threads of a --thread server blocked in
# a system call on the listening socket are counted from /proc (each
# thread's syscall file names the call's first argument, the socket's
# descriptor): one acceptor, the other threads parked.  An idle acceptor
# more is woken for a connection another thread takes, and a finished
# thread that waits in accept sleeps there between parents (issue 16,
# point 4: ~2 task switches per parent instead of ~1); the pool before kept
# up to eight.  And the pool grew to serve the workers side by side: at
# least three pool threads (by their name, "mqlink-pool": link/detached.c;
# not the listener's, the watcher's or the process's deadline keeper's) are
# left, parked or in accept.  A pool that grew only after a whole tick with
# no connection taken stayed at one serving thread under short parents:
# it took the next connection each time its client closed the last, so
# every parent waited for the one before (2 pool threads left; on uds ~2
# server and ~2 client task switches per parent instead of ~1.4 and
# ~1.3).  2000 parents, not 200 as before: a stream grows the pool once
# it found it short at four ticks in a row (thread.c: SHORT_LOOKS), and
# 200 parents took 6 ms, three ticks (2 pool threads left).  Then the
# server must still serve a new parent.  Counts, not
# time: the rules hold at every moment, on a loaded machine too.
#
# And the pool serves a stream of parents without parking and waking its
# threads over and over: strace (seccomp-bpf, so only the futex and sleep
# calls stop; the rest runs at full speed) counts, over 16 000 parents of
# five workers, the pool's condition waits with no timeout (a thread
# parks; the watcher sleeps while nothing comes) and the watcher's ticks
# (its sleeps): at most one wait every two ticks.  A pool that grew at
# every tick ending with connections waiting, and whose threads parked
# whenever the acceptor's place was taken (the acceptor on its way,
# connections waiting), woke and parked a thread at nearly every tick
# (0.96-1.14 waits a tick; ~3 futex calls: the wake, the wait, their
# mutex's wakes); now a stream grows the pool at most every fourth tick
# (thread.c: SHORT_LOOKS), 0.1-0.2 waits a tick.  Per tick, not per
# parent: the ticks and the growth they make are timed, the parents' pace
# is the machine's.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/thread_pool_test.XXXXXX")
SERVER_PID=
trap '[ -z "$SERVER_PID" ] || kill $SERVER_PID 2>/dev/null; rm -rf "$TMP"' EXIT
. "$top_srcdir/performance/tap.sh"
SERVER=$top_builddir/perfserver/perfserver CLIENT=$top_builddir/perfclient/perfclient
THREADS=$("$top_builddir/perfclient/perflimit" --features | sed -n 's/^threads=//p')

# listening_inode TP ARG: the inode of the listening socket (uds: its file;
# tcp: its port on loopback), from /proc/net
listening_inode() {
    if [ "$1" = uds ]; then
        # the socket is bound as FILE.PID and renamed (uds.c)
        awk -v f="$2" '$8 == f || index($8, f ".") == 1 { print $7; exit }' /proc/net/unix
    else
        awk -v p="$(printf '%04X' "$2")" 'toupper($2) == "0100007F:" p && $4 == "0A" { print $10; exit }' \
            /proc/net/tcp
    fi
}

# in_accept PID INODE: how many threads of PID wait in a call on the socket INODE
in_accept() {
    fd=
    for f in /proc/$1/fd/*; do
        [ "$(readlink "$f")" = "socket:[$2]" ] && fd=${f##*/}
    done
    [ -n "$fd" ] || { echo "no descriptor of socket $2 in process $1" >&2; return 1; }
    arg=$(printf '0x%x' "$fd")
    cat /proc/$1/task/*/syscall 2>/dev/null | awk -v a="$arg" '$1 ~ /^[0-9]+$/ && $2 == a { n++ } END { print n + 0 }'
}

# pool TP: 2000 parents, then at most one thread in accept and a parent more served
pool() {
    pool_run "$1"
    rc=$?
    [ -z "$SERVER_PID" ] || { kill $SERVER_PID; wait $SERVER_PID; }
    SERVER_PID=
    return $rc
}

pool_run() {
    if [ "$1" = tcp ]; then
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        addr="--tcp --port $port" key=$port
    else
        addr="--uds --file $TMP/pool.sock" key=$TMP/pool.sock
    fi
    "$SERVER" $addr --thread >"$TMP/server.log" 2>&1 &
    SERVER_PID=$!
    i=0 inode=
    while [ $i -lt 600 ] && [ -z "$inode" ]; do
        sleep 0.1; i=$((i + 1)); inode=$(listening_inode "$1" "$key")
    done
    [ -n "$inode" ] || { echo "the server does not listen"; return 1; }
    timeout 120 "$CLIENT" --parent --num 2000 --wrk 5 $addr || return 1
    sleep 0.5 # the instances end (the client closed them)
    waiting=$(in_accept $SERVER_PID "$inode") || return 1
    pooled=$(cat /proc/$SERVER_PID/task/*/comm | grep -c '^mqlink-pool$') # detached.c's names
    echo "$1: $waiting threads in accept after 2000 parents, at most 1; $pooled pool threads, at least 3"
    timeout 60 "$CLIENT" --parent --num 1 --wrk 1 $addr >/dev/null || { echo "no parent served after"; return 1; }
    [ "$waiting" -le 1 ] && [ "$pooled" -ge 3 ]
}

# churn TP: the pool's parks per watcher tick over 16 000 parents of 5
# workers: its condition waits with no timeout (a park, or the watcher's
# sleep while nothing comes) against its sleeps (a tick each)
churn() {
    if [ "$1" = tcp ]; then
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        addr="--tcp --port $port"
    else
        addr="--uds --file $TMP/churn.sock"
    fi
    trace=$TMP/churn-$1
    strace -ff --seccomp-bpf -qq -e trace=futex,clock_nanosleep,nanosleep -o "$trace" \
        "$SERVER" $addr --thread >/dev/null 2>&1 &
    tracer=$!
    i=0
    while [ $i -lt 600 ]; do
        case $1 in
        uds) [ -S "$TMP/churn.sock" ] && break ;;
        tcp) python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' \
                 "$port" 2>/dev/null && break ;;
        esac
        sleep 0.1; i=$((i + 1))
    done
    timeout 120 "$CLIENT" --parent --num 16000 --wrk 5 $addr >/dev/null
    rc=$?
    sleep 0.3
    # the server is the tracer's child (the libtool wrapper execs it)
    for pid in $(cat /proc/$tracer/task/*/children 2>/dev/null); do kill "$pid"; done
    wait $tracer
    [ $rc -eq 0 ] || { echo "perfclient failed ($rc)"; return 1; }
    # -ff: a file a thread, each call on a line of its own
    ticks=$(cat "$trace".* | grep -c 'nanosleep(')
    parks=$(cat "$trace".* | grep -c '^futex(.*FUTEX_WAIT_BITSET.*, NULL, ')
    futex=$(cat "$trace".* | grep -c '^futex(')
    awk -v t="$ticks" -v p="$parks" -v f="$futex" 'BEGIN {
        printf "%d untimed waits (%d futex calls) in %d ticks: %.2f a tick, at most 0.5\n",
               p, f, t, (t > 0 ? p / t : 0)
        exit !(t > 0 && p / t <= 0.5) }'
}

echo "1..4"
if [ "$THREADS" != yes ]; then
    for t in 1 2 3 4; do echo "ok $t # SKIP this build has no threads"; done
    exit 0
fi
if ! [ -r /proc/self/syscall ] || ! cat /proc/self/syscall >/dev/null 2>&1; then
    echo "ok 1 # SKIP /proc/PID/syscall is not readable here"
    echo "ok 2 # SKIP /proc/PID/syscall is not readable here"
    n=2
else
    check "uds --thread: 2000 parents of 5 workers: one thread in accept, 3+ in the pool" pool uds
    check "tcp --thread: 2000 parents of 5 workers: one thread in accept, 3+ in the pool" pool tcp
fi
if ! command -v strace >/dev/null 2>&1 || ! strace -f --seccomp-bpf -e trace=futex -o /dev/null true 2>/dev/null; then
    echo "ok 3 # SKIP strace with --seccomp-bpf missing or not allowed to trace"
    echo "ok 4 # SKIP strace with --seccomp-bpf missing or not allowed to trace"
    exit $((failed != 0))
fi
check "uds --thread: a stream of parents parks a thread at most every second tick" churn uds
check "tcp --thread: a stream of parents parks a thread at most every second tick" churn tcp
[ $failed -eq 0 ]
