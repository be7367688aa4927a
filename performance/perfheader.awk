# perfheader.awk — the header of a .perf or .scaling file, read first by
# results.awk and scaling.awk (awk -f perfheader.awk -f THEM.awk): its
# key=value lines say whose figures follow (target, setup, lang, mode) and
# how they were taken (cpus, pin, date: the latest per target and per
# target and setup).  The figure lines are left to the program after it.
FNR == 1 { target = setup = lang = mode = "" }
/^[a-z]+=/ && !/ops\/s=/ {
    k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1)
    if (k == "target") target = v
    else if (k == "setup") setup = v
    else if (k == "lang") lang = v
    else if (k == "mode") mode = v
    else if (k == "cpus") CPUS[target, setup] = v
    else if (k == "pin") PIN[target, setup] = v
    else if (k == "date") {
        if (v > DATE[target]) DATE[target] = v
        if (v > DATE[target, setup]) DATE[target, setup] = v
    }
    next
}
