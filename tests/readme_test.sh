#!/bin/sh
# readme_test.sh — the C example of README.md ("## Usage") is what a user
# copies first: it is taken out of the README as it stands, must compile
# without a warning under -Wall -Wextra, and must serve a call.
: "${top_builddir:?run from make check}" "${top_srcdir:?}"
b=$top_builddir
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mqreadme.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "1..2"
awk '/^## Usage/ {u = 1} u && /^```c$/ {c = 1; next} c && /^```$/ {exit} c' \
    "$top_srcdir/README.md" >"$tmp/server.c"
# libtool links the build tree's libraries, shared or static (with their
# dependencies), as the build's own programs are linked
build() { # build NAME [FLAGS...]: $tmp/NAME.c -> $tmp/NAME
    name=$1; shift
    "$b/libtool" --quiet --tag=CC --mode=link ${CC:-cc} $CFLAGS "$@" -I"$top_srcdir/kernel" \
        -I"$top_srcdir/link" "$tmp/$name.c" -o "$tmp/$name" \
        "$b/link/libmqlink.la" "$b/kernel/libmkkernel.la" >"$tmp/cc.log" 2>&1
}
if [ -s "$tmp/server.c" ] && build server -Wall -Wextra -Werror; then
    echo "ok 1 - the README's C example compiles with -Wall -Wextra -Werror"
else
    echo "not ok 1 - the README's C example compiles with -Wall -Wextra -Werror"
    sed 's/^/#   /' "$tmp/cc.log" | head -20
    echo "ok 2 - # SKIP not compiled"; exit 1
fi
cat >"$tmp/client.c" <<'SRC'
#include <stdio.h>
#include <mqlink.h>
int main(int argc, char **argv) {
    MqContextC *c = MqContextCreate();
    MK_I32 v = 0;
    if (MqLinkCreate(c, argc, (const char **)argv) != MK_OK || MqSendSTART(c) != MK_OK ||
        MqSendI32(c, 42) != MK_OK || MqSendEND_AND_WAIT(c, "ECHO", MQ_TIMEOUT_DEFAULT) != MK_OK ||
        MqReadI32(c, &v) != MK_OK) {
        fprintf(stderr, "client: %s\n", MqErrorGetText(c));
        return 1;
    }
    printf("ECHO 42 -> %d\n", v);
    MqContextDelete(c);
    return 0;
}
SRC
if build client &&
    out=$("$tmp/client" @ "$tmp/server" 2>&1) && [ "$out" = "ECHO 42 -> 42" ]; then
    echo "ok 2 - the README's C server answers ECHO"
else
    echo "not ok 2 - the README's C server answers ECHO"; cat "$tmp/cc.log"; echo "$out" | sed 's/^/#   /'
    exit 1
fi
