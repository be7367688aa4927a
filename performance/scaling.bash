#!/usr/bin/env bash
# scaling.bash — WAIT round trips per second as the client side grows.
#
#   performance/scaling.bash [OPTIONS] [LANG...]
#
# For every installed language (performance/languages.tab, or the LANGs
# given) and each of its --fork and --thread servers it starts that
# language's perfserver and runs the C perfclient's scaling tests against it:
#   calls      --scale-calls: N WAIT calls in flight on one link (callbacks)
#   threads    --scale-threads: N client threads, each with its own link
#   processes  --scale-procs: N client processes, each with its own link
# into gen/TARGET/SETUP/LANG_TRANSPORT_MODE.scaling, then prints one table
# per language (performance/scaling.awk; results.bash prints it too) into
# gen/scaling.txt and draws gen/scaling.png (gnuplot, ops/s against N, log x).
#
#   --setup SETUP    perf-release (default) or perf-aggressive: which tree
#   --inst DIR       the installed tree (default gen/TARGET/SETUP/inst)
#   --gen DIR        where results go (default performance/gen)
#   --target T       the TARGET directory name (default: gcc -dumpmachine)
#   --transport T    uds (default) or tcp
#   --calls LIST     calls in flight (default 1,2,4,8,16,32,64,128)
#   --clients LIST   threads and processes (default 1,2,4,8,16,32,64)
#   --num N --sec S  size of each run (default --sec 0.5), as perfclient's
#   --runs N         runs per point, the median reported (default 1)
#   --pin none|same  none (default): the scheduler spreads clients and
#                    server instances over the machine's CPUs, which is what
#                    is measured; same: everything on CPU 0
#   --timeout S      time limit of one language and mode (default 600)
#   --no-png         no chart
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "scaling.bash: $*" >&2; exit 2; }

SETUP=perf-release INST= GEN=$HERE/gen TARGET= TRANSPORT=uds PIN=none TIMEOUT=600 PNG=1
CALLS=1,2,4,8,16,32,64,128 CLIENTS=1,2,4,8,16,32,64 SIZE=() NRUNS=1 ONLY=()
while [ $# -gt 0 ]; do
    case "$1" in
    --setup) SETUP=${2:?}; shift ;;
    --inst) INST=${2:?}; shift ;;
    --gen) GEN=${2:?}; shift ;;
    --target) TARGET=${2:?}; shift ;;
    --transport) TRANSPORT=${2:?}; shift ;;
    --calls) CALLS=${2:?}; shift ;;
    --clients) CLIENTS=${2:?}; shift ;;
    --num|--sec) SIZE+=("$1" "${2:?}"); shift ;;
    --runs) NRUNS=${2:?}; shift ;;
    --pin) PIN=${2:?}; shift ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --no-png) PNG=0 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) ONLY+=("$1") ;;
    esac
    shift
