# results.awk — the table, CSV and chart data of results.bash (see there).
# Input: the .perf files; -v langs="name|Label\n..." (row order), csv=FILE,
# plotdir=DIR (gets one MODE.dat per mode and plot.gp).
#
# Besides the languages' files: limit_MODE.perf (the L row), zmq_MODE.perf
# (a peer), floor.perf (language floors) and startup.perf (start-up block);
# none of them makes a language row.

BEGIN {
    nmodes = split("pipe uds_fork uds_thread uds_spawn tcp_fork tcp_thread tcp_spawn " \
                   "tcp_tls_fork tcp_tls_thread tcp_tls_spawn", MODES, " ")
    # sections shown only when a language ran in them (older runs have none)
    OPTIONAL["tcp_tls_fork"] = OPTIONAL["tcp_tls_thread"] = OPTIONAL["tcp_tls_spawn"] = 1
    ncols = split("NOTHING END CALLBACK WAIT PARENT CHILD BUS BFL PERSIST", COLS, " ")
    split("send send send send create create data data send", TOPS, " ")
    split("send-nothing send send-and-callback send-and-wait parent child bus bfl send-persistent", TESTS, " ")
    split("oneway-empty oneway roundtrip roundtrip PARENT roundtrip roundtrip roundtrip persist", LIMITS, " ")
    for (c = 1; c <= ncols; c++) if (COLS[c] == "PARENT") PARENT_COL = c
    nlangs = split(langs, L, "\n")
    for (i = 1; i <= nlangs; i++) {
        split(L[i], f, "|")
        LANG[i] = f[1]; LABEL[f[1]] = f[2]
    }
    # What a user would pick instead: file language | row label | the
    # language it is compared with | COLUMN=test where the test names differ
    # (none: perfclient's own names, the columns the peer measured).
    npeers = split("zmq|ZeroMQ|c|\npython|Python mp.connection|python|WAIT=mp-roundtrip\n" \
                   "tcl|Tcl socket|tcl|WAIT=sock-roundtrip\nruby|Ruby socket|ruby|WAIT=sock-roundtrip\n" \
                   "java|Java SocketChannel|java|WAIT=sock-roundtrip", P, "\n")
    for (i = 1; i <= npeers; i++) {
        split(P[i], f, "|")
        PEER_LANG[i] = f[1]; PEER_LABEL[i] = f[2]; PEER_REF[i] = f[3]; PEER_MAP[i] = f[4]
    }
    NOT_A_ROW["limit"] = NOT_A_ROW["zmq"] = NOT_A_ROW["floor"] = NOT_A_ROW["startup"] = 1
    SETUP_ORDER["perf-release"] = 1; SETUP_ORDER["perf-aggressive"] = 2
    SETUP_LETTER["perf-release"] = "R"; SETUP_LETTER["perf-aggressive"] = "A"
}

# (the header lines: perfheader.awk, read before this file)
$2 ~ /^ops\/s=/ && target != "" {
    VAL[target, setup, lang, mode, $1] = substr($2, 7) + 0
    # the unrounded rate, count/sec, for the start-up block: a few starts
    # per second are too coarse as whole operations per second
    if ($3 ~ /^count=/ && $4 ~ /^sec=/ && substr($4, 5) + 0 > 0)
        EXACT[target, setup, lang, mode, $1] = substr($3, 7) / substr($4, 5)
    if (lang == "limit") HAVE_LIMIT[target, setup, mode] = 1
    if (!((target) in TARGET)) { TARGET[target] = 1; TLIST[++ntargets] = target }
    if (!((target, setup) in HAVE_SETUP)) { HAVE_SETUP[target, setup] = 1; SLIST[target] = SLIST[target] " " setup }
    if (!(lang in NOT_A_ROW)) HAVE_MODE[target, mode] = 1
    if (!(lang in NOT_A_ROW) && !((target, lang) in HAVE_LANG)) {
        HAVE_LANG[target, lang] = 1
        if (!(lang in LABEL)) { LANG[++nlangs] = lang; LABEL[lang] = lang }
    }
}

# Whether target t has a section for mode m.
function shown(t, m) { return !(m in OPTIONAL) || ((t, m) in HAVE_MODE) }
# a chart panel only where a language ran: gnuplot refuses a panel with no
# figure at all (a run of some modes only, PERF_ARGS=c_pipe)
function charted(t, m) { return (t, m) in HAVE_MODE }

