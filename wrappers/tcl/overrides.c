/* overrides.c — which mqlink methods a context's class (its own methods, a
 * superclass between it and MqContextC, a mixin, a filter) takes over: the
 * fast `my` sends those through TclOO.
 *
 * Worked out once per class and kept while it is current: TclOO counts
 * the changes of class structure that can change a method chain in one
 * epoch (a method defined or deleted anywhere; a mixin, filter or
 * superclass changed on a class that has objects or subclasses — TclOO's
 * own call chains miss the others too), and a kept answer carries the
 * epoch it was worked out at.  The answer is the class's dispatch table
 * (module.h): per word id the C method or NULL, so the fast `my` tells a
 * method, its override and a word of no method with one load.  A method
 * defined on one object itself (oo::objdefine) is not seen here, as before. */
#include <stdlib.h>
#include <string.h>

#include "module.h"

/* Work out e->fn for mqlink class mqcls with ::mqlink::Overrides. */
static int
work_out(Tcl_Interp *interp, mqtcl_state *st, mqtcl_overrides *e, int mqcls)
{
    Tcl_Obj *cmd[3], **v;
    int c, rc;

    cmd[0] = Tcl_NewStringObj("::mqlink::Overrides", -1);
    cmd[1] = Tcl_GetObjectName(interp, Tcl_GetClassAsObject(e->cls));
    cmd[2] = Tcl_NewStringObj(mqtcl_classes[mqcls].name, -1);
    for (int k = 0; k < 3; k++)
        Tcl_IncrRefCount(cmd[k]);
    e->epoch = *st->oo_epoch;
    rc = Tcl_EvalObjv(interp, 3, cmd, TCL_EVAL_GLOBAL);
    for (int k = 0; k < 3; k++)
        Tcl_DecrRefCount(cmd[k]);
    if (rc != TCL_OK || Tcl_ListObjGetElements(interp, Tcl_GetObjResult(interp), &c, &v) != TCL_OK) {
        e->epoch = -1;
        return TCL_ERROR;
    }
    mqtcl_methods_fill(mqcls, e->fn);
    for (int k = 0; k < c; k++)
        e->fn[mqtcl_word_id(Tcl_GetString(v[k]))] = NULL;
    Tcl_ResetResult(interp);
    return TCL_OK;
}

int
mqtcl_overrides_attach(Tcl_Interp *interp, mqtcl_state *st, mqtcl_obj *self, Tcl_Class cls)
{
    mqtcl_overrides *e = st->last_ovr;
    Tcl_HashEntry *h;
    int isnew;

    /* the usual case, another instance of the last class (no lookup) */
    if (!e || e->cls != cls || e->mqcls != self->cls) {
        h = Tcl_CreateHashEntry(&st->overrides, (char *)cls, &isnew);
        if (isnew) {
            e = (mqtcl_overrides *)ckalloc(sizeof *e + mqtcl_word_count * sizeof e->fn[0]);
            e->cls = cls;
            e->mqcls = self->cls;
            e->epoch = -1;
            Tcl_SetHashValue(h, e);
        }
        e = Tcl_GetHashValue(h);
    }
    if (e->epoch != *st->oo_epoch &&
        work_out(interp, st, e, self->cls) != TCL_OK)
        return TCL_ERROR;
    st->last_ovr = e;
    self->ovr = e;
    self->oo_epoch = st->oo_epoch;
    return TCL_OK;
}

int
mqtcl_overrides_refresh(Tcl_Interp *interp, mqtcl_obj *self)
{
    mqtcl_state *st = mqtcl_state_of(interp);

    if (!st)
        return TCL_ERROR;
    return work_out(interp, st, self->ovr, self->cls);
}

