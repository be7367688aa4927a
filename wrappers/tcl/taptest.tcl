# taptest.tcl — the smallest TAP runner for the Tcl binding's tests: each
# `case name body` prints one "ok N - name" or "not ok N - name"; `done`
# prints the plan and exits non-zero when a case failed.
set tap_n 0
set tap_failed 0

proc case {name body} {
    incr ::tap_n
    if {[catch {uplevel 1 $body} err]} {
        puts "not ok $::tap_n - $name"
        puts "#   [string range $err 0 300]"
        incr ::tap_failed
    } else {
        puts "ok $::tap_n - $name"
    }
}

proc check {cond msg} {
    if {![uplevel 1 [list expr $cond]]} {error $msg}
}

# The error a script raises, and its -errorcode; "" when there is none.
proc raises {script} {
    if {[catch {uplevel 1 $script} err opts]} {
        return [list $err [dict get $opts -errorcode]]
    }
    return ""
}

proc done {} {
    puts "1..$::tap_n"
    puts "# $::tap_n tests, $::tap_failed failed"
    exit [expr {$::tap_failed > 0}]
}
