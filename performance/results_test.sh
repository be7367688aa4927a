#!/bin/sh
# results_test.sh — results.bash on the recorded runs in performance/testdata
# (TAP).  The inputs are real quick runs of both setups; the expected files
# were checked by eye once and are compared byte for byte since.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
DATA=$top_srcdir/performance/testdata
RESULTS=$top_srcdir/results.bash
TMP=$(mktemp -d "${TMPDIR:-/tmp}/results_test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. "$top_srcdir/performance/tap.sh"

# A fresh copy of the recorded tree in $TMP/$1, results.bash run on it.
fresh() {
    rm -rf "${TMP:?}/$1"; cp -r "$DATA/gen" "$TMP/$1"
}
run() { g=$1; shift; "$RESULTS" --gen "$TMP/$g" "$@" 2>"$TMP/$g.err"; }

# row FILE MODE LABEL: the row LABEL of section MODE.
row() { awk -v m=" $2:" -v l=" $3 " '$0 == m { s = 1 } s && index($0, l) == 1 { print; exit }' "$1"; }
# figures FILE MODE LABEL N: the row has N figures and 9 - N na.
figures() {
    r=$(row "$1" "$2" "$3")
    echo "$2 $3: $r"
    [ "$(echo "$r" | tr ' ' '\n' | grep -c '^[0-9][0-9]*$')" = "$4" ] &&
        [ "$(echo "$r" | tr ' ' '\n' | grep -c '^na\.$')" = $((9 - $4)) ]
}
every_section() { # every_section FILE MODES...: L, R and A rows complete
    f=$1; shift
    for m in "$@"; do
        for l in "L: limit" "R: C" "A: C"; do figures "$f" "$m" "$l" 8 || return 1; done
    done
}
changed_lines() { [ "$(diff "$1" "$2" | grep -c '^>')" = "$3" ]; }

echo "1..32"
fresh full; run full --no-png
check "table of a complete run matches the recorded one" \
    diff -u "$DATA/expected_total_link.perf" "$TMP/full/total_link.perf"
check "csv of a complete run matches the recorded one" \
    diff -u "$DATA/expected_total_link.csv" "$TMP/full/total_link.csv"
check "csv has one line per setup x mode x language x test" \
    test "$(wc -l <"$TMP/full/total_link.csv")" = $((1 + 2 * 7 * 1 * 9))
check "every section has limit, release and aggressive rows with 8 figures" \
    every_section "$TMP/full/total_link.perf" pipe uds_fork uds_spawn tcp_fork tcp_spawn
check "thread modes of the no-thread setup are na." \
    figures "$TMP/full/total_link.perf" uds_thread "A: C" 0

fresh missing
rm "$TMP/missing/x86_64-linux-gnu/perf-aggressive/c_tcp_fork.perf" \
   "$TMP/missing/x86_64-linux-gnu/perf-release/limit_pipe.perf"
run missing --no-png
check "a missing run gives a row of na." \
    figures "$TMP/missing/total_link.perf" tcp_fork "A: C" 0
check "only that row and the limit row of pipe change" \
    changed_lines "$DATA/expected_total_link.perf" "$TMP/missing/total_link.perf" 2
check "a missing limit is taken from the other setup" \
    figures "$TMP/missing/total_link.perf" pipe "L: limit" 8

# The floor lines: two connect figures of a real perflimit --connect run
# (uds, 2026-11-23) added to the recorded limits of two modes, and the
# waiting floor of a later one (uds, 2026-11-24) to uds_thread's only: the
# uds_fork file stands for one written before limit-connect-fork-wait.
fresh floor
R=$TMP/floor/x86_64-linux-gnu/perf-release
echo "limit-connect-fork ops/s=11348 count=11360 sec=1.001" >>"$R/limit_uds_fork.perf"
echo "limit-connect ops/s=100583 count=100592 sec=1.000" >>"$R/limit_uds_thread.perf"
echo "limit-connect-wait ops/s=21283 count=21372 sec=1.004" >>"$R/limit_uds_thread.perf"
run floor --no-png
# floor_line MODE LIMIT-TEST FLOOR: the line of MODE has the limit, the floor
# and floor/limit as results.awk must compute them from the recorded figures
floor_line() {
    lim=$(sed -n "s/^$2 ops\/s=\([0-9]*\).*/\1/p" "$R/limit_$1.perf")
    want=$(awk -v m="$1" -v l="$lim" -v f="$3" 'BEGIN { printf " %-12s %9.0f %9.0f %11.2f", m, l, f, f / l }')
    got=$(grep "^ $1 " "$TMP/floor/total_link.perf")
    echo "want: $want"; echo "got:  $got"
    case $got in "$want"*) true ;; *) false ;; esac
}
floors_right() {
    floor_line uds_fork limit-fork 11348 && floor_line uds_thread limit-thread 100583 &&
        [ "$(sed -n '/^ PARENT floor/,$p' "$TMP/floor/total_link.perf" | grep -c '^ [a-z]*_[a-z]* ')" = 2 ]
}
check "floor lines where the connect floor was measured, ratio to the PARENT limit" floors_right
# wait_tail MODE WANT: the last columns of MODE's floor line (wait, then
# C/wait per setup) are WANT
wait_tail() {
    got=$(grep "^ $1 " "$TMP/floor/total_link.perf" | tr -s ' ' | cut -d' ' -f10-)
    echo "want: $2"; echo "got:  $got"
    [ "$got" = "$2" ]
}
waiting_floor() {
    c=$(sed -n 's/^parent ops\/s=\([0-9]*\).*/\1/p' "$R/c_uds_thread.perf")
    wait_tail uds_thread "21283 $(awk -v c="$c" 'BEGIN { printf "%.2f", c / 21283 }') na."
}
check "waiting floor: limit-connect-wait and release's C against it (aggressive has no threads: na.)" \
    waiting_floor
