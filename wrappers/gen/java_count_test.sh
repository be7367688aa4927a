#!/bin/sh
# java_count_test.sh — TAP: the Java classes answer a list's Size from a
# count kept in Java (java.py, counted), so the generator must know what each
# of the list's methods does to the count.  A list whose methods it knows
# generates; a method it cannot classify as read-only or as a known count
# change (one returning a value included) fails the generator (exit status 1,
# nothing written) with FILE:LINE: naming that method, instead of a Java class
# whose Size goes stale.
: "${top_srcdir:=$(dirname "$0")/../..}"
PY=${PYTHON:-python3}
gen="$top_srcdir/wrappers/gen/mqgen.py"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0

# list EXTRA: a list class the generator counts, then EXTRA as line 10.
list() {
    printf '%s\n' 'module sample "count test"' \
        'class MkBufferC c=MkBufferC errors=kernel free=MkBufferDelete "One typed value."' \
        'ctor Create = MkBufferCreate() -> self "Create."' \
        'class MkBufferListC c=MkBufferListC errors=kernel free=MkBufferListDelete "A list."' \
        'ctor Create = MkBufferListCreate() -> self "Create."' \
        'method Reset = MkBufferListReset(self) -> void "Empty it."' \
        'method Size = MkBufferListSize(self) -> I32 "Number of values."' \
        'method IndexGet = MkBufferListIndexGet(self, i:I32) -> BUF borrowed raises-null "Value i."' \
        'method AppendI32 = MkBufferListAppendI32(self, v:I32) -> err "Append."' \
        "$1"
}

# bad NAME METHOD LINE: the generator refuses LINE, naming METHOD.
bad() {
    n=$((n + 1))
    api="$tmp/bad$n.api"
    list "$3" > "$api"
    "$PY" "$gen" "$api" java-classes "$tmp/out$n" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q "^$api:10: .*MkBufferListC\.$2\b" "$tmp/err" &&
            [ ! -e "$tmp/out$n" ]; then
        echo "ok $n - $1 fails with FILE:LINE and the method"
    else
        echo "not ok $n - $1 fails with FILE:LINE and the method"
        echo "#   exit status $rc, stderr:"
        sed 's/^/#   /' "$tmp/err"
    fi
}

echo "1..4"
n=1
list 'method AppendDBL = MkBufferListAppendDBL(self, v:DBL) -> err "Append."' > "$tmp/good.api"
if "$PY" "$gen" "$tmp/good.api" java-classes "$tmp/good" 2> "$tmp/err" &&
        grep -q 'count = count > 0 ? count + 1 : 0;' "$tmp/good" &&
        grep -q 'return count - 1;' "$tmp/good"; then
    echo "ok 1 - a list of known methods generates, its Size answered from the count"
else
    echo "not ok 1 - a list of known methods generates, its Size answered from the count"
    sed 's/^/#   /' "$tmp/err"
fi
bad "a method that changes the list and returns a value" PopI32 \
    'method PopI32 = MkBufferListPopI32(self, out v:I32) -> err "Remove the last value."'
bad "an Append that returns a value" AppendSTR \
    'method AppendSTR = MkBufferListAppendSTR(self, v:STR) -> I32 "Append; the new size."'
bad "a method of unknown effect" Sort \
    'method Sort = MkBufferListSort(self) -> void "Sort the values."'
