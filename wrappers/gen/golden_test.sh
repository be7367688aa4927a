#!/bin/sh
# golden_test.sh — TAP: for every output the generator registers
# (mqgen.py --list-outputs), its output for the sample description equals the
# checked-in golden/sample.OUTPUT and a second run changes nothing; the golden
# directory holds exactly those files.
# After an intended generator change: wrappers/gen/mqgen.py --update-golden
# (or wrappers/gen/golden_test.sh --update), then review `git diff`.
: "${top_srcdir:=$(dirname "$0")/../..}"
PY=${PYTHON:-python3}
gen="$top_srcdir/wrappers/gen/mqgen.py"
golden="$top_srcdir/wrappers/gen/golden"
if [ "$1" = --update ]; then exec "$PY" "$gen" --update-golden; fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
outputs=$("$PY" "$gen" --list-outputs) || { echo "1..1"; echo "not ok 1 - mqgen.py --list-outputs"; exit 0; }
echo "1..$(( $(echo $outputs | wc -w) * 2 + 1 ))"
n=0
for out in $outputs; do
    n=$((n + 1))
    "$PY" "$gen" "$golden/sample.api" "$out" "$tmp/$out" || { echo "not ok $n - $out generates"; continue; }
    if diff -u "$golden/sample.$out" "$tmp/$out" > "$tmp/diff"; then
        echo "ok $n - $out output matches golden/sample.$out"
    else
        echo "not ok $n - $out output matches golden/sample.$out"
        sed 's/^/# /' "$tmp/diff"
    fi
done
for out in $outputs; do
    n=$((n + 1))
    "$PY" "$gen" "$golden/sample.api" "$out" "$tmp/$out.2"
    if cmp -s "$tmp/$out" "$tmp/$out.2"; then
        echo "ok $n - $out output is the same on a second run"
    else
        echo "not ok $n - $out output is the same on a second run"
    fi
done
# A golden file of an output no longer registered, or a registered output
# without one, is a mistake the diffs above would not show.
n=$((n + 1))
want=$(for out in sample.api $(for o in $outputs; do echo "sample.$o"; done); do echo "$out"; done | sort)
have=$(cd "$golden" && ls | sort)
if [ "$want" = "$have" ]; then
    echo "ok $n - golden/ holds sample.api and one file per registered output"
else
    echo "not ok $n - golden/ holds sample.api and one file per registered output"
    echo "# want: $(echo $want)"
    echo "# have: $(echo $have)"
fi
