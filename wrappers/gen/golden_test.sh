#!/bin/sh
# golden_test.sh — TAP: the generator's output for the sample description
# equals the checked-in expected files, and a second run changes nothing.
# After an intended generator change: wrappers/gen/golden_test.sh --update
: "${top_srcdir:=$(dirname "$0")/../..}"
PY=${PYTHON:-python3}
gen="$top_srcdir/wrappers/gen/mqgen.py"
golden="$top_srcdir/wrappers/gen/golden"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
langs="python-glue python-h python-pyi cxx"
echo "1..$(( $(echo $langs | wc -w) * 2 ))"
n=0
for lang in $langs; do
    n=$((n + 1))
    "$PY" "$gen" "$golden/sample.api" "$lang" "$tmp/$lang" || { echo "not ok $n - $lang generates"; continue; }
    if [ "$1" = --update ]; then cp "$tmp/$lang" "$golden/sample.$lang"; fi
    if diff -u "$golden/sample.$lang" "$tmp/$lang" > "$tmp/diff"; then
        echo "ok $n - $lang output matches golden/sample.$lang"
    else
        echo "not ok $n - $lang output matches golden/sample.$lang"
        sed 's/^/# /' "$tmp/diff"
    fi
done
for lang in $langs; do
    n=$((n + 1))
    "$PY" "$gen" "$golden/sample.api" "$lang" "$tmp/$lang.2"
    if cmp -s "$tmp/$lang" "$tmp/$lang.2"; then
        echo "ok $n - $lang output is the same on a second run"
    else
        echo "not ok $n - $lang output is the same on a second run"
    fi
done
