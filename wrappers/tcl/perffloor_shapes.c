/* perffloor_shapes.c — the perfserver's ServerSetup (perfserver.tcl) as
 * the commands it runs for a new server instance, each replaced by the
 * no-op command `nop` with the same words (floor-tcl-child). */
#include "perffloor.h"

typedef struct {
    const char *text; /* one line of the method body, `nop` for each command */
} perffloor_line;

/* ServerSetup's five lines (`list` is compiled, as in the perfserver). */
static const perffloor_line setup[] = {
    {"nop ServiceCreate NTHT [list my NTHT]"},
    {"nop ServiceCreate RDUL [list my RDUL]"},
    {"nop ServiceCreate ECUL [list my ECUL]"},
    {"nop ServiceCreate BUST [list my BUST]"},
    {"nop ServiceCreate BFLT [list my BFLT]"},
    {NULL}};

static void
method(Tcl_DString *d, const char *cls, const char *name, const perffloor_line *lines)
{
    Tcl_DStringAppend(d, "oo::define ", -1);
    Tcl_DStringAppend(d, cls, -1);
    Tcl_DStringAppend(d, " method ", -1);
    Tcl_DStringAppend(d, name, -1);
    Tcl_DStringAppend(d, " {} {\n", -1);
    for (const perffloor_line *l = lines; l->text; l++) {
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
                          "oo::class create ::perffloor::Instance\n", -1);
    method(&d, "::perffloor::Instance", "ServerSetup", setup);
    rc = Tcl_EvalEx(interp, Tcl_DStringValue(&d), Tcl_DStringLength(&d), TCL_EVAL_GLOBAL);
    Tcl_DStringFree(&d);
    return rc;
}
