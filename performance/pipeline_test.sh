#!/bin/sh
# pipeline_test.sh — the whole performance pipeline with tiny sizes on the
# build tree (TAP): perfclient against perfserver, performance.bash over every
# C mode, results.bash on what it wrote.  Proves every C column is produced;
# the figures themselves are never judged (speed is not asserted by tests).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pipeline_test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. "$top_srcdir/performance/tap.sh"
# tiny, and three runs a test so that the median path is taken too
SIZE="--num 50 --sec 0.1 --runs 3"

# An "installed tree" of the build tree's programs (libtool wrappers follow
# their symlinks), so performance.bash runs exactly as on a real install.
INST=$TMP/inst
mkdir -p "$INST/bin"
for p in perfclient/perfclient perfclient/perflimit perfclient/perfstart perfserver/perfserver; do
    ln -s "$(cd "$top_builddir" && pwd)/$p" "$INST/bin/${p#*/}"
done
# perfpeer-zmq exists when configure found libzmq; a second tree without it
# shows the ZeroMQ rows go away cleanly.
ZMQ=no
if [ -x "$top_builddir/perfclient/perfpeer-zmq" ]; then
    ZMQ=yes
    ln -s "$(cd "$top_builddir" && pwd)/perfclient/perfpeer-zmq" "$INST/bin/perfpeer-zmq"
fi
mkdir -p "$TMP/nozmq/bin"
for p in perfclient perflimit perfserver; do ln -s "$INST/bin/$p" "$TMP/nozmq/bin/$p"; done
THREADS=$("$INST/bin/perflimit" --features | sed -n 's/^threads=//p')
TLS=$("$INST/bin/perflimit" --features | sed -n 's/^tls=//p')
MODES="pipe uds_fork uds_thread uds_spawn tcp_fork tcp_thread tcp_spawn"
[ "$TLS" != yes ] || MODES="$MODES tcp_tls_fork tcp_tls_thread tcp_tls_spawn"
NMODES=$(echo $MODES | wc -w)

client_lines() {
    # shellcheck disable=SC2086
    timeout 120 "$INST/bin/perfclient" --all $SIZE @ "$INST/bin/perfserver" >"$TMP/client.out" || return 1
    cat "$TMP/client.out"
    for t in send-nothing send send-and-callback send-and-wait parent child bus bfl send-persistent; do
        grep -q "^$t ops/s=[0-9]* count=[0-9]* sec=[0-9.]* runs=3 min=[0-9]* max=[0-9]*$" \
            "$TMP/client.out" || return 1
    done
}

# logged FILE TAG LOG: a pipe server script that appends TAG to LOG at each
# start, then runs perfserver (pipe PARENT starts one per parent).
logged() {
    printf '#!/bin/sh\necho %s >>"%s"\nexec "%s" "$@"\n' "$2" "$3" "$INST/bin/perfserver" >"$1"
    chmod +x "$1"
}

# --warmup: each test runs once more before its measured runs, unmeasured.
# Counted by pipe PARENT's server starts: the main link, then per run one
# parent before the clock and --num 2 timed ones; the warm-up is one more
# such run.
starts() {
    log=$TMP/starts.$1
    shift
    : >"$log"
    logged "$TMP/logged" start "$log"
    timeout 60 "$INST/bin/perfclient" --parent --num 2 --runs 1 --wrk 1 "$@" @ "$TMP/logged" >/dev/null || return 1
    wc -l <"$log"
}
warm_up() {
    cold=$(starts cold) && warm=$(starts warm --warmup 5) || return 1
    echo "server starts: $cold without --warmup, $warm with --warmup 5"
    [ "$cold" -eq 4 ] && [ "$warm" -eq 7 ]
}

# --links: two links side by side, each test's runs taken in turn.  Each
# link's server logs its starts (pipe PARENT: per run one parent before the
# clock and --num 2 timed ones), so the log's order shows the turns: both
# main links, then three starts of a, three of b, three of a, three of b.
side_by_side() {
    log=$TMP/starts.side
    : >"$log"
    for l in a b; do
        logged "$TMP/logged-$l" $l "$log"
        printf '%s\t-\t@\t%s\n' "$TMP/side-$l.out" "$TMP/logged-$l"
    done >"$TMP/links"
    timeout 60 "$INST/bin/perfclient" --parent --send-and-wait --num 2 --runs 2 --wrk 1 \
        --links "$TMP/links" || return 1
    cat "$TMP/side-a.out" "$TMP/side-b.out"
    order=$(tr -d '\n' <"$log")
    echo "server starts: $order"
    [ "$order" = abaaabbbaaabbb ] &&
        for l in a b; do
            grep -q '^parent ops/s=[0-9]* count=2 .* runs=2 ' "$TMP/side-$l.out" &&
                grep -q '^send-and-wait ops/s=[0-9]* count=2 .* runs=2 ' "$TMP/side-$l.out" || return 1
        done
}

