#!/bin/sh
# install_test.sh — what a user gets from `make install`: the tree is
# installed under a temporary root, every installed .pc file must give
# pkg-config flags with no unsubstituted @pattern@, and a C and a C++
# program built with nothing but those flags must run against the
# installed libraries (loading the modules from LIBDIR/mqlink), and Python, Tcl, Ruby and Java (when built) must load the
# installed binding with the variable README.md's "Install" names, and mypy
# must find the Python stubs after `make install` and after `pip install`.
: "${top_builddir:?run from make check}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mqinstall.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() { # check DESCRIPTION COMMAND...
    n=$((n + 1)) what=$1
    shift
    if out=$("$@" 2>&1); then
        echo "ok $n - $what"
    else
        echo "not ok $n - $what"; echo "$out" | sed 's/^/#   /' | head -20
        failed=$((failed + 1))
    fi
}

root=$tmp/root
make -s -C "$top_builddir" install DESTDIR="$root" >"$tmp/install.log" 2>&1 ||
    { echo "1..1"; echo "not ok 1 - make install"; sed 's/^/#   /' "$tmp/install.log" | tail -20; exit 1; }
libdir=$(sed -n 's/^libdir=//p' "$top_builddir/link/mqlink.pc")
prefix=$(sed -n 's/^prefix=//p' "$top_builddir/link/mqlink.pc")
libdir=$(echo "$libdir" | sed "s|\${exec_prefix}|$prefix|; s|\${prefix}|$prefix|")
export PKG_CONFIG_PATH="$root$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
export LD_LIBRARY_PATH="$root$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
static=
[ -e "$root$libdir/libmqlink.so" ] || static=--static

pc_flags() { # every installed .pc gives flags without a leftover @pattern@
    flags=$(pkg-config $static --cflags --libs "$1") || return 1
    echo "$flags"
    ! echo "$flags" | grep -q @ && ! grep -q '@[a-z_]*@' "$PKG_CONFIG_PATH/$1.pc"
}
pcs=$(cd "$PKG_CONFIG_PATH" && ls *.pc | sed 's/\.pc$//')
for pc in $pcs; do
    check "$pc.pc: pkg-config --cflags --libs" pc_flags "$pc"
done

cat > "$tmp/hello.c" <<'SRC'
#include <stdio.h>
#include <mqlink.h>
int main(void) {
    MqContextC *ctx = MqContextCreate();
    MkBufferStreamC *bus = MkBufferStreamCreate();
    MK_I32 v = 0;
    MkBufferStreamWriteI32(bus, 42);
    MkBufferStreamPosToStart(bus);
    if (!ctx || MkBufferStreamReadI32(bus, &v) != MK_OK || v != 42) return 1;
    MkBufferStreamDelete(bus);
    MqContextDelete(ctx);
    puts("installed C ok");
    return 0;
}
SRC
build_c() {
    ${CC:-cc} $CFLAGS "$tmp/hello.c" -o "$tmp/hello" $(pkg-config $static --cflags --libs mqlink) &&
        "$tmp/hello"
}
check "a C program built with pkg-config mqlink runs" build_c

# The installed libmqlink finds its modules in LIBDIR/mqlink with nothing
# set (a shared build; a static one has them linked in).  An error from a
# module itself shows it was loaded: persistent delivery's for a storage it
# cannot open, TLS's (when built) for an unreadable --tls-ca.
cat > "$tmp/modules.c" <<'SRC'
#include <stdio.h>
#include <string.h>
#include <mqlink.h>
static int fails_with(const char *opt, const char *file, const char *want) {
    MqContextC *ctx = MqContextCreate();
    const char *argv[] = {"modules", "--tcp", "--port", "1", opt, file, NULL};
    int ok = MqLinkCreate(ctx, 6, argv) == MK_ERROR && strstr(MqErrorGetText(ctx), want);
    puts(MqErrorGetText(ctx));
    MqContextDelete(ctx);
    return ok;
}
int main(int argc, char **argv) {
    if (argc > 1)
        return !fails_with("--tls-ca", "/nonexistent/ca.pem", "/nonexistent/ca.pem: cannot read it");
    return !fails_with("--storage", "/nonexistent/calls.db", "needs a working storage");
}
SRC
build_modules() {
    ${CC:-cc} $CFLAGS "$tmp/modules.c" -o "$tmp/modules" $(pkg-config $static --cflags --libs mqlink)
}
check "a C program using the modules builds with pkg-config mqlink" build_modules
check "its persistent link loads the installed persistence module" "$tmp/modules"
[ -n "$static" ] || check "the persistence module is installed in LIBDIR/mqlink" \
    test -f "$root$libdir/mqlink/mqlink_persist.so"
