# instance_test.tcl — server instances of a Tcl server: every child is a new
# object of the server's class whose constructors run, as the class stands
# when the child is made (defined from the start, added while instances
# exist, brought by a mixin), the binding's own constructor included.
# A deleted child leaves no object, namespace or command, and its class's
# destructor runs.  A service runs at global level, wherever the event loop was called from.
# Prints TAP.
package require mqlink

source [file join [file dirname [info script]] taptest.tcl]

# The server: TAG_ answers how the instance was constructed and its object;
# CTOR, MIXN and PLAIN change the class for the next instances; LEVL answers
# the level its method runs at and whether the caller of the event loop (the
# proc serve) is what `uplevel 1` sees.
set dir [file join [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}] mqtcl-inst-[pid]]
file mkdir $dir
set fh [open [file join $dir srv.tcl] w]
puts $fh {
    package require mqlink
    oo::class create Stamp {
        constructor {} { next; my variable tag; lappend tag mixin }
    }
    oo::class create Srv {
        superclass MqContextC
        variable tag
        method ServerSetup {} {
            foreach t {TAG_ CTOR MIXN PLAN LEVL DTOR GONE KEEP SHOW DEAD SELF} {
                my ServiceCreate $t [list my $t]
            }
        }
        method TAG_ {} {
            my SendSTART
            my SendSTR [expr {[info exists tag] ? $tag : "none"}]
            my SendSTR [self]
            my SendRETURN
        }
        method CTOR {} {
            oo::define Srv constructor {} { next; lappend tag ctor }
            my SendSTART; my SendRETURN
        }
        method MIXN {} {
            oo::define Srv mixin Stamp
            my SendSTART; my SendRETURN
        }
        method LEVL {} {
            my SendSTART
            my SendI32 [info level]
            my SendBOL [uplevel 1 {info exists serving}]
            my SendRETURN
        }
        method DTOR {} {
            oo::define Srv destructor {
                set ::gone [self]
                set ::dead [list [catch {my SendSTART} e] $e]
            }
            my SendSTART; my SendRETURN
        }
        # what the destructor's `my SendSTART` met (DTOR's destructor)
        method DEAD {} {
            my SendSTART
            my SendSTR $::dead
            my SendRETURN
        }
        method GONE {} {
            set o [my ReadSTR]
            my SendSTART
            my SendSTR [list [info object isa object $o] [namespace exists $o] \
                            [llength [info commands $o]] $::gone]
            my SendRETURN
        }
        method KEEP {} {
            my ReadBUF
            set ::kept [my ReadBUF]
            my SendSTART; my SendRETURN
        }
        method SHOW {} {
            set now [my ReadBUF]
            my SendSTART
            my SendSTR $::kept
            my SendBUF $now
            my SendBUF $now
            my SendRETURN
        }
        # the instance's object goes; its context stays the library's
        method SELF {} {
            my SendSTART; my SendRETURN
            [self] destroy
        }
        method PLAN {} {
            oo::define Srv mixin
            oo::define Srv constructor {} {}
            oo::define Srv destructor {}
            my SendSTART; my SendRETURN
        }
    }
    set gone none
    set dead none
    proc serve {argv} {
        set serving 1
        set s [Srv new]
        $s LinkCreate $argv
        $s ProcessEvent MQ_WAIT_FOREVER
        $s Delete
    }
    serve $argv
}
close $fh

set c [MqContextC new]
$c LinkCreate [list @ [info nameofexecutable] [file join $dir srv.tcl]]

# A new child's answer to TAG_: {tag object}.
proc child_tag {c} {
    set ch [MqContextC new]
    $ch LinkCreateChild $c
    $ch SendSTART
    $ch SendEND_AND_WAIT TAG_ 5000
    set r [list [$ch ReadSTR] [$ch ReadSTR]]
    $ch Delete
    return $r
}
proc call {c token} {
    $c SendSTART
    $c SendEND_AND_WAIT $token 5000
}

case "a child of a class with no constructor of its own is a new object of it" {
    lassign [child_tag $c] t1 o1
    lassign [child_tag $c] t2 o2
    check {$t1 eq "none" && $t2 eq "none"} "tags: $t1 $t2"
    check {$o1 ne $o2} "the same object twice: $o1"
    # two namespace levels, as TclOO's ::oo::ObjN (README.md, Tcl)
    check {[regexp {^::mqlink::srv[0-9]+$} $o1]} "object: $o1"
}

