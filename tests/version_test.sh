#!/bin/sh
# version_test.sh — one version, configure's AC_INIT, everywhere a user asks:
# `--version` of a C program and of each language's perfserver (the
# library's option), MkVersion/MqVersion in each binding, Python's
# mqlink.__version__, Java's MqLink.  Languages that were not built are skipped.
: "${top_builddir:?run from make check}" "${top_srcdir:?}"
b=$top_builddir
want=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$b/config.h")
export LD_LIBRARY_PATH="$b/link/.libs:$b/kernel/.libs" PYTHONPATH="$b/wrappers/python" \
    RUBYLIB="$b/wrappers/ruby" TCLLIBPATH="$b/wrappers/tcl"
n=0 failed=0
check() { # check DESCRIPTION EXPECTED COMMAND...: COMMAND prints EXPECTED and exits 0
    n=$((n + 1)) what=$1 expect=$2
    shift 2
    if out=$("$@" 2>&1) && [ "$out" = "$expect" ]; then
        echo "ok $n - $what"
    else
        echo "not ok $n - $what"; echo "#   expected: $expect"; echo "$out" | sed 's/^/#   got: /' | head -5
        failed=$((failed + 1))
    fi
}
skip() { n=$((n + 1)); echo "ok $n - # SKIP $1"; }

[ -n "$want" ] || { echo "1..0 # SKIP no PACKAGE_VERSION in config.h"; exit 0; }
check "perfserver --version" "perfserver (mqlink $want)" "$b/perfserver/perfserver" --version
check "a C server's --version names argv[0]" "testserver (mqlink $want)" "$b/tests/testserver" --version
check "--version among other options" "perfserver (mqlink $want)" \
    "$b/perfserver/perfserver" --uds --file /nonexistent/x --version

if ls "$b"/wrappers/python/mqlink*.so >/dev/null 2>&1; then
    py=${PYTHON:-python3}
    check "python perfserver --version" "perfserver.py (mqlink $want)" \
        "$py" "$top_srcdir/wrappers/python/perfserver.py" --version
    check "python MqVersion, MkVersion, __version__" "$want $want $want" "$py" -c \
        'import mqlink; print(mqlink.MqVersion(), mqlink.MkVersion(), mqlink.__version__)'
else skip "python not built"; skip "python not built"; fi

if [ -e "$b/wrappers/tcl/libmqlinktcl.so" ]; then
    check "tcl perfserver --version" "perfserver.tcl (mqlink $want)" \
        "${TCLSH:-tclsh}" "$top_srcdir/wrappers/tcl/perfserver.tcl" --version
    tcl_versions() {
        echo 'set v [package require mqlink]; puts "[mqlink::MqVersion] [mqlink::MkVersion] $v"' |
            "${TCLSH:-tclsh}"
    }
    check "tcl MqVersion, MkVersion, package version" "$want $want $want" tcl_versions
else skip "tcl not built"; skip "tcl not built"; fi

if [ -e "$b/wrappers/ruby/mqlink.so" ]; then
    check "ruby perfserver --version" "perfserver.rb (mqlink $want)" \
        "${RUBY:-ruby}" "$top_srcdir/wrappers/ruby/perfserver.rb" --version
    check "ruby MqVersion, MkVersion" "$want $want" "${RUBY:-ruby}" -e \
        'require "mqlink"; puts "#{Mqlink.MqVersion()} #{Mqlink.MkVersion()}"'
else skip "ruby not built"; skip "ruby not built"; fi
if [ -e "$b/wrappers/java/perfserver.jar" ]; then
    jlib=-Dmqlink.library=$b/wrappers/java/.libs/libmqlinkjni.so
    check "java perfserver --version" "perfserver-java (mqlink $want)" \
        "${JAVA:-java}" "$jlib" -jar "$b/wrappers/java/perfserver.jar" --version
    java_versions() {
        tmp=$(mktemp -d "${TMPDIR:-/tmp}/mqversion.XXXXXX") || return 1
        printf '%s\n' 'public class Version { public static void main(String[] a) {' \
            '  System.out.println(org.mqlink.MqLink.MqVersion() + " " + org.mqlink.MqLink.MkVersion()); } }' \
            >"$tmp/Version.java"
        "${JAVA:-java}" "$jlib" -cp "$b/wrappers/java/mqlink.jar" "$tmp/Version.java"
        rc=$?; rm -rf "$tmp"; return $rc
    }
    check "java MqLink.MqVersion, MkVersion" "$want $want" java_versions
else skip "java not built"; skip "java not built"; fi
echo "1..$n"
[ "$failed" -eq 0 ]