function spaces(n,    s) { while (n-- > 0) s = s " "; return s }
function center(s, w,    l) {
    l = int((w - length(s)) / 2)
    return spaces(l) s spaces(w - l - length(s))
}

function header(t,    c, top, bot, dash) {
    for (c = 1; c <= ncols; c++) {
        top = top " " center(TOPS[c], 8); bot = bot " " center(COLS[c], 8); dash = dash " --------"
    }
    printf " %-25s |%s\n %-25s |%s\n %-25s |%s\n\n", t, top, DATE[t], bot, "-------------------------", dash
}

# The perflimit test a column is read against in mode m ("" for none).
function limit_test(c, m) {
    if (LIMITS[c] == "-") return ""
    if (LIMITS[c] != "PARENT") return "limit-" LIMITS[c]
    if (m ~ /_fork$/) return "limit-fork"
    if (m ~ /_thread$/) return "limit-thread"
    return "limit-spawn"
}

function value(t, s, l, m, test) {
    return test != "" && ((t, s, l, m, test) in VAL) ? VAL[t, s, l, m, test] : ""
}

function cell(v) { return sprintf(" %8s", v == "" ? "na." : sprintf("%.0f", v)) }

# The setups of target t in row order: perf-release, perf-aggressive, others.
function setups(t, out,    n, i, j, tmp, x) {
    n = split(substr(SLIST[t], 2), out, " ")
    for (i = 1; i <= n; i++)
        for (j = i + 1; j <= n; j++)
            if (order(out[j]) < order(out[i])) { x = out[i]; out[i] = out[j]; out[j] = x }
    return n
}
function order(s) { return (s in SETUP_ORDER) ? SETUP_ORDER[s] : 9 }
function letter(s) { return (s in SETUP_LETTER) ? SETUP_LETTER[s] : toupper(substr(s, 1, 1)) }

# The setup whose limits make the L row of mode m: the first in row order
# that measured them.
function limit_setup(t, m,    S, n, i) {
    n = setups(t, S)
    for (i = 1; i <= n; i++)
        if ((t, S[i], m) in HAVE_LIMIT) return S[i]
    return ""
}

function section(t, m, S, ns,    c, s, i, ls, row) {
    header(t)
    printf " %s:\n", m
    ls = limit_setup(t, m); row = ""
    for (c = 1; c <= ncols; c++) row = row cell(value(t, ls, "limit", m, limit_test(c, m)))
    printf " %-25s |%s\n", "L: limit", row
    for (s = 1; s <= ns; s++)
        for (i = 1; i <= nlangs; i++) {
            if (!((t, LANG[i]) in HAVE_LANG)) continue
            row = ""
            for (c = 1; c <= ncols; c++) row = row cell(value(t, S[s], LANG[i], m, TESTS[c]))
            printf " %-25s |%s\n", letter(S[s]) ": " LABEL[LANG[i]], row
        }
    peer_rows(t, m)
    printf "\n\n"
}

# ------------------------------------------------------------------ peers
# The test of peer p behind column c ("" when it has no counterpart).
function peer_test(p, c,    n, i, kv, x) {
    if (PEER_MAP[p] == "") return TESTS[c]
    n = split(PEER_MAP[p], kv, ",")
    for (i = 1; i <= n; i++) {
        split(kv[i], x, "=")
        if (x[1] == COLS[c]) return x[2]
    }
    return ""
}
# The setup whose run measured peer p in mode m: the first in row order.
function peer_setup(t, p, m,    S, n, i, c) {
    n = setups(t, S)
    for (i = 1; i <= n; i++)
        for (c = 1; c <= ncols; c++)
            if (value(t, S[i], PEER_LANG[p], m, peer_test(p, c)) != "") return S[i]
    return ""
}
function peer_rows(t, m,    p, s, c, row) {
    for (p = 1; p <= npeers; p++) {
        if ((s = peer_setup(t, p, m)) == "") continue
        row = ""
        for (c = 1; c <= ncols; c++) row = row cell(value(t, s, PEER_LANG[p], m, peer_test(p, c)))
        printf " %-25s |%s\n", "P: " PEER_LABEL[p], row
    }
}
# A CSV line per column a peer measured, read against the limit and against
# its language's row (ZeroMQ: C) of the same setup.
function peer_csv(t, m,    p, s, c, v, lim, ref) {
    for (p = 1; p <= npeers; p++) {
        if ((s = peer_setup(t, p, m)) == "") continue
        for (c = 1; c <= ncols; c++) {
            if ((v = value(t, s, PEER_LANG[p], m, peer_test(p, c))) == "") continue
            lim = value(t, s, "limit", m, limit_test(c, m))
            if (lim == "") lim = value(t, limit_setup(t, m), "limit", m, limit_test(c, m))
            ref = value(t, s, PEER_REF[p], m, TESTS[c])
            printf "%s,%s,%s,%s,%s,%.0f,%s,%s,%s,%s,%s\n", t, s, m, PEER_LABEL[p], COLS[c], v,
                lim == "" ? "na" : sprintf("%.0f", lim),
                lim == "" || lim == 0 ? "na" : sprintf("%.3f", v / lim), PIN[t, s],
                ref == "" ? "na" : sprintf("%.0f", ref), ref == "" || ref == 0 ? "na" : sprintf("%.3f", v / ref) >> csv
        }
    }
}

