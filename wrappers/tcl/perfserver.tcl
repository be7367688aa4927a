#!/usr/bin/env tclsh
# perfserver.tcl — the performance suite's server in Tcl: the reference's
# five services (../shared/reference/README_PERFORMANCE.txt) as a Tcl
# programmer writes them; perfclient calls them over every transport and
# start mode.
#
#   tclsh perfserver.tcl [link options]        (pipe: perfclient ... @ tclsh perfserver.tcl)
#   tclsh perfserver.tcl --uds --file PATH --fork|--spawn|--thread
#   tclsh perfserver.tcl --tcp --port N --fork|--spawn|--thread
#
# With --thread each pool thread sources this script in its own interpreter
# to define the class; the guard at the end keeps that from starting a server.
# @MQLINK_TCLLIB@
package require mqlink

oo::class create PerfServer {
    superclass MqContextC

    method ServerSetup {} {
        my ServiceCreate NTHT [list my NTHT]
        my ServiceCreate RDUL [list my RDUL]
        my ServiceCreate ECUL [list my ECUL]
        my ServiceCreate BUST [list my BUST]
        my ServiceCreate BFLT [list my BFLT]
    }

    method NTHT {} {
    }

    method RDUL {} {
        my ReadI8
        my ReadI16
        my ReadI32
        my ReadDBL
        my ReadBUF
    }

    method ECUL {} {
        my SendSTART
        my SendI8 [my ReadI8]
        my SendI16 [my ReadI16]
        my SendI32 [my ReadI32]
        my SendDBL [my ReadDBL]
        my ProxyItem [self]
        my SendRETURN
    }

    method BUST {} {
        set bus [MkBufferStreamC CreateTLS perfserver-BUST]
        while {[my ReadItemExists]} {
            $bus WriteBUF [my ReadBUF]
        }
        $bus PosToStart
        my SendSTART
        while {[$bus ReadItemExists]} {
            my SendBUF [$bus ReadBUF]
        }
        my SendRETURN
    }

    method BFLT {} {
        set bfl [MkBufferListC CreateTLS perfserver-BFLT]
        while {[my ReadItemExists]} {
            $bfl AppendBUF [my ReadBUF]
        }
        my SendSTART
        set n [$bfl Size]
        for {set i 0} {$i < $n} {incr i} {
            my SendBUF [$bfl IndexGet $i]
        }
        my SendRETURN
    }
}

if {[info script] eq $::argv0} {
    set srv [PerfServer new]
    if {[catch {
        $srv LinkCreate $argv
        $srv ProcessEvent MQ_WAIT_FOREVER
    } err]} {
        puts stderr "perfserver.tcl: $err"
        $srv Delete
        exit 1
    }
    $srv Delete
}
