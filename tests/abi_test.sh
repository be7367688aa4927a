#!/bin/sh
# abi_test.sh — the exported ABI is exactly the public API (TAP): the dynamic
# symbols libmqlink.so and libmkkernel.so define, against the functions the
# public headers (mkkernel.h, mqlink.h) declare and the API description
# (wrappers/api/mqlink.api: function, method, ctor, dtor and runtime lines).
# The only other exports allowed are the kernel internals libmqlink calls,
# marked MKI_SHARED in kernel/mk_internal.h, and the link internals a module
# (link/module.c) calls, marked MQI_SHARED in link/link_int.h and
# link/start/start.h.  Shared builds only.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
libs="$top_builddir/link/.libs/libmqlink.so $top_builddir/kernel/.libs/libmkkernel.so"
for l in $libs; do
    if [ ! -f "$l" ]; then
        echo "1..0 # SKIP static build: no $(basename "$l") to list exports of"
        exit 0
    fi
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/abi_test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
NM=${NM:-nm}

# shellcheck disable=SC2086
$NM -D --defined-only $libs | awk '$2 ~ /^[TDBRVWiu]$/ { print $3 }' | grep -v '^_' |
    sort -u > "$TMP/exported"
# a function is a name followed by '(' but not '(*' (a function pointer type)
for h in kernel/mkkernel.h link/mqlink.h; do
    ${CC:-cc} -E -P -I"$top_srcdir/kernel" -I"$top_builddir" "$top_srcdir/$h"
done | tr '\n' ' ' | grep -oE '\b(Mk|Mq)[A-Za-z0-9_]*[[:space:]]*\([^*]' |
    sed -E 's/[[:space:]]*\(.$//' | sort -u > "$TMP/headers"
sed -nE 's/^[[:space:]]*(function|method|ctor|dtor)[^=]*=[[:space:]]*([A-Za-z0-9_]+)\(.*/\2/p
         s/^[[:space:]]*runtime[[:space:]]+([A-Za-z0-9_]+).*/\1/p' \
    "$top_srcdir/wrappers/api/mqlink.api" | sort -u > "$TMP/api"
{
    sed -nE 's/^MKI_SHARED[^(]*[ *](mki_[a-z0-9_]+)\(.*/\1/p' "$top_srcdir/kernel/mk_internal.h"
    sed -nE 's/^MQI_SHARED[^(]*[ *](mqi_[a-z0-9_]+)\(.*/\1/p' "$top_srcdir/link/link_int.h" \
        "$top_srcdir/link/start/start.h"
} | sort -u > "$TMP/shared"
sort -u "$TMP/headers" "$TMP/shared" > "$TMP/allowed"

failed=0 n=0
# check NAME FILE: ok when FILE is empty, else not ok listing it
check() {
    n=$((n + 1))
    if [ -s "$2" ]; then
        echo "not ok $n - $1"; sed 's/^/#   /' "$2"; failed=1
    else
        echo "ok $n - $1"
    fi
}
echo "1..5"
[ "$(wc -l < "$TMP/exported")" -gt 100 ] && : > "$TMP/few" || echo "only $(wc -l < "$TMP/exported") exports" > "$TMP/few"
check "the libraries export the API (more than 100 symbols)" "$TMP/few"
comm -23 "$TMP/exported" "$TMP/allowed" > "$TMP/extra"
check "every exported symbol is declared by a public header (or MKI_SHARED, MQI_SHARED)" "$TMP/extra"
comm -13 "$TMP/exported" "$TMP/headers" > "$TMP/missing"
check "every function of the public headers is exported" "$TMP/missing"
comm -13 "$TMP/exported" "$TMP/api" > "$TMP/api_missing"
check "every function of the API description is exported" "$TMP/api_missing"
comm -23 "$TMP/headers" "$TMP/api" > "$TMP/undescribed"
check "every function of the public headers is in the API description" "$TMP/undescribed"
exit $failed