function csv_rows(t, m, S, ns,    s, i, c, v, lim) {
    for (s = 1; s <= ns; s++)
        for (i = 1; i <= nlangs; i++) {
            if (!((t, LANG[i]) in HAVE_LANG)) continue
            for (c = 1; c <= ncols; c++) {
                v = value(t, S[s], LANG[i], m, TESTS[c])
                lim = value(t, S[s], "limit", m, limit_test(c, m))
                if (lim == "") lim = value(t, limit_setup(t, m), "limit", m, limit_test(c, m))
                printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,na,na\n", t, S[s], m, LABEL[LANG[i]], COLS[c],
                    v == "" ? "na" : sprintf("%.0f", v), lim == "" ? "na" : sprintf("%.0f", lim),
                    v == "" || lim == "" || lim == 0 ? "na" : sprintf("%.3f", v / lim),
                    PIN[t, S[s]] >> csv
            }
        }
    peer_csv(t, m)
}

# One data file per mode: a row per test, a column per series.
function plot_data(t, m, S, ns,    f, s, i, c, v) {
    f = plotdir "/" m ".dat"
    printf "test \"L: limit\"" > f
    for (s = 1; s <= ns; s++)
        for (i = 1; i <= nlangs; i++)
            if ((t, LANG[i]) in HAVE_LANG) printf " \"%s: %s\"", letter(S[s]), LABEL[LANG[i]] >> f
    printf "\n" >> f
    for (c = 1; c <= ncols; c++) {
        v = value(t, limit_setup(t, m), "limit", m, limit_test(c, m))
        printf "%s %s", COLS[c], (v == "" ? "na." : v) >> f
        for (s = 1; s <= ns; s++)
            for (i = 1; i <= nlangs; i++) {
                if (!((t, LANG[i]) in HAVE_LANG)) continue
                v = value(t, S[s], LANG[i], m, TESTS[c])
                printf " %s", (v == "" ? "na." : v) >> f
            }
        printf "\n" >> f
    }
    close(f)
    return 1 + ns * nlangs_of(t)
}
function nlangs_of(t,    i, n) { for (i = 1; i <= nlangs; i++) n += ((t, LANG[i]) in HAVE_LANG); return n }

function plot_script(t, ncol,    g, i, n) {
    for (i = 1; i <= nmodes; i++) n += charted(t, MODES[i])
    g = plotdir "/plot.gp"
    print "set termoption noenhanced" > g
    print "set multiplot layout " int((n + 1) / 2) ",2 title 'mqlink performance, " t ", " DATE[t] " (operations/s, log scale)'" >> g
    print "set style data histogram; set style histogram clustered gap 1" >> g
    print "set style fill solid 0.8 border -1; set boxwidth 0.9" >> g
    print "set logscale y; set yrange [1:*]; set grid y; set datafile missing 'na.'" >> g
    print "set key top right font ',8'; set xtics nomirror" >> g
    for (i = 1; i <= nmodes; i++) {
        if (!charted(t, MODES[i])) continue
        print "set title '" MODES[i] "'" >> g
        print "plot for [c=2:" ncol + 1 "] '" plotdir "/" MODES[i] ".dat' using c:xtic(1) title columnheader(c)" >> g
    }
    print "unset multiplot" >> g
    close(g)
}