# A --links file perfclient cannot use is an error naming what is wrong,
# before any link is opened (status 2).
bad_links() {
    printf 'x\n' >"$TMP/links-short"
    : >"$TMP/links-empty"
    for c in "$TMP/links-none:cannot read $TMP/links-none" \
             "$TMP/links-short:a line needs OUT, STORAGE and link arguments" \
             "$TMP/links-empty:$TMP/links-empty names no link"; do
        f=${c%%:*} want=${c#*:}
        "$INST/bin/perfclient" --send-and-wait --links "$f" 2>"$TMP/err" >/dev/null
        st=$?
        cat "$TMP/err"
        [ $st -eq 2 ] && grep -qF "perfclient: --links: $want" "$TMP/err" || return 1
    done
}

suite() {
    # shellcheck disable=SC2086
    mkdir -p "$TMP/tmp"
    TMPDIR=$TMP/tmp timeout 600 "$top_srcdir/performance/performance.bash" --setup check --inst "$INST" \
        --gen "$TMP/gen" $SIZE --timeout 120 'c_*' &&
        "$top_srcdir/results.bash" --gen "$TMP/gen"
}

TABLE=$TMP/gen/total_link.perf
# row MODE LABEL N: the row is there, in MODE's section, with N figures and
# 9 - N na.  A missing section or row is a failure, not zero figures.
figures() {
    r=$(awk -v m=" $1:" -v l=" $2 " '/^ [a-z_]*:$/ { s = ($0 == m) } s && index($0, l) == 1 { print; exit }' \
        "$TABLE")
    echo "$1 $2: ${r:-(no such row)}"
    [ -n "$r" ] || return 1
    [ "$(echo "$r" | tr ' ' '\n' | grep -c '^[0-9][0-9]*$')" = "$3" ] &&
        [ "$(echo "$r" | tr ' ' '\n' | grep -c '^na\.$')" = "$((9 - $3))" ]
}

every_mode() {
    case "$THREADS" in
    yes|no) ;;
    *) echo "perflimit --features said threads='$THREADS'"; return 1 ;;
    esac
    for m in $MODES; do
        want=9
        case "$m" in *_thread) [ "$THREADS" = yes ] || want=0 ;; esac
        figures "$m" "L: limit" "$want" && figures "$m" "C: C" "$want" || return 1
    done
}

nothing_left() {
    left=$(ps -eo pid=,args= | grep -F "$TMP" | grep -v grep | awk '{ print $1 }')
    for p in $left; do # what each is waiting for: state, wait channel, system call
        echo "$(ps -o pid=,stat=,wchan:24=,args= -p "$p") syscall=$(cut -d' ' -f1 "/proc/$p/syscall" 2>/dev/null)"
    done
    [ -z "$left" ] || return 1
    [ -z "$(ls -A "$TMP/tmp")" ] || { ls -lR "$TMP/tmp"; return 1; }
}

echo "1..15"
check "perfclient --all prints every test" client_lines
check "perfclient --warmup runs each test once, unmeasured, before its runs" warm_up
check "perfclient --links takes each test's runs on every link in turn" side_by_side
check "a --links file that cannot be used is an error naming why" bad_links
check "performance.bash and results.bash run every C mode" suite
check "every C column has a figure in every mode the build has" every_mode
# a limit and a C file per mode (+ ZeroMQ) + floor.perf + startup.perf
nfiles=$((2 * NMODES + 2)); [ $ZMQ = no ] || nfiles=$((3 * NMODES + 2))
check "a limit file per mode, a .perf per C mode (and ZeroMQ), floor and start-up" \
    test "$(ls "$TMP/gen/$(gcc -dumpmachine)/check" | grep -c '\.perf$')" = $nfiles
zmq_rows() {
    for m in $MODES; do
        figures "$m" "P: ZeroMQ" 4 || return 1
    done
}
if [ $ZMQ = yes ]; then
    check "P: ZeroMQ in every section: NOTHING END CALLBACK WAIT" zmq_rows
else
    check "P: ZeroMQ in every section # SKIP libzmq not found by configure" true
