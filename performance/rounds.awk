# rounds.awk — one language's figures from its rounds (performance.bash
# --runs N): each round file holds one perfclient --all --runs 1 and the
# language's yardstick, measured while the mode's other languages took their
# turns.  Each figure line becomes the median round by rate, with the round
# count and the slowest and fastest rates, as perfclient --runs prints its
# median run (perfclient/runs.h):
#
#   awk -f rounds.awk ROUND1 ROUND2 ...
#   NAME ops/s=X count=N sec=S[EXTRA][ runs=N min=X max=X]
#
# The first round's other lines (the client's comment) come first, then
# each error line and each line of a server's or client's output once, then
# the figures in the order they first appeared.

function is_note(line) {
    return line ~ /(^| )error: / || line ~ /^# (client|server): /
}

$2 ~ /^ops\/s=/ {
    name = $1
    if (!(name in n)) { order[++tests] = name; n[name] = 0 }
    k = ++n[name]
    rate[name, k] = substr($2, 7)
    rest[name, k] = $3 " " $4
    extra = ""
    for (i = 5; i <= NF; i++)
        if ($i !~ /^(runs|min|max)=/)
            extra = extra " " $i
    rest[name, k] = rest[name, k] extra
    next
}
FNR == NR || is_note($0) {
    if (!seen[$0]++)
        print
}

END {
    for (t = 1; t <= tests; t++) {
        name = order[t]
        m = n[name]
        for (i = 1; i <= m; i++)
            idx[i] = i
        # by rate, slowest first (a few rounds: insertion sort)
        for (i = 2; i <= m; i++)
            for (j = i; j > 1 && rate[name, idx[j - 1]] + 0 > rate[name, idx[j]] + 0; j--) {
                x = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = x
            }
        mid = idx[int(m / 2) + 1]
        line = name " ops/s=" rate[name, mid] " " rest[name, mid]
        if (m > 1)
            line = line " runs=" m " min=" rate[name, idx[1]] " max=" rate[name, idx[m]]
        print line
    }
}
