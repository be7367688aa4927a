#!/usr/bin/env tclsh
# kv_client.tcl — uses kv_server (any language's): SET, GET and DEL on the
# parent context, then through a child context (a second server instance
# over the same connection).
#
#   tclsh kv_client.tcl @ tclsh kv_server.tcl
#   tclsh kv_client.tcl --uds --file /tmp/kv
package require mqlink

proc kv_set {c key value} {
    $c SendSTART; $c SendSTR $key; $c SendSTR $value
    $c SendEND_AND_WAIT SET_
    puts "SET $key=$value"
}
proc kv_get {c key {who ""}} {
    $c SendSTART; $c SendSTR $key
    if {[catch {$c SendEND_AND_WAIT GET_} err]} {
        puts "${who}GET $key -> error: $err"   ;# the server's error text
    } else {
        puts "${who}GET $key -> [$c ReadSTR]"
    }
}
proc kv_del {c key} {
    $c SendSTART; $c SendSTR $key
    $c SendEND_AND_WAIT DEL_
    puts "DEL $key -> [$c ReadI32]"
}

set c [MqContextC new]
set child [MqContextC new]
if {[catch {
    $c LinkCreate $argv
    kv_set $c color blue
    kv_get $c color
    $child LinkCreateChild $c   ;# its own server instance, over c's link
    kv_get $child color "child "
    kv_set $child size 10
    $child LinkDelete
    kv_del $c color
    kv_del $c color
    kv_get $c color
    kv_get $c size
} err]} {
    puts stderr "kv_client.tcl: $err"
    exit 1
}
$child Delete
$c Delete
