/* perffloor_child.c — floor-tcl-child: what a new server instance costs
 * Tcl at least.  A new object of ::perffloor::Instance (TclOO's C API, as
 * the runtime's factory makes one), its ServerSetup through TclOO's `my`
 * procedure with the object as client data (as the runtime runs the setup),
 * then its deletion (as the library's delete of the instance does, with
 * the runtime's mqtcl_instance_delete).
 *
 * TclOO's C API is reached through its stub table only (libtcl exports
 * none of it), so this file is compiled against the stubs, initialised
 * from the interpreter main made. */
#define USE_TCL_STUBS 1
#define USE_TCLOO_STUBS 1
#include <tcl.h>
#include <tclOO.h>

#include "instance_delete.h"
#include "perffloor.h"

typedef struct {
    Tcl_Class cls;
    Tcl_ObjCmdProc *oo_my;
    Tcl_Obj *objv[2]; /* my ServerSetup */
} instance_op;

static int
new_instance(Tcl_Interp *interp, void *arg)
{
    instance_op *c = arg;
    Tcl_Object o = Tcl_NewObjectInstance(interp, c->cls, NULL, NULL, 0, NULL, 0);
    int rc;

    if (!o)
        return TCL_ERROR;
    rc = c->oo_my((ClientData)o, interp, 2, c->objv);
    mqtcl_instance_delete(interp, o);
    return rc;
}

/* TclOO's `my` procedure (the same for every object), from a first one. */
static Tcl_ObjCmdProc *
oo_my_proc(Tcl_Interp *interp, Tcl_Class cls)
{
    Tcl_Object o = Tcl_NewObjectInstance(interp, cls, NULL, NULL, 0, NULL, 0);
    Tcl_Command my = o ? Tcl_FindCommand(interp, "my", Tcl_GetObjectNamespace(o),
                                         TCL_NAMESPACE_ONLY)
                       : NULL;
    Tcl_CmdInfo info;
    Tcl_ObjCmdProc *proc = NULL;

    if (my && Tcl_GetCommandInfoFromToken(my, &info) && info.objClientData == (ClientData)o)
        proc = info.objProc;
    if (o)
        Tcl_DeleteCommandFromToken(interp, Tcl_GetObjectCommand(o));
    return proc;
}

int
perffloor_child(Tcl_Interp *interp, const floor_size *z)
{
    instance_op c;
    Tcl_Object co;
    Tcl_Obj *name;
    long n;
    double t;

    if (!Tcl_InitStubs(interp, "8.6", 0) || !Tcl_OOInitStubs(interp))
        return perffloor_fail(interp, "Tcl's stubs");
    name = Tcl_NewStringObj("::perffloor::Instance", -1);
    Tcl_IncrRefCount(name);
    co = Tcl_GetObjectFromObj(interp, name);
    Tcl_DecrRefCount(name);
    if (!co || !(c.cls = Tcl_GetObjectAsClass(co)))
        return perffloor_fail(interp, "::perffloor::Instance");
    if (!(c.oo_my = oo_my_proc(interp, c.cls))) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj("not the TclOO of Tcl 8.6", -1));
        return perffloor_fail(interp, "TclOO's my");
    }
    c.objv[0] = Tcl_NewStringObj("my", -1);
    c.objv[1] = Tcl_NewStringObj("ServerSetup", -1);
    Tcl_IncrRefCount(c.objv[0]);
    Tcl_IncrRefCount(c.objv[1]);
    if ((t = perffloor_measure(interp, new_instance, &c, z, &n)) < 0)
        return perffloor_fail(interp, "floor-tcl-child");
    floor_report("floor-tcl-child", t, n, "");
    return 0;
}
