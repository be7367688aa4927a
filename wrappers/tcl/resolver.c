/* resolver.c — `my` inside a context object's methods is the binding's fast
 * `my` (runtime.c, fast_my), answered by a command resolver on the object's
 * namespace.
 *
 * Why a resolver: the fast `my` is one command per interpreter that finds
 * its object from the namespace it is called in, so a new server instance
 * (a child) makes no command, renames none and deletes none — those cost
 * Tcl 8.6 about 8 000 instructions per instance.  TclOO's own `my` stays in
 * place under its own name: callbacks (`my ECUL`) and whatever the fast one
 * hands on reach it directly.  A resolved name is cached in the calling
 * literal as any other (keyed by namespace and its epoch), so a service's
 * `my ReadI32` pays the resolver only on its first call in an object.
 *
 * Tcl_SetNamespaceResolvers is in Tcl's internal stub table (tclInt.h);
 * only this file and classcmd.c include the private headers (also for TclOO's epoch,
 * mqtcl_oo_epoch, a class's constructors, mqtcl_class_ctor_only, the
 * interpreter's frames, mqtcl_call_own, and where its result is,
 * mqtcl_result_offset). */
#define HAVE_UNISTD_H 1 /* tclUnixPort.h: the system's unistd.h, not Tcl's compat one */
#include <tclInt.h>
#include <tclOOInt.h>

#include "module.h"

static int resolve_cmd(Tcl_Interp *interp, const char *name, Tcl_Namespace *ns, int flags,
                       Tcl_Command *cmd);

/* The context whose namespace ns is, or NULL.  Only a context's namespace
 * has resolve_cmd, and its client data is then the context's TclOO object
 * (mqtcl_resolver_fits): no table from namespace to context to keep. */
static mqtcl_obj *
context_of_ns(mqtcl_state *st, Tcl_Namespace *ns)
{
    Namespace *n = (Namespace *)ns;
    mqtcl_obj *self;

    if (ns == st->last_ns)
        return st->last_self;
    if (n->cmdResProc != resolve_cmd || !(self = mqtcl_self((Tcl_Object)n->clientData)) ||
        self->ns != ns)
        return NULL;
    st->last_ns = ns;
    st->last_self = self;
    return self;
}

static int
not_in_context(Tcl_Interp *interp)
{
    Tcl_SetObjResult(interp, Tcl_NewStringObj("my: not inside an mqlink context's method", -1));
    Tcl_SetErrorCode(interp, "MK", "8", NULL);
    return TCL_ERROR;
}

/* The fast `my` called in a namespace other than the last one. */
static __attribute__((noinline)) int
fast_my_elsewhere(mqtcl_state *st, Tcl_Namespace *ns, Tcl_Interp *interp, int objc,
                  Tcl_Obj *const objv[])
{
    mqtcl_obj *self = context_of_ns(st, ns);

    if (!self)
        return not_in_context(interp);
    return mqtcl_dispatch(self, interp, objc, objv);
}

/* `my` in a context's method: the context is the one whose namespace the
 * method runs in.  The current namespace is read as Tcl's own macro does
 * (the public call costs a stub call and a stack frame on every `my`); the
 * usual case, the namespace of the last call, is two tail calls' work. */
int
mqtcl_fast_my(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    mqtcl_state *st = cd;
    Tcl_Namespace *ns = TclGetCurrentNamespace(interp);

    if (ns == st->last_ns)
        return mqtcl_dispatch(st->last_self, interp, objc, objv);
    return fast_my_elsewhere(st, ns, interp, objc, objv);
}

/* A service's `my METHOD` on self: what Tcl_EvalObjv(interp, 2, {NS::my
 * METHOD}, TCL_EVAL_GLOBAL) does, less its lookup of TclOO's `my` by name
 * and its dispatch and exception records (callgrind: 419 instructions per
 * call): the call runs at global level and counts as one nesting level, as
 * there, and an error gets the same "while executing" line in -errorinfo
 * (the stack a failed service is logged with); a deleted interpreter, the
 * nesting limit or a `my` not TclOO's as we know it take Tcl_EvalObjv's way,
 * which says why.  The words are held for the call: the service may
 * destroy self (its `my` name goes with it) or replace itself. */
