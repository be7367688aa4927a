#!/bin/sh
# perffloor_test.sh — perffloor-ruby prints each floor of a Ruby server as
# the suite reads it (`NAME ops/s=X count=N sec=S ...`): the empty service,
# perfserver.rb's data services over a no-op binding with the count of the
# C methods each calls for perfclient's message, and a new server instance.
: "${top_builddir:?run from make check}"
b=$top_builddir
TMP=$(mktemp -d "${TMPDIR:-/tmp}/perffloor_ruby_test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. "$top_srcdir/performance/tap.sh"
"$b/wrappers/ruby/perffloor-ruby" --num 2000 "$top_srcdir/wrappers/ruby/perfserver.rb" >"$TMP/floor" 2>&1
rc=$?
# line PATTERN: a line of the output matches PATTERN (grep -E)
line() { grep -Eq "$1" "$TMP/floor" || { echo "expected /$1/"; sed 's/^/got: /' "$TMP/floor" | head -8; false; }; }
num='[0-9]+ count=[0-9]+ sec=[0-9.]+'
check "perffloor-ruby runs" test "$rc" -eq 0
check "the empty service's floor" line "^floor-ruby ops/s=$num\$"
check "RDUL's five reads" line "^floor-ruby-RDUL ops/s=$num commands=5 ns/command=-?[0-9.]+\$"
check "ECUL's eleven calls (four reads inside four sends; self is no call)" \
    line "^floor-ruby-ECUL ops/s=$num commands=11 ns/command=-?[0-9.]+\$"
check "BUST's 48 calls for seven items" line "^floor-ruby-BUST ops/s=$num commands=48 ns/command="
check "BFLT's 40 calls for seven items (and times)" line "^floor-ruby-BFLT ops/s=$num commands=40 ns/command="
check "a new server instance's floor" line "^floor-ruby-child ops/s=$num\$"
missing() {
    ! "$b/wrappers/ruby/perffloor-ruby" --num 1000 "$b/no-such-perfserver.rb" >"$TMP/bad" 2>&1 &&
        grep -q 'no-such-perfserver.rb' "$TMP/bad" || { cat "$TMP/bad"; false; }
}
check "a missing perfserver.rb is an error naming it" missing
echo "1..$n"
[ $failed -eq 0 ]
