#!/usr/bin/env bash
# soak.bash — many clients for a long while against one server per
# transport and start mode: nothing lost, nothing wrong, memory flat.
#
#   performance/soak.bash [--build DIR] [--clients N] [--calls M] [--rounds R]
#                         [--modes "thread fork"] [--transports "uds tcp tls"]
#                         [--out DIR] [--judge-after N]
#
# For each transport (uds; tcp on 127.0.0.1; tls: tcp with TLS, when the link
# has --tls-cert and tests/tls_certs.sh exists) and start mode, one
# tests/testserver is started and performance/soak_client runs R rounds of N
# concurrent clients x M calls each against it (mixed wait / callback /
# one-way calls, children created and deleted underway, every answer
# checked; see soak_client.c).  Meanwhile the server's resident memory is
# sampled every second: VmRSS of the listener, and for --fork the sum over
# the listener and its instances (the processes it forked), into
# OUT/soak_TRANSPORT_MODE.dat (seconds, kB, processes), printed as a table and
# drawn into OUT/soak_TRANSPORT_MODE.png (gnuplot).
#
# Memory is flat when, after the warm-up (the first fifth of the samples, at
# least one), the largest sample of the second half is at most 10 % above
# the largest of the first half; fewer than N samples after the warm-up
# (--judge-after, default 4) are not judged.  One "RESULT NAME ok|failed|skipped ..." line per run; exit 0
# when every run that ran is ok.  The programs come from a configured build
# tree (default build/check, as `./build.bash check` makes it).
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$TOP/build/check CLIENTS=64 CALLS=10000 ROUNDS=5 MODES="thread fork"
TRANSPORTS="uds tcp tls" OUT=$TOP/performance/gen/soak
GROWTH_PCT=10 JUDGE_AFTER=4
die() { echo "soak.bash: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2 ;; --clients) CLIENTS=$2 ;; --calls) CALLS=$2 ;; --rounds) ROUNDS=$2 ;;
    --modes) MODES=$2 ;; --transports) TRANSPORTS=$2 ;; --out) OUT=$2 ;;
    --judge-after) JUDGE_AFTER=$2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (--help)" ;;
    esac
    [ $# -ge 2 ] || die "$1 needs a value"
    shift 2
done
for v in CLIENTS CALLS ROUNDS JUDGE_AFTER; do
    case ${!v} in ''|*[!0-9]*|0) die "--${v,,} must be a positive number, not '${!v}'" ;; esac
done
[ -f "$BUILD/Makefile" ] || die "no configured build in $BUILD (run ./build.bash check, or give --build)"
make -s -C "$BUILD" tests/testserver performance/soak_client >/dev/null ||
    die "cannot build tests/testserver and performance/soak_client in $BUILD"
BUILD=$(cd "$BUILD" && pwd)
export LD_LIBRARY_PATH="$BUILD/link/.libs:$BUILD/kernel/.libs"
SERVER=$BUILD/tests/testserver CLIENT=$BUILD/performance/soak_client
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)

