# scaling.awk — the scaling table of scaling.bash and results.bash.
# Input: the .scaling files (scaling.bash); -v langs="name|Label\n..." (row
# order; a language not in it is labelled by its name); -v plotdir=DIR
# (optional: one panel's data per target, setup and language, scaling.gp
# and the panel count in DIR/panels).
#
# A table per target, setup and language: a row per start mode and kind of
# client (calls in flight, threads, processes), a column per N, then the
# peak figure, the N it was measured at, and the smallest N that reaches
# 0.9 of the peak (where the curve flattens: saturation).

BEGIN {
    nk = split("calls threads procs", KIND, " ")
    split("calls|threads|processes", KLABEL, "|")
    n = split(langs, L, "\n")
    for (i = 1; i <= n; i++) {
        split(L[i], f, "|")
        ORDER[f[1]] = i; LABEL[f[1]] = f[2]
    }
}

# (the header lines: perfheader.awk, read before this file)
$1 ~ /^scale-(calls|threads|procs)-[0-9]+$/ && $2 ~ /^ops\/s=/ && target != "" {
    split($1, part, "-")
    VAL[target, setup, lang, mode, part[2], part[3]] = substr($2, 7) + 0
    add_n(target, setup, lang, part[3] + 0)
    if (!((target, setup, lang, mode) in HAVE_MODE)) {
        HAVE_MODE[target, setup, lang, mode] = 1
        MLIST[target, setup, lang] = MLIST[target, setup, lang] " " mode
    }
    if (!((target, setup, lang) in HAVE_LANG)) {
        HAVE_LANG[target, setup, lang] = 1
        PANEL[++npanels] = target SUBSEP setup SUBSEP lang
    }
}

# The N of a panel in numeric order (NS[panel] = " 1 2 4").
function add_n(t, s, l, v,    k, a, m, i, out) {
    k = t SUBSEP s SUBSEP l
    if (index(NS[k] " ", " " v " ")) return
    m = split(NS[k], a, " "); out = ""
    for (i = 1; i <= m && a[i] + 0 < v; i++) out = out " " a[i]
    out = out " " v
    for (; i <= m; i++) out = out " " a[i]
    NS[k] = out
}

function sort_panels(    i, j, x) {
    for (i = 1; i <= npanels; i++)
        for (j = i + 1; j <= npanels; j++)
            if (rank(PANEL[j]) < rank(PANEL[i])) { x = PANEL[i]; PANEL[i] = PANEL[j]; PANEL[j] = x }
}
# targets and setups as they come (perf-release first), languages in table order
function rank(k,    f) {
    split(k, f, SUBSEP)
    return sprintf("%s %d %s %03d %s", f[1], f[2] != "perf-release", f[2], (f[3] in ORDER) ? ORDER[f[3]] : 999, f[3])
}

function label(l) { return (l in LABEL) ? LABEL[l] : l }

function row(k, m, kind, N, nn,    i, v, line, peak, at, sat) {
    peak = 0
    for (i = 1; i <= nn; i++) {
        v = ((k, m, kind, N[i]) in VAL) ? VAL[k, m, kind, N[i]] : ""
        line = line sprintf(" %8s", v == "" ? "na." : sprintf("%.0f", v))
        if (v != "" && v > peak) { peak = v; at = N[i] }
    }
    for (i = 1; i <= nn && sat == ""; i++)
        if (((k, m, kind, N[i]) in VAL) && VAL[k, m, kind, N[i]] >= 0.9 * peak) sat = N[i]
    if (peak == 0) return ""
    return line sprintf(" | %8.0f %5s %5s", peak, at, sat)
}

function table(k,    f, N, nn, i, j, m, M, nm, line, head) {
    split(k, f, SUBSEP)
    nn = split(substr(NS[k], 2), N, " ")
    printf "\n %s %s, %s CPUs, pin=%s, %s\n", f[1], f[2], CPUS[f[1], f[2]], PIN[f[1], f[2]], DATE[f[1], f[2]]
    head = sprintf(" %-24s |", label(f[3]))
    for (i = 1; i <= nn; i++) head = head sprintf(" %8s", N[i])
    printf "%s | %8s %5s %5s\n", head, "peak", "at", "sat."
    nm = split(substr(MLIST[k], 2), M, " ")
    for (i = 1; i <= nm; i++)
        for (j = 1; j <= nk; j++)
            if ((line = row(k, M[i], KIND[j], N, nn)) != "")
                printf " %-11s %-12s |%s\n", M[i], KLABEL[j], line
    if (plotdir != "") plot(k, N, nn, M, nm)
}

# One panel: a line per mode and kind, ops/s against N.
function plot(k, N, nn, M, nm,    f, d, i, j, c, v) {
    split(k, f, SUBSEP)
    d = plotdir "/panel" ++nplots ".dat"
    printf "N" > d
    for (i = 1; i <= nm; i++) for (j = 1; j <= nk; j++) printf " \"%s %s\"", M[i], KLABEL[j] >> d
    printf "\n" >> d
    for (c = 1; c <= nn; c++) {
        printf "%s", N[c] >> d
        for (i = 1; i <= nm; i++)
            for (j = 1; j <= nk; j++) {
                v = ((k, M[i], KIND[j], N[c]) in VAL) ? VAL[k, M[i], KIND[j], N[c]] : "na."
                printf " %s", v >> d
            }
        printf "\n" >> d
    }
    close(d)
    print "set title '" label(f[3]) ", " f[1] " " f[2] ", " CPUS[f[1], f[2]] " CPUs'" >> plotdir "/scaling.gp"
    print "plot for [c=2:" 1 + nm * nk "] '" d "' using 1:c with linespoints title columnheader(c)" >> plotdir "/scaling.gp"
}

END {
    if (npanels == 0) { print "scaling.awk: no scaling figures in the .scaling files" > "/dev/stderr"; exit 1 }
    sort_panels()
    if (plotdir != "") {
        g = plotdir "/scaling.gp"
        print "set termoption noenhanced; set datafile missing 'na.'" > g
        print "set multiplot layout " npanels ",1 title 'mqlink scaling: WAIT round trips/s against N'" >> g
        print "set logscale x 2; set xlabel 'N (calls in flight, client threads, client processes)'" >> g
        print "set ylabel 'round trips/s'; set logscale y; set grid; set key outside right font ',9'" >> g
        print npanels > plotdir "/panels"; close(plotdir "/panels")
    }
    printf " Scaling (performance/scaling.bash): WAIT round trips per second (ECUL, the WAIT column's call)\n"
    printf " against N calls in flight on one link, N client threads and N client processes with a link\n"
    printf " each; peak = the highest figure, at = its N, sat. = the smallest N reaching 0.9 x peak\n"
    for (p = 1; p <= npanels; p++) table(PANEL[p])
    if (plotdir != "") { print "unset multiplot" >> g; close(g) }
    printf "\n\n"
}
