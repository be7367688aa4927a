#!/usr/bin/env bash
# build.bash SETUP ACTION... — configure, build, install, test mqlink.
#
#   SETUP   check          debug build in build/check, for the test suite
#           check-asan     the same with AddressSanitizer + UBSan in build/check-asan
#           perf-release   shared libraries, threads, -O2
#           perf-aggressive static libraries, no threads, -O3 -march=native, LTO
#           fuzz           clang, ASan + UBSan + libFuzzer in build/fuzz (README.md, "Fuzzing")
#   ACTION  deps      install missing Debian packages (run by every other action)
#           config    bootstrap and configure
#           build     make
#           install   make install into the setup's inst directory
#           check     make check (the test suite)
#           test      install, then performance/performance.bash, then results.bash
#                     (PERF_ARGS in the environment is passed to performance.bash)
#           fuzz      (setup fuzz) replay the corpus and the past crashes, then run
#                     each libFuzzer target for SECONDS (default 60) each
#
# `./build.bash fuzz SECONDS` means `./build.bash fuzz fuzz` with SECONDS per target.
# `./build.bash check` alone means `./build.bash check deps config build check`;
# `./build.bash perf-release test` builds whatever is missing first.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEBIAN_PACKAGES="autoconf automake libtool pkg-config make gcc g++ libsqlite3-dev libconfig-dev libssl-dev
  tcl-dev ruby-dev default-jdk python3-dev gnuplot-nox libzmq3-dev strace"

# The sanitizer and fuzz setups build with clang (its UBSan also sees what
# gcc's misses, e.g. an offset applied to a null pointer; and libFuzzer).
CLANG_PACKAGES="clang libclang-rt-14-dev"

die() { echo "build.bash: $*" >&2; exit 2; }

action_deps() {
    local missing=() packages=$DEBIAN_PACKAGES
    case "$SETUP" in fuzz|check-asan) packages="$packages $CLANG_PACKAGES" ;; esac
    for p in $packages; do
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
        CONFIG_ARGS=(CC=clang CXX=clang++ --enable-debug --enable-threads=yes --enable-sanitize
                     --disable-shared --with-python=no --with-ruby=no --with-tcl=no --with-java=no) ;;
    perf-release)
        BUILD=$TOP/performance/gen/$TARGET/$SETUP/build; PREFIX=$TOP/performance/gen/$TARGET/$SETUP/inst
        CONFIG_ARGS=(--enable-shared=yes --enable-static=no --enable-threads=yes --enable-debug=no
                     CFLAGS=-O2 CXXFLAGS=-O2) ;;
    perf-aggressive)
        BUILD=$TOP/performance/gen/$TARGET/$SETUP/build; PREFIX=$TOP/performance/gen/$TARGET/$SETUP/inst
        CONFIG_ARGS=(--enable-shared=no --enable-static=yes --enable-threads=no --enable-debug=no
                     "CFLAGS=-O3 -march=native -flto=auto" "CXXFLAGS=-O3 -march=native -flto=auto"
                     "LDFLAGS=-flto=auto" AR=gcc-ar NM=gcc-nm RANLIB=gcc-ranlib --with-pic) ;;
    fuzz)
        # -O1: fast enough to fuzz, frames still readable in a report.
        BUILD=$TOP/build/fuzz; PREFIX=$TOP/build/fuzz/inst
        CONFIG_ARGS=(CC=clang CXX=clang++ --enable-fuzz --enable-debug=no --enable-threads=yes
                     --disable-shared --with-python=no --with-cxx=no --with-ruby=no --with-tcl=no
                     --with-java=no "CFLAGS=-O1 -g") ;;
    *) die "unknown setup '$SETUP' (check, check-asan, perf-release, perf-aggressive, fuzz)" ;;
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

FUZZ_TARGETS="fuzz_stream fuzz_frame fuzz_server"

