/* instance_delete.c — a server instance's TclOO object deleted with its
 * context (runtime.c, mqtcl_ctx_destroyed), without the command-trace
 * round Tcl makes for it.
 *
 * Why: TclOO learns of its object command's deletion from a command trace,
 * and Tcl_DeleteCommandFromToken runs every trace through CallCommandTraces:
 * the command's full name built into a new Tcl_Obj, the interpreter's state
 * saved and restored, the interpreter preserved and released — about 1 800
 * instructions per CHILD (callgrind) before TclOO's trace procedure runs.
 * When TclOO's trace is the command's only one, this calls that procedure
 * itself, as CallCommandTraces would for a delete, then deletes the command
 * (unless TclOO's teardown already did: it deletes the command of an object
 * whose namespace goes first).  Anything else — another trace, a command
 * being deleted or traced already — takes Tcl_DeleteCommandFromToken.
 *
 * Command and CommandTrace are in Tcl's private headers (tclInt.h), as in
 * resolver.c and classcmd.c.  Through Tcl's stubs, also in perffloor-tcl
 * (libtcl exports none of TclOO's C API). */
#ifndef USE_TCL_STUBS
#define USE_TCL_STUBS 1
#endif
#ifndef USE_TCLOO_STUBS
#define USE_TCLOO_STUBS 1
#endif
#define HAVE_UNISTD_H 1 /* tclUnixPort.h: the system's unistd.h, not Tcl's compat one */
#include <tclInt.h>

#include "instance_delete.h"

/* TclOO's trace of object o's command, when it is the command's only one. */
static CommandTrace *
oo_trace_only(Command *cmd, Tcl_Object o)
{
    CommandTrace *t = cmd->tracePtr;

    if (!t || t->nextPtr || t->clientData != (ClientData)o ||
        t->flags != (TCL_TRACE_RENAME | TCL_TRACE_DELETE) ||
        (cmd->flags & (CMD_IS_DELETED | CMD_TRACE_ACTIVE)))
        return NULL;
    return t;
}

void
mqtcl_instance_delete(Tcl_Interp *interp, Tcl_Object o)
{
    Command *cmd = (Command *)Tcl_GetObjectCommand(o);
    CommandTrace *t = cmd ? oo_trace_only(cmd, o) : NULL;

    if (!t) {
        if (cmd)
            Tcl_DeleteCommandFromToken(interp, (Tcl_Command)cmd);
        return;
    }
    cmd->refCount++; /* readable whoever deletes it below */
    cmd->tracePtr = NULL;
    t->traceProc(t->clientData, interp, "", NULL, TCL_TRACE_DELETE); /* o is gone after */
    if (t->refCount-- <= 1)
        ckfree((char *)t);
    if (!(cmd->flags & CMD_IS_DELETED))
        Tcl_DeleteCommandFromToken(interp, (Tcl_Command)cmd);
    TclCleanupCommandMacro(cmd);
}
