# buffer_test.tcl — the Tcl binding's kernel classes and conversions
# (MkBufferC, MkBufferStreamC, MkBufferListC, MqConfigFileC): every type at
# its boundaries through a stream, range checks naming the call and the
# value, wrong-type reads that raise, buffer values, object lifetime.
# Prints TAP.
package require mqlink

source [file join [file dirname [info script]] taptest.tcl]

case "every type at its boundaries through a stream" {
    set s [MkBufferStreamC new]
    set big [string repeat y [expr {1 << 20}]]
    set bin [string repeat [binary format c3 {0 255 7}] 1000]
    foreach {t v} [list I8 -128 I8 127 I16 -32768 I16 32767 I32 -2147483648 I32 2147483647 \
                       I64 -9223372036854775808 I64 9223372036854775807 \
                       DBL -0.0 DBL 1e308 DBL Inf DBL -Inf FLT 1.5 BOL 1 BOL 0 \
                       STR "" STR "\u00e4\u4e2d" STR $big BIN "" BIN $bin] {
        $s Write$t $v
    }
    $s WriteDBL NaN
    $s PosToStart
    foreach {t v} [list I8 -128 I8 127 I16 -32768 I16 32767 I32 -2147483648 I32 2147483647 \
                       I64 -9223372036854775808 I64 9223372036854775807 \
                       DBL -0.0 DBL 1e308 DBL Inf DBL -Inf FLT 1.5 BOL 1 BOL 0 \
                       STR "" STR "\u00e4\u4e2d" STR $big BIN "" BIN $bin] {
        set r [$s Read$t]
        if {$t in {DBL FLT}} {
            set ok [expr {$r == $v && [string index $r 0] eq [string index $v 0]}]
        } else {
            set ok [expr {$r eq $v}]
        }
        check {$ok} "$t [string range $v 0 30] came back as [string range $r 0 30]"
    }
    check {[$s ReadDBL] eq "NaN"} "NaN"
    check {![$s ReadItemExists]} "the end"
    $s Delete
}

case "out of range is an error naming the call and the value" {
    set b [MkBufferC new]
    set e [raises {$b SetI8 300}]
    check {[lindex $e 0] eq "SetI8: 300 out of range for I8"} $e
    check {[lindex $e 1] eq {MK 3}} $e
    check {[raises {$b SetI16 32768}] ne ""} "I16"
    check {[raises {$b SetI32 -2147483649}] ne ""} "I32"
    check {[raises {$b SetI64 9223372036854775808}] ne ""} "2**63"
    check {[raises {$b SetI64 -9223372036854775809}] ne ""} "-2**63-1"
    check {[raises {$b SetI64 18446744073709551615}] ne ""} "2**64-1"
    check {[raises {$b SetFLT 1e300}] ne ""} "FLT"
    check {[raises {$b SetI32 abc}] ne ""} "abc"
    # a Tcl integer (read in place, not through Tcl_GetWideIntFromObj)
    set big [expr {1 << 40}]
    check {[lindex [raises {$b SetI32 $big}] 0] eq "SetI32: 1099511627776 out of range for I32"} \
        "an integer value"
    check {[raises {$b SetI32}] ne ""} "wrong # args"
    $b Delete
}

case "reading the wrong type raises with the kernel's error code" {
    set b [MkBufferC new]
    $b SetI32 300
    set e [raises {$b GetI8}]
    check {[lindex $e 1] eq {MK 3}} $e
    $b SetSTR abc
    check {[lindex [raises {$b GetI32}] 1 0] eq "MK"} "STR as I32"
    check {[$b GetSTR] eq "abc"} "STR"
    set s [MkBufferStreamC new]
    check {[raises {$s ReadI32}] ne ""} "an empty stream"
    $s Delete
    $b Delete
}

# ReadBUF reuses the thread's last buffer value when nothing holds it.
case "a reused buffer value shows the new item, a kept one its own" {
    set s [MkBufferStreamC new]
    $s WriteSTR first
    $s WriteI32 42
    $s WriteSTR third
    $s PosToStart
    check {[$s ReadBUF] eq "first"} "first"
    set v [$s ReadBUF]
    check {$v == 42} "second read gave $v"
    set kept [$s ReadBUF]
    $s PosToStart
    set again [$s ReadBUF]
    check {$kept eq "third" && $again eq "first" && $v == 42} "$kept $again $v"
    $s Delete
}

