#!/bin/sh
# examples_test.sh — every example pair of examples/ runs against the build
# tree and prints what examples/*.expected says: a key-value client against
# its server in each language built (and across languages), the callback
# and persistent-call clients in C and Python.
: "${top_builddir:?run from make check}" "${top_srcdir:?}"
b=$top_builddir s=$top_srcdir/examples e=$top_builddir/examples
export LD_LIBRARY_PATH="$b/link/.libs:$b/kernel/.libs" PYTHONPATH="$b/wrappers/python" \
    RUBYLIB="$b/wrappers/ruby" TCLLIBPATH="$b/wrappers/tcl"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mqexamples.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
py=${PYTHON:-python3} tcl=${TCLSH:-tclsh} rb=${RUBY:-ruby}
n=0 failed=0
pair() { # pair NAME EXPECTED CLIENT... : the client's output is EXPECTED
    n=$((n + 1)) name=$1 expected=$2
    shift 2
    if timeout 60 "$@" >"$tmp/out" 2>"$tmp/err" && cmp -s "$tmp/out" "$expected"; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name"
        diff "$expected" "$tmp/out" | sed 's/^/#   /'; sed 's/^/#   stderr: /' "$tmp/err"
        failed=$((failed + 1))
    fi
}
skip() { n=$((n + 1)); echo "ok $n - # SKIP $1"; }
kv=$s/kv.expected cb=$s/callback.expected
have_cxx=; [ -x "$e/cxx/kv_client" ] && have_cxx=1
have_py=; ls "$b"/wrappers/python/mqlink*.so >/dev/null 2>&1 && have_py=1
have_tcl=; [ -e "$b/wrappers/tcl/libmqlinktcl.so" ] && have_tcl=1
have_rb=; [ -e "$b/wrappers/ruby/mqlink.so" ] && have_rb=1

pair "C kv_client @ kv_server" "$kv" "$e/c/kv_client" @ "$e/c/kv_server"
pair "C callback_client @ kv_server" "$cb" "$e/c/callback_client" --storage "$tmp/c.db" @ "$e/c/kv_server"
if [ -n "$have_cxx" ]; then
    pair "C++ kv_client @ kv_server" "$kv" "$e/cxx/kv_client" @ "$e/cxx/kv_server"
else skip "C++ not built"; fi
if [ -n "$have_py" ]; then
    pair "Python kv_client @ kv_server" "$kv" "$py" "$s/python/kv_client.py" @ "$py" "$s/python/kv_server.py"
    pair "Python callback_client @ kv_server" "$cb" \
        "$py" "$s/python/callback_client.py" --storage "$tmp/py.db" @ "$py" "$s/python/kv_server.py"
    pair "C kv_client @ Python kv_server" "$kv" "$e/c/kv_client" @ "$py" "$s/python/kv_server.py"
else skip "Python not built"; skip "Python not built"; skip "Python not built"; fi
if [ -n "$have_tcl" ]; then
    pair "Tcl kv_client @ kv_server" "$kv" "$tcl" "$s/tcl/kv_client.tcl" @ "$tcl" "$s/tcl/kv_server.tcl"
else skip "Tcl not built"; fi
if [ -n "$have_rb" ]; then
    pair "Ruby kv_client @ kv_server" "$kv" "$rb" "$s/ruby/kv_client.rb" @ "$rb" "$s/ruby/kv_server.rb"
else skip "Ruby not built"; fi
if [ -n "$have_rb" ] && [ -n "$have_tcl" ]; then
    pair "Ruby kv_client @ Tcl kv_server" "$kv" "$rb" "$s/ruby/kv_client.rb" @ "$tcl" "$s/tcl/kv_server.tcl"
else skip "Ruby or Tcl not built"; fi

# a listening server and a client that connects to it (the README's second form)
sock=$tmp/kv.sock
"$e/c/kv_server" --uds --file "$sock" --fork &
srv=$!
i=0; while [ ! -S "$sock" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
pair "C kv_client --uds against kv_server --uds --fork" "$kv" "$e/c/kv_client" --uds --file "$sock"
kill "$srv"; wait "$srv" 2>/dev/null
echo "1..$n"
[ "$failed" -eq 0 ]
