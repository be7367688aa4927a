#!/bin/sh
# parse_test.sh — TAP: a description with one bad line makes the generator
# fail (exit status 1, nothing written) with a message that starts with
# FILE:LINE: for that line.
: "${top_srcdir:=$(dirname "$0")/../..}"
PY=${PYTHON:-python3}
gen="$top_srcdir/wrappers/gen/mqgen.py"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0

# case NAME LINE: the bad line comes fourth, after three good ones.
case_() {
    n=$((n + 1))
    api="$tmp/bad$n.api"
    printf '%s\n' 'module sample "parse test"' \
        'class MkBufferC c=MkBufferC errors=kernel free=MkBufferDelete "One typed value."' \
        'ctor Create = MkBufferCreate() -> self "Create."' "$2" > "$api"
    "$PY" "$gen" "$api" cxx "$tmp/out$n" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q "^$api:4: " "$tmp/err" && [ ! -e "$tmp/out$n" ]; then
        echo "ok $n - $1 fails with FILE:LINE"
    else
        echo "not ok $n - $1 fails with FILE:LINE"
        echo "#   exit status $rc, stderr:"
        sed 's/^/#   /' "$tmp/err"
    fi
}

echo "1..15"
case_ "an unknown parameter attribute" 'method SetI8 = MkBufferSetI8(self, v:I8 bogus) -> void "Store."'
case_ "an unknown class attribute" 'class MqConfigFileC c=MqConfigFileC errors=kernel freee=MqConfigFileDelete "Typed."'
case_ "a class attribute with a bad value" 'class MqConfigFileC c=MqConfigFileC errors=thread free=MqConfigFileDelete "Typed."'
case_ "an unknown flag" 'method SetI8 = MkBufferSetI8(self, v:I8) -> void fast "Store."'
case_ "a query that is not a method" 'function MkTypeName = MkTypeName(type:TYPE) -> STR query "Name."'
case_ "an unknown return word" 'method SetI8 = MkBufferSetI8(self, v:I8) -> maybe "Store."'
case_ "a type that cannot be returned" 'method GetBIN = MkBufferGetBIN(self) -> BIN "Bytes."'
case_ "an unknown type" 'method SetI8 = MkBufferSetI8(self, v:INT8) -> void "Store."'
case_ "an input-only type as an out parameter" 'method GetTOKEN = MkBufferGetTOKEN(self, out v:TOKEN) -> err "Token."'
case_ "a callback without a scope" 'method On = MkBufferOn(self, fn:CALLBACK) -> err "Callback."'
case_ "a method without self" 'method SetI8 = MkBufferSetI8(v:I8) -> void "Store."'
case_ "a malformed method line" 'method SetI8 = MkBufferSetI8(self, v:I8 -> void "Store."'
case_ "a malformed const line" 'const MK_OK zero MkErrorE "done"'
case_ "an unknown line kind" 'property Size -> I32 "Size."'
case_ "out parameters without -> err" 'method GetI8 = MkBufferGetI8(self, out v:I8) -> void "The value."'
