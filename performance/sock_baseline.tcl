# sock_baseline.tcl — what a Tcl user would otherwise use: round trips of
# SIZE bytes between two tclsh processes over Tcl's own channels, on the same
# transport as the link: pipe, a command pipeline to the peer (open |tclsh,
# Tcl's way to a child's stdin and stdout); tcp, `socket` on loopback.  Tcl
# 8.6 has no Unix-domain socket: for uds it prints a comment line only.
#
#   tclsh sock_baseline.tcl --transport pipe|uds|tcp [--sec S] [--size N]
#
# Prints one line in perfclient's shape, for the Tcl row's .perf file:
#   sock-roundtrip ops/s=53000 count=53000 sec=1.000 transport=tcp size=88
# (the peer is this script too: --serve-pipe SIZE, --serve-tcp PORT SIZE)

proc binary_chan {chan} {
    fconfigure $chan -translation binary -buffering none -blocking 1
    return $chan
}

# The peer: answer every message with itself until the other side closes.
proc echo {chan size} {
    while {[string length [set msg [read $chan $size]]] == $size} {
        puts -nonewline $chan $msg
    }
    exit 0
}

proc usage {why} {
    puts stderr "sock_baseline.tcl: $why"
    puts stderr "usage: tclsh sock_baseline.tcl --transport pipe|uds|tcp \[--sec S\] \[--size N\]"
    exit 2
}

switch -- [lindex $argv 0] {
    --serve-pipe {
        binary_chan stdin
        binary_chan stdout
        while {[string length [set msg [read stdin [lindex $argv 1]]]] == [lindex $argv 1]} {
            puts -nonewline stdout $msg
        }
        exit 0
    }
    --serve-tcp {
        echo [binary_chan [socket 127.0.0.1 [lindex $argv 1]]] [lindex $argv 2]
    }
}

array set opt {--transport pipe --sec 1.0 --size 88}
foreach {k v} $argv {
    if {![info exists opt($k)] || $v eq ""} { usage "bad option '$k'" }
    set opt($k) $v
}
set size $opt(--size)
set self [list [info nameofexecutable] [file normalize [info script]]]
switch -- $opt(--transport) {
    pipe {
        set conn [binary_chan [open |[concat $self --serve-pipe $size] r+]]
    }
    tcp {
        proc accepted {chan addr port} { set ::conn $chan }
        set server [socket -server accepted -myaddr 127.0.0.1 0]
        set port [lindex [fconfigure $server -sockname] 2]
        set peer [exec {*}$self --serve-tcp $port $size &]
        vwait ::conn
        close $server
        binary_chan $conn
    }
    uds {
        puts "# sock-roundtrip: Tcl 8.6 has no Unix-domain socket"
        exit 0
    }
    default { usage "--transport takes pipe, uds or tcp" }
}

set msg [string repeat x $size]
puts -nonewline $conn $msg
read $conn $size
set n 0
set t0 [clock microseconds]
while 1 {
    for {set i 0} {$i < 100} {incr i} {
        puts -nonewline $conn $msg
        if {[string length [read $conn $size]] != $size} { error "the peer ended" }
    }
    incr n 100
    set sec [expr {([clock microseconds] - $t0) / 1e6}]
    if {$sec >= $opt(--sec)} break
}
close $conn
puts [format "sock-roundtrip ops/s=%.0f count=%d sec=%.3f transport=%s size=%d" \
          [expr {$n / $sec}] $n $sec $opt(--transport) $size]