# The corpus and the past crashes under clang's sanitizers: gcc's UBSan
# (check-asan) misses some of what clang's reports, e.g. an offset applied
# to a null pointer.
fuzz_replay() {
    local t rc=0
    make -C "$BUILD" -s $(for t in $FUZZ_TARGETS; do echo "fuzz/${t}_replay"; done)
    for t in $FUZZ_TARGETS; do
        top_srcdir=$TOP "$BUILD/fuzz/${t}_replay" >"$BUILD/fuzz-logs/$t.replay.log" 2>&1 || rc=1
        echo "$t replay: $(grep -c '^ok' "$BUILD/fuzz-logs/$t.replay.log") passed," \
             "$(grep -c '^not ok' "$BUILD/fuzz-logs/$t.replay.log") failed" \
             "($BUILD/fuzz-logs/$t.replay.log)"
        grep '^not ok' "$BUILD/fuzz-logs/$t.replay.log" | sed 's/^/    /' || true
    done
    return $rc
}

# One target for $1 seconds: new inputs go to build/fuzz/work/T (the first
# corpus directory is the one libFuzzer writes), fuzz/corpus/T is only read,
# findings land in build/fuzz/crashes/T.  After a finding libFuzzer stops;
# it is started again for the time left, up to FUZZ_MAX_FINDINGS (5) times.
fuzz_target() {
    local t=$1 secs=$2 end=$((SECONDS + $2)) found=0 run=0 logs=$BUILD/fuzz-logs/$1
    local work=$BUILD/work/$t crashes=$BUILD/crashes/$t
    mkdir -p "$work" "$crashes" "$logs"
    rm -f "$logs"/run.*
    while [ $((end - SECONDS)) -gt 0 ] && [ "$found" -lt "${FUZZ_MAX_FINDINGS:-5}" ]; do
        run=$((run + 1))
        "$BUILD/fuzz/$t" -max_total_time=$((end - SECONDS)) -timeout=10 -rss_limit_mb=2048 \
            -malloc_limit_mb=256 -dict="$TOP/fuzz/fuzz.dict" -artifact_prefix="$crashes/" \
            -print_final_stats=1 "$work" "$TOP/fuzz/corpus/$t" >"$logs/run.$run" 2>&1 ||
            found=$((found + 1))
    done
    # executions: the final stats of a run that ended on time, else its last status line
    local execs=0 n cov
    for f in "$logs"/run.*; do
        n=$(awk -F: '/^stat::number_of_executed_units/ {print $NF + 0}' "$f")
        [ -n "$n" ] || n=$(grep -o '^#[0-9]*' "$f" | tail -1 | tr -d '#' || true)
        execs=$((execs + ${n:-0}))
    done
    cov=$(cat "$logs"/run.* | grep -o 'cov: [0-9]* ft: [0-9]*' | tail -1 || true)
    printf '%-12s %ds  %d run(s)  executions %d  %s  new inputs %d  findings %d\n' "$t" "$secs" \
        "$run" "$execs" "${cov:-cov: ? ft: ?}" "$(find "$work" -type f | wc -l)" "$found"
    cat "$logs"/run.* | grep -h '^SUMMARY\|Test unit written' | sort | uniq -c | sed 's/^/    /' || true
}

action_fuzz() {
    [ "$SETUP" = fuzz ] || die "the fuzz action needs the fuzz setup: ./build.bash fuzz SECONDS"
    action_build
    mkdir -p "$BUILD/fuzz-logs"
    fuzz_replay || echo "build.bash: some corpus or crash inputs fail (the replay logs say why)"
    for t in $FUZZ_TARGETS; do
        fuzz_target "$t" "${FUZZ_SECONDS:-60}"
    done
    echo "logs: $BUILD/fuzz-logs  findings: $BUILD/crashes  new inputs: $BUILD/work"
}

[ $# -ge 1 ] || die "usage: build.bash SETUP [ACTION...]  (see the top of this file)"
SETUP=$1; shift
setup_vars
if [ "$SETUP" = fuzz ] && [[ "${1:-}" =~ ^[0-9]+$ ]]; then
    FUZZ_SECONDS=$1; set -- fuzz
fi
if [ $# -eq 0 ]; then
    case "$SETUP" in check|check-asan) set -- check ;; fuzz) set -- fuzz ;; *) set -- test ;; esac
fi
for a in "$@"; do
    case "$a" in
    deps|config|build|install|check|test|fuzz) "action_$a" ;;
    *) die "unknown action '$a' (deps, config, build, install, check, test, fuzz)" ;;
    esac
done
