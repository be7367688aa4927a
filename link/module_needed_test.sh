#!/bin/sh
# module_needed_test.sh — libmqlink.so needs neither OpenSSL nor sqlite3
# (TAP): TLS and persistent delivery are the modules mqlink_tls.so and
# mqlink_persist.so, loaded on the first link that needs them, so a program
# with plain links maps neither.  Each module names what it needs itself:
# its library, and libmqlink (a binding loads libmqlink RTLD_LOCAL: the
# module's calls into it must still resolve).  Shared builds only.
top_builddir=${top_builddir:-.}
libs=$top_builddir/link/.libs
if [ ! -f "$libs/libmqlink.so" ]; then
    echo "1..0 # SKIP static build: no libmqlink.so"
    exit 0
fi
READELF=${READELF:-readelf}
needed() { "$READELF" -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
n=0 failed=0
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
    n=$((n + 1)) what=$1
    shift
    if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; failed=1; fi
}
not_needed() { ! needed "$libs/libmqlink.so" | grep -E "$1" | sed 's/^/#   needs /' | grep .; }
module_needs() { # module_needs MODULE LIBRARY
    needed "$libs/$1" | grep -qx "$2" || { echo "#   $1 does not need $2"; false; }
}
echo "1..8"
check "libmqlink.so does not need libssl or libcrypto" not_needed '^lib(ssl|crypto)\.so'
check "libmqlink.so does not need libsqlite3" not_needed '^libsqlite3\.so'
for m in mqlink_tls.so mqlink_persist.so; do
    check "the module $m is built beside it" test -f "$libs/$m"
done
check "mqlink_tls.so needs libssl" module_needs mqlink_tls.so libssl.so.3
check "mqlink_persist.so needs libsqlite3" module_needs mqlink_persist.so libsqlite3.so.0
for m in mqlink_tls.so mqlink_persist.so; do
    check "$m needs libmqlink (so it loads under RTLD_LOCAL)" module_needs "$m" libmqlink.so.0
done
exit $failed