case "buffer values keep their type and free themselves" {
    set s [MkBufferStreamC new]
    $s WriteI16 7
    $s WriteSTR text
    $s PosToStart
    set v1 [$s ReadBUF]
    set v2 [$s ReadBUF]
    set l [MkBufferListC new]
    $l AppendBUF $v1
    $l AppendBUF $v2
    check {[$l Size] == 2} "size"
    set b [MkBufferC new]
    $b Copy [$l IndexGet 0]
    check {[$b GetType] == $mqlink::MK_TYPE_I16} "type [$b GetType]"
    check {$v1 + 1 == 8 && $v2 eq "text"} "as plain values"
    check {[raises {$l IndexGet 5}] ne ""} "past the end"
    check {[raises {$l AppendBUF notabuffer}] ne ""} "not a buffer"
    $l AppendBUF $b
    check {[$l Size] == 3} "an MkBufferC object as BUF"
    foreach o [list $s $l $b] {$o Delete}
}

# A method's buffer value is the thread's spare value reused while nothing
# else holds it (buffer.c): kept values must stay what they were.
case "buffer values made, kept and freed in turn keep their own values and types" {
    set s [MkBufferStreamC new]
    $s WriteI32 1
    $s WriteSTR two
    $s WriteDBL 3.5
    $s WriteSTR four
    $s WriteI64 5
    $s PosToStart
    set a [$s ReadBUF]
    set b [$s ReadBUF]
    unset a
    set c [$s ReadBUF]
    set kept [list $b $c [$s ReadBUF] [$s ReadBUF]]
    check {$kept eq {two 3.5 four 5}} "kept: $kept"
    set l [MkBufferListC new]
    foreach v $kept {$l AppendBUF $v}
    set o [MkBufferC new]
    set types {}
    for {set i 0} {$i < [$l Size]} {incr i} {
        $o Copy [$l IndexGet $i]
        lappend types [mqlink::MkTypeName [$o GetType]]
    }
    check {$types eq {STR DBL STR I64}} "types: $types"
    $o Delete
    $l Delete
    $s Delete
}

# The spare value shows the borrowed buffer itself (buffer.c): a value kept
# past anything that moves its source on must show its own bytes.  Each
# source is rewritten with bytes of the same length, so a value still
# showing the source's buffer would show the new ones (or freed memory).
# Each kept value is read right after one dropped (`$s ReadBUF` alone): a
# value made while the spare is held by another gets its own copy at once.
case "a kept buffer value outlives the stream, list or tls object it was read from" {
    set s [MkBufferStreamC new]
    $s WriteSTR dropped
    $s WriteSTR hello
    $s PosToStart
    $s ReadBUF
    set v [$s ReadBUF]
    $s Reset
    $s WriteSTR XXXXXXX
    $s WriteSTR XXXXX
    check {$v eq "hello"} "stream Reset and rewritten: $v"
    $s PosToStart
    $s ReadBUF
    set w [$s ReadBUF]
    $s destroy
    check {$w eq "XXXXX"} "after the stream's destroy: $w"

    set l [MkBufferListC new]
    $l AppendSTR first
    $l IndexGet 0
    set v [$l IndexGet 0]
    $l Reset
    $l AppendSTR XXXXX
    check {$v eq "first"} "list Reset and rewritten: $v"
    $l IndexGet 0
    set w [$l IndexGet 0]
    $l Delete
    check {$w eq "XXXXX"} "after the list's Delete: $w"

    # a list's own item appended to it (the list grows under the value)
    set l [MkBufferListC new]
    $l AppendSTR item
    for {set i 0} {$i < 40} {incr i} { $l AppendBUF [$l IndexGet $i] }
    set all {}
    for {set i 0} {$i < [$l Size]} {incr i} { lappend all [$l IndexGet $i] }
    check {[lsort -unique $all] eq "item" && [llength $all] == 41} "appended to itself: [lsort -unique $all]"
    $l Delete

    # CreateTLS again empties the thread's object: the record's way
    # (classcmd.c, the same name value) and the ctor's (a new name value)
    foreach how {record ctor} {
        set t [MkBufferStreamC CreateTLS view-tls]
        $t WriteSTR dropped
        $t WriteSTR tls-1
        $t PosToStart
        $t ReadBUF
        set v [$t ReadBUF]
        if {$how eq "record"} {
            set t [MkBufferStreamC CreateTLS view-tls]
        } else {
            set t [MkBufferStreamC CreateTLS [join {view tls} -]]
        }
        $t WriteSTR XXXXXXX
        $t WriteSTR XXXXX
        check {$v eq "tls-1"} "CreateTLS again ($how): $v"
    }

    # a value whose text was asked for, kept, and another one read after it
    set s [MkBufferStreamC new]
    $s WriteI32 0
    $s WriteI32 11
    $s WriteI32 22
    $s PosToStart
    $s ReadBUF
    set a [$s ReadBUF]
    set text "$a"
    set b [$s ReadBUF]
    $s Reset
    $s WriteI32 0
    $s WriteI32 33
    $s WriteI32 44
    check {$a == 11 && $b == 22 && $text eq "11"} "$a $b $text"
    $s Delete
}

