# tclclient.tcl LABEL LINK-ARGS... — the interop client in Tcl: every type
# with boundary values, nested lists, errors both ways, wrong-type reads,
# callbacks, server instances and deleted contexts against the server
# LINK-ARGS reach.  Prints one TAP line per case ("ok - LABEL: case");
# run_matrix.sh numbers them.
package require mqlink

set label [lindex $argv 0]
set link [lrange $argv 1 end]
set MiB [expr {1 << 20}]

# check and raises as the binding's own tests have them; case is this
# client's own (labelled, unnumbered: run_matrix.sh numbers the lines).
source [file join [file dirname [info script]] .. .. wrappers tcl taptest.tcl]

proc case {name body} {
    if {[catch {uplevel 1 $body} err opts]} {
        puts "not ok - $::label: $name"
        puts "#   [string range $err 0 300]"
    } else {
        puts "ok - $::label: $name"
    }
    flush stdout
}

proc echo {c t v} {
    $c SendSTART
    $c SendSTR $t
    $c Send$t $v
    $c SendEND_AND_WAIT ECHO 20000
    return [$c Read$t]
}

# Values compare as the type would: NaN equals NaN, -0.0 differs from 0.0.
proc same {t a b} {
    if {$t in {FLT DBL}} {
        if {$a eq "NaN"} {return [expr {$b eq "NaN"}]}
        if {[string is double -strict $a] && $a == 0} {
            return [expr {$b == 0 && [string index $a 0] eq [string index $b 0]}]
        }
        return [expr {$a == $b}]
    }
    if {$t eq "BOL"} {return [expr {!!$a == !!$b}]}
    if {$t eq "BIN"} {return [expr {[binary encode hex $a] eq [binary encode hex $b]}]}
    return [expr {$a eq $b}]
}

set c [MqContextC new]
$c LinkCreate [list tclclient {*}$link]
$c SendSTART
$c SendEND_AND_WAIT INST
set server [$c ReadSTR]

set all256 ""
for {set i 0} {$i < 256} {incr i} {append all256 [binary format c $i]}
set VALUES [list \
    I8 {-128 -1 0 127} \
    I16 {-32768 0 32767} \
    I32 {-2147483648 0 2147483647} \
    I64 {-9223372036854775808 -1 0 9223372036854775807} \
    FLT [list 0.0 -0.0 1.5 Inf -Inf NaN] \
    DBL [list 0.0 -0.0 1e308 -5e-324 Inf NaN] \
    BOL {1 0} \
    STR [list "" text "\u00e4\u4e2d" [string repeat x $MiB]] \
    BIN [list "" [binary format c3 {0 255 0}] [string repeat $all256 [expr {$MiB / 256}]]]]
foreach {t values} $VALUES {
    case "ECHO $t with boundary values" {
        foreach v $values {
            set r [echo $c $t $v]
            check {[same $t $v $r]} "$t [string range $v 0 40] came back as [string range $r 0 40]"
        }
    }
}

case "ELST echoes nested lists" {
    $c SendSTART
    $c SendL_START
    $c SendI32 1
    $c SendL_START
    $c SendSTR deep
    $c SendBIN [binary format c 1]
    $c SendL_END
    $c SendDBL 2.5
    $c SendL_END
    $c SendEND_AND_WAIT ELST
    $c ReadL_START
    check {[$c ReadI32] == 1} "first item"
    $c ReadL_START
    check {[$c ReadSTR] eq "deep"} "deep"
    check {[$c ReadBIN] eq [binary format c 1]} "bin"
    $c ReadL_END
    check {[$c ReadDBL] == 2.5} "dbl"
    $c ReadL_END
    check {![$c ReadItemExists]} "nothing left"
}

case "a service's error arrives as a Tcl error with its text" {
    $c SendSTART
    $c SendSTR "broken on purpose"
    set e [raises {$c SendEND_AND_WAIT FAIL}]
    check {[string match "*broken on purpose*" [lindex $e 0]]} "got: $e"
    check {[lindex $e 1 0] eq "MK"} "errorcode: $e"
}

