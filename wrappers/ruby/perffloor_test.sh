#!/bin/sh
# perffloor_test.sh — perffloor-ruby prints each floor of a Ruby server as
# the suite reads it (`NAME ops/s=X count=N sec=S ...`): the empty service,
# perfserver.rb's data services over a no-op binding with the count of the
# C methods each calls for perfclient's message, and a new server instance.
: "${top_builddir:?run from make check}"
b=$top_builddir
out=$("$b/wrappers/ruby/perffloor-ruby" --num 2000 "$top_srcdir/wrappers/ruby/perfserver.rb" 2>&1)
rc=$?
n=1 failed=0
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
if [ $rc -eq 0 ]; then echo "ok 1 - perffloor-ruby runs"; else echo "not ok 1 - perffloor-ruby exits $rc"; failed=1; fi
check "the empty service's floor" "^floor-ruby ops/s=$num\$"
check "RDUL's five reads" "^floor-ruby-RDUL ops/s=$num commands=5 ns/command=-?[0-9.]+\$"
check "ECUL's eleven calls (four reads inside four sends; self is no call)" \
    "^floor-ruby-ECUL ops/s=$num commands=11 ns/command=-?[0-9.]+\$"
check "BUST's 48 calls for seven items" "^floor-ruby-BUST ops/s=$num commands=48 ns/command="
check "BFLT's 40 calls for seven items (and times)" "^floor-ruby-BFLT ops/s=$num commands=40 ns/command="
check "a new server instance's floor" "^floor-ruby-child ops/s=$num\$"
bad=$("$b/wrappers/ruby/perffloor-ruby" --num 1000 "$b/no-such-perfserver.rb" 2>&1)
rc=$?
n=$((n + 1))
if [ $rc -ne 0 ] && echo "$bad" | grep -q 'no-such-perfserver.rb'; then
    echo "ok $n - a missing perfserver.rb is an error naming it"
else
    echo "not ok $n - a missing perfserver.rb is an error naming it"; echo "$bad" | sed 's/^/#   got: /' | head -4
    failed=$((failed + 1))
fi
echo "1..$n"
[ $failed -eq 0 ]
