#!/bin/sh
# perffloor_test.sh — perffloor-tcl prints each floor of a Tcl server as the
# suite reads it (`NAME ops/s=X count=N sec=S ...`): the empty service, the
# commands of each data service with their count, and a new server instance.
: "${top_builddir:?run from make check}"
b=$top_builddir
export LD_LIBRARY_PATH="$b/link/.libs:$b/kernel/.libs" TCLLIBPATH="$b/wrappers/tcl"
out=$("$b/wrappers/tcl/perffloor-tcl" --num 2000 "$top_srcdir/wrappers/tcl/perfserver.tcl" 2>&1)
rc=$?
n=0 failed=0
check() { # check DESCRIPTION PATTERN: a line of the output matches PATTERN (grep -E)
    n=$((n + 1))
    if echo "$out" | grep -Eq "$2"; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"; echo "#   expected /$2/"; echo "$out" | sed 's/^/#   got: /' | head -8
        failed=$((failed + 1))
    fi
}
num='[0-9]+ count=[0-9]+ sec=[0-9.]+'
n=1
if [ $rc -eq 0 ]; then echo "ok 1 - perffloor-tcl runs"; else echo "not ok 1 - perffloor-tcl exits $rc"; failed=1; fi
check "the empty service's floor" "^floor-tcl ops/s=$num\$"
check "RDUL's five reads" "^floor-tcl-RDUL ops/s=$num commands=5 ns/command=-?[0-9.]+\$"
check "ECUL's eleven commands (four reads inside four sends, [self] compiled)" \
    "^floor-tcl-ECUL ops/s=$num commands=11 ns/command=-?[0-9.]+\$"
check "BUST's 48 commands for seven items" "^floor-tcl-BUST ops/s=$num commands=48 ns/command="
check "BFLT's 40 commands for seven items" "^floor-tcl-BFLT ops/s=$num commands=40 ns/command="
check "a new server instance's floor" "^floor-tcl-child ops/s=$num\$"
echo "1..$n"
[ $failed -eq 0 ]