if grep -q '^#define MQ_HAVE_OPENSSL 1' "$top_builddir/config.h"; then
    check "its TLS link loads the installed TLS module" "$tmp/modules" tls
    [ -n "$static" ] ||
        check "the TLS module is installed in LIBDIR/mqlink" test -f "$root$libdir/mqlink/mqlink_tls.so"
fi

if echo "$pcs" | grep -qx mqlinkcxx; then
    cat > "$tmp/hello.cc" <<'SRC'
#include <iostream>
#include <mqlink.hh>
int main() {
    mqlink::MkBufferStreamC bus;
    bus.WriteI32(42);
    bus.PosToStart();
    if (bus.ReadI32() != 42) return 1;
    std::cout << "installed C++ ok\n";
    return 0;
}
SRC
    build_cxx() {
        ${CXX:-c++} -std=c++17 $CXXFLAGS "$tmp/hello.cc" -o "$tmp/hellocxx" \
            $(pkg-config $static --cflags --libs mqlinkcxx) && "$tmp/hellocxx"
    }
    check "a C++ program built with pkg-config mqlinkcxx runs" build_cxx
fi

# What README.md's "Install" tells a user to set for each language built:
# the binding must load from the installed tree (not the build tree).
installed_from() { # installed_from COMMAND...: the file it prints is under $root
    out=$("$@") || return 1
    echo "$out"
    case "$out" in "$root"/*) ;; *) return 1 ;; esac
}
# Python typing (PEP 561): mypy finds the stubs where HOW put them (SITE) and
# holds a program to them: the good file passes, each bad file fails on its
# one mistake (not on a missing module).
have_mypy() {
    "${PYTHON:-python3}" -m mypy --version >/dev/null 2>&1 ||
        "${PYTHON:-python3}" -m pip install -q mypy >/dev/null 2>&1
}
mypy_run() { # mypy_run SITE FILE
    PYTHONPATH=$1 "${PYTHON:-python3}" -m mypy --strict --no-incremental \
        --cache-dir="$tmp/mypy-cache" "$2"
}
mypy_refuses() { # mypy_refuses SITE FILE EXPECTED: fails, saying EXPECTED
    out=$(mypy_run "$1" "$2")
    echo "$out"
    ! echo "$out" | grep -q '^Success' && echo "$out" | grep -qF -- "$3"
}
typecheck_cases() { # typecheck_cases HOW SITE
    t=$top_srcdir/wrappers/python/typecheck
    if ! have_mypy; then
        check "python: mypy after $1 # SKIP mypy is missing and pip cannot install it" true
        return
    fi
    check "python: mypy after $1 accepts good.py" mypy_run "$2" "$t/good.py"
    check "python: mypy after $1 refuses a str for the argument list" \
        mypy_refuses "$2" "$t/bad_argv_str.py" 'LinkCreate" of "MqContextC" has incompatible type "str"'
    check "python: mypy after $1 refuses a two-argument service" \
        mypy_refuses "$2" "$t/bad_callback_arity.py" 'ServiceCreate" of "MqContextC" has incompatible type'
    check "python: mypy after $1 refuses MK_TYPE_I32 for a wait mode" \
        mypy_refuses "$2" "$t/bad_enum.py" 'expected "MqWaitE"'
}
if ls "$top_builddir"/wrappers/python/mqlink*.so >/dev/null 2>&1; then
    py_import() {
        PYTHONPATH=$(echo "$root$prefix"/lib/python3*/site-packages) installed_from \
            "${PYTHON:-python3}" -c 'import mqlink; print(mqlink.__file__)'
    }
    check "python: PYTHONPATH=PREFIX/lib/python3*/site-packages, import mqlink" py_import
    typecheck_cases "make install" "$(echo "$root$prefix"/lib/python3*/site-packages)"
    pip_install() { # pip install wrappers/python against the installed tree, from a
        # copy: pip builds in the source directory (build/, *.egg-info)
        mkdir -p "$tmp/src/wrappers" &&
            cp -R "$top_srcdir/wrappers/python" "$top_srcdir/wrappers/api" \
                "$top_srcdir/wrappers/gen" "$tmp/src/wrappers/" &&
            "${PYTHON:-python3}" -m pip install -q --no-deps --target "$tmp/pip" \
                "$tmp/src/wrappers/python" 2>&1
    }
    if out=$(pip_install); then
        typecheck_cases "pip install" "$tmp/pip"
    elif echo "$out" | grep -q "No matching distribution\|Could not find a version"; then
        check "python: pip install # SKIP pip cannot fetch the build requirements" true
    else
        check "python: pip install wrappers/python" sh -c 'echo "$1"; false' - "$out"
    fi
