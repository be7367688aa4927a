/* perffloor.c — bin/perffloor-tcl: what a Tcl server costs at least, C
 * calling into Tcl through its C API as the runtime does, N times.
 *
 *   floor-tcl        the perfserver's empty service NTHT through the object's
 *                    TclOO `my` with the method name, its C procedure called
 *                    at global level, as the runtime calls a service
 *                    registered with `my NTHT`: one entry into Tcl.
 *   floor-tcl-SVC    the perfserver's service SVC as perfserver.tcl writes
 *                    it, called the same way, every mqlink command in it a
 *                    no-op C command (perffloor_services.c): commands=K, the
 *                    no-op commands one call runs, and ns/command, the time
 *                    per command above floor-tcl.
 *   floor-tcl-child  a new server instance's floor (perffloor_child.c).
 *
 * What a Tcl server can reach at most is 1/(1/C + 1/floor) for each (C: the
 * C server's figure for the column in the same run).
 *
 *   perffloor-tcl [--num N] [--sec S] [PERFSERVER.TCL]
 * prints `NAME ops/s=X count=N sec=S ...` like perfclient, one line each. */
#include <stdio.h>

#include "perffloor.h"

#ifndef MQTCL_PERFSERVER
#define MQTCL_PERFSERVER "perfserver.tcl"
#endif
#ifndef MQTCL_LIBDIR
#define MQTCL_LIBDIR ""
#endif

int
perffloor_fail(Tcl_Interp *interp, const char *what)
{
    fprintf(stderr, "perffloor-tcl: %s: %s\n", what, Tcl_GetStringResult(interp));
    return 1;
}

/* Blocks of 1000 calls: the clock is read once per block. */
double
perffloor_measure(Tcl_Interp *interp, floor_op *op, void *arg, const floor_size *z, long *count)
{
    double t0, t;
    long n = 0;

    for (int i = 0; i < 1000; i++) /* warm-up: call chains and lookups cached */
        if (op(interp, arg) != TCL_OK)
            return -1;
    t0 = perf_now();
    for (;;) {
        for (int i = 0; i < 1000; i++)
            op(interp, arg);
        n += 1000;
        t = perf_now() - t0;
        if (floor_done(z, n, t))
            break;
    }
    *count = n;
    return t / n;
}

int
perffloor_call_prepare(Tcl_Interp *interp, floor_call *c)
{
    Tcl_CmdInfo info;

    if (!Tcl_GetCommandInfo(interp, Tcl_GetString(c->objv[0]), &info)) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("no command %s", Tcl_GetString(c->objv[0])));
        return TCL_ERROR;
    }
    c->proc = info.objProc;
    c->cd = info.objClientData;
    return TCL_OK;
}

int
perffloor_call(Tcl_Interp *interp, void *call)
{
    floor_call *c = call;
    return c->proc(c->cd, interp, 2, c->objv);
}

/* `$my METHOD`, my the result of script. */
static int
prepare(Tcl_Interp *interp, floor_call *p, const char *script, const char *method)
{
    if (Tcl_EvalEx(interp, script, -1, TCL_EVAL_GLOBAL) != TCL_OK)
        return TCL_ERROR;
    p->objv[0] = Tcl_DuplicateObj(Tcl_GetObjResult(interp));
    p->objv[1] = Tcl_NewStringObj(method, -1);
    Tcl_IncrRefCount(p->objv[0]);
    Tcl_IncrRefCount(p->objv[1]);
    return perffloor_call_prepare(interp, p);
}

static int
nop(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    return TCL_OK;
}

static int
load_perfserver(Tcl_Interp *interp, const char *script)
{
    Tcl_Obj *setup;
    int rc;

    /* the script's main part is guarded by [info script] eq $argv0 */
    Tcl_SetVar(interp, "argv0", "perffloor-tcl", TCL_GLOBAL_ONLY);
    Tcl_SetVar(interp, "argv", "", TCL_GLOBAL_ONLY);
    setup = Tcl_ObjPrintf("if {{%s} ne {}} {lappend ::auto_path {%s}}\nsource {%s}", MQTCL_LIBDIR,
                          MQTCL_LIBDIR, script);
    Tcl_IncrRefCount(setup);
    rc = Tcl_EvalObjEx(interp, setup, TCL_EVAL_GLOBAL);
    Tcl_DecrRefCount(setup);
    return rc;
}

int
main(int argc, char **argv)
{
    floor_size z = {1000000, 0};
    const char *script = MQTCL_PERFSERVER;
    Tcl_Interp *interp;
    floor_call ntht;
    long n;
    double t;

    floor_options(&z, argc, argv, &script);
    Tcl_FindExecutable(argv[0]);
    interp = Tcl_CreateInterp();
    if (Tcl_Init(interp) != TCL_OK)
        return perffloor_fail(interp, "Tcl_Init");
    if (load_perfserver(interp, script) != TCL_OK)
        return perffloor_fail(interp, script);
    if (prepare(interp, &ntht, "string cat [info object namespace [PerfServer new]] ::my", "NTHT") !=
        TCL_OK)
        return perffloor_fail(interp, "PerfServer");
    if ((t = perffloor_measure(interp, perffloor_call, &ntht, &z, &n)) < 0)
        return perffloor_fail(interp, "NTHT");
    floor_report("floor-tcl", t, n, "");
    Tcl_CreateObjCommand(interp, "::nop", nop, NULL, NULL);
    if (perffloor_define(interp) != TCL_OK)
        return perffloor_fail(interp, "the floor's classes");
    if (perffloor_services(interp, t, &z))
        return 1;
    return perffloor_child(interp, &z);
}
