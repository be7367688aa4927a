# tap.sh — the shell tests' TAP helper (sourced), as tests/testlib.c is the C
# tests': `check NAME COMMAND...` runs one case, prints one TAP line and, on
# failure, the command's output as comments.  Needs TMP; counts in n, failed.
n=0 failed=0

check() {
    name=$1; shift
    n=$((n + 1))
    if "$@" >"$TMP/out" 2>&1; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name"; sed 's/^/#   /' "$TMP/out" | head -30; failed=$((failed + 1))
    fi
}
