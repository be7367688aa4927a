/* perffloor.h — the parts of bin/perffloor-tcl (perffloor.c says what it
 * measures). */
#ifndef MQTCL_PERFFLOOR_H
#define MQTCL_PERFFLOOR_H

#include <tcl.h>

#include "floor.h" /* perfclient/: floor_size, floor_done, floor_options, floor_report */

/* One call: TCL_OK or TCL_ERROR with the message in interp. */
typedef int floor_op(Tcl_Interp *interp, void *arg);

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
