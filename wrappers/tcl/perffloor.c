/* perffloor.c — bin/perffloor-tcl: the floor of a one-way column for Tcl.
 * C calls the perfserver's empty service NTHT through Tcl_EvalObjv of the
 * prepared command N times, as the runtime calls a service registered with
 * `my NTHT` (the object's TclOO `my` and the method name, at global level).
 * What a Tcl server can reach at most is 1/(1/C + 1/floor).
 *
 *   perffloor-tcl [--num N] [--sec S] [PERFSERVER.TCL]
 * prints `floor-tcl ops/s=X count=N sec=S` like perfclient. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tcl.h>

#ifndef MQTCL_PERFSERVER
#define MQTCL_PERFSERVER "perfserver.tcl"
#endif
#ifndef MQTCL_LIBDIR
#define MQTCL_LIBDIR ""
#endif

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
fail(Tcl_Interp *interp, const char *what)
{
    fprintf(stderr, "perffloor-tcl: %s: %s\n", what, Tcl_GetStringResult(interp));
    return 1;
}

int
main(int argc, char **argv)
{
    long num = 1000000;
    double sec = 0, t0, t;
    const char *script = MQTCL_PERFSERVER;
    Tcl_Interp *interp;
    Tcl_Obj *cmd[2], *setup;
    long n = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--num") && i + 1 < argc)
            num = atol(argv[++i]);
        else if (!strcmp(argv[i], "--sec") && i + 1 < argc)
            sec = atof(argv[++i]);
        else
            script = argv[i];
    }
    Tcl_FindExecutable(argv[0]);
    interp = Tcl_CreateInterp();
    if (Tcl_Init(interp) != TCL_OK)
        return fail(interp, "Tcl_Init");
    /* the script's main part is guarded by [info script] eq $argv0 */
    Tcl_SetVar(interp, "argv0", "perffloor-tcl", TCL_GLOBAL_ONLY);
    Tcl_SetVar(interp, "argv", "", TCL_GLOBAL_ONLY);
    setup = Tcl_ObjPrintf("if {{%s} ne {}} {lappend ::auto_path {%s}}\n"
                          "source {%s}\n"
                          "set o [PerfServer new]\n"
                          "set my [info object namespace $o]::my",
                          MQTCL_LIBDIR, MQTCL_LIBDIR, script);
    Tcl_IncrRefCount(setup);
    if (Tcl_EvalObjEx(interp, setup, TCL_EVAL_GLOBAL) != TCL_OK)
        return fail(interp, script);
    cmd[0] = Tcl_DuplicateObj(Tcl_GetObjResult(interp));
    cmd[1] = Tcl_NewStringObj("NTHT", -1);
    Tcl_IncrRefCount(cmd[0]);
    Tcl_IncrRefCount(cmd[1]);
    for (int i = 0; i < 1000; i++) /* warm-up: the method's call chain is cached */
        if (Tcl_EvalObjv(interp, 2, cmd, TCL_EVAL_GLOBAL) != TCL_OK)
            return fail(interp, "NTHT");
    t0 = now();
    for (;;) {
        for (int i = 0; i < 1000; i++)
            Tcl_EvalObjv(interp, 2, cmd, TCL_EVAL_GLOBAL);
        n += 1000;
        t = now() - t0;
        if (sec > 0 ? t >= sec : n >= num)
            break;
    }
    printf("floor-tcl ops/s=%.0f count=%ld sec=%.3f\n", n / t, n, t);
    return 0;
}