check "a limit file without the waiting floor keeps the block, wait columns na." \
    wait_tail uds_fork "na. na. na."
check "the table above the floor lines is unchanged" \
    changed_lines "$DATA/expected_total_link.perf" "$TMP/floor/total_link.perf" 6

# Peers, language floors and start-up: real files of a later quick run
# (testdata/extra: ZeroMQ, Python and Tcl rows, floor.perf, startup.perf)
# added to the recorded tree.  Without them (the runs above) there is no P:
# row and no floor or start-up block.
check "no P: row, floor or start-up block without their files" \
    sh -c "! grep -q '^ P: \|^ Language floors\|^ Start-up' '$TMP/full/total_link.perf'"
fresh extra
cp -r "$DATA/extra/." "$TMP/extra/"
run extra --no-png
X=$TMP/extra/x86_64-linux-gnu/perf-release
check "table with peer, floor and start-up files matches the recorded one" \
    diff -u "$DATA/expected_extra_total_link.perf" "$TMP/extra/total_link.perf"
zmq_rows() {
    figures "$TMP/extra/total_link.perf" pipe "P: ZeroMQ" 4 &&
        figures "$TMP/extra/total_link.perf" uds_fork "P: ZeroMQ" 4
}
check "P: ZeroMQ has NOTHING END CALLBACK WAIT and na. elsewhere" zmq_rows
check "P: Python mp.connection has the WAIT column only" \
    figures "$TMP/extra/total_link.perf" pipe "P: Python mp.connection" 1
check "no P: row in a section whose peer did not run" \
    sh -c "! awk '/^ tcp_fork:/ { s = 1 } /^ tcp_thread:/ { s = 0 } s && /^ P: /' '$TMP/extra/total_link.perf' | grep -q ."
# fig FILE TEST: the figure of TEST in a .perf file
fig() { sed -n "s/^$2 ops\/s=\([0-9]*\).*/\1/p" "$1"; }
peer_csv() {
    v=$(fig "$X/zmq_pipe.perf" send-and-wait) c=$(fig "$X/c_pipe.perf" send-and-wait)
    want=$(awk -v v="$v" -v c="$c" 'BEGIN { printf "ZeroMQ,WAIT,%s,.*,%s,%.3f$", v, c, v / c }')
    grep "pipe,ZeroMQ,WAIT" "$TMP/extra/total_link.csv"; echo "want: $want"
    grep -q "^x86_64-linux-gnu,perf-release,pipe,$want" "$TMP/extra/total_link.csv"
}
check "csv: a peer line per measured column, read against the C row" peer_csv
check "csv: the other lines are unchanged" \
    sh -c "grep -v 'ZeroMQ\|mp.connection' '$TMP/extra/total_link.csv' | grep -v ',Python,\|,Tcl,' |
           diff '$DATA/expected_total_link.csv' -"
