#!/bin/sh
# scaling_test.sh — performance/scaling.bash on tiny sizes against the build
# tree's C perfserver (TAP): every mode, kind and N has a positive figure,
# the table and the chart are written, and nothing is left running.  The
# figures themselves are never judged (speed is not asserted by tests).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/scaling_test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. "$top_srcdir/performance/tap.sh"

# An "installed tree" of the build tree's programs, as pipeline_test.sh does.
INST=$TMP/inst
mkdir -p "$INST/bin" "$TMP/tmp"
for p in perfclient/perfclient perfclient/perflimit perfserver/perfserver; do
    ln -s "$(cd "$top_builddir" && pwd)/$p" "$INST/bin/${p#*/}"
done
THREADS=$("$INST/bin/perflimit" --features | sed -n 's/^threads=//p')
OUT=$TMP/gen/$(gcc -dumpmachine)/check

scaling() {
    TMPDIR=$TMP/tmp timeout 300 "$top_srcdir/performance/scaling.bash" --setup check --inst "$INST" \
        --gen "$TMP/gen" --calls 1,2 --clients 1,2 --num 200 --sec 0.2 --timeout 120 "$@"
}

# figures FILE KIND: KIND-1 and KIND-2 have a positive figure
figures() {
    for j in 1 2; do
        grep -q "^scale-$2-$j ops/s=[1-9][0-9]* count=[1-9][0-9]* sec=[0-9.]*$" "$1" ||
            { echo "$1: no positive scale-$2-$j"; cat "$1"; return 1; }
    done
}

every_figure() {
    modes="uds_fork" kinds="calls procs"
    [ "$THREADS" = yes ] && modes="$modes uds_thread" kinds="$kinds threads"
    for m in $modes; do
        for k in $kinds; do figures "$OUT/c_$m.scaling" "$k" || return 1; done
    done
}

# The table's row MODE KIND has two positive figures, a peak, at and sat.
table_row() {
    r=$(grep "^ $1 *$2 *|" "$TMP/gen/scaling.txt")
    echo "$1 $2: ${r:-(no such row)}"
    echo "$r" | grep -q "| *[1-9][0-9]* *[1-9][0-9]* | *[1-9][0-9]* *[12] *[12]$"
}
table() {
    cat "$TMP/gen/scaling.txt"
    grep -q '^ C  *|  *1  *2 |  *peak  *at  *sat\.$' "$TMP/gen/scaling.txt" &&
        table_row uds_fork calls && table_row uds_fork processes || return 1
    [ "$THREADS" = yes ] || return 0
    table_row uds_fork threads && table_row uds_thread calls
}

png() { head -c 4 "$TMP/gen/scaling.png" | grep -q PNG; }

nothing_left() {
    ps -eo pid,args | grep -F "$TMP" | grep -v grep && return 1
    [ -z "$(ls -A "$TMP/tmp")" ] || { ls -lR "$TMP/tmp"; return 1; }
}

bad_list() { ! scaling --calls 1,x 2>"$TMP/err" && grep -q 'sizes like 1,2,4' "$TMP/err"; }

echo "1..7"
check "scaling.bash runs the C --fork and --thread servers" scaling
check "a positive figure per mode, kind and N" every_figure
check "the table has a row per mode and kind, with peak and saturation" table
if command -v gnuplot >/dev/null 2>&1; then
    check "the chart is a PNG" png
else
    check "the chart is a PNG # SKIP gnuplot not installed" true
fi
check "tcp works the same" sh -c "$(command -v timeout) 300 env TMPDIR=$TMP/tmp '$top_srcdir/performance/scaling.bash' \
    --setup check --inst '$INST' --gen '$TMP/gen' --transport tcp --calls 1 --clients 1 --num 100 --timeout 120 --no-png &&
    grep -q '^scale-procs-1 ops/s=[1-9]' '$OUT/c_tcp_fork.scaling'"
check "a bad size list is an error with a message" bad_list
check "no server process or socket left behind" nothing_left
[ $failed -eq 0 ]
