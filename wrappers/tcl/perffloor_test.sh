#!/bin/sh
# perffloor_test.sh — perffloor-tcl prints each floor of a Tcl server as the
# suite reads it (`NAME ops/s=X count=N sec=S ...`): the empty service, the
# commands of each data service with their count, and a new server instance;
# the services are those of the perfserver.tcl it is given.
: "${top_builddir:?run from make check}"
b=$top_builddir
export LD_LIBRARY_PATH="$b/link/.libs:$b/kernel/.libs" TCLLIBPATH="$b/wrappers/tcl"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/perffloor_tcl_test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. "$top_srcdir/performance/tap.sh"
"$b/wrappers/tcl/perffloor-tcl" --num 2000 "$top_srcdir/wrappers/tcl/perfserver.tcl" >"$TMP/floor" 2>&1
rc=$?
# line PATTERN: a line of the output matches PATTERN (grep -E)
line() { grep -Eq "$1" "$TMP/floor" || { echo "expected /$1/"; sed 's/^/got: /' "$TMP/floor" | head -8; false; }; }
num='[0-9]+ count=[0-9]+ sec=[0-9.]+'
check "perffloor-tcl runs" test "$rc" -eq 0
check "the empty service's floor" line "^floor-tcl ops/s=$num\$"
check "RDUL's five reads" line "^floor-tcl-RDUL ops/s=$num commands=5 ns/command=-?[0-9.]+\$"
check "ECUL's eleven commands (four reads inside four sends, [self] compiled)" \
    line "^floor-tcl-ECUL ops/s=$num commands=11 ns/command=-?[0-9.]+\$"
check "BUST's 48 commands for seven items" line "^floor-tcl-BUST ops/s=$num commands=48 ns/command="
check "BFLT's 40 commands for seven items" line "^floor-tcl-BFLT ops/s=$num commands=40 ns/command="
check "a new server instance's floor" line "^floor-tcl-child ops/s=$num\$"
# The services are the perfserver's own: BFLT sending each item twice in
# its for loop runs 14 commands more.
sed 's/^\( *\)\(my SendBUF \[\$bfl IndexGet \$i\]\)$/\1\2\n\1\2/' \
    "$top_srcdir/wrappers/tcl/perfserver.tcl" >"$TMP/perfserver.tcl"
check "the changed perfserver has the line twice" test "$(grep -c 'IndexGet' "$TMP/perfserver.tcl")" -eq 2
"$b/wrappers/tcl/perffloor-tcl" --num 2000 "$TMP/perfserver.tcl" >"$TMP/floor" 2>&1
check "BFLT's loop as the perfserver writes it" line "^floor-tcl-BFLT ops/s=$num commands=54 ns/command="
check "a perfserver without a service is an error" sh -c "sed '/method RDUL/,/^    }/d' \
    '$top_srcdir/wrappers/tcl/perfserver.tcl' >'$TMP/p2.tcl'; ! '$b/wrappers/tcl/perffloor-tcl' \
    --num 2000 '$TMP/p2.tcl' >'$TMP/out2' 2>&1 && grep -q 'PerfServer' '$TMP/out2'"
echo "1..$n"
[ $failed -eq 0 ]
