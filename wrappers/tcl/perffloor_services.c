/* perffloor_services.c — the perfserver's data services as perfserver.tcl
 * writes them, every mqlink command a no-op: floor-tcl-SVC.
 *
 * Each service's body is taken from the sourced PerfServer class (`info
 * class definition`), so its loops, variables and jumps are the server's
 * and a change to perfserver.tcl changes the floor.  The body becomes a
 * method of ::perffloor::Commands in an interpreter of its own that has no
 * mqlink, where:
 *   my WORD ...          a plain C command in the object's namespace (as the
 *                        binding's fast `my`, a plain command resolved once
 *                        per literal); ReadItemExists answers true for the
 *                        message's items, then false; every other word nothing
 *   MkBufferStreamC / MkBufferListC
 *                        plain global commands (as the binding's class
 *                        commands) whose every word (CreateTLS) gives an object
 *   that object          a plain command: ReadItemExists as `my`'s, Size the
 *                        item count, every other word nothing.
 * TclOO's own `my` of the object stays under the name `oomy`, through which
 * the service is called as the runtime calls it.  commands=K is what the
 * no-op commands counted in one call. */
#include <stdio.h>
#include <string.h>

#include "perffloor.h"

/* The data services floored, in the order printed. */
static const char *const services[] = {"RDUL", "ECUL", "BUST", "BFLT", NULL};

/* Items of perfclient's message for --bus/--bfl (RDUL and ECUL read theirs
 * by type, without ReadItemExists). */
enum { MESSAGE_ITEMS = 7 };

static long calls; /* no-op commands run so far */

typedef struct {
    int seen; /* ReadItemExists answered true since the last false */
} reader;

/* The answers: shared objects, set as the result (Tcl_SetObjResult).  The
 * binding stores its integer in place into the fresh result instead; that
 * costs fewer instructions in the command but more in the loop after it
 * (callgrind: BUST 41 556 against 41 252 per message), so the floor keeps
 * the cheaper whole. */
static Tcl_Obj *yes, *no, *size;

/* ReadItemExists: true MESSAGE_ITEMS times, then false (the loop's end). */
static void
item_exists(Tcl_Interp *interp, reader *r)
{
    if (r->seen < MESSAGE_ITEMS) {
        r->seen++;
        Tcl_SetObjResult(interp, yes);
    } else {
        r->seen = 0;
        Tcl_SetObjResult(interp, no);
    }
}

/* Is objv[1] the word (len bytes)?  The length decides first, so the usual
 * word costs no call, as the binding's cached word costs none; a word
 * without a string (a pure number) is none of ours. */
static inline int
is_word(Tcl_Obj *const objv[], int objc, const char *word, int len)
{
    return objc > 1 && objv[1]->length == len && objv[1]->bytes &&
           memcmp(objv[1]->bytes, word, len) == 0;
}
#define WORD(text) text, (int)sizeof text - 1

static int
floor_my(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    calls++;
    if (is_word(objv, objc, WORD("ReadItemExists")))
        item_exists(interp, cd);
    return TCL_OK;
}

static int
floor_object(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    calls++;
    if (is_word(objv, objc, WORD("ReadItemExists")))
        item_exists(interp, cd);
    else if (is_word(objv, objc, WORD("Size")))
        Tcl_SetObjResult(interp, size);
    return TCL_OK;
}

/* MkBufferStreamC / MkBufferListC WORD ...: the object (cd its name). */
static int
floor_class(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    calls++;
    Tcl_SetObjResult(interp, cd);
    return TCL_OK;
}

static Tcl_Obj *
kept(Tcl_Obj *o)
{
    Tcl_IncrRefCount(o);
    return o;
}

/* The no-op commands of the floor's interpreter. */
static void
define_commands(Tcl_Interp *fi)
{
    static reader object_reader;
    Tcl_Obj *object = kept(Tcl_NewStringObj("::perffloor::object", -1));

    yes = kept(Tcl_NewBooleanObj(1));
    no = kept(Tcl_NewBooleanObj(0));
    size = kept(Tcl_NewIntObj(MESSAGE_ITEMS));
    Tcl_CreateObjCommand(fi, Tcl_GetString(object), floor_object, &object_reader, NULL);
    Tcl_CreateObjCommand(fi, "::MkBufferStreamC", floor_class, object, NULL);
    Tcl_CreateObjCommand(fi, "::MkBufferListC", floor_class, object, NULL);
}

