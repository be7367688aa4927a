/* instance_delete.h — delete a server instance's TclOO object cheaply
 * (instance_delete.c); shared by the runtime and perffloor-tcl's child
 * floor, which deletes its instances the way the runtime does. */
#ifndef MQTCL_INSTANCE_DELETE_H
#define MQTCL_INSTANCE_DELETE_H

#include <tcl.h>
#include <tclOO.h>

/* Delete object o (its command, namespace and metadata) as
 * Tcl_DeleteCommandFromToken on its command would, TclOO's trace called
 * directly. */
void mqtcl_instance_delete(Tcl_Interp *interp, Tcl_Object o);

#endif
