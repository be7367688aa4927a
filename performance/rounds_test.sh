#!/bin/sh
# rounds_test.sh — rounds.awk on recorded rounds (TAP): each figure is its
# median round by rate, with the round count and the slowest and fastest
# rates; the yardstick's fields are kept; an error and the servers' output
# are kept once; a figure missing from a round is the median of the others.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rounds_test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. "$top_srcdir/performance/tap.sh"

cat >"$TMP/r1" <<'R'
client=perfclient --all --sec 0.4 --port 4001
sync=full
# perfclient threads=yes wrk=5 window=1000 link: --tcp --port 4001
send-and-wait ops/s=90000 count=36000 sec=0.400
child ops/s=50000 count=20000 sec=0.400
sock-roundtrip ops/s=70000 count=70000 sec=1.000 transport=tcp size=88
# server: warning one
R
cat >"$TMP/r2" <<'R'
client=perfclient --all --sec 0.4 --port 4002
sync=full
# perfclient threads=yes wrk=5 window=1000 link: --tcp --port 4002
send-and-wait ops/s=60000 count=24000 sec=0.400
child error: the server went away
sock-roundtrip ops/s=71000 count=71000 sec=1.000 transport=tcp size=88
# server: warning one
R
cat >"$TMP/r3" <<'R'
client=perfclient --all --sec 0.4 --port 4003
sync=full
# perfclient threads=yes wrk=5 window=1000 link: --tcp --port 4003
send-and-wait ops/s=100000 count=40000 sec=0.400
child ops/s=52000 count=20800 sec=0.400
sock-roundtrip ops/s=69000 count=69000 sec=1.000 transport=tcp size=88
R
cat >"$TMP/want" <<'R'
client=perfclient --all --sec 0.4 --port 4001
sync=full
# perfclient threads=yes wrk=5 window=1000 link: --tcp --port 4001
# server: warning one
child error: the server went away
send-and-wait ops/s=90000 count=36000 sec=0.400 runs=3 min=60000 max=100000
child ops/s=52000 count=20800 sec=0.400 runs=2 min=50000 max=52000
sock-roundtrip ops/s=70000 count=70000 sec=1.000 transport=tcp size=88 runs=3 min=69000 max=71000
R
merged() {
    awk -f "$top_srcdir/performance/rounds.awk" "$TMP/r1" "$TMP/r2" "$TMP/r3" >"$TMP/got" &&
        diff "$TMP/want" "$TMP/got"
}
one_round() {
    awk -f "$top_srcdir/performance/rounds.awk" "$TMP/r1" | sort >"$TMP/got1" &&
        sort "$TMP/r1" | diff - "$TMP/got1"
}
echo "1..2"
check "three rounds: the median round of each figure, errors and output once" merged
check "one round: its lines unchanged" one_round
[ $failed -eq 0 ]