fi
# The same suite, one mode, from a tree without perfpeer-zmq: it runs, and
# neither a zmq file nor a P: row appears.
no_peer() {
    TMPDIR=$TMP/tmp timeout 300 "$top_srcdir/performance/performance.bash" --setup check \
        --inst "$TMP/nozmq" --gen "$TMP/gen2" $SIZE --timeout 120 c_pipe &&
        "$top_srcdir/results.bash" --gen "$TMP/gen2" --no-png || return 1
    ls "$TMP/gen2"/*/check
    ! ls "$TMP/gen2"/*/check | grep -q '^zmq_' && ! grep -q '^ P: ZeroMQ' "$TMP/gen2/total_link.perf" &&
        TABLE=$TMP/gen2/total_link.perf && figures pipe "C: C" 9
}
check "without perfpeer-zmq the suite runs and has no ZeroMQ row" no_peer
# Two languages of one mode measured side by side by one perfclient: each
# gets its own complete .perf file (C++'s server, when this build has it).
two_langs() {
    ln -s "$(cd "$top_builddir" && pwd)/wrappers/cxx/perfserver-cxx" "$TMP/nozmq/bin/perfserver-cxx"
    TMPDIR=$TMP/tmp timeout 300 "$top_srcdir/performance/performance.bash" --setup check \
        --inst "$TMP/nozmq" --gen "$TMP/gen3" $SIZE --timeout 120 c_uds_fork cxx_uds_fork || return 1
    "$top_srcdir/results.bash" --gen "$TMP/gen3" --no-png || return 1
    for l in c cxx; do
        f=$TMP/gen3/$(gcc -dumpmachine)/check/${l}_uds_fork.perf
        grep -q '^status=0$' "$f" && grep -q '^client=perfclient --all .* --warmup 0.4 ' "$f" ||
            { cat "$f"; return 1; }
    done
    TABLE=$TMP/gen3/total_link.perf
    figures uds_fork "C: C" 9 && figures uds_fork "C: C++" 9
}
if [ -x "$top_builddir/wrappers/cxx/perfserver-cxx" ]; then
    check "two languages of a mode side by side: a complete .perf file each" two_langs
else
    check "two languages of a mode side by side # SKIP this build has no C++" true
fi
start_up() {
    sed -n '/^ Start-up/,$p' "$TMP/gen/total_link.perf"
    sed -n '/^ Start-up/,$p' "$TMP/gen/total_link.perf" | grep -q '^ C: C  *[0-9.]*  *na\.  *[-+][0-9.]*  *[0-9.]'
}
check "start-up block: perfserver --version, + link = PARENT pipe" start_up
bind_now() {
    sed -n '/^ Start-up/,$p' "$TMP/gen/total_link.perf" | grep '^ C: C bindnow  *[0-9.]*  *na\.  *[-+][0-9.]*  *[0-9.]'
}
check "start-up block: C's start and pipe PARENT again with LD_BIND_NOW=1" bind_now
# perflimit --connect: a floor line for each fork and thread mode the build
# has, ending with the waiting floor and C against it (one setup: 8 columns)
floor_lines() {
    sed -n '/^ PARENT floor/,$p' "$TMP/gen/total_link.perf"
    want="uds_fork tcp_fork"
    [ "$THREADS" = yes ] && want="$want uds_thread tcp_thread"
    for m in $want; do
        sed -n '/^ PARENT floor/,$p' "$TMP/gen/total_link.perf" | grep -q "^ $m  *[0-9]" || return 1
        sed -n '/^ PARENT floor/,$p' "$TMP/gen/total_link.perf" |
            awk -v m="$m" '$1 == m && NF == 8 && $7 ~ /^[0-9]+$/ && $8 ~ /^[0-9]+\.[0-9][0-9]$/ { ok = 1 }
                END { exit !ok }' || return 1
    done
}
check "the parent floor and the waiting floor are measured for every fork and thread mode" floor_lines
# the TLS block: C's WAIT and END over TLS against plain TCP, per start mode
tls_block() {
    sed -n '/^ TLS:/,/^$/p' "$TMP/gen/total_link.perf"
    want="fork spawn"
    [ "$THREADS" = yes ] && want="$want thread"
    for m in $want; do
        grep -q "^ [A-Z]: C  *$m\(  *[0-9][0-9]*  *[0-9][0-9]*  *[0-9][0-9.]*\)\{2\}$" "$TMP/gen/total_link.perf" || return 1
    done
}
if [ "$TLS" = yes ]; then
    check "TLS block: WAIT and END over TLS against plain TCP, per start mode" tls_block
else
    check "TLS block # SKIP this build has no OpenSSL" true
fi
check "no server process or socket left behind" nothing_left
[ $failed -eq 0 ]