done
case "$TRANSPORT" in uds|tcp) ;; *) die "--transport takes uds or tcp" ;; esac
case "$PIN" in none) PINCMD=() ;; same) PINCMD=(taskset -c 0) ;; *) die "--pin takes none or same" ;; esac
for l in "$CALLS" "$CLIENTS"; do
    [[ $l =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--calls and --clients take sizes like 1,2,4"
done
[[ $NRUNS =~ ^[1-9][0-9]*$ ]] || die "--runs takes a count of runs"
[ ${#SIZE[@]} -gt 0 ] || SIZE=(--sec 0.5)
SIZE+=(--runs "$NRUNS")
TARGET=${TARGET:-$(gcc -dumpmachine 2>/dev/null || uname -m)}
INST=${INST:-$GEN/$TARGET/$SETUP/inst}
OUT=$GEN/$TARGET/$SETUP
CLIENT=$INST/bin/perfclient LIMIT=$INST/bin/perflimit
[ -x "$CLIENT" ] && [ -x "$LIMIT" ] || die "no perfclient/perflimit in $INST/bin (run ./build.bash $SETUP install)"
THREADS=$("$LIMIT" --features | sed -n 's/^threads=//p')

# ------------------------------------------------------- servers and cleanup
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mqscale.XXXXXX")
SERVER=
stop_server() {
    [ -n "$SERVER" ] || return 0
    kill -TERM -- "-$SERVER" 2>/dev/null || true
    sleep 0.2
    kill -KILL -- "-$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    SERVER=
}
trap 'stop_server; rm -rf "$TMP"' EXIT
trap 'echo "scaling.bash: interrupted" >&2; exit 130' INT TERM HUP

# The server in its own process group (so every instance it forked ends
# with it) under a watchdog; LINK_ARGS are perfclient's link arguments.
# Listening is seen without a probe connection, as in performance.bash.
start_server() {
    local cmd port hex i
    read -r -a cmd <<<"$1"
    if [ "$TRANSPORT" = uds ]; then
        LINK_ARGS=(--uds --file "$TMP/server.sock")
        cmd+=(--uds --file "$TMP/server.sock")
    else
        port=$("$LIMIT" --free-port)
        LINK_ARGS=(--tcp --host 127.0.0.1 --port "$port")
        cmd+=(--tcp --port "$port")
        hex=$(printf ':%04X' "$port")
    fi
    set -m
    timeout -k 5 $((TIMEOUT + 60)) "${PINCMD[@]}" "${cmd[@]}" "--$2" \
        >"$TMP/server.log" 2>&1 </dev/null &
    SERVER=$!
    set +m
    for ((i = 0; i < 200; i++)); do
        if [ "$TRANSPORT" = uds ]; then
            [ -S "$TMP/server.sock" ] && return 0
        else
            cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v h="$hex" \
                'substr($2, length($2) - 4) == h && $4 == "0A" { f = 1 } END { exit !f }' && return 0
        fi
        kill -0 "$SERVER" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# ------------------------------------------------------------- one run
# run LANG SERVER-CMD START-MODE: the three tests into LANG_TRANSPORT_MODE.scaling
run() {
    local lang=$1 mode=$3 file=$TMP/run.scaling rc=0 threads=()
    {
        echo "# mqlink scaling: ${lang} ${TRANSPORT}_$mode"
        echo "target=$TARGET"
        echo "setup=$SETUP"
        echo "lang=$lang"
        echo "mode=${TRANSPORT}_$mode"
        echo "pin=$PIN"
        echo "cpus=$(nproc)"
        echo "date=$(date '+%Y-%m-%d %H:%M:%S')"
        echo "size=${SIZE[*]}"
    } >"$file"
    if ! start_server "$2" "$mode"; then
        echo "error: the $mode server did not start listening" >>"$file"
        rc=1
    else
        timeout -k 5 "$TIMEOUT" "${PINCMD[@]}" "$CLIENT" --scale-calls --scale "$CALLS" "${SIZE[@]}" \
            "${LINK_ARGS[@]}" >>"$file" 2>>"$TMP/client.err" || rc=$?
        if [ "$THREADS" = yes ]; then threads=(--scale-threads); fi
        [ $rc -ne 0 ] || timeout -k 5 "$TIMEOUT" "${PINCMD[@]}" "$CLIENT" "${threads[@]}" --scale-procs \
            --scale "$CLIENTS" "${SIZE[@]}" "${LINK_ARGS[@]}" >>"$file" 2>>"$TMP/client.err" || rc=$?
    fi
    stop_server
    { sed 's/^/# server: /' "$TMP/server.log" | head -20; echo "status=$rc"; } >>"$file"
    mv "$file" "$OUT/${lang}_${TRANSPORT}_$mode.scaling"
    return $rc
}

# ------------------------------------------------------------------ main
mkdir -p "$OUT"
: >"$TMP/client.err"
failed=0 ran=0
while IFS='|' read -r name label check cmd modes _; do
    name=$(echo $name) check=$(echo ${check//@INST@/$INST}) modes=$(echo $modes)
    [ -n "$name" ] && [ "${name:0:1}" != "#" ] && [ -e "$check" ] || continue
    [ ${#ONLY[@]} -eq 0 ] || [[ " ${ONLY[*]} " == *" $name "* ]] || continue
    for mode in fork thread; do
        [ "$modes" = all ] || [[ " $modes " == *" ${TRANSPORT}_$mode "* ]] || continue
        [ $mode = fork ] || [ "$THREADS" = yes ] || continue
        printf '  %-24s ' "${name}_${TRANSPORT}_$mode"
        SECONDS=0 ran=$((ran + 1))
        if run "$name" "$(echo ${cmd//@INST@/$INST})" $mode; then
            echo "ok (${SECONDS}s)"
        else
            echo "FAILED (see $OUT/${name}_${TRANSPORT}_$mode.scaling)"; failed=$((failed + 1))
        fi
    done
done <"$HERE/languages.tab"
[ $ran -gt 0 ] || die "no installed language matches ${ONLY[*]:-anything} in $INST"
sed 's/^/# client: /' "$TMP/client.err" | head -20 >&2

# The table of every .scaling file in GEN, and its chart.
shopt -s nullglob
langs=$(sed -n '/^[a-z]/{s/ *| */|/g; s/^\([^|]*|[^|]*\).*/\1/; p}' "$HERE/languages.tab")
awk -v langs="$langs" -v plotdir="$TMP" -f "$HERE/perfheader.awk" -f "$HERE/scaling.awk" "$GEN"/*/*/*.scaling | tee "$GEN/scaling.txt"
if [ "$PNG" = 1 ] && ! command -v gnuplot >/dev/null; then
    echo "scaling.bash: gnuplot not installed, no $GEN/scaling.png" >&2
elif [ "$PNG" = 1 ]; then
    term=png
    if gnuplot -e 'set terminal pngcairo' 2>/dev/null; then term=pngcairo; fi
    if gnuplot -e "set terminal $term size 1200,$((450 * $(cat "$TMP/panels"))); set output '$GEN/scaling.png'" \
            "$TMP/scaling.gp" 2>"$TMP/gnuplot.err"; then
        echo "scaling.bash: wrote $GEN/scaling.txt and $GEN/scaling.png" >&2
    else
        echo "scaling.bash: gnuplot failed, no $GEN/scaling.png:" >&2
        cat "$TMP/gnuplot.err" >&2
    fi
fi
[ $failed -eq 0 ]
