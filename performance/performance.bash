#!/usr/bin/env bash
# performance.bash — run the performance suite from an installed tree.
#
#   performance/performance.bash [OPTIONS] [FILTER...]
#
# For every installed language (performance/languages.tab) and every start
# mode (pipe uds_fork uds_thread uds_spawn tcp_fork tcp_thread tcp_spawn, and
# tcp_tls_fork tcp_tls_thread tcp_tls_spawn: TCP over TLS 1.3 with mutual
# authentication, certificates made by tests/tls_certs.sh in the run's temp
# directory) it
# starts that language's perfserver, runs the C perfclient --all against it
# (one perfclient for all languages of a mode, side by side: --runs) and
# writes gen/TARGET/SETUP/LANG_MODE.perf; for every mode it ran it also
# measures the machine's limits with perflimit into limit_MODE.perf and,
# when libzmq was found at configure time, ZeroMQ with bin/perfpeer-zmq into
# zmq_MODE.perf (the P: ZeroMQ rows).  A Python, Tcl, Ruby or Java run
# adds the language's own round trip on the same transport to its .perf
# file (mp_baseline.py, sock_baseline.tcl/.rb, SockBaseline.java: the other
# P: rows).  Once per setup, for the languages it ran: each language's
# floor program into floor.perf and the start-up break-down (bare start,
# + binding load; perfstart) into startup.perf, with C's start and pipe
# PARENT once more under LD_BIND_NOW=1 (immediate symbol binding).
#
#   FILTER           shell patterns on LANG_MODE: c_*  python_uds_fork  *_pipe
#   --setup SETUP    perf-release (default) or perf-aggressive: which tree
#   --inst DIR       the installed tree (default gen/TARGET/SETUP/inst)
#   --gen DIR        where results go (default performance/gen)
#   --target T       the TARGET directory name (default: gcc -dumpmachine)
#   --pin same|split|none
#                    same (default): client and server on CPU 0; split:
#                    client on CPU 0, server on CPU 1; none: the scheduler's
#                    choice.  A round trip between two cores of this VM costs
#                    10-20x one on a single core and varies from run to run;
#                    same is the stable choice (see README_SECTION.md).
#   --num N --sec S  size of each run of a test (default --sec 0.4), passed
#                    to perfclient and perflimit
#   --runs N         runs per test, the median reported (default 3): a moment
#                    of load on a shared machine moves one run, not the median.
#                    A mode's languages run side by side (perfclient --links):
#                    each test's first run is taken on every language, then
#                    its second on every language, and so on, so a slow
#                    stretch of the machine falls on all of them alike
#   --warmup S       each test first runs S seconds unmeasured on every link
#                    (perfclient --warmup; default 0.4): Java's JIT compiles
#                    a test's path within about that time (a lone cold run
#                    of Java's pipe CHILD read 70 000/s, after 0.4 s of
#                    warm-up 88 000-91 000, C 101 000)
#   --quick          tiny sizes for make check (--num 200 --sec 0.2 --runs 1
#                    --warmup 0.05)
#   --wrk N          perfclient's --wrk (parent workers, default 5), and
#                    perflimit's (its connect floors' clients), so the
#                    PARENT floor has as many clients as PARENT
#   --timeout S      time limit of one run (default 300)
#   --list           print the runs and exit
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MODES=(pipe uds_fork uds_thread uds_spawn tcp_fork tcp_thread tcp_spawn
       tcp_tls_fork tcp_tls_thread tcp_tls_spawn)

die() { echo "performance.bash: $*" >&2; exit 2; }

SETUP=perf-release INST= GEN=$HERE/gen TARGET= PIN=same TIMEOUT=300 LIST=0
SIZE=() WRK=() FILTERS=() MP_SEC=1 NRUNS=3 WARMUP=0.4
while [ $# -gt 0 ]; do
    case "$1" in
    --setup) SETUP=${2:?}; shift ;;
    --inst) INST=${2:?}; shift ;;
    --gen) GEN=${2:?}; shift ;;
    --target) TARGET=${2:?}; shift ;;
    --pin) PIN=${2:?}; shift ;;
    --num|--sec) SIZE+=("$1" "${2:?}"); [ "$1" = --num ] || MP_SEC=$2; shift ;;
    --runs) NRUNS=${2:?}; shift ;;
    --warmup) WARMUP=${2:?}; shift ;;
    --quick) SIZE=(--num 200 --sec 0.2) MP_SEC=0.2 NRUNS=1 WARMUP=0.05 ;;
    --wrk) WRK=(--wrk "${2:?}"); shift ;;
    --timeout) TIMEOUT=${2:?}; shift ;;
    --list) LIST=1 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) FILTERS+=("$1") ;;
    esac
    shift