if {[string match TclTestServer* $server]} {
    case "a plain Tcl error in a service arrives with its text" {
        $c SendSTART
        set e [raises {$c SendEND_AND_WAIT PYER}]
        check {[string match "*tcl says no*" [lindex $e 0]]} "got: $e"
    }
}

case "reading the wrong type in a service is an error the service can catch" {
    $c SendSTART
    $c SendSTR abc
    $c SendEND_AND_WAIT WRNG
    set text [$c ReadSTR]
    check {[string match "caught: *" $text]} $text
}

case "reading the wrong type raises" {
    check {[echo $c I32 300] == 300} "echo"
    $c SendSTART
    $c SendSTR I32
    $c SendI32 300
    $c SendEND_AND_WAIT ECHO
    check {[raises {$c ReadI8}] ne ""} "300 read as I8"
    $c SendSTART
    $c SendSTR STR
    $c SendSTR abc
    $c SendEND_AND_WAIT ECHO
    check {[raises {$c ReadI32}] ne ""} "'abc' read as I32"
    check {[raises {$c ReadI32}] ne ""} "read past the end"
}

case "out-of-range numbers raise naming the call and the value" {
    $c SendSTART
    set e [raises {$c SendI8 300}]
    check {[string match "SendI8: 300 out of range for I8*" [lindex $e 0]]} "got: $e"
    check {[lindex $e 1] eq {MK 3}} "errorcode: $e"
    check {[raises {$c SendI64 9223372036854775808}] ne ""} "2**63 as I64"
    check {[raises {$c SendI32 abc}] ne ""} "abc as I32"
    check {[raises {$c SendEND NO}] ne ""} "a 2-character token"
}

set got {}
proc got_answer {ctx} { lappend ::got [$ctx ReadI32] }
case "SendEND_AND_CALLBACK runs the callback from the event loop" {
    $c SendSTART
    $c SendSTR I32
    $c SendI32 42
    $c SendEND_AND_CALLBACK ECHO got_answer
    for {set i 0} {$i < 100 && ![llength $::got]} {incr i} {
        $c ProcessEvent MQ_WAIT_ONCE 1000
    }
    check {$::got eq 42} "got: $::got"
}

proc bad_callback {ctx} { error "callback failed on purpose" }
proc bgerror {msg} {}
case "a callback that raises does not stop the event loop" {
    $c SendSTART
    $c SendSTR I8
    $c SendI8 1
    $c SendEND_AND_CALLBACK ECHO bad_callback
    $c ProcessEvent MQ_WAIT_ONCE 1000
    check {[echo $c I16 7] == 7} "the loop goes on"
}

case "every child gets its own server instance of the server's class" {
    set names [list $server]
    set kids {}
    for {set i 0} {$i < 3} {incr i} {
        set k [MqContextC new]
        $k LinkCreateChild $c
        $k SendSTART
        $k SendEND_AND_WAIT INST
        lappend names [$k ReadSTR]
        check {[echo $k I64 -5] == -5} "child echo"
        lappend kids $k
    }
    foreach k $kids {$k Delete}
    check {[llength [lsort -unique $names]] == 4} "names: $names"
    set prefix [lindex [split $server :] 0]
    foreach n $names {
        check {[lindex [split $n :] 0] eq $prefix} "names: $names"
    }
}

case "a deleted context raises instead of touching freed memory" {
    set p [MqContextC new]
    $p LinkCreate [list tclclient {*}$link]
    set k [MqContextC new]
    $k LinkCreateChild $p
    $p Delete
    check {[raises {$k SendSTART; $k SendEND_AND_WAIT INST 5000}] ne ""} "a child of a deleted parent"
    check {[raises {$p SendSTART}] ne ""} "the deleted parent"
    set k2 [MqContextC new]
    check {[raises {$k2 LinkCreateChild $p}] ne ""} "a deleted parent as argument"
    $k Delete
    $k2 Delete
    check {[raises {$k SendSTART}] ne ""} "a destroyed object"
}

$c Delete