# Below the sections, where perflimit measured them: the floor of a parent
# start (connect + handshake + close, no mqlink) against the PARENT limit,
# and the C rows against that floor.  Then the waiting floor: the same with
# the server waiting for its client's close before its own, as a link's
# server must (it cannot know the client has nothing more to send); C
# against it is what the link itself adds.  Older limit files without it: na.
function floors(t, S, ns,    i, m, ls, fl, wfl, lim, s, v, head) {
    for (i = 1; i <= nmodes; i++) {
        m = MODES[i]
        # (not over TLS: perflimit's connect floor is plain TCP's)
        if (m !~ /_(fork|thread)$/ || m ~ /_tls_/) continue
        ls = limit_setup(t, m)
        fl = value(t, ls, "limit", m, m ~ /_fork$/ ? "limit-connect-fork" : "limit-connect")
        wfl = value(t, ls, "limit", m, m ~ /_fork$/ ? "limit-connect-fork-wait" : "limit-connect-wait")
        lim = value(t, ls, "limit", m, limit_test(PARENT_COL, m))
        if (fl == "" || lim == "" || lim == 0) continue
        if (!head++) {
            printf " PARENT floor: perflimit --connect, connect + 16-byte handshake + close without mqlink, as many clients as PARENT (--wrk);"
            printf " wait: the same, the server waiting for its client's close before its own, as a link's must\n"
            printf " %-12s %9s %9s %11s", "mode", "limit", "floor", "floor/limit"
            for (s = 1; s <= ns; s++) printf " %9s %9s", letter(S[s]) ": C", "C/floor"
            printf " %9s", "wait"
            for (s = 1; s <= ns; s++) printf " %9s", letter(S[s]) ": C/wait"
            printf "\n"
        }
        printf " %-12s %9.0f %9.0f %11.2f", m, lim, fl, fl / lim
        for (s = 1; s <= ns; s++) {
            v = value(t, S[s], "c", m, "parent")
            printf " %9s %9s", v == "" ? "na." : sprintf("%.0f", v), v == "" ? "na." : sprintf("%.2f", v / fl)
        }
        printf " %9s", wfl == "" ? "na." : sprintf("%.0f", wfl)
        for (s = 1; s <= ns; s++) {
            v = value(t, S[s], "c", m, "parent")
            printf " %9s", v == "" || wfl == "" || wfl == 0 ? "na." : sprintf("%.2f", v / wfl)
        }
        printf "\n"
    }
    if (head) printf "\n\n"
}

END {
    if (ntargets == 0) { print "results.awk: no figures in the .perf files" > "/dev/stderr"; exit 1 }
    print "target,setup,mode,language,test,ops_per_sec,limit_ops_per_sec,fraction_of_limit,pin,versus_ops_per_sec,fraction_of_versus" > csv
    for (k = 1; k <= ntargets; k++) {
        t = TLIST[k]; ns = setups(t, S)
        for (i = 1; i <= nmodes; i++) {
            if (!shown(t, MODES[i])) continue
            section(t, MODES[i], S, ns)
            csv_rows(t, MODES[i], S, ns)
            if (k == 1) ncol = plot_data(t, MODES[i], S, ns)
        }
        floors(t, S, ns)
        tls_cost(t, S, ns)
        lang_floors(t, S, ns)
        service_floors(t, S, ns)
        startup(t, S, ns)
        if (k == 1) plot_script(t, ncol)
    }
    close(csv)
}

# ------------------------------------------------------- TLS
# What TLS costs: the C row's WAIT and END over tcp_tls_MODE against plain
# tcp_MODE of the same setup (the aim: WAIT at least 0.8 of plain TCP).
function tls_cost(t, S, ns,    s, i, k, st, m, c, v, p, line, head) {
    split("WAIT END", TC, " ")
    split("fork thread spawn", ST, " ")
    for (s = 1; s <= ns; s++)
        for (i = 1; i <= 3; i++) {
            m = "tcp_tls_" ST[i]; line = ""
            if (!((t, m) in HAVE_MODE)) continue
            for (k = 1; k <= 2; k++)
                for (c = 1; c <= ncols; c++) if (COLS[c] == TC[k]) {
                    v = value(t, S[s], "c", m, TESTS[c]); p = value(t, S[s], "c", "tcp_" ST[i], TESTS[c])
                    line = line sprintf(" %9s %9s %7s", v == "" ? "na." : sprintf("%.0f", v),
                                        p == "" ? "na." : sprintf("%.0f", p),
                                        v == "" || p == "" || p == 0 ? "na." : sprintf("%.2f", v / p))
                }
            if (!head++) {
                printf " TLS: C over tcp_tls_MODE (TLS 1.3, mutual authentication) against plain tcp_MODE\n"
                printf " %-12s %-7s %9s %9s %7s %9s %9s %7s\n", "row", "mode", "WAIT tls", "WAIT tcp",
                    "tls/tcp", "END tls", "END tcp", "tls/tcp"
            }
            printf " %-12s %-7s%s\n", letter(S[s]) ": C", ST[i], line
        }
    if (head) printf "\n\n"
}

