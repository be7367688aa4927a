#!/usr/bin/env bash
# results.bash — collect the performance suite's results into one table.
#
#   ./results.bash [--gen DIR] [--no-png]
#
# Reads DIR/TARGET/SETUP/*.perf (written by performance/performance.bash;
# DIR defaults to performance/gen) and writes
#   DIR/total_link.perf  the table in the reference layout: one section per
#                        start mode, rows `L: limit`, then `R: LANG`
#                        (perf-release) and `A: LANG` (perf-aggressive), `na.`
#                        where a figure does not exist;
#   DIR/total_link.csv   one line per target, setup, mode, language and test
#                        with ops/s, the limit it is read against and the
#                        fraction of that limit;
#   DIR/total_link.png   the languages side by side per test, one panel per
#                        mode (gnuplot; skipped with a message without it).
# When DIR/TARGET/SETUP/*.scaling files exist (performance/scaling.bash) the
# table ends with their scaling block (performance/scaling.awk); scaling.bash
# draws its own chart.
# A language appears when at least one of its .perf files exists; a setup
# when its directory holds .perf files.  The L row is the perf-release limit
# (perf-aggressive's when there is none); the CSV reads each setup against
# its own run's limits.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GEN=$TOP/performance/gen PNG=1
while [ $# -gt 0 ]; do
    case "$1" in
    --gen) GEN=${2:?}; shift ;;
    --no-png) PNG=0 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "results.bash: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done

shopt -s nullglob
files=("$GEN"/*/*/*.perf)
if [ ${#files[@]} -eq 0 ]; then
    echo "results.bash: no results in $GEN/*/*/*.perf (run performance/performance.bash first)" >&2
    exit 1
fi

TABLE=$GEN/total_link.perf CSV=$GEN/total_link.csv CHART=$GEN/total_link.png
PLOTDIR=$(mktemp -d "${TMPDIR:-/tmp}/mqresults.XXXXXX")
trap 'rm -rf "$PLOTDIR"' EXIT

# name|label pairs in row order, from the suite's language table.
langs=$(sed -n '/^[a-z]/{s/ *| */|/g; s/^\([^|]*|[^|]*\).*/\1/; p}' "$TOP/performance/languages.tab")

awk -v langs="$langs" -v csv="$CSV" -v plotdir="$PLOTDIR" \
    -f "$TOP/performance/perfheader.awk" -f "$TOP/performance/results.awk" "${files[@]}" >"$TABLE"

# The scaling block, under everything else.
scaling=("$GEN"/*/*/*.scaling)
if [ ${#scaling[@]} -gt 0 ]; then
    awk -v langs="$langs" -f "$TOP/performance/perfheader.awk" -f "$TOP/performance/scaling.awk" "${scaling[@]}" >>"$TABLE"
fi

if [ "$PNG" = 1 ]; then
    if command -v gnuplot >/dev/null; then
        term=png
        gnuplot -e 'set terminal pngcairo' 2>/dev/null && term=pngcairo
        if gnuplot -e "set terminal $term size 1600,2000; set output '$CHART'" \
                   "$PLOTDIR/plot.gp" 2>"$PLOTDIR/gnuplot.err"; then
            :
        else
            echo "results.bash: gnuplot failed, no $CHART:" >&2
            cat "$PLOTDIR/gnuplot.err" >&2
        fi
    else
        echo "results.bash: gnuplot not installed, no $CHART" >&2
    fi
fi
echo "results.bash: wrote $TABLE and $CSV${PNG:+}" >&2
