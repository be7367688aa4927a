/* perffloor.h — the parts of bin/perffloor-tcl (perffloor.c says what it
 * measures). */
#ifndef MQTCL_PERFFLOOR_H
#define MQTCL_PERFFLOOR_H

#include <tcl.h>

#include "floor.h" /* perfclient/: floor_size, floor_done, floor_options, floor_report */

/* One call: TCL_OK or TCL_ERROR with the message in interp. */
typedef int floor_op(Tcl_Interp *interp, void *arg);

/* A service call as the runtime makes it (callback.c, resolver.c's
 * mqtcl_call_own): objv {NS::my METHOD} handed straight to that
 * command's C procedure, no lookup by name (the floor calls from C at global
 * level already). */
typedef struct {
    Tcl_Obj *objv[2];
    Tcl_ObjCmdProc *proc;
    ClientData cd;
} floor_call;
/* Find the procedure of c's objv[0]: TCL_OK, or TCL_ERROR with the message
 * in interp. */
int perffloor_call_prepare(Tcl_Interp *interp, floor_call *c);
/* The floor_op of a floor_call. */
int perffloor_call(Tcl_Interp *interp, void *call);

/* Seconds per call of op (after a warm-up), calls made in *count; < 0 when
 * a warm-up call failed. */
double perffloor_measure(Tcl_Interp *interp, floor_op *op, void *arg, const floor_size *z,
                         long *count);
/* The message on stderr; returns 1 (main's exit status). */
int perffloor_fail(Tcl_Interp *interp, const char *what);

/* perffloor_services.c: floor-tcl-SVC for each data service of the
 * perfserver (PerfServer, sourced in interp); empty: floor-tcl's seconds. */
int perffloor_services(Tcl_Interp *interp, double empty, const floor_size *z);

/* perffloor_shapes.c: define ::perffloor::Instance, its ServerSetup shaped
 * as the perfserver's, `nop` the no-op command. */
int perffloor_define(Tcl_Interp *interp);

/* perffloor_child.c (TclOO's C API, through its stubs). */
int perffloor_child(Tcl_Interp *interp, const floor_size *z);

#endif