# ------------------------------------------------- language floors
# A language's one-way figure can reach at most 1/(1/C + 1/floor): C's own
# cost per message plus one entry into the language (its floor program).
# The target is 0.8 of that; the ratio says how near the language comes.
function lang_floors(t, S, ns,    s, i, fl, k, m, c, C, v, tg, head, line, first, any) {
    split("NOTHING END CALLBACK", FC, " ")
    for (s = 1; s <= ns; s++)
        for (i = 1; i <= nlangs; i++) {
            fl = value(t, S[s], "floor", "none", "floor-" LANG[i])
            if (fl == "" || fl == 0) continue
            if (!head++) {
                printf " Language floors: C calling the language's empty service (its floor program);\n"
                printf " target = 0.8 / (1/C + 1/floor), C = the C row of the mode; ratio = figure / target\n"
                printf " %-12s %9s %-11s", "row", "floor", "mode"
                for (k = 1; k <= 3; k++) printf " %9s %9s %6s", FC[k], "target", "ratio"
                printf "\n"
            }
            first = 1
            for (k = 1; k <= nmodes; k++) {
                m = MODES[k]; line = ""; any = 0
                for (c = 1; c <= ncols; c++) if (COLS[c] == FC[1] || COLS[c] == FC[2] || COLS[c] == FC[3]) {
                    v = value(t, S[s], LANG[i], m, TESTS[c]); C = value(t, S[s], "c", m, TESTS[c])
                    any += v != ""
                    tg = C == "" || C == 0 ? "" : 0.8 / (1 / C + 1 / fl)
                    line = line sprintf(" %9s %9s %6s", v == "" ? "na." : sprintf("%.0f", v),
                                        tg == "" ? "na." : sprintf("%.0f", tg),
                                        v == "" || tg == "" ? "na." : sprintf("%.2f", v / tg))
                }
                if (!any) continue  # the language did not run in this mode
                printf " %-12s %9s %-11s%s\n", first ? letter(S[s]) ": " LABEL[LANG[i]] : "",
                    first ? sprintf("%.0f", fl) : "", m, line
                first = 0
            }
        }
    if (head) printf "\n\n"
}

