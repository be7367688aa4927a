#!/bin/bash
# hosts_test.sh — two hosts on one machine: network namespaces A (server)
# and B (clients) joined by a veth pair, 10.213.77.1/30 and .2/30.  Over TCP
# (and TCP+TLS when the build has TLS) with --fork, --thread and --spawn:
# the interop client's round trips, boundary values and child contexts;
# a persistent stream whose server is killed (SIGKILL) and restarted
# mid-stream, every call answered once; a server without --host (loopback)
# unreachable from B, reachable inside A.
#
# Root and `ip netns` needed, else the whole file is skipped with the reason.
# Nothing outside the two namespaces is touched: both veth ends are created
# inside them, and the trap kills what runs in them and deletes them.
: "${top_builddir:?run from make check}" "${top_srcdir:?run from make check}"
b=$top_builddir
export LD_LIBRARY_PATH="$b/link/.libs:$b/kernel/.libs"
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
[ "$(id -u)" = 0 ] || skip_all "needs root to create network namespaces"
command -v ip >/dev/null && ip netns list >/dev/null 2>&1 || skip_all "no 'ip netns' (iproute2)"
command -v ss >/dev/null || skip_all "no ss (iproute2) to see a server listen"

A=mqhostA$$ B=mqhostB$$ IPA=10.213.77.1 IPB=10.213.77.2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mqhosts.XXXXXX") || exit 1
cleanup() {
    for ns in $A $B; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
ip netns add $A 2>"$tmp/err" && ip netns add $B 2>>"$tmp/err" ||
    skip_all "cannot create a network namespace: $(head -1 "$tmp/err")"
ip link add mqha netns $A type veth peer name mqhb netns $B &&
    ip -n $A addr add $IPA/30 dev mqha && ip -n $B addr add $IPB/30 dev mqhb &&
    ip -n $A link set lo up && ip -n $B link set lo up &&
    ip -n $A link set mqha up && ip -n $B link set mqhb up || { echo "1..0 # veth setup failed"; exit 1; }

cserver=$b/tests/interop/cserver cclient=$b/tests/interop/cclient
testserver=$b/tests/testserver stream=$b/tests/persist_stream
modes="fork spawn"
"$testserver" --help 2>&1 | grep -q -- --thread && modes="fork thread spawn"
# TLS and --allow-plaintext come with the tls branch; until then their cases
# are skipped with the reason.
tls=
if ! "$testserver" --help 2>&1 | grep -q -- --tls-cert; then
    tls_why="the link has no --tls-cert (built without TLS)"
elif [ ! -f "$top_srcdir/tests/tls_certs.sh" ]; then
    tls_why="no tests/tls_certs.sh to make certificates"
elif ! bash "$top_srcdir/tests/tls_certs.sh" "$tmp/certs" IP:$IPA >"$tmp/err" 2>&1; then
    tls_why="tests/tls_certs.sh failed: $(head -1 "$tmp/err")"
else
    tls=1 c=$tmp/certs
    tls_srv="--tls-cert $c/server.pem --tls-key $c/server.key --tls-ca $c/ca.pem"
    tls_cli="--tls-cert $c/client.pem --tls-key $c/client.key --tls-ca $c/ca.pem"
fi
plain=
"$testserver" --help 2>&1 | grep -q -- --allow-plaintext && plain=--allow-plaintext

n=0 failed=0 port=7700
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { # not_ok WHAT [FILE...]: the files' tails as comments
    n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $1"; shift
    for f in "$@"; do [ -s "$f" ] && tail -15 "$f" | sed "s|^|#   ${f##*/}: |"; done
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# start_server NS LOG PROGRAM ARGS... — run in NS, wait until port listens
# (60 s at most); spid is the server's own pid (ip netns exec and the
# libtool wrapper both exec).
start_server() {
    local ns=$1 log=$2 i=0; shift 2
    ip netns exec "$ns" "$@" >"$log" 2>&1 &
    spid=$!
    while [ $i -lt 600 ]; do
        [ -n "$(ip netns exec "$ns" ss -Hltn "sport = :$port")" ] && return 0
        kill -0 $spid 2>/dev/null || break
        sleep 0.1; i=$((i + 1))
    done
    echo "server did not listen on port $port" >>"$log"
    return 1
}
stop_server() { kill $spid 2>/dev/null; wait $spid 2>/dev/null; }

# cclient's cases (round trips of every type, 1 MiB STR/BIN, errors, three
# children each with its own instance): all ok and a clean exit.
interop_ok() { # interop_ok OUT: the client's TAP lines in OUT
    ! grep -q '^not ok' "$1" && grep -q '^ok .*every child gets its own server instance' "$1"
}

round_trips() { # round_trips tcp|tls MODE
    local kind=$1 mode=$2 what="$1 --$2: cclient in B, cserver in A on $IPA (round trips, children)"
    local srvopt=$plain cliopt= out=$tmp/cclient-$1-$2
    port=$((port + 1))
    if [ "$kind" = tls ]; then
        [ -n "$tls" ] || { skip "$what" "$tls_why"; return; }
        srvopt=$tls_srv cliopt=$tls_cli
    fi
    if ! start_server $A "$tmp/srv-$kind-$mode" "$cserver" --tcp --host $IPA --port $port \
        --$mode $srvopt; then
        not_ok "$what" "$tmp/srv-$kind-$mode"
    elif timeout 120 ip netns exec $B "$cclient" "$kind-$mode" --tcp --host $IPA --port $port \
        $cliopt >"$out" 2>&1 && interop_ok "$out"; then
        ok "$what"
    else
        not_ok "$what" "$out" "$tmp/srv-$kind-$mode"
    fi
    stop_server
}

# A persistent stream from B; the server in A is killed with SIGKILL when
# the client's mark appears and started again with the same storage.
persistent() { # persistent tcp|tls
    local kind=$1 what="$1: persistent stream from B, server in A killed -9 and restarted, every call once"
    local srvopt=$plain cliopt= d=$tmp/persist-$1
    port=$((port + 1))
    if [ "$kind" = tls ]; then
        [ -n "$tls" ] || { skip "$what" "$tls_why"; return; }
        srvopt=$tls_srv cliopt=$tls_cli
    fi
    mkdir -p "$d"
    local srv=("$testserver" --tcp --host $IPA --port $port --storage "$d/srv.db" --sync normal
               --silent $srvopt)
    if ! start_server $A "$d/srv1" "${srv[@]}"; then
        not_ok "$what" "$d/srv1"; stop_server; return
    fi
    timeout 180 ip netns exec $B "$stream" 2000 "$d/mark" --tcp --host $IPA --port $port \
        --storage "$d/cli.db" --sync normal --silent $cliopt >"$d/client" 2>&1 &
    local cpid=$! i=0
    while [ ! -e "$d/mark" ] && [ $i -lt 600 ] && kill -0 $cpid 2>/dev/null; do
        sleep 0.1; i=$((i + 1))
    done
    kill -9 $spid 2>/dev/null; wait $spid 2>/dev/null
    start_server $A "$d/srv2" "${srv[@]}"
    if wait $cpid && [ -e "$d/mark" ]; then
        ok "$what"
        sed 's/^/#   /' "$d/client"
    else
        not_ok "$what" "$d/client" "$d/srv1" "$d/srv2"
    fi
    stop_server
}

# A server without --host listens on A's loopback only.
loopback_default() {
    port=$((port + 1))
    local out=$tmp/lo what
    if ! start_server $A "$tmp/srv-lo" "$cserver" --tcp --port $port --fork; then
        not_ok "a server without --host starts" "$tmp/srv-lo"; return
    fi
    for target in $IPA 127.0.0.1; do
        what="a server without --host in A: unreachable from B at $target, a clear error within 20 s"
        timeout 20 ip netns exec $B "$cclient" lo --tcp --host $target --port $port >"$out" 2>&1
        local rc=$?
        if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "not ok .*link" "$out" &&
            grep -qi "refused" "$out"; then
            ok "$what"
            grep '^#' "$out" | head -2
        else
            not_ok "$what (exit $rc)" "$out"
        fi
    done
    what="a server without --host in A: reachable from inside A at 127.0.0.1"
    if timeout 120 ip netns exec $A "$cclient" lo --tcp --port $port >"$out" 2>&1 &&
        interop_ok "$out"; then
        ok "$what"
    else
        not_ok "$what" "$out" "$tmp/srv-lo"
    fi
    stop_server
}

# After the tls merge: a plain server on A's address needs --allow-plaintext,
# and a client checks the name the server's certificate carries.
tls_rules() {
    local what="a plain-TCP server on $IPA without --allow-plaintext refuses to start"
    port=$((port + 1))
    if [ -z "$plain" ]; then
        skip "$what" "the link has no --allow-plaintext"
    elif timeout 10 ip netns exec $A "$cserver" --tcp --host $IPA --port $port --fork \
        >"$tmp/noplain" 2>&1; then
        not_ok "$what (it ran and exited 0)" "$tmp/noplain"
    elif [ $? -ne 124 ] && grep -q -- --allow-plaintext "$tmp/noplain"; then
        ok "$what"
    else
        not_ok "$what" "$tmp/noplain"
    fi
    what="tls: a client from B asking for another --tls-name is refused"
    port=$((port + 1))
    if [ -z "$tls" ]; then
        skip "$what" "$tls_why"
    elif ! start_server $A "$tmp/srv-name" "$cserver" --tcp --host $IPA --port $port --fork $tls_srv; then
        not_ok "$what" "$tmp/srv-name"
    else
        timeout 20 ip netns exec $B "$cclient" name --tcp --host $IPA --port $port $tls_cli \
            --tls-name wrong.example >"$tmp/name" 2>&1
        local rc=$?
        if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "not ok .*link" "$tmp/name"; then
            ok "$what"
        else
            not_ok "$what (exit $rc)" "$tmp/name"
        fi
    fi
    stop_server
}

for mode in $modes; do
    round_trips tcp $mode
    round_trips tls $mode
done
persistent tcp
persistent tls
loopback_default
tls_rules
echo "1..$n"
