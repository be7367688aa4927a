#!/bin/sh
# soak_test.sh — performance/soak.bash at a tiny size on the build tree, so
# the soak cannot rot between the times it is run in full (README.md,
# "Soak"): every run it makes passes (tls skipped with the reason without
# TLS), each leaves its RSS samples and, with gnuplot, its PNG; and
# soak_client fails, counting the loss, against a server without the
# services it checks.
: "${top_builddir:?run from make check}" "${top_srcdir:?run from make check}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/soak_test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
. "$top_srcdir/performance/tap.sh"

# A run this small is all warm-up: whether memory is flat is judged by the
# full-size soak (under ASan a tls_thread listener once grew 11.8 % here).
bash "$top_srcdir/performance/soak.bash" --build "$top_builddir" --clients 4 --calls 300 \
    --rounds 2 --judge-after 1000 --out "$TMP/soak" >"$TMP/soak.out" 2>&1
status=$?
runs=0
while read -r _ run result detail; do
    [ -n "$run" ] || continue
    runs=$((runs + 1)) n=$((n + 1))
    case $result in
    ok) echo "ok $n - soak $run: nothing lost or wrong ($detail)" ;;
    skipped) echo "ok $n - soak $run # SKIP $detail" ;;
    *) echo "not ok $n - soak $run: $detail"; sed 's/^/#   /' "$TMP/soak.out" | tail -20
       failed=$((failed + 1)) ;;
    esac
    if [ "$result" = ok ]; then
        check "soak $run: RSS sampled into soak_$run.dat" \
            grep -q '^[0-9.]* [0-9]* [0-9]* [0-9]* [0-9]*$' "$TMP/soak/soak_$run.dat"
        if command -v gnuplot >/dev/null; then
            check "soak $run: drawn into soak_$run.png" test -s "$TMP/soak/soak_$run.png"
        fi
    fi
done <<EOF
$(grep '^RESULT ' "$TMP/soak.out")
EOF
check "soak.bash made 6 runs (uds tcp tls x thread fork) and exited 0 (exit $status)" \
    test "$runs" = 6 -a "$status" = 0

LD_LIBRARY_PATH="$top_builddir/link/.libs:$top_builddir/kernel/.libs"
export LD_LIBRARY_PATH
lost() { # soak_client against cserver (no COUN, GETC, its ECHO wants a type name)
    ! "$top_builddir/performance/soak_client" 2 20 @ "$top_builddir/tests/interop/cserver" \
        >"$TMP/lost" 2>/dev/null && grep -q ' lost=[1-9]' "$TMP/lost"
}
check "soak_client fails and counts what was lost against the wrong server" lost
echo "1..$n"