floor_target() {
    f=$(fig "$X/floor.perf" floor-tcl) c=$(fig "$X/c_pipe.perf" send-nothing) v=$(fig "$X/tcl_pipe.perf" send-nothing)
    want=$(awk -v f="$f" -v c="$c" -v v="$v" 'BEGIN { t = 0.8 / (1 / c + 1 / f)
        printf " R: Tcl %9.0f pipe %9.0f %9.0f %6.2f", f, v, t, v / t }')
    got=$(grep '^ R: Tcl  *[0-9]' "$TMP/extra/total_link.perf" | tr -s ' ')
    echo "want: $want"; echo "got:  $got"
    case $got in "$(echo "$want" | tr -s ' ')"*) true ;; *) false ;; esac
}
check "floor block: Tcl's NOTHING against 0.8 / (1/C + 1/floor)" floor_target
# Service floors (floor-tcl-SVC lines of a real perffloor-tcl run, 2026-11-24,
# in the recorded floor.perf): BUS's bound is 1 / (1/C + 1/floor-tcl-BUST)
# against C; END's against the language floors' target.
service_bounds() {
    b=$(fig "$X/floor.perf" floor-tcl-BUST) r=$(fig "$X/floor.perf" floor-tcl-RDUL)
    f=$(fig "$X/floor.perf" floor-tcl) cb=$(fig "$X/c_pipe.perf" bus) ce=$(fig "$X/c_pipe.perf" send)
    want=$(awk -v b="$b" -v r="$r" -v f="$f" -v cb="$cb" -v ce="$ce" 'BEGIN {
        e = 1 / (1 / ce + 1 / r); u = 1 / (1 / cb + 1 / b)
        printf " R: Tcl pipe %.0f %.2f|%.0f %.2f", e, e / (0.8 / (1 / ce + 1 / f)), u, u / cb }')
    line=$(sed -n '/^ Service floors/,/^$/p' "$TMP/extra/total_link.perf" | grep '^ R: Tcl ' | tr -s ' ')
    got="$(echo "$line" | cut -d' ' -f1-6)|$(echo "$line" | cut -d' ' -f13-14)"
    echo "want: $want"; echo "got:  $got"
    [ "$got" = "$want" ]
}
check "service floors: END against the floors' target, BUS against C" service_bounds
# rate FILE TEST: count/sec of TEST, the unrounded rate the start-up block uses
rate() { sed -n "s/^$2 ops\/s=[0-9]* count=\([0-9]*\) sec=\([0-9.]*\).*/\1 \2/p" "$1" | awk '{ print $1 / $2 }'; }
startup_c() {
    s=$(rate "$X/startup.perf" start-c) p=$(rate "$X/c_pipe.perf" parent)
    want=$(awk -v s="$s" -v p="$p" 'BEGIN { printf " R: C %.2f na. %+.2f %.2f", 1000 / s, 1000 / p - 1000 / s, 1000 / p }')
    got=$(sed -n '/^ Start-up/,$p' "$TMP/extra/total_link.perf" | grep '^ R: C ' | tr -s ' ')
    echo "want: $want"; echo "got:  $got"
    case $got in "$want"*) true ;; *) false ;; esac
}
check "start-up block: C's start, + link, = PARENT pipe in ms" startup_c
# LD_BIND_NOW=1: two real lines of performance.bash's startup_bind_now
# (quick run, 2026-11-23) added to the recorded start-up file
fresh bindnow
cp -r "$DATA/extra/." "$TMP/bindnow/"
B=$TMP/bindnow/x86_64-linux-gnu/perf-release/startup.perf
printf '%s\n' "start-c-bindnow ops/s=229 count=46 sec=0.201" \
    "parent-c-bindnow ops/s=253 count=52 sec=0.205" >>"$B"
run bindnow --no-png
bind_now_row() {
    s=$(rate "$B" start-c-bindnow) p=$(rate "$B" parent-c-bindnow)
    want=$(awk -v s="$s" -v p="$p" 'BEGIN { printf " R: C bindnow %.2f na. %+.2f %.2f na. na.", 1000 / s, 1000 / p - 1000 / s, 1000 / p }')
    got=$(sed -n '/^ Start-up/,$p' "$TMP/bindnow/total_link.perf" | grep '^ R: C bindnow ' | tr -s ' ')
    echo "want: $want"; echo "got:  $got"
    [ "$got" = "$want" ] && changed_lines "$DATA/expected_extra_total_link.perf" "$TMP/bindnow/total_link.perf" 1
}
check "start-up block: C's row again with LD_BIND_NOW=1, under the C row" bind_now_row