case "tls objects are the thread's: the same object every time" {
    set a [MkBufferStreamC CreateTLS t1]
    set b [MkBufferStreamC CreateTLS t1]
    set c [MkBufferStreamC CreateTLS t2]
    check {$a eq $b && $a ne $c} "$a $b $c"
}

# classcmd.c answers a CreateTLS with the same name value as the class's
# last one from its own record: it must still empty the object, tell names
# by their text, and forget an object that was destroyed.
case "CreateTLS again: the same object emptied, names by text, a destroyed one made anew" {
    foreach {cls put count} {MkBufferStreamC WriteI32 Count MkBufferListC AppendI32 Size} {
        set name again-$cls
        set a [$cls CreateTLS $name]
        $a $put 1
        set b [$cls CreateTLS $name]
        check {$b eq $a && [$b $count] == 0} "$cls: $a then $b holding [$b $count]"
        check {[$cls CreateTLS [string cat again- $cls]] eq $a} "$cls: the name as another value"
        check {[$cls [string cat Create TLS] $name] eq $a} "$cls: the word as another value"
        set e [raises {$cls Create $name}]
        check {[string match "*Create*" [lindex $e 0]]} "$cls: Create with the same name: $e"
        set o [$cls CreateTLS other-$cls]
        check {$o ne $a && [$cls CreateTLS $name] eq $a} "$cls: two names in turn"
        $a $put 2
        $a destroy
        set c [$cls CreateTLS $name]
        check {[info commands $c] ne "" && [$c $count] == 0} "$cls: after destroy: $c"
        $c $put 3
        check {[$c $count] == 1} "$cls: the new object works"
    }
}

case "a deleted object raises" {
    set b [MkBufferC new]
    $b Delete
    check {[raises {$b SetI32 1}] ne ""} "deleted"
    set c [MqContextC new]
    $c Delete
    check {[raises {$c SendSTART}] ne ""} "deleted context"
}

# Objects of the plain classes answer through an object command of their
# own (runtime.c, "object commands"): still TclOO objects in every way.
case "a kernel object is a TclOO object of its class" {
    foreach {cls o} [list MkBufferStreamC [MkBufferStreamC CreateTLS oo1] \
                          MkBufferListC [MkBufferListC Create] MkBufferC [MkBufferC new]] {
        check {[info object isa object $o]} "$o is an object"
        check {[info object class $o] eq "::$cls"} "class of $o: [info object class $o]"
        check {[info object isa typeof $o ::$cls]} "typeof $o"
    }
}

case "destroy, Delete and rename end the object and its command" {
    foreach how {destroy Delete rename} {
        set b [MkBufferC new]
        $b SetI32 1
        set before [llength [info class instances MkBufferC]]
        if {$how eq "rename"} {rename $b {}} else {$b $how}
        check {[info commands $b] eq ""} "$how: command $b still there"
        check {[llength [info class instances MkBufferC]] == $before - 1} "$how: object left"
        check {[raises {$b SetI32 2}] ne ""} "$how: a call after it"
    }
}

case "methods defined on the object, and errors, reach TclOO" {
    set b [MkBufferC new]
    oo::objdefine $b method twice {} {my SetI32 2; return [expr {[my GetI32] * 2}]}
    check {[$b twice] == 4} "per-object method"
    check {[lindex [raises {$b NoSuchMethod}] 0] ne ""} "unknown method"
    check {[string match "*SetI32*" [lindex [raises {$b SetI32}] 0]]} "wrong args"
    $b Delete
}

case "a subclass keeps its overrides" {
    oo::class create LoudBuffer {
        superclass MkBufferC
        method SetI32 {v} { next [expr {$v + 100}] }
        export SetI32
    }
    set b [LoudBuffer new]
    $b SetI32 1
    check {[$b GetI32] == 101} "override: [$b GetI32]"
    set s [MkBufferStreamC new]
    $s WriteBUF $b
    $s PosToStart
    check {[$s ReadI32] == 101} "a subclass object as BUF"
    foreach o [list $b $s] {$o Delete}
}

