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

/* perffloor_shapes.c: the perfserver's services as runs of no-op commands. */
typedef struct {
    const char *text; /* one line of the method body, `nop` for each command */
    int times;        /* how often it runs for perfclient's message */
    int commands;     /* the commands it runs (`nop`s; [self] is compiled) */
} perffloor_line;

typedef struct {
    const char *name; /* the perfserver's service and the floor's method */
    const perffloor_line *lines;
} perffloor_service;

extern const perffloor_service perffloor_services[];
int perffloor_commands(const perffloor_service *s);
/* Define ::perffloor::Commands (a method per service) and
 * ::perffloor::Instance (ServerSetup shaped as the perfserver's); `nop` is
 * the no-op command. */
int perffloor_define(Tcl_Interp *interp);

/* perffloor_child.c (TclOO's C API, through its stubs). */
int perffloor_child(Tcl_Interp *interp, const floor_size *z);

#endif