done
[ ${#FILTERS[@]} -gt 0 ] || FILTERS=('*')
[[ $NRUNS =~ ^[1-9][0-9]*$ ]] || die "--runs takes a count of runs"
[[ $WARMUP =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--warmup takes seconds"
[ ${#SIZE[@]} -gt 0 ] || SIZE=(--sec 0.4)
ONE_RUN=("${SIZE[@]}")  # the floor programs have no --runs
SIZE+=(--runs "$NRUNS")
case "$PIN" in same|split|none) ;; *) die "--pin takes same, split or none" ;; esac
TARGET=${TARGET:-$(gcc -dumpmachine 2>/dev/null || uname -m)}
INST=${INST:-$GEN/$TARGET/$SETUP/inst}
OUT=$GEN/$TARGET/$SETUP
CLIENT=$INST/bin/perfclient LIMIT=$INST/bin/perflimit
[ -x "$CLIENT" ] && [ -x "$LIMIT" ] || die "no perfclient/perflimit in $INST/bin (run ./build.bash $SETUP install)"

# ---------------------------------------------------------------- pinning
# CLIENT_PIN runs the client side, SERVER_PIN a listening server; SERVER_CPU
# is where perfclient puts pipe servers and perflimit its peer.
CLIENT_PIN=() SERVER_PIN=() SERVER_CPU=()
if [ "$PIN" = split ] && [ "$(nproc)" -lt 2 ]; then
    echo "performance.bash: one CPU only, --pin split becomes same" >&2
    PIN=same
fi
case "$PIN" in
same) CLIENT_PIN=(taskset -c 0) SERVER_PIN=(taskset -c 0) ;;
split) CLIENT_PIN=(taskset -c 0) SERVER_PIN=(taskset -c 1) SERVER_CPU=(1) ;;
esac
CPU_OPT=()  # perfclient's --server-cpu
[ ${#SERVER_CPU[@]} -eq 0 ] || CPU_OPT=(--server-cpu "${SERVER_CPU[0]}")

# ------------------------------------------------------------------- Ruby
# Ruby runs with YJIT, its JIT, when the interpreter has it (3.1 and later,
# built with it), as a Ruby server in production does.  Its executable
# memory is 8 MiB: the default 256 MiB is mapped and touched at every start
# (a bare start with mqlink loaded 52 -> 219 ms, pipe PARENT 18 -> 3 per
# second); 8 MiB holds the suite's code.  RUBYOPT reaches every Ruby of the
# Ruby rows: the server, its bare start, its socket baseline and the floor
# program (perffloor-ruby starts Ruby through ruby_options, which reads it).
RUBY_JIT="--yjit --yjit-exec-mem-size=8"
if command -v ruby >/dev/null 2>&1 &&
    ruby $RUBY_JIT -e 'exit(RubyVM::YJIT.enabled? ? 0 : 1)' >/dev/null 2>&1; then
    export RUBYOPT="${RUBYOPT:+$RUBYOPT }$RUBY_JIT"
fi

# ------------------------------------------------------- servers and cleanup
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mqperf.XXXXXX")
SERVER_LOG=$TMP/server.log
SERVER_PGIDS=()
cleanup() {
    local g
    for g in "${SERVER_PGIDS[@]}"; do
        kill -TERM -- "-$g" 2>/dev/null || true
    done
    sleep 0.2
    for g in "${SERVER_PGIDS[@]}"; do
        kill -KILL -- "-$g" 2>/dev/null || true
        wait "$g" 2>/dev/null || true
    done
    SERVER_PGIDS=()
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'echo; echo "performance.bash: interrupted" >&2; exit 130' INT TERM HUP

# Start a listening server in its own process group (job control, set -m)
# under a watchdog timeout (longer than the mode's perfclient, which has
# TIMEOUT per language of the mode); the group id is remembered so cleanup ends the
# server and every instance it forked or spawned.  Not a session of its own
# (setsid): the scheduler shares the CPU between sessions first (autogroup),
# which the limits, measured inside one process, never pay; it cost
# thread-mode parents a quarter of their rate (85 000 -> 63 000/s, uds).
start_server() {
    set -m
    timeout -k 5 $((TIMEOUT * ${#MODE_LANGS[@]} + 60)) "${SERVER_PIN[@]}" "$@" \
        >>"$SERVER_LOG" 2>&1 </dev/null &
    SERVER_PGIDS+=($!)
    set +m
}

# A process of group g that has not ended (a zombie has: kill -0 would still
# find it until its new parent reaps it).
group_alive() {
    ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'
}

# The group leader (timeout) ends with the listener; the instances it forked
# or spawned end on the same signal, each in its own time (a spawned
# instance under a sanitizer takes a while).  Wait for them too: the next
# mode must not be measured beside them, and nothing may be left behind.
# One still there after 20 s is named (state, kernel wait channel, system
# call) and killed.
stop_servers() {
    local g p until
    for g in "${SERVER_PGIDS[@]}"; do kill -TERM -- "-$g" 2>/dev/null || true; done
    for g in "${SERVER_PGIDS[@]}"; do wait "$g" 2>/dev/null || true; done
    until=$((SECONDS + 20))
    for g in "${SERVER_PGIDS[@]}"; do
        while group_alive "$g" && [ $SECONDS -lt $until ]; do sleep 0.05; done
        group_alive "$g" || continue
        { echo "performance.bash: server processes still running 20 s after SIGTERM, killed:"
          for p in $(ps -eo pid=,pgid= | awk -v g="$g" '$2 == g { print $1 }'); do
              echo "  $(ps -o pid=,stat=,wchan:24=,args= -p "$p") syscall=$(cut -d' ' -f1 "/proc/$p/syscall" 2>/dev/null)"
          done; } | tee -a "$TMP/server.log" >&2
        kill -KILL -- "-$g" 2>/dev/null || true
    done
    SERVER_PGIDS=()
}

# Wait until a server listens, without a probe connection (a forking server
# would answer one with a new instance): a Unix socket file appears once the
# server listens (the link binds a temporary name and renames it into place);
# /proc/net/tcp state 0A is LISTEN.
listening() {
    case "$1" in
    uds) [ -S "$2" ] ;;
    tcp) local hex; hex=$(printf ':%04X' "$2")
         cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
             awk -v h="$hex" 'substr($2, length($2) - 4) == h && $4 == "0A" { f = 1 } END { exit !f }' ;;
    esac
}

wait_listening() {
    local i
    for ((i = 0; i < 200; i++)); do
        listening "$@" && return 0
        kill -0 "${SERVER_PGIDS[-1]}" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# ------------------------------------------------------------- languages
# LANGS: installed languages in table order; the other fields by name.
declare -A SERVER_CMD LANG_MODES SCRIPT FLOOR BARE LOAD
LANGS=()
trim() { sed 's/^ *//; s/ *$//' <<<"$1"; }
while IFS='|' read -r name label check cmd modes floor bare load; do
    name=$(echo $name) check=$(echo ${check//@INST@/$INST})
    [ -n "$name" ] && [ "${name:0:1}" != "#" ] || continue
    [ -e "$check" ] || continue
    LANGS+=("$name")
    SERVER_CMD[$name]=$(echo ${cmd//@INST@/$INST})
    LANG_MODES[$name]=$(echo $modes)
    SCRIPT[$name]=$check
    FLOOR[$name]=$(echo ${floor//@INST@/$INST})
    BARE[$name]=$(trim "${bare//@INST@/$INST}") LOAD[$name]=$(trim "$load")
done <"$HERE/languages.tab"
[ ${#LANGS[@]} -gt 0 ] || die "no language installed in $INST"
THREADS=$("$LIMIT" --features | sed -n 's/^threads=//p')
TLS=$("$LIMIT" --features | sed -n 's/^tls=//p')
# a build without OpenSSL has no TLS modes at all (not rows of na.)
if [ "$TLS" != yes ]; then
    for i in "${!MODES[@]}"; do [[ ${MODES[$i]} != tcp_tls_* ]] || unset "MODES[$i]"; done
fi

selected() {
    local f
    for f in "${FILTERS[@]}"; do
        # shellcheck disable=SC2053  # the filter is a pattern on purpose
        [[ $1 == $f ]] && return 0
    done
    return 1
}

RUNS=() RUN_MODES=() RUN_LANGS=()
for lang in "${LANGS[@]}"; do
    for mode in "${MODES[@]}"; do
        selected "${lang}_$mode" || continue
        RUNS+=("$lang $mode")
        [[ " ${RUN_MODES[*]} " == *" $mode "* ]] || RUN_MODES+=("$mode")
        [[ " ${RUN_LANGS[*]} " == *" $lang "* ]] || RUN_LANGS+=("$lang")
    done
done
PEER=$INST/bin/perfpeer-zmq STARTER=$INST/bin/perfstart
[ -x "$PEER" ] || PEER=
[ -x "$STARTER" ] || STARTER=
[ ${#RUNS[@]} -gt 0 ] || die "no run matches ${FILTERS[*]} (languages: ${LANGS[*]})"
if [ "$LIST" = 1 ]; then
    printf '%s\n' "${RUNS[@]/ /_}"
    exit 0
fi

# --------------------------------------------------------------- one run
# The header every .perf file starts with: key=value lines results.bash reads.
perf_header() {
    echo "# mqlink performance: $1"
    echo "target=$TARGET"
    echo "setup=$SETUP"
    echo "lang=$2"
    echo "mode=$3"
    echo "pin=$PIN"
    echo "date=$(date '+%Y-%m-%d %H:%M:%S')"
    echo "size=${SIZE[*]}"
}

# Why a language/mode combination cannot run, or nothing.
impossible() {
    local lang=$1 mode=$2
    if [[ $mode == *_thread ]] && [ "$THREADS" != yes ]; then
        echo "this build has no threads"
    elif [ "${LANG_MODES[$lang]}" != all ] && [[ " ${LANG_MODES[$lang]} " != *" $mode "* ]]; then
        echo "$lang has no $mode mode"
    fi
}

# Start mode's server (none for pipe) and set LINK_ARGS, perfclient's link
# arguments.  Not run in a subshell: SERVER_PGIDS must see the server.
start_mode() {
    local lang=$1 mode=$2 cmd
    read -r -a cmd <<<"${SERVER_CMD[$lang]}"
    # the receiver's storage of --send-persistent (one file per sender)
    cmd+=(--storage "$TMP/server-${lang}_$mode.db")
    case "$mode" in
    pipe) LINK_ARGS=(@ "${cmd[@]}") ;;
    uds_*) local sock=$TMP/${lang}_$mode.sock
           start_server "${cmd[@]}" --uds --file "$sock" "--${mode#uds_}"
           LINK_ARGS=(--uds --file "$sock")
           wait_listening uds "$sock" ;;
    tcp_tls_*) local port tls=$TMP/tls; port=$("$LIMIT" --free-port)
           [ -e "$tls/ca.pem" ] || "$HERE/../tests/tls_certs.sh" "$tls" >/dev/null || return
           start_server "${cmd[@]}" --tcp --port "$port" "--${mode#tcp_tls_}" \
               --tls-cert "$tls/server.pem" --tls-key "$tls/server.key" --tls-ca "$tls/ca.pem"
           LINK_ARGS=(--tcp --host 127.0.0.1 --port "$port" --tls-cert "$tls/client.pem"
                      --tls-key "$tls/client.key" --tls-ca "$tls/ca.pem")
           wait_listening tcp "$port" ;;
    tcp_*) local port; port=$("$LIMIT" --free-port)
           start_server "${cmd[@]}" --tcp --port "$port" "--${mode#tcp_}"
           LINK_ARGS=(--tcp --host 127.0.0.1 --port "$port")
           wait_listening tcp "$port" ;;
    esac
}

# LANG's line of the mode's --links file: its .perf file, the client's
# storage of --send-persistent, its link arguments (tab-separated).
link_line() {
    local lang=$1 mode=$2
    printf '%s\t%s' "$TMP/$lang.perf" "$TMP/client-${lang}_$mode.db"
    printf '\t%s' "${LINK_ARGS[@]}"
    printf '\n'
}

# Python's yardstick, multiprocessing.connection round trips, and Tcl's,
# Ruby's and Java's, the language's own socket round trip, on the same
# transport with WAIT's payload (the P: rows).
run_yardstick() {
    local lang=$1 mode=$2 file=$3 cmd
    case "$lang" in
    python) cmd=(python3 "$HERE/mp_baseline.py") ;;
    tcl) cmd=(tclsh "$HERE/sock_baseline.tcl") ;;
    ruby) cmd=(ruby "$HERE/sock_baseline.rb") ;;
    java) cmd=(java "$HERE/SockBaseline.java") ;;
    *) return 0 ;;
    esac
    message_sizes
    [ "$lang" = python ] || cmd+=(--size "$SS")
    timeout -k 5 "$TIMEOUT" "${CLIENT_PIN[@]}" "${cmd[@]}" --transport "${mode%%_*}" \
        --sec "$MP_SEC" >>"$file" 2>>"$TMP/client.err"
}

# Every language of MODE side by side: each one's server started (none for
# pipe), one perfclient --links over all of them (each test's runs taken in
# turn on every link, so that the languages are measured in the same
# seconds), the servers stopped, then each language's yardstick.  Each
# language's .perf goes to $TMP first and replaces the old one only when
# complete, so an interrupted run leaves the previous figures.
run_mode() {
    local mode=$1 lang why file links=$TMP/links rc langs=() status
    local start=$SECONDS
    : >"$links"
    : >"$TMP/client.err"
    : >"$TMP/server.log"
    for lang in "${MODE_LANGS[@]}"; do
        file=$TMP/$lang.perf
        perf_header "${lang}_$mode" "$lang" "$mode" >"$file"
        why=$(impossible "$lang" "$mode")
        if [ -n "$why" ]; then
            echo "na. $why" >>"$file"
            STATUS[$lang]="na. ($why)"
            continue
        fi
        SERVER_LOG=$TMP/server-$lang.log
        : >"$SERVER_LOG"
        if ! start_mode "$lang" "$mode"; then
            echo "error: the $mode server did not start listening" >>"$file"
            STATUS[$lang]=1
            continue
        fi
        echo "client=perfclient --all ${SIZE[*]} --warmup $WARMUP ${WRK[*]} ${CPU_OPT[*]} --storage $TMP/client-${lang}_$mode.db ${LINK_ARGS[*]}" >>"$file"
        echo "sync=full" >>"$file"
        link_line "$lang" "$mode" >>"$links"
        langs+=("$lang")
    done
    rc=0
    if [ ${#langs[@]} -gt 0 ]; then
        timeout -k 5 $((TIMEOUT * ${#langs[@]})) "${CLIENT_PIN[@]}" "$CLIENT" --all "${SIZE[@]}" \
            --warmup "$WARMUP" "${WRK[@]}" "${CPU_OPT[@]}" --links "$links" 2>>"$TMP/client.err" || rc=$?
    fi
    stop_servers
    for lang in "${langs[@]}"; do
        file=$TMP/$lang.perf
        status=0
        # a test or the link failed (perfclient's status is the mode's)
        ! grep -q '\(^\| \)error: ' "$file" && [ $rc -le 1 ] || status=1
        run_yardstick "$lang" "$mode" "$file" || status=1
        STATUS[$lang]=$status
    done
    for lang in "${MODE_LANGS[@]}"; do
        file=$TMP/$lang.perf
        if [[ ${STATUS[$lang]} != na.* ]]; then
            { sed 's/^/# client: /' "$TMP/client.err" | head -20
              cat "$TMP/server-$lang.log" "$TMP/server.log" 2>/dev/null | sed 's/^/# server: /' | head -20
              echo "status=${STATUS[$lang]}"; } >>"$file"
        fi
        mv "$file" "$OUT/${lang}_$mode.perf"
    done
    ELAPSED=$((SECONDS - start))
}

# The limits of one mode's transport, peer placed like the server.
run_limit() {
    local mode=$1 file=$TMP/limit.perf peer=() transport=${1%%_*}
    message_sizes
    [ ${#SERVER_CPU[@]} -eq 0 ] || peer=(--peer-cpu "${SERVER_CPU[0]}")
    perf_header "limit_$mode" limit "$mode" >"$file"
    timeout -k 5 "$TIMEOUT" "${CLIENT_PIN[@]}" "$LIMIT" --transport "$transport" \
        --size "$SS" --size-empty "$SE" --exec "$INST/bin/perfserver" "${peer[@]}" \
        --db "$TMP/limit.db" --sync full --all \
        "${SIZE[@]}" "${WRK[@]}" >>"$file" 2>&1 && mv "$file" "$OUT/limit_$mode.perf"
}

# perfclient's message sizes, for perflimit and the peer: SE and SS.
message_sizes() {
    local sizes; sizes=$("$CLIENT" --sizes)
    SE=${sizes#size-empty=} SS=${sizes#*size-send=}
    SE=${SE%% *}
}

# ZeroMQ on this mode's transport, its server placed like perfclient's.
run_peer() {
    local mode=$1 file=$TMP/peer.perf cpu=()
    message_sizes
    [ ${#SERVER_CPU[@]} -eq 0 ] || cpu=(--server-cpu "${SERVER_CPU[0]}")
    perf_header "zmq_$mode" zmq "$mode" >"$file"
    TMPDIR=$TMP timeout -k 5 "$TIMEOUT" "${CLIENT_PIN[@]}" "$PEER" --all --transport "${mode%%_*}" \
        --size-empty "$SE" --size "$SS" "${cpu[@]}" "${SIZE[@]}" >>"$file" 2>&1 &&
        mv "$file" "$OUT/zmq_$mode.perf"
}

# The executable that runs LANG's server: the command's first word, or the
# #! interpreter of a script, resolved through PATH and symbolic links.
server_exe() {
    local cmd exe; read -r -a cmd <<<"${SERVER_CMD[$1]}"
    exe=$(command -v "${cmd[0]}")
    if [ "$(head -c2 "$exe")" = '#!' ] && [[ ${SERVER_CMD[$1]} == "${SCRIPT[$1]}"* ]]; then
        read -r -a cmd <<<"$(head -1 "$exe" | cut -c3-)"
        exe=${cmd[0]}
        [ "${exe##*/}" != env ] || exe=${cmd[1]}
        exe=$(command -v "$exe")
    fi
    readlink -f "$exe"
}

# Once per setup: each language's floor program, and its start-up broken
# down: the bare executable, then the server script up to loading mqlink.
run_floors() {
    local file=$TMP/floor.perf lang
    perf_header floor floor none >"$file"
    for lang in "${RUN_LANGS[@]}"; do
        [ -x "${FLOOR[$lang]}" ] || continue
        timeout -k 5 "$TIMEOUT" "${CLIENT_PIN[@]}" "${FLOOR[$lang]}" "${ONE_RUN[@]}" >>"$file" 2>&1 ||
            echo "# $lang: floor program failed" >>"$file"
    done
    mv "$file" "$OUT/floor.perf"
}

run_startup() {
    local file=$TMP/startup.perf lang exe start
    perf_header startup startup none >"$file"
    : >"$TMP/empty"
    for lang in "${RUN_LANGS[@]}"; do
        [ "${BARE[$lang]}" != - ] || continue
        exe=$(server_exe "$lang")
        [ "$(head -c2 "$exe")" != '#!' ] ||
            echo "# $lang: $exe is a script (a launcher?), not the interpreter" >>"$file"
        read -r -a start <<<"${BARE[$lang]//@EMPTY@/$TMP/empty}"
        timeout -k 5 "$TIMEOUT" "${CLIENT_PIN[@]}" "$STARTER" "${SIZE[@]}" "start-$lang" \
            "$exe" "${start[@]}" >>"$file" 2>&1 || true
        [ "${LOAD[$lang]}" != - ] || continue
        sed "/${LOAD[$lang]}/q" "${SCRIPT[$lang]}" >"$TMP/load-$lang"
        timeout -k 5 "$TIMEOUT" "${CLIENT_PIN[@]}" "$STARTER" "${SIZE[@]}" "load-$lang" \
            "$exe" "$TMP/load-$lang" >>"$file" 2>&1 || true
    done
    [[ " ${RUN_LANGS[*]} " != *" c "* ]] || startup_bind_now "$file"
    mv "$file" "$OUT/startup.perf"
}

# C's start and pipe PARENT again with LD_BIND_NOW=1: every symbol of the
# shared libraries bound at exec instead of at its first call (lazy, the
# default), so the block shows what lazy binding saves or costs a start.
startup_bind_now() {
    local file=$1 start
    read -r -a start <<<"${BARE[c]}"
    LD_BIND_NOW=1 timeout -k 5 "$TIMEOUT" "${CLIENT_PIN[@]}" "$STARTER" "${SIZE[@]}" \
        start-c-bindnow "$INST/bin/perfserver" "${start[@]}" >>"$file" 2>&1 || true
    LD_BIND_NOW=1 timeout -k 5 "$TIMEOUT" "${CLIENT_PIN[@]}" "$CLIENT" --parent "${SIZE[@]}" \
        @ "$INST/bin/perfserver" 2>&1 | sed -n 's/^parent /parent-c-bindnow /p' >>"$file" || true
}

# ------------------------------------------------------------------ main
mkdir -p "$OUT"
total=$(( ${#RUNS[@]} + ${#RUN_MODES[@]} )) k=0 failed=0
[ -z "$PEER" ] || total=$((total + ${#RUN_MODES[@]}))
total=$((total + 1))
[ -z "$STARTER" ] || total=$((total + 1))
echo "performance.bash: $TARGET/$SETUP, pin=$PIN, ${SIZE[*]}, $total runs -> $OUT"
# Mode by mode, the limits first: a section's figures and the limits they
# are read against are measured minutes apart at most, not a whole suite.
declare -A STATUS
for mode in "${RUN_MODES[@]}"; do
    k=$((k + 1)); printf '  [%2d/%d] %-22s ' "$k" "$total" "limit_$mode"
    SECONDS=0
    if run_limit "$mode"; then echo "ok (${SECONDS}s)"; else echo FAILED; failed=$((failed + 1)); fi
    if [ -n "$PEER" ]; then
        k=$((k + 1)); printf '  [%2d/%d] %-22s ' "$k" "$total" "zmq_$mode"
        SECONDS=0
        if run_peer "$mode"; then echo "ok (${SECONDS}s)"; else echo FAILED; failed=$((failed + 1)); fi
    fi
    MODE_LANGS=()
    for run in "${RUNS[@]}"; do
        set -- $run
        [ "$2" != "$mode" ] || MODE_LANGS+=("$1")
    done
    printf '         %s side by side: %s\n' "$mode" "${MODE_LANGS[*]}"
    run_mode "$mode"
    for lang in "${MODE_LANGS[@]}"; do
        k=$((k + 1)); printf '  [%2d/%d] %-22s ' "$k" "$total" "${lang}_$mode"
        case "${STATUS[$lang]}" in
        0) echo "ok (${ELAPSED}s, side by side)" ;;
        na.*) echo "${STATUS[$lang]}" ;;
        *) echo "FAILED (status ${STATUS[$lang]}, see $OUT/${lang}_$mode.perf)"; failed=$((failed + 1)) ;;
        esac
    done
done
for step in floors ${STARTER:+startup}; do
    k=$((k + 1)); printf '  [%2d/%d] %-22s ' "$k" "$total" "$step"
    SECONDS=0
    if "run_$step"; then echo "ok (${SECONDS}s)"; else echo FAILED; failed=$((failed + 1)); fi
done
echo "performance.bash: $((total - failed)) of $total runs done, $failed failed"
[ $failed -eq 0 ]
