#!/usr/bin/env tclsh
# kv_server.tcl — the key-value service in Tcl: SET key value, GET key,
# DEL key.  Every instance (the parent's and each child's) is a new
# KvServer; the store belongs to the interpreter, so they share it.
#
#   tclsh kv_client.tcl @ tclsh kv_server.tcl
#   tclsh kv_server.tcl --uds --file /tmp/kv --fork
package require mqlink

oo::class create KvServer {
    superclass MqContextC

    method ServerSetup {} {
        my ServiceCreate SET_ [list my Set]
        my ServiceCreate GET_ [list my Get]
        my ServiceCreate DEL_ [list my Del]
    }
    method Set {} {
        set key [my ReadSTR]
        dict set ::store $key [my ReadSTR]
        my SendSTART
        my SendRETURN
    }
    method Get {} {
        set key [my ReadSTR]
        if {![dict exists $::store $key]} {
            error "no key '$key'"   ;# reaches the caller as its error
        }
        my SendSTART
        my SendSTR [dict get $::store $key]
        my SendRETURN
    }
    method Del {} {
        set key [my ReadSTR]
        set found [dict exists $::store $key]
        set ::store [dict remove $::store $key]
        my SendSTART
        my SendI32 $found
        my SendRETURN
    }
}

set store [dict create]
if {[info script] eq $::argv0} {
    set srv [KvServer new]
    if {[catch {
        $srv LinkCreate $argv
        $srv ProcessEvent MQ_WAIT_FOREVER
    } err]} {
        puts stderr "kv_server.tcl: $err"
        exit 1
    }
    $srv Delete
}