case "a stream method and a context method of the same name" {
    set s [MkBufferStreamC new]
    $s WriteI32 5
    $s PosToStart
    set c [MqContextC new]
    foreach k {1 2 3} {
        check {[$s ReadItemExists]} "stream ReadItemExists $k"
        $s PosToStart
        check {[raises {$c ReadItemExists}] eq ""} "context ReadItemExists $k"
    }
    foreach o [list $s $c] {$o Delete}
}

case "a subclass of MqContextC with a constructor of its own" {
    oo::class create Sub {
        superclass MqContextC
        variable x
        constructor {v} { next; set x $v }
        method name {} { my ConfigSetName "n$x"; my ConfigGetName }
    }
    set o [Sub new 5]
    check {[$o name] eq "n5"} [$o name]
    $o Delete
}

case "a context subclass overriding a C method: my reaches the override" {
    oo::class create Prefixed {
        superclass MqContextC
        method ConfigSetName {n} { next "p-$n" }
        method name {v} { my ConfigSetName $v; my ConfigGetName }
    }
    set o [Prefixed new]
    check {[$o name x] eq "p-x"} "my ConfigSetName: [$o name x]"
    $o Delete
}

case "a C method overridden after the class has objects: my reaches the override" {
    oo::class create Later {
        superclass MqContextC
        method name {v} { my ConfigSetName $v; my ConfigGetName }
    }
    set a [Later new]
    check {[$a name x] eq "x"} "before: [$a name x]"
    oo::define Later method ConfigSetName {n} { next "late-$n" }
    set b [Later new]
    check {[$b name y] eq "late-y"} "a new object: [$b name y]"
    check {[$a name z] eq "late-z"} "the older object: [$a name z]"
    oo::define Later deletemethod ConfigSetName
    check {[$a name w] eq "w"} "override deleted: [$a name w]"
    foreach o [list $a $b] {$o Delete}
}

case "a C method overridden while the class has no objects: a new object sees it" {
    oo::class create Gap {
        superclass MqContextC
        method name {v} { my ConfigSetName $v; my ConfigGetName }
    }
    set a [Gap new]
    check {[$a name x] eq "x"} "before: [$a name x]"
    $a Delete
    oo::define Gap method ConfigSetName {n} { next "gap-$n" }
    set b [Gap new]
    check {[$b name y] eq "gap-y"} "defined without objects: [$b name y]"
    $b Delete
}

# runtime.c's dispatch: a word's id indexes the class's table of C methods;
# a word that is another class's method only, or the user's own method of
# that name, goes to TclOO.
case "my with another class's method name: TclOO's unknown method, or the user's method" {
    oo::class create Words {
        superclass MqContextC
        method put {v} { my WriteI32 $v }
        method get {} { my Size }
    }
    set a [Words new]
    set e [raises {$a put 1}]
    check {[string match "*WriteI32*" [lindex $e 0]]} "a stream's method on a context: $e"
    oo::define Words method WriteI32 {v} { return "own-$v" }
    check {[$a put 2] eq "own-2"} "the user's method of that name: [$a put 2]"
    oo::define Words method Size {} { return 7 }
    check {[$a get] == 7} "a list's method name as the user's: [$a get]"
    oo::define Words deletemethod WriteI32
    set e [raises {$a put 3}]
    check {[string match "*WriteI32*" [lindex $e 0]]} "deleted again: $e"
    set s [MkBufferStreamC new]
    $s WriteI32 4
    check {[$s Size] > 0} "the stream's own methods of those names"
    foreach o [list $a $s] {$o Delete}
}

# The same call site, the same word value, before, while and after a
# subclass takes the method over (oo::define at run time), and a sibling
# class that never does.
case "one call site: a C method taken over after its first call, then given back" {
    oo::class create Site {
        superclass MqContextC
        method name {v} { my ConfigSetName $v; my ConfigGetName }
    }
    oo::class create Plain { superclass Site }
    oo::class create Taker { superclass Site }
    set p [Plain new]
    set t [Taker new]
    set r {}
    foreach step {before during after} {
        if {$step eq "during"} { oo::define Taker method ConfigSetName {n} { next "t-$n" } }
        if {$step eq "after"} { oo::define Taker deletemethod ConfigSetName }
        lappend r [$t name $step] [$p name $step]
    }
    check {$r eq "before before t-during during after after"} "taker, plain: $r"
    foreach o [list $p $t] {$o Delete}
}