# Tcl's own socket round trip: a real line of sock_baseline.tcl (pipe,
# 2026-11-23) added to the recorded Tcl run makes a P: Tcl socket row with
# the WAIT column only, read against the Tcl row in the CSV.
fresh sock
cp -r "$DATA/extra/." "$TMP/sock/"
echo "sock-roundtrip ops/s=46937 count=14300 sec=0.305 transport=pipe size=88" \
    >>"$TMP/sock/x86_64-linux-gnu/perf-release/tcl_pipe.perf"
run sock --no-png
check "P: Tcl socket has the WAIT column only" \
    figures "$TMP/sock/total_link.perf" pipe "P: Tcl socket" 1
sock_csv() {
    c=$(fig "$TMP/sock/x86_64-linux-gnu/perf-release/tcl_pipe.perf" send-and-wait)
    want=$(awk -v c="$c" 'BEGIN { printf "Tcl socket,WAIT,46937,.*,%s,%.3f$", c, 46937 / c }')
    grep "Tcl socket" "$TMP/sock/total_link.csv"; echo "want: $want"
    grep -q "^x86_64-linux-gnu,perf-release,pipe,$want" "$TMP/sock/total_link.csv"
}
check "csv: the Tcl socket figure is read against the Tcl row" sock_csv
sock_only() {
    diff "$DATA/expected_extra_total_link.perf" "$TMP/sock/total_link.perf"
    changed_lines "$DATA/expected_extra_total_link.perf" "$TMP/sock/total_link.perf" 1 &&
        diff "$DATA/expected_extra_total_link.perf" "$TMP/sock/total_link.perf" | grep -q '^>  *P: Tcl socket  *|'
}
check "only the P: Tcl socket row is new in the table" sock_only

# The scaling block: two real scaling.bash files (C, uds, perf-release,
# 2026-11-23) in the recorded tree.  Without them (every run above) there is
# no scaling block.
check "no scaling block without .scaling files" \
    sh -c "! grep -q '^ Scaling' '$TMP/full/total_link.perf'"
fresh scaling
cp -r "$DATA/scaling/." "$TMP/scaling/"
run scaling --no-png
check "table with scaling files = the table without them + the recorded scaling block" \
    sh -c "cat '$DATA/expected_total_link.perf' '$DATA/expected_scaling_block.perf' |
           diff -u - '$TMP/scaling/total_link.perf'"
S=$DATA/scaling/x86_64-linux-gnu/perf-release
scaling_row() {
    r=$(grep "^ uds_thread  *threads  *|" "$TMP/scaling/total_link.perf")
    want=" uds_thread threads |"
    for q in 1 2 4 8 16 32 64; do want="$want $(fig "$S/c_uds_thread.scaling" "scale-threads-$q")"; done
    echo "want: $want"; echo "got:  $r"
    case $(echo "$r" | tr -s ' ') in "$want na. | 124013 32 32") true ;; *) false ;; esac
}
check "scaling row: the recorded figures, na. past 64, peak, at, sat." scaling_row

fresh png
if command -v gnuplot >/dev/null 2>&1; then
    run png
    check "the chart is a PNG" sh -c "head -c 4 '$TMP/png/total_link.png' | grep -q PNG"
else
    check "the chart is a PNG # SKIP gnuplot not installed" true
fi
# A run of one mode (PERF_ARGS=c_pipe): the table keeps every section, the
# chart only the mode that has figures (an empty panel failed gnuplot).
fresh partial
find "$TMP/partial" -name '*.perf' ! -name '*_pipe.perf' -exec rm {} +
if command -v gnuplot >/dev/null 2>&1; then
    run partial
    partial_chart() {
        cat "$TMP/partial.err"
        head -c 4 "$TMP/partial/total_link.png" | grep -q PNG && ! grep -q 'gnuplot failed' "$TMP/partial.err"
    }
    check "a run of one mode is charted without the empty modes" partial_chart
else
    check "a run of one mode is charted # SKIP gnuplot not installed" true
fi

mkdir -p "$TMP/empty"
no_results() { ! "$RESULTS" --gen "$TMP/empty" 2>"$TMP/empty.err" && grep 'no results' "$TMP/empty.err"; }
check "no results is an error with a message" no_results
[ $failed -eq 0 ]
