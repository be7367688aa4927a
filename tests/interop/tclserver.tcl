# tclserver.tcl — the interop test server in Tcl (the same services as
# cserver.c, cxxserver.cc and pyserver.py):
#   ECHO  read a type name, then one item of that type; answer it
#   ELST  answer the next item (a nested list) unchanged
#   FAIL  read a text and fail with it (-errorcode {MK 1234})
#   PYER  fail with a plain Tcl error
#   WRNG  read a STR as I32; answer "caught: <error text>"
#   INST  answer a text naming this server instance
# With --thread each pool thread sources this script to define the class only.
package require mqlink

oo::class create TclTestServer {
    superclass MqContextC

    method ServerSetup {} {
        foreach token {ECHO ELST FAIL PYER WRNG INST} {
            my ServiceCreate $token [list my $token]
        }
    }

    method ECHO {} {
        set t [my ReadSTR]
        set v [my Read$t]
        my SendSTART
        my Send$t $v
        my SendRETURN
    }

    method ELST {} {
        my SendSTART
        my ProxyItem [self]
        my SendRETURN
    }

    method FAIL {} {
        return -code error -errorcode {MK 1234} [my ReadSTR]
    }

    method PYER {} {
        error "tcl says no"
    }

    method WRNG {} {
        if {[catch {my ReadI32} err]} {
            set text "caught: $err"
        } else {
            set text "not caught"
        }
        my SendSTART
        my SendSTR $text
        my SendRETURN
    }

    method INST {} {
        my SendSTART
        my SendSTR "TclTestServer:[self]"
        my SendRETURN
    }
}

if {!$::mqlink::thread} {
    set srv [TclTestServer new]
    $srv LinkCreate $argv
    $srv ProcessEvent MQ_WAIT_FOREVER
    $srv Delete
}