spid= sampler=
cleanup() {
    [ -n "$sampler" ] && kill "$sampler" 2>/dev/null && wait "$sampler" 2>/dev/null
    [ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
    rm -f "$OUT/soak.sock"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# TLS: the options and certificates, or why not.
tls_why=
if ! "$SERVER" --help 2>&1 | grep -q -- --tls-cert; then
    tls_why="the link has no --tls-cert (built without TLS)"
elif [ ! -f "$TOP/tests/tls_certs.sh" ]; then
    tls_why="no tests/tls_certs.sh to make certificates"
elif ! bash "$TOP/tests/tls_certs.sh" "$OUT/certs" >"$OUT/certs.log" 2>&1; then
    tls_why="tests/tls_certs.sh failed (see $OUT/certs.log)"
fi
c=$OUT/certs
TLS_SERVER=(--tls-cert "$c/server.pem" --tls-key "$c/server.key" --tls-ca "$c/ca.pem")
TLS_CLIENT=(--tls-cert "$c/client.pem" --tls-key "$c/client.key" --tls-ca "$c/ca.pem")

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# One sample of the server's resident memory (VmRSS, kB): the whole server
# (listener + instances), how many processes that is, the listener alone and
# the instances' mean (0 without instances; only --fork has them as
# processes).  An instance that ends while it is read is left out.
rss_now() {
    local listener kids=() p inst n
    listener=$(awk '/^VmRSS:/ { print $2 }' "/proc/$spid/status" 2>/dev/null)
    for p in $(pgrep -P "$spid"); do kids+=("/proc/$p/status"); done
    read -r inst n < <(cat "${kids[@]}" </dev/null 2>/dev/null |
        awk '/^VmRSS:/ { kb += $2; n++ } END { print kb + 0, n + 0 }')
    echo "$((${listener:-0} + inst)) $((n + 1)) ${listener:-0} $((n ? inst / n : 0))"
}
sample() { # sample FILE: one line a second (on the clock, not after each other) until killed
    local t0=${EPOCHREALTIME/[,.]/} tick now
    echo "# sec total_kb processes listener_kb instance_mean_kb" >"$1"
    while kill -0 "$spid" 2>/dev/null; do
        now=${EPOCHREALTIME/[,.]/}
        printf '%d.%d %s\n' $(((now - t0) / 1000000)) $(((now - t0) / 100000 % 10)) "$(rss_now)" >>"$1"
        now=${EPOCHREALTIME/[,.]/}
        tick=$(((now - t0) / 1000000 * 1000000 + 1000000)) # the next whole second
        sleep "$(printf '0.%06d' $((t0 + tick - now)))"
    done
}

wait_listening() { # wait_listening uds|PORT
    local i=0
    while [ $i -lt 100 ]; do
        if [ "$1" = uds ]; then [ -S "$OUT/soak.sock" ] && return 0
        elif [ -n "$(ss -Hltn "sport = :$1")" ]; then return 0
        fi
        kill -0 "$spid" 2>/dev/null || return 1
        sleep 0.1; i=$((i + 1))
    done
    return 1
}

# Flat or not (see the header): judge LABEL COLUMN DATAFILE [INSTANCES],
# with INSTANCES only the samples taken while instances were alive.
judge() {
    awk -v pct=$GROWTH_PCT -v need=$JUDGE_AFTER -v label="$1" -v col="$2" -v inst="${4:-}" '
        !/^#/ && (!inst || $3 > 1) { kb[n++] = $col }
        END {
            w = int(n / 5); if (w < 1) w = 1
            m = n - w
            if (m < need) { printf "%s: not judged (%d samples after the warm-up, %d needed)", label, m < 0 ? 0 : m, need; exit 0 }
            for (i = w; i < n; i++)
                if (i < w + int(m / 2)) { if (kb[i] > a) a = kb[i] } else if (kb[i] > b) b = kb[i]
            printf "%s %s: first-half max %d kB, second-half max %d kB, %+.1f%% (limit +%d%%, %d samples, warm-up %d)",
                label, (b <= a * (1 + pct / 100) ? "flat" : "GREW"), a, b, a ? 100 * (b - a) / a : 0, pct, n, w
            exit b > a * (1 + pct / 100)
        }' "$3"
}
verdict() { # verdict MODE DATAFILE
    local rc=0
    judge "listener RSS" 4 "$2" || rc=1
    if [ "$1" = fork ]; then
        echo -n "; "
        judge "instance mean RSS" 5 "$2" instances || rc=1
    fi
    echo
    return $rc
}

plot() { # plot NAME MODE DATAFILE
    command -v gnuplot >/dev/null || { echo "(no gnuplot: no soak_$1.png)"; return; }
    local lines="\"$3\" using 1:(\$4/1024) with linespoints title \"listener\""
    [ "$2" = fork ] && lines="$lines, \"\" using 1:(\$3 > 1 ? \$5/1024 : 1/0) with linespoints title \"instance (mean)\", \"\" using 1:(\$2/1024) axes x1y2 with lines title \"listener + instances (right axis)\""
    gnuplot <<EOF
set terminal png size 900,450 noenhanced
set output "$OUT/soak_$1.png"
set title "soak $1: server VmRSS, $CLIENTS clients x $CALLS calls x $ROUNDS rounds"
set xlabel "seconds"; set ylabel "MiB"; set yrange [0:*]; set grid; set key below
$([ "$2" = fork ] && echo 'set y2label "MiB (all processes)"; set y2range [0:*]; set y2tics')
plot $lines
EOF
}

run() { # run TRANSPORT MODE
    local tp=$1 mode=$2 name=$1_$2 port= addr=() srv_tls=() cli_tls=() ready=uds
    local data=$OUT/soak_$name.dat log=$OUT/soak_$name.log failed=0 r rc line l w u lost=0 wrong=0 unfinished=0
    case $tp in
    uds) addr=(--uds --file "$OUT/soak.sock") ;;
    tcp|tls) port=$(free_port) && addr=(--tcp --host 127.0.0.1 --port "$port") ready=$port ;;
    *) echo "RESULT $name failed unknown transport '$tp' (uds tcp tls)"; return 1 ;;
    esac
    if [ "$mode" = thread ] && ! "$SERVER" --help 2>&1 | grep -q -- --thread; then
        echo "RESULT $name skipped the link is built without threads"; return 0
    fi
    if [ "$tp" = tls ]; then
        [ -z "$tls_why" ] || { echo "RESULT $name skipped $tls_why"; return 0; }
        srv_tls=("${TLS_SERVER[@]}") cli_tls=("${TLS_CLIENT[@]}")
    fi
    rm -f "$OUT/soak.sock"
    "$SERVER" "${addr[@]}" "--$mode" --silent "${srv_tls[@]}" >"$log" 2>&1 &
    spid=$!
    if ! wait_listening "$ready"; then
        echo "RESULT $name failed the server did not start: $(tail -1 "$log")"
        return 1
    fi
    sample "$data" &
    sampler=$!
    echo "== $name: $ROUNDS rounds of $CLIENTS clients x $CALLS calls"
    for r in $(seq "$ROUNDS"); do
        # the clients below the server and the sampler: one sample a second
        line=$(timeout 1800 nice -n 10 "$CLIENT" "$CLIENTS" "$CALLS" "${addr[@]}" "${cli_tls[@]}" 2>>"$log")
        rc=$?
        [ $rc = 0 ] || failed=1
        echo "round $r: ${line:-no summary} (exit status $rc)"
        read -r l w u < <(echo "$line" |
            sed -n 's/.* lost=\([0-9]*\) wrong=\([0-9]*\) unfinished_clients=\([0-9]*\).*/\1 \2 \3/p')
        [ -n "${l:-}" ] || { l=0 w=0 u=$CLIENTS; }
        lost=$((lost + l)) wrong=$((wrong + w)) unfinished=$((unfinished + u))
    done
    local counts="calls=$((ROUNDS * CLIENTS * CALLS)) lost=$lost wrong=$wrong unfinished_clients=$unfinished;"
    sleep 1  # one more sample with the clients gone
    kill "$spid"; wait "$spid" 2>/dev/null; spid=
    wait "$sampler" 2>/dev/null; sampler=
    column -t <(sed 's/^# //' "$data")
    plot "$name" "$mode" "$data"
    local v
    v=$(verdict "$mode" "$data") || failed=1
    [ $failed = 0 ] && echo "RESULT $name ok $counts $v" && return 0
    echo "RESULT $name failed $counts $v (stderr: $log)"
    grep -m 5 . "$log" | sed 's/^/  /'
    return 1
}

status=0
for tp in $TRANSPORTS; do
    for mode in $MODES; do
        run "$tp" "$mode" || status=1
    done
done
exit $status
