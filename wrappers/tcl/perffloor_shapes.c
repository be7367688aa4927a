/* perffloor_shapes.c — the perfserver's services (perfserver.tcl) as the
 * commands they run for perfclient's messages, each replaced by the no-op
 * command `nop` with the same words and nesting, loops unrolled: RDUL and
 * ECUL for the 5-item message of --send/--send-and-callback/--send-and-wait,
 * BUST and BFLT for the 7 items of --bus/--bfl (7 true ReadItemExists and
 * the false one end each while loop). */
#include <string.h>

#include "perffloor.h"

static const perffloor_line rdul[] = {
    {"nop ReadI8", 1, 1}, {"nop ReadI16", 1, 1}, {"nop ReadI32", 1, 1},
    {"nop ReadDBL", 1, 1}, {"nop ReadBUF", 1, 1}, {NULL, 0, 0}};

static const perffloor_line ecul[] = {
    {"nop SendSTART", 1, 1},
    {"nop SendI8 [nop ReadI8]", 1, 2},
    {"nop SendI16 [nop ReadI16]", 1, 2},
    {"nop SendI32 [nop ReadI32]", 1, 2},
    {"nop SendDBL [nop ReadDBL]", 1, 2},
    {"nop ProxyItem [self]", 1, 1},
    {"nop SendRETURN", 1, 1},
    {NULL, 0, 0}};

static const perffloor_line bust[] = {
    {"nop CreateTLS perfserver-BUST", 1, 1},
    {"nop ReadItemExists", 8, 1},
    {"nop WriteBUF [nop ReadBUF]", 7, 2},
    {"nop PosToStart", 1, 1},
    {"nop SendSTART", 1, 1},
    {"nop ReadItemExists", 8, 1},
    {"nop SendBUF [nop ReadBUF]", 7, 2},
    {"nop SendRETURN", 1, 1},
    {NULL, 0, 0}};

static const perffloor_line bflt[] = {
    {"nop CreateTLS perfserver-BFLT", 1, 1},
    {"nop ReadItemExists", 8, 1},
    {"nop AppendBUF [nop ReadBUF]", 7, 2},
    {"nop SendSTART", 1, 1},
    {"nop Size", 1, 1},
    {"nop SendBUF [nop IndexGet 0]", 7, 2},
    {"nop SendRETURN", 1, 1},
    {NULL, 0, 0}};

const perffloor_service perffloor_services[] = {
    {"RDUL", rdul}, {"ECUL", ecul}, {"BUST", bust}, {"BFLT", bflt}, {NULL, NULL}};

/* ServerSetup's five lines (`list` is compiled, as in the perfserver). */
static const perffloor_line setup[] = {
    {"nop ServiceCreate NTHT [list my NTHT]", 1, 1},
    {"nop ServiceCreate RDUL [list my RDUL]", 1, 1},
    {"nop ServiceCreate ECUL [list my ECUL]", 1, 1},
    {"nop ServiceCreate BUST [list my BUST]", 1, 1},
    {"nop ServiceCreate BFLT [list my BFLT]", 1, 1},
    {NULL, 0, 0}};

int
perffloor_commands(const perffloor_service *s)
{
    int n = 0;
    for (const perffloor_line *l = s->lines; l->text; l++)
        n += l->times * l->commands;
    return n;
}

static void
method(Tcl_DString *d, const char *cls, const char *name, const perffloor_line *lines)
{
    Tcl_DStringAppend(d, "oo::define ", -1);
    Tcl_DStringAppend(d, cls, -1);
    Tcl_DStringAppend(d, " method ", -1);
    Tcl_DStringAppend(d, name, -1);
    Tcl_DStringAppend(d, " {} {\n", -1);
    for (const perffloor_line *l = lines; l->text; l++)
        for (int i = 0; i < l->times; i++) {
            Tcl_DStringAppend(d, "    ", -1);
            Tcl_DStringAppend(d, l->text, -1);
            Tcl_DStringAppend(d, "\n", -1);
        }
    Tcl_DStringAppend(d, "}\n", -1);
}

int
perffloor_define(Tcl_Interp *interp)
{
    Tcl_DString d;
    int rc;

    Tcl_DStringInit(&d);
    Tcl_DStringAppend(&d, "namespace eval ::perffloor {}\n"
                          "oo::class create ::perffloor::Commands\n"
                          "oo::class create ::perffloor::Instance\n", -1);
    for (const perffloor_service *s = perffloor_services; s->name; s++)
        method(&d, "::perffloor::Commands", s->name, s->lines);
    method(&d, "::perffloor::Instance", "ServerSetup", setup);
    rc = Tcl_EvalEx(interp, Tcl_DStringValue(&d), Tcl_DStringLength(&d), TCL_EVAL_GLOBAL);
    Tcl_DStringFree(&d);
    return rc;
}
