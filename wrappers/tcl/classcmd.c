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

#include <string.h>

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

/* ------------------------------------------------------------ CreateTLS
 * A service asks for its stream or list by the same literal name on every
 * message (`MkBufferStreamC CreateTLS perfserver-BUST`).  The ctor finds the
 * thread's object by its name's text (mki_tls_find), empties it and looks
 * its Tcl object up by the C pointer (runtime.c's tls table): ~250
 * instructions.  So each class keeps its last CreateTLS: the name value
 * (a reference held, so the same Tcl_Obj has the same text: no one may
 * change a shared value) and the object, which the same name value gets
 * again, emptied with the class's own Reset.  The record goes with its
 * object (mqtcl_tls_forget from runtime.c's meta_delete), and every other
 * name takes the ctor's way and becomes the record.  The ctor's word value
 * is kept the same way: a call with the same word and name values (the
 * literals of a service's `MkBufferStreamC CreateTLS perfserver-BUST`) is
 * told before the word's lookup in the ctor table (class_cmd). */

static void
tls_drop(mqtcl_state *st, int cls)
{
    if (st->tls_last[cls].name)
        Tcl_DecrRefCount(st->tls_last[cls].name);
    if (st->tls_last[cls].word)
        Tcl_DecrRefCount(st->tls_last[cls].word);
    memset(&st->tls_last[cls], 0, sizeof st->tls_last[cls]);
}

void
mqtcl_tls_forget(mqtcl_state *st, mqtcl_obj *self)
{
    for (int i = 0; i < MQTCL_CLASS_COUNT; i++)
        if (st->tls_last[i].name && (!self || st->tls_last[i].self == self))
            tls_drop(st, i);
}

/* The class's last object again, emptied by its Reset. */
static int
tls_again(Tcl_Interp *interp, mqtcl_state *st, int cls)
{
    mqtcl_obj *self = st->tls_last[cls].self;

    mqtcl_view_touch(cls, self->c);
    if (self->methods[st->tls_last[cls].reset].fn(interp, self, 0, NULL) != TCL_OK)
        return TCL_ERROR;
    Tcl_SetObjResult(interp, self->name);
    return TCL_OK;
}

/* ctor c of class cls: the last CreateTLS's object again for the same name
 * value, else the ctor; a CreateTLS's object becomes the class's record. */
static int
ctor_run(Tcl_Interp *interp, mqtcl_state *st, int cls, const mqtcl_ctor *c, int objc,
         Tcl_Obj *const objv[])
{
    mqtcl_obj *made;
    int rc, reset;

    if (objc == 3 && st->tls_last[cls].name == objv[2] && st->tls_last[cls].ctor == c)
        return tls_again(interp, st, cls);
    if (objc != 3 || strcmp(c->name, "CreateTLS") != 0)
        return c->fn(interp, objc - 2, objv + 2);
    st->tls_made = NULL;
    mqtcl_view_touch_plain();
    rc = c->fn(interp, objc - 2, objv + 2);
    made = st->tls_made;
    st->tls_made = NULL;
    reset = mqtcl_method_find(cls, "Reset");
    if (rc != TCL_OK || !made || !made->c || !made->name || reset < 0)
        return rc;
    tls_drop(st, cls);
    st->tls_last[cls].ctor = c;
    st->tls_last[cls].name = objv[2];
    Tcl_IncrRefCount(objv[2]);
    st->tls_last[cls].word = objv[1];
    Tcl_IncrRefCount(objv[1]);
    st->tls_last[cls].self = made;
    st->tls_last[cls].reset = reset;
    return TCL_OK;
}

static int
class_cmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    mqtcl_state *st = mqtcl_state_of(interp);
    const mqtcl_ctor *ctors;
    int cls, i;

    if (objc == 3 && st)
        for (cls = 0; cls < MQTCL_CLASS_COUNT; cls++)
            if (st->tls_last[cls].name == objv[2] && st->tls_last[cls].word == objv[1] &&
                st->class_objs[cls] == (Tcl_Object)cd)
                return tls_again(interp, st, cls);
    if (objc >= 2 && st && (cls = class_index(st, cd)) >= 0 &&
        (ctors = mqtcl_classes[cls].ctors) &&
        Tcl_GetIndexFromObjStruct(NULL, objv[1], ctors, sizeof *ctors, "", TCL_EXACT, &i) ==
            TCL_OK)
        return ctor_run(interp, st, cls, &ctors[i], objc, objv);
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
