#!/usr/bin/env bash
# build.bash SETUP ACTION... — configure, build, install, test mqlink.
#
#   SETUP   check          debug build in build/check, for the test suite
#           check-asan     the same with AddressSanitizer + UBSan in build/check-asan
#           perf-release   shared libraries, threads, -O2
#           perf-aggressive static libraries, no threads, -O3 -march=native, LTO
#   ACTION  deps      install missing Debian packages (run by every other action)
#           config    bootstrap and configure
#           build     make
#           install   make install into the setup's inst directory
#           check     make check (the test suite)
#           test      install, then performance/performance.bash, then results.bash
#                     (PERF_ARGS in the environment is passed to performance.bash)
#
# `./build.bash check` alone means `./build.bash check deps config build check`;
# `./build.bash perf-release test` builds whatever is missing first.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEBIAN_PACKAGES="autoconf automake libtool pkg-config make gcc g++ libsqlite3-dev libconfig-dev
  tcl-dev ruby-dev default-jdk python3-dev gnuplot-nox"

die() { echo "build.bash: $*" >&2; exit 2; }

action_deps() {
    local missing=()
    for p in $DEBIAN_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" = 0 ]; then
        echo "build.bash: installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        die "missing packages; run: sudo apt-get install -y ${missing[*]}"
    fi
}

setup_vars() {
    TARGET=$(gcc -dumpmachine)
    case "$SETUP" in
    check)
        BUILD=$TOP/build/check; PREFIX=$TOP/build/check/inst
        CONFIG_ARGS=(--enable-debug --enable-threads=yes) ;;
    check-asan)
        BUILD=$TOP/build/check-asan; PREFIX=$TOP/build/check-asan/inst
        CONFIG_ARGS=(--enable-debug --enable-threads=yes --enable-sanitize --disable-shared --with-python=no --with-java=no) ;;
    perf-release)
        BUILD=$TOP/performance/gen/$TARGET/$SETUP/build; PREFIX=$TOP/performance/gen/$TARGET/$SETUP/inst
        CONFIG_ARGS=(--enable-shared=yes --enable-static=no --enable-threads=yes --enable-debug=no
                     CFLAGS=-O2 CXXFLAGS=-O2) ;;
    perf-aggressive)
        BUILD=$TOP/performance/gen/$TARGET/$SETUP/build; PREFIX=$TOP/performance/gen/$TARGET/$SETUP/inst
        CONFIG_ARGS=(--enable-shared=no --enable-static=yes --enable-threads=no --enable-debug=no
                     "CFLAGS=-O3 -march=native -flto=auto" "CXXFLAGS=-O3 -march=native -flto=auto"
                     "LDFLAGS=-flto=auto" AR=gcc-ar NM=gcc-nm RANLIB=gcc-ranlib --with-pic) ;;
    *) die "unknown setup '$SETUP' (check, check-asan, perf-release, perf-aggressive)" ;;
    esac
}

action_config() {
    action_deps
    if [ ! -x "$TOP/configure" ] || [ "$TOP/configure.ac" -nt "$TOP/configure" ]; then
        (cd "$TOP" && ./autogen.sh)
    fi
    mkdir -p "$BUILD"
    echo "setup=$SETUP"
    echo "  configure: --prefix=$PREFIX ${CONFIG_ARGS[*]}"
    (cd "$BUILD" && "$TOP/configure" -q --prefix="$PREFIX" "${CONFIG_ARGS[@]}")
    echo "${CONFIG_ARGS[*]}" >"$BUILD/.configure-line"
}

# Configure again when the setup's configure line changed since the last time.
configured() {
    [ -f "$BUILD/Makefile" ] && [ "$(cat "$BUILD/.configure-line" 2>/dev/null)" = "${CONFIG_ARGS[*]}" ] ||
        action_config
}
action_build() { configured; make -C "$BUILD" -s -j"$(nproc)"; }
action_install() { action_build; make -C "$BUILD" -s install >/dev/null; }
action_check() {
    action_build
    make -C "$BUILD" -j"$(nproc)" check
}
# PERF_ARGS (environment) goes to performance.bash, e.g.
#   PERF_ARGS="--sec 2 c_pipe" ./build.bash perf-release test
# A failed run still leaves the others' figures, so the table is made anyway.
action_test() {
    local rc=0
    action_install
    # shellcheck disable=SC2086  # PERF_ARGS is a list of words
    "$TOP/performance/performance.bash" --setup "$SETUP" ${PERF_ARGS:-} || rc=$?
    "$TOP/results.bash"
    cat "$TOP/performance/gen/total_link.perf"
    [ $rc -eq 0 ] || echo "build.bash: some performance runs failed (see the .perf files)" >&2
    return $rc
}

[ $# -ge 1 ] || die "usage: build.bash SETUP [ACTION...]  (see the top of this file)"
SETUP=$1; shift
setup_vars
if [ $# -eq 0 ]; then
    case "$SETUP" in check|check-asan) set -- check ;; *) set -- test ;; esac
fi
for a in "$@"; do
    case "$a" in
    deps|config|build|install|check|test) "action_$a" ;;
    *) die "unknown action '$a' (deps, config, build, install, check, test)" ;;
    esac
done
