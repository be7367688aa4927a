/* classcmd.c — the fast class command: `MkBufferStreamC CreateTLS name`
 * (and every other ctor of the description) runs the glue's ctor straight
 * from the class's static table, not through TclOO.
 *
 * Why: a class-level method through TclOO's object command costs Tcl 8.6
 * about 900 instructions more than a plain command (method chain lookup,
 * call context), and BUST and BFLT ask for their stream or list with
 * CreateTLS on every message.  How: the class stays TclOO's object of the
 * same name; only the NRE procedure of its command, the one Tcl calls to
 * run it, becomes class_cmd, which hands every word that is not a ctor
 * (new, create, destroy, a method the user defines) to TclOO's own NRE
 * procedure.  The command's plain procedure and client data stay TclOO's,
 * so the class is still found as a class by name (superclass, info object,
 * oo::define).  The cost: a ctor redefined on the class object itself
 * (oo::objdefine MkBufferStreamC method CreateTLS ...) is not seen; a
 * subclass has its own command and keeps TclOO's.
 *
 * Command.nreProc is in Tcl's private headers (tclInt.h), as in resolver.c. */
#define HAVE_UNISTD_H 1 /* tclUnixPort.h: the system's unistd.h, not Tcl's compat one */
#include <tclInt.h>

#include "module.h"

/* TclOO's NRE procedure of an object command: one function for every
 * object of every interpreter, so one process-wide copy, set before any
 * class command is ours (and readable while the interpreter's state is
 * already gone); atomic, as --thread's interpreters set it up at once. */
static Tcl_ObjCmdProc *oo_nre;

/* The mqlink class whose TclOO object is o, or -1. */
static int
class_index(mqtcl_state *st, ClientData o)
{
    for (int i = 0; i < MQTCL_CLASS_COUNT; i++)
        if (st->class_objs[i] == (Tcl_Object)o)
            return i;
    return -1;
}

static int
class_cmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    mqtcl_state *st = mqtcl_state_of(interp);
    const mqtcl_ctor *ctors;
    int cls, i;

    if (objc >= 2 && st && (cls = class_index(st, cd)) >= 0 &&
        (ctors = mqtcl_classes[cls].ctors) &&
        Tcl_GetIndexFromObjStruct(NULL, objv[1], ctors, sizeof *ctors, "", TCL_EXACT, &i) ==
            TCL_OK)
        return ctors[i].fn(interp, objc - 2, objv + 2);
    return __atomic_load_n(&oo_nre, __ATOMIC_RELAXED)(cd, interp, objc, objv);
}

int
mqtcl_class_cmd_install(Tcl_Interp *interp, mqtcl_state *st, int cls, Tcl_Object co)
{
    Command *cmd = (Command *)Tcl_GetObjectCommand(co);

    st->class_objs[cls] = co;
    if (!cmd || cmd->objClientData != (ClientData)co || !cmd->nreProc)
        return TCL_OK; /* not the TclOO we know: TclOO runs it all */
    if (!__atomic_load_n(&oo_nre, __ATOMIC_RELAXED))
        __atomic_store_n(&oo_nre, cmd->nreProc, __ATOMIC_RELAXED);
    if (__atomic_load_n(&oo_nre, __ATOMIC_RELAXED) != cmd->nreProc)
        return TCL_OK; /* not the one procedure we know: TclOO runs it all */
    cmd->nreProc = class_cmd;
    return TCL_OK;
}