fi
if [ -e "$top_builddir/wrappers/tcl/libmqlinktcl.so" ]; then
    tcl_require() {
        echo 'package require mqlink; puts [lindex [package ifneeded mqlink [package present mqlink]] 1]' |
            TCLLIBPATH="$root$prefix/lib/tcl" installed_from "${TCLSH:-tclsh}"
    }
    check "tcl: TCLLIBPATH=PREFIX/lib/tcl, package require mqlink" tcl_require
    tcl_no_search() { # the installed perfserver.tcl registers the package itself
        mkdir -p "$tmp/tclpath/other" &&
            echo "close [open {$tmp/searched} w]" >"$tmp/tclpath/other/pkgIndex.tcl" &&
            sed "s|$libdir/tcl|$root$libdir/tcl|g" "$root$prefix/share/mqlink/perfserver.tcl" \
                >"$tmp/perfserver.tcl" &&
            TCLLIBPATH="$tmp/tclpath" "${TCLSH:-tclsh}" "$tmp/perfserver.tcl" --version || return 1
        [ ! -e "$tmp/searched" ] || { echo "package require searched auto_path"; return 1; }
    }
    check "tcl: the installed perfserver.tcl loads mqlink without Tcl's package search" \
        tcl_no_search
fi
if [ -e "$top_builddir/wrappers/ruby/mqlink.so" ]; then
    rb_require() {
        RUBYLIB="$root$prefix/lib/ruby" installed_from "${RUBY:-ruby}" -e \
            'require "mqlink"; puts $LOADED_FEATURES.grep(/mqlink\.so$/).first'
    }
    check "ruby: RUBYLIB=PREFIX/lib/ruby, require 'mqlink'" rb_require
    gem_install() { # README: gem build, then gem install against the installed tree;
        # from a copy of a fresh checkout's files (no gen/ yet, as in a clone)
        mkdir -p "$tmp/rbsrc/wrappers" &&
            cp -R "$top_srcdir/wrappers/ruby" "$top_srcdir/wrappers/api" \
                "$top_srcdir/wrappers/gen" "$tmp/rbsrc/wrappers/" &&
            rm -rf "$tmp/rbsrc/wrappers/ruby/gen" &&
            (cd "$tmp/rbsrc/wrappers/ruby" && "${GEM:-gem}" build -q mqlink.gemspec) &&
            MQLINK_PREFIX="$root$prefix" "${GEM:-gem}" install -q --local --no-document \
                --install-dir "$tmp/gems" "$tmp"/rbsrc/wrappers/ruby/mqlink-*.gem &&
            GEM_PATH="$tmp/gems" "${RUBY:-ruby}" -e \
                'require "mqlink"; puts $LOADED_FEATURES.grep(/mqlink\.so$/).first' |
            grep "^$tmp/gems/"
    }
    check "ruby: gem build mqlink.gemspec (a fresh checkout's), MQLINK_PREFIX=PREFIX gem install" gem_install
fi
if [ -e "$top_builddir/wrappers/java/mqlink.jar" ]; then
    java_cp() { # CLASSPATH is all: the jar finds libmqlinkjni.so beside itself
        printf '%s\n' 'public class Installed { public static void main(String[] a) {' \
            '  System.out.println(org.mqlink.MqLink.MqVersion()); } }' >"$tmp/Installed.java"
        CLASSPATH="$root$prefix/share/java/mqlink.jar" "${JAVA:-java}" "$tmp/Installed.java"
    }
    check "java: CLASSPATH=PREFIX/share/java/mqlink.jar, org.mqlink" java_cp
fi
echo "1..$n"
[ "$failed" -eq 0 ]
