#!/bin/sh
# leftovers_test.sh — no test leaves files behind (TAP, runs last).  Every
# test of make check runs with a temporary directory of its own as TMPDIR
# (AM_TESTS_ENVIRONMENT, Makefile.am), named in TEST.log.tmpdir; once all
# have run, each such directory must be empty: a socket, database, log or
# directory left there is named with the test that left it.  The
# directories and their records are removed either way.
top_builddir=${top_builddir:-.}
n=0 failed=0
records=$(find "$top_builddir" -name '*.log.tmpdir' ! -name 'leftovers_test.log.tmpdir' | sort)
echo "1..$(echo "$records" | grep -c .)"
for r in $records; do
    n=$((n + 1))
    test=${r#"$top_builddir"/}; test=${test%.log.tmpdir}
    dir=$(cat "$r")
    case "$dir" in */mqck.*) ;; *) dir= ;; esac   # only what AM_TESTS_ENVIRONMENT made
    left=
    [ -z "$dir" ] || [ ! -d "$dir" ] || left=$(cd "$dir" && ls -A)
    if [ -z "$left" ]; then
        echo "ok $n - $test leaves nothing in its TMPDIR"
    else
        echo "not ok $n - $test leaves nothing in its TMPDIR"
        echo "$left" | head -20 | sed 's/^/#   left: /'
        failed=$((failed + 1))
    fi
    [ -z "$dir" ] || rm -rf "$dir"
    rm -f "$r"
done
[ $failed -eq 0 ]