# ------------------------------------------------- service floors
# Where the floor program also timed each service's body with every mqlink
# call in it a no-op command (floor-LANG-SVC: wrappers/LANG/perffloor*),
# bound = 1/(1/C + 1/floor-LANG-SVC) is the most a server of the language
# can reach in that column with a binding that costs nothing.  One-way
# columns are read against the language floors' target (0.8 / (1/C +
# 1/floor)), round trips against C; below 1 (one-way) or the issue's
# fraction of C (round trip), the language itself is the limit.
function service_floors(t, S, ns,    s, i, j, k, m, c, C, fe, fl, b, v, line, head, first, any) {
    split("END CALLBACK WAIT CHILD BUS BFL", SC, " ")
    split("RDUL ECUL ECUL child BUST BFLT", SV, " ")
    for (s = 1; s <= ns; s++)
        for (i = 1; i <= nlangs; i++) {
            if (value(t, S[s], "floor", "none", "floor-" LANG[i] "-RDUL") == "") continue
            fe = value(t, S[s], "floor", "none", "floor-" LANG[i])
            if (!head++) {
                printf " Service floors: C calling each service's body with every mqlink call in it a no-op (floor-LANG-SVC);\n"
                printf " bound = 1 / (1/C + 1/floor-LANG-SVC), C = the C row of the mode: the most the language reaches;\n"
                printf " one-way columns against the language floors' target (/tgt), round trips against C (/C)\n"
                printf " %-12s %-11s", "row", "mode"
                for (k = 1; k <= 6; k++)
                    printf " %9s %5s", SC[k] " " SV[k], k <= 2 ? "/tgt" : "/C"
                printf "\n"
            }
            first = 1
            for (k = 1; k <= nmodes; k++) {
                m = MODES[k]; line = ""; any = 0
                for (j = 1; j <= 6; j++)
                    for (c = 1; c <= ncols; c++) if (COLS[c] == SC[j]) {
                        C = value(t, S[s], "c", m, TESTS[c])
                        fl = value(t, S[s], "floor", "none", "floor-" LANG[i] "-" SV[j])
                        any += value(t, S[s], LANG[i], m, TESTS[c]) != ""
                        b = C == "" || C == 0 || fl == "" || fl == 0 ? "" : 1 / (1 / C + 1 / fl)
                        v = b == "" ? "" : j > 2 ? b / C : fe == "" || fe == 0 ? "" : b / (0.8 / (1 / C + 1 / fe))
                        line = line sprintf(" %9s %5s", b == "" ? "na." : sprintf("%.0f", b),
                                            v == "" ? "na." : sprintf("%.2f", v))
                    }
                if (!any) continue  # the language did not run in this mode
                printf " %-12s %-11s%s\n", first ? letter(S[s]) ": " LABEL[LANG[i]] : "", m, line
                first = 0
            }
        }
    if (head) printf "\n\n"
}

# ------------------------------------------------------- start-up
# A PARENT in pipe and spawn mode starts the server program: the bare
# program or interpreter (start-LANG), + loading the mqlink binding
# (load-LANG), + creating the link = the table's PARENT.  In milliseconds.
function exact(t, s, l, m, test) {
    return ((t, s, l, m, test) in EXACT) ? EXACT[t, s, l, m, test] : value(t, s, l, m, test)
}
function ms(rate) { return rate == "" || rate == 0 ? "" : 1000 / rate }
function msf(x, sign) { return x == "" ? "na." : sprintf(sign ? "%+.2f" : "%.2f", x) }
function startup(t, S, ns,    s, i, st, ld, pp, us, ts, head, prev) {
    for (s = 1; s <= ns; s++)
        for (i = 1; i <= nlangs; i++) {
            st = ms(exact(t, S[s], "startup", "none", "start-" LANG[i]))
            if (st == "") continue
            if (!head++) {
                printf " Start-up of a PARENT (pipe, spawn), ms per start: the bare program or interpreter\n"
                printf " (C: perfserver --version), + loading mqlink, + creating the link = the table's PARENT\n"
                printf " %-12s %9s %9s %9s %12s %12s %12s\n", "row", "start", "+binding", "+link",
                    "=PARENT pipe", "uds_spawn", "tcp_spawn"
            }
            ld = ms(exact(t, S[s], "startup", "none", "load-" LANG[i]))
            pp = ms(exact(t, S[s], LANG[i], "pipe", "parent"))
            us = ms(exact(t, S[s], LANG[i], "uds_spawn", "parent"))
            ts = ms(exact(t, S[s], LANG[i], "tcp_spawn", "parent"))
            prev = ld == "" ? st : ld
            printf " %-12s %9s %9s %9s %12s %12s %12s\n", letter(S[s]) ": " LABEL[LANG[i]], msf(st),
                ld == "" ? "na." : msf(ld - st, 1), pp == "" ? "na." : msf(pp - prev, 1),
                msf(pp), msf(us), msf(ts)
            if (LANG[i] == "c") bind_now_row(t, S[s])
        }
    if (head) printf "\n\n"
}
# C's row again with LD_BIND_NOW=1 (start-c-bindnow, parent-c-bindnow in
# startup.perf): immediate binding of the shared libraries' symbols
# against the lazy default of the row above.
function bind_now_row(t, s,    st, pp) {
    st = ms(exact(t, s, "startup", "none", "start-c-bindnow"))
    if (st == "") return
    pp = ms(exact(t, s, "startup", "none", "parent-c-bindnow"))
    printf " %-12s %9s %9s %9s %12s %12s %12s\n", letter(s) ": C bindnow", msf(st), "na.",
        pp == "" ? "na." : msf(pp - st, 1), msf(pp), "na.", "na."
}