/* PerfServer's method name (in interp) as ::perffloor::Commands's (in fi). */
static int
copy_method(Tcl_Interp *interp, Tcl_Interp *fi, const char *name)
{
    Tcl_Obj *q = Tcl_ObjPrintf("info class definition PerfServer %s", name), *def, *w[6];
    int rc, n;

    Tcl_IncrRefCount(q);
    rc = Tcl_EvalObjEx(interp, q, TCL_EVAL_GLOBAL);
    Tcl_DecrRefCount(q);
    if (rc != TCL_OK)
        return perffloor_fail(interp, "PerfServer's services");
    def = kept(Tcl_GetObjResult(interp));
    if (Tcl_ListObjLength(interp, def, &n) != TCL_OK || n != 2) {
        Tcl_DecrRefCount(def);
        return perffloor_fail(interp, "PerfServer's services");
    }
    w[0] = Tcl_NewStringObj("oo::define", -1);
    w[1] = Tcl_NewStringObj("::perffloor::Commands", -1);
    w[2] = Tcl_NewStringObj("method", -1);
    w[3] = Tcl_NewStringObj(name, -1);
    Tcl_ListObjIndex(NULL, def, 0, &w[4]); /* its arguments */
    Tcl_ListObjIndex(NULL, def, 1, &w[5]); /* its body */
    q = kept(Tcl_NewListObj(6, w));
    rc = Tcl_EvalObjEx(fi, q, TCL_EVAL_GLOBAL);
    Tcl_DecrRefCount(q);
    Tcl_DecrRefCount(def);
    return rc == TCL_OK ? 0 : perffloor_fail(fi, name);
}

/* *oomy: `NS::oomy`, the object's TclOO `my`; its `my` becomes floor_my. */
static int
new_object(Tcl_Interp *fi, Tcl_Obj **oomy)
{
    static reader my_reader;
    Tcl_Obj *ns;

    if (Tcl_EvalEx(fi, "info object namespace [::perffloor::Commands new]", -1,
                   TCL_EVAL_GLOBAL) != TCL_OK)
        return perffloor_fail(fi, "::perffloor::Commands");
    ns = kept(Tcl_DuplicateObj(Tcl_GetObjResult(fi)));
    *oomy = kept(Tcl_ObjPrintf("%s::oomy", Tcl_GetString(ns)));
    if (Tcl_EvalObjEx(fi, Tcl_ObjPrintf("rename %s::my %s", Tcl_GetString(ns),
                                         Tcl_GetString(*oomy)), TCL_EVAL_GLOBAL) != TCL_OK)
        return perffloor_fail(fi, "TclOO's my");
    Tcl_AppendToObj(ns, "::my", -1);
    Tcl_CreateObjCommand(fi, Tcl_GetString(ns), floor_my, &my_reader, NULL);
    Tcl_DecrRefCount(ns);
    return 0;
}

int
perffloor_services(Tcl_Interp *interp, double empty, const floor_size *z)
{
    Tcl_Interp *fi = Tcl_CreateInterp();
    floor_call call;

    define_commands(fi);
    if (Tcl_EvalEx(fi, "oo::class create ::perffloor::Commands", -1, TCL_EVAL_GLOBAL) != TCL_OK)
        return perffloor_fail(fi, "::perffloor::Commands");
    for (const char *const *s = services; *s; s++)
        if (copy_method(interp, fi, *s))
            return 1;
    if (new_object(fi, &call.objv[0]))
        return 1;
    if (perffloor_call_prepare(fi, &call) != TCL_OK)
        return perffloor_fail(fi, "TclOO's my");
    for (const char *const *s = services; *s; s++) {
        char name[40], extra[64];
        long k, n;
        double t;

        call.objv[1] = kept(Tcl_NewStringObj(*s, -1));
        calls = 0;
        if (perffloor_call(fi, &call) != TCL_OK)
            return perffloor_fail(fi, *s);
        k = calls;
        if ((t = perffloor_measure(fi, perffloor_call, &call, z, &n)) < 0)
            return perffloor_fail(fi, *s);
        snprintf(name, sizeof name, "floor-tcl-%s", *s);
        snprintf(extra, sizeof extra, " commands=%ld ns/command=%.1f", k, k ? (t - empty) * 1e9 / k : 0.0);
        floor_report(name, t, n, extra);
        Tcl_DecrRefCount(call.objv[1]);
    }
    return 0;
}