int
mqtcl_call_own(mqtcl_obj *self, Tcl_Interp *interp, Tcl_Obj *method)
{
    Interp *i = (Interp *)interp;
    CallFrame *caller = i->varFramePtr;
    Tcl_Obj *objv[2] = {mqtcl_ctx_my(self), method};
    int rc;

    Tcl_IncrRefCount(objv[0]);
    Tcl_IncrRefCount(objv[1]);
    if (!self->oo_my || (i->flags & DELETED) || i->numLevels >= i->maxNestingDepth) {
        rc = Tcl_EvalObjv(interp, 2, objv, TCL_EVAL_GLOBAL);
        goto done;
    }
    i->varFramePtr = i->rootFramePtr;
    i->numLevels++;
    rc = self->oo_my(self->oo_my_data, interp, 2, objv);
    i->numLevels--;
    i->varFramePtr = caller;
    if (rc == TCL_ERROR && !(i->flags & ERR_ALREADY_LOGGED)) {
        Tcl_Obj *cmd = Tcl_NewListObj(2, objv);
        int n;
        const char *text;

        Tcl_IncrRefCount(cmd);
        text = Tcl_GetStringFromObj(cmd, &n);
        Tcl_LogCommandInfo(interp, text, text, n);
        Tcl_DecrRefCount(cmd);
    }
    i->flags &= ~ERR_ALREADY_LOGGED;
done:
    Tcl_DecrRefCount(objv[0]);
    Tcl_DecrRefCount(objv[1]);
    return rc;
}

/* (renamed away or the interpreter going: `my` is TclOO's again) */
void
mqtcl_fast_my_deleted(ClientData cd)
{
    ((mqtcl_state *)cd)->my_cmd = NULL;
}

mqtcl_obj *
mqtcl_my_owner(Tcl_Interp *interp, Tcl_Command cmd)
{
    mqtcl_state *st = mqtcl_state_of(interp);

    if (cmd && st && cmd == st->my_cmd)
        return context_of_ns(st, TclGetCurrentNamespace(interp));
    return NULL;
}

/* What TclOO resolves in an object namespace (8.6 sets none; chained so a
 * later Tcl that does keeps working). */
static _Thread_local Tcl_ResolveCmdProc *oo_cmd_resolver;

static int
resolve_cmd(Tcl_Interp *interp, const char *name, Tcl_Namespace *ns, int flags, Tcl_Command *cmd)
{
    if (name[0] == 'm' && name[1] == 'y' && name[2] == '\0' && !(flags & TCL_GLOBAL_ONLY)) {
        mqtcl_state *st = mqtcl_state_of(interp);
        if (st && st->my_cmd) {
            *cmd = st->my_cmd;
            return TCL_OK;
        }
    }
    if (oo_cmd_resolver)
        return oo_cmd_resolver(interp, name, ns, flags, cmd);
    return TCL_CONTINUE;
}

int
mqtcl_resolver_fits(Tcl_Namespace *ns, Tcl_Object obj)
{
    return ((Namespace *)ns)->clientData == (ClientData)obj;
}

void
mqtcl_resolver_install(Tcl_Namespace *ns)
{
    Tcl_ResolverInfo info;

    Tcl_GetNamespaceResolvers(ns, &info);
    if (info.cmdResProc == resolve_cmd)
        return;
    if (info.cmdResProc)
        oo_cmd_resolver = info.cmdResProc;
    Tcl_SetNamespaceResolvers(ns, resolve_cmd, info.varResProc, info.compiledVarResProc);
}

/* Whether c or a class it inherits or mixes in, other than base, has a
 * constructor (cycles are impossible; depth bounded all the same). */
static int
other_ctor(Class *c, Class *base, int depth)
{
    if (depth > 64 || (c != base && c->constructorPtr))
        return 1;
    for (int i = 0; i < c->superclasses.num; i++)
        if (other_ctor(c->superclasses.list[i], base, depth + 1))
            return 1;
    for (int i = 0; i < c->mixins.num; i++)
        if (other_ctor(c->mixins.list[i], base, depth + 1))
            return 1;
    return 0;
}

int
mqtcl_class_ctor_only(Tcl_Class cls, Tcl_Class base)
{
    return !other_ctor((Class *)cls, (Class *)base, 0);
}

/* runtime.h's mqtcl_result */
const size_t mqtcl_result_offset = offsetof(Interp, objResultPtr);

/* TclOO's foundation bumps its epoch whenever a method chain may change
 * (tclOOInt.h); overrides.c checks its answers against it. */
const int *
mqtcl_oo_epoch(Tcl_Interp *interp)
{
    Foundation *f = (Foundation *)((Interp *)interp)->objectFoundation;
    return f ? &f->epoch : NULL;
}
