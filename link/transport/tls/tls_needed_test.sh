#!/bin/sh
# tls_needed_test.sh — libmqlink.so does not need OpenSSL (TAP): TLS is the
# module mqlink_tls.so, loaded by the first link that asks for it, so a
# program with plain links never maps libssl or libcrypto.  The module
# names what it needs itself: OpenSSL, and libmqlink (a binding loads
# libmqlink RTLD_LOCAL: the module's calls into it must still resolve).
# Shared builds only.
top_builddir=${top_builddir:-.}
lib=$top_builddir/link/.libs/libmqlink.so
mod=$top_builddir/link/.libs/mqlink_tls.so
if [ ! -f "$lib" ]; then
    echo "1..0 # SKIP static build: no libmqlink.so"
    exit 0
fi
READELF=${READELF:-readelf}
needed() { "$READELF" -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
n=0 failed=0
check() { # check DESCRIPTION: the rest of the line is the command, ok when it succeeds
    n=$((n + 1)) what=$1
    shift
    if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; failed=1; fi
}
no_openssl() { ! needed "$lib" | grep -E '^lib(ssl|crypto)\.so' | sed 's/^/#   needs /' | grep .; }
module_needs() { needed "$mod" | grep -qx "$1" || { echo "#   $mod does not need $1"; false; }; }
echo "1..4"
check "libmqlink.so does not need libssl or libcrypto" no_openssl
check "the module mqlink_tls.so is built beside it" test -f "$mod"
check "the module needs libssl" module_needs libssl.so.3
check "the module needs libmqlink (so it loads under RTLD_LOCAL)" module_needs libmqlink.so.0
exit $failed