case "a constructor defined while instances exist runs in the next child" {
    call $c CTOR
    lassign [child_tag $c] t
    check {$t eq "ctor"} "tag: $t"
}

case "a constructor of a mixin runs in the next child" {
    call $c PLAN
    lassign [child_tag $c] t
    check {$t eq "none"} "without: $t"
    call $c MIXN
    lassign [child_tag $c] t
    check {$t eq "mixin"} "with the mixin: $t"
}

case "a child after the class is plain again runs no constructor but the binding's" {
    call $c PLAN
    lassign [child_tag $c] t
    check {$t eq "none"} "tag: $t"
}

case "a deleted child leaves no object, namespace or command; its destructor runs" {
    call $c PLAN
    lassign [child_tag $c] t o1
    $c SendSTART
    $c SendSTR $o1
    $c SendEND_AND_WAIT GONE 5000
    set r [$c ReadSTR]
    check {$r eq "0 0 0 none"} "without a destructor: $r"
    call $c DTOR
    lassign [child_tag $c] t o2
    $c SendSTART
    $c SendSTR $o2
    $c SendEND_AND_WAIT GONE 5000
    set r [$c ReadSTR]
    check {$r eq [list 0 0 0 $o2]} "with a destructor: $r"
    call $c PLAN
}

# The library ends a child's C context before its object goes: a C method
# through the fast `my` in the destructor (a call site run before, in the
# instance's services) raises instead of touching the freed context.
case "a destructor's my of a C method after the library ended the context raises" {
    call $c DTOR
    child_tag $c
    call $c DEAD
    set r [$c ReadSTR]
    check {$r eq {1 {SendSTART: the context was deleted}}} "the destructor met: $r"
    call $c PLAN
}

# A service is its object's method: once a script destroyed a server
# instance's object (the library still has its context), a call of the
# instance's service answers with an error, never runs on another
# instance's object (the next child's object reuses the destroyed one's
# record).
case "a service of an instance whose object was destroyed answers with an error" {
    set ch [MqContextC new]
    $ch LinkCreateChild $c
    call $ch SELF
    lassign [child_tag $c] t other
    set r [raises {call $ch TAG_}]
    if {$r eq ""} { set r [list answered [$ch ReadSTR] [$ch ReadSTR] "(the next child: $other)"] }
    check {[string match "*has no object*" [lindex $r 0]]} "the call: $r"
    $ch Delete
}

case "a service runs at global level though the event loop runs in a proc" {
    foreach ctx [list $c [set ch [MqContextC new]]] {
        if {$ctx eq $ch} { $ch LinkCreateChild $c }
        call $ctx LEVL
        set level [$ctx ReadI32]
        set seen [$ctx ReadBOL]
        check {$level == 1 && !$seen} "level $level, the proc's variable seen: $seen"
    }
    $ch Delete
}

# A buffer value shows a context's read itself until the link moves on
# (buffer.c): kept past its service, or past the client's next call, it
# shows its own bytes.  Each message has bytes of the same length.
# (A read dropped first: the first value of a process is made with its own
# copy; the next ones are the spare's views.)
case "a buffer value kept past its service or its client's next calls shows its own bytes" {
    $c SendSTART
    $c SendSTR dropped-val
    $c SendSTR first-value
    $c SendEND_AND_WAIT KEEP 5000
    set sent {VVVVVVVVVVV WWWWWWWWWWW XXXXXXXXXXX YYYYYYYYYYY ZZZZZZZZZZZ}
    set answers {}
    set kept {}
    foreach s $sent {
        $c SendSTART
        $c SendSTR $s
        $c SendEND_AND_WAIT SHOW 5000
        lappend answers [$c ReadSTR]
        $c ReadBUF
        lappend kept [$c ReadBUF]
    }
    check {$kept eq $sent} "the client's values kept past its next calls: $kept"
    check {[lsort -unique $answers] eq "first-value"} "the server's value kept past its service: $answers"
}

$c Delete
file delete -force $dir
done