# convert.c's mqtcl_to_CTX takes the calling context's own name value
# (`my ProxyItem [self]`) without a lookup: only while it is the name.
case "a context argument: the caller by its name, and by a name it had before a rename" {
    oo::class create Named {
        superclass MqContextC
        method proxy {o} { my ProxyItem $o }
        method proxy_self {} { my ProxyItem [self] }
    }
    set a [Named new]
    set by_self [raises {$a proxy_self}]
    check {[raises {$a proxy $a}] eq $by_self} "by name: [raises {$a proxy $a}], by self: $by_self"
    check {![string match "*expected an MqContextC*" [lindex $by_self 0]]} "by self: $by_self"
    rename $a ::named_ctx
    set e [raises {::named_ctx proxy $a}]
    check {[string match "ProxyItem: expected an MqContextC*" [lindex $e 0]]} "old name: $e"
    set after [raises {::named_ctx proxy_self}]
    check {$after eq $by_self} "by self after the rename: $after"
    ::named_ctx Delete
}

case "a server setup that raises: the server reports it and the link fails" {
    set dir [file join [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}] mqtcl-[pid]]
    file mkdir $dir
    set fh [open [file join $dir srv.tcl] w]
    puts $fh {
        package require mqlink
        oo::class create Bad {
            superclass MqContextC
            method ServerSetup {} { error "setup refused" }
        }
        set s [Bad new]
        if {[catch {$s LinkCreate $argv; $s ProcessEvent MQ_WAIT_FOREVER} e]} {
            puts stderr "server: $e"
        }
        $s Delete
    }
    close $fh
    set fh [open [file join $dir cli.tcl] w]
    puts $fh {
        package require mqlink
        set c [MqContextC new]
        puts "caught [catch {$c LinkCreate [list @ [info nameofexecutable] [lindex $argv 0]]}]"
        $c Delete
    }
    close $fh
    catch {exec [info nameofexecutable] [file join $dir cli.tcl] [file join $dir srv.tcl] 2>@1} out
    file delete -force $dir
    check {[string match "*server: setup refused*" $out]} "server: $out"
    check {[string match "*caught 1*" $out]} "client: $out"
}

case "a class command: its ctors, TclOO's words, errors, a subclass's own" {
    set a [MkBufferListC CreateTLS cc1]
    check {[MkBufferListC CreateTLS cc1] eq $a} "the same tls object"
    check {[info object class [MkBufferStreamC Create]] eq "::MkBufferStreamC"} "Create"
    check {[info object isa class MkBufferStreamC]} "still a TclOO class by its name"
    check {"CreateTLS" in [info object methods MkBufferStreamC]} "ctors seen by TclOO"
    set e [raises {MkBufferStreamC CreateTLS}]
    check {[string match "*CreateTLS*" [lindex $e 0]]} "ctor without its argument: $e"
    set e [raises {MkBufferStreamC NoSuchCtor}]
    check {[string match "*unknown method \"NoSuchCtor\"*" [lindex $e 0]]} "unknown: $e"
    set s [MkBufferStreamC create ::named-stream]
    $s WriteI32 7
    check {$s eq "::named-stream" && [info object class $s] eq "::MkBufferStreamC"} "create: $s"
    $s destroy
    oo::class create SubList {superclass MkBufferListC}
    set e [raises {SubList CreateTLS cc2}]
    check {[string match "*unknown method*" [lindex $e 0]]} "a subclass has no ctors: $e"
    set l [SubList new]
    $l AppendI32 5
    check {[$l Size] == 1} "a subclass object works"
    $l destroy
    SubList destroy
}

case "a configuration file read through MqConfigFileC" {
    set f [file join [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}] mqtcl-[pid].cfg]
    set fh [open $f w]
    puts $fh {name = "tcl"; n = 9223372036854775807L; ok = true; x = 2.5;}
    close $fh
    set c [MqConfigFileC new]
    $c Read $f
    file delete $f
    check {[$c GetSTR name] eq "tcl"} "STR"
    check {[$c GetI64 n] == 9223372036854775807} "I64"
    check {[$c GetBOL ok] && [$c GetDBL x] == 2.5} "BOL DBL"
    check {[$c GetSTR missing dflt] eq "dflt"} "default"
    $c Delete
}

done
