/* callback.c — calls from the library into Tcl: services, the server setup,
 * call callbacks, and the factory that makes each server instance a new
 * object of the user's class.
 *
 * A callback is a command prefix.  `my METHOD ?arg ...?` runs METHOD of the
 * object whose method registered it (TclOO's `my` of that object, resolved
 * once), with nothing appended — the Tcl form of Python's bound method; any
 * other prefix is called with the context object's name appended.  It runs
 * at global level from the prepared words: with Tcl_EvalObjv, or for a
 * service's own `my METHOD` straight through its object's TclOO `my`.  A Tcl error in
 * a service becomes the context's error: the error message as text, the
 * code from -errorcode {MK code} (else MK_ERR_GENERIC), so the caller on the
 * other side of the link receives the text.
 *
 * Threads: an interpreter belongs to one thread.  A --thread server's
 * instances run in pool threads, so each pool thread gets its own
 * interpreter on its first instance: it loads the package, sets
 * ::mqlink::thread to 1 and sources the server's script — whose main part
 * is guarded (`if {[info script] eq $::argv0}` or `if {!$::mqlink::thread}`)
 * so that only its classes are defined — and then makes the instance as an
 * object of the template's class, found by name.  The interpreter serves the
 * thread's later instances too and is deleted when the thread ends. */
#include <stdlib.h>
#include <string.h>

#include "module.h"

typedef struct mqtcl_cb {
    Tcl_Interp *interp;
    int scope;
    int append; /* append the context's object name */
    /* `my METHOD` registered by a context's own method on itself: objv[1]
     * is METHOD, objv[0] unused; the object is the context's at each call
     * (an object destroyed before gets an error, not another's method).
     * Shared by every instance that registers the same word (own_cbs):
     * refs counts the services and the interpreter's cache that hold it. */
    int own_my;
    int refs;
    int objc;   /* words, plus a slot for the name when append */
    Tcl_Obj *objv[]; /* (one allocation: a server instance registers several) */
} mqtcl_cb;

static void
cb_release(mqtcl_cb *cb)
{
    for (int i = 0; i < cb->objc; i++)
        if (cb->objv[i])
            Tcl_DecrRefCount(cb->objv[i]);
    ckfree(cb);
}

/* Drop the interpreter's shared own_my callbacks (state_free): each goes
 * with the last service that holds it. */
void
mqtcl_own_cbs_release(mqtcl_state *st)
{
    for (int i = 0; i < MQTCL_OWN_CBS; i++) {
        mqtcl_cb *cb = st->own_cbs[i];
        st->own_cbs[i] = NULL;
        if (cb && --cb->refs == 0)
            cb_release(cb);
    }
}

/* The shared own_my callback of word (a new reference).  A setup
 * registers the same words in the same order for every instance, and a
 * literal of its body is the same Tcl_Obj each time: the slot after the
 * last one found is the usual answer, one compare; else any slot with
 * that object, then with that text; a new one takes a slot in turn. */
static mqtcl_cb *
own_shared(Tcl_Interp *interp, mqtcl_state *st, Tcl_Obj *word)
{
    mqtcl_cb *cb = st->own_cbs[st->own_hint];
    int i;

    if (cb && cb->objv[1] == word) {
        i = st->own_hint;
        goto found;
    }
    for (i = 0; i < MQTCL_OWN_CBS; i++)
        if ((cb = st->own_cbs[i]) && cb->objv[1] == word)
            goto found;
    for (i = 0; i < MQTCL_OWN_CBS; i++)
        if ((cb = st->own_cbs[i]) && strcmp(Tcl_GetString(cb->objv[1]), Tcl_GetString(word)) == 0)
            goto found;
    cb = (mqtcl_cb *)ckalloc(sizeof *cb + 2 * sizeof *cb->objv);
    memset(cb, 0, sizeof *cb);
    cb->interp = interp;
    cb->scope = MQTCL_SCOPE_NOTIFIED;
    cb->own_my = 1;
    cb->refs = 1; /* the cache's */
    cb->objc = 2;
    cb->objv[0] = NULL;
    cb->objv[1] = word;
    Tcl_IncrRefCount(word);
    i = st->own_next++ % MQTCL_OWN_CBS;
    if (st->own_cbs[i] && --st->own_cbs[i]->refs == 0)
        cb_release(st->own_cbs[i]);
    st->own_cbs[i] = cb;
found:
    st->own_hint = (i + 1) % MQTCL_OWN_CBS;
    cb->refs++;
    return cb;
}

/* `my` as the calling method sees it: the object's TclOO `my` (for our fast
 * `my`, the TclOO one it falls back to, so that a service skips the table). */
static Tcl_Obj *
resolve_my(Tcl_Interp *interp, mqtcl_obj *self)
{
    Tcl_Command cmd;
    mqtcl_obj *owner;
    Tcl_Obj *name;

    /* (the usual case, a method of self registering its own service, is
     * own_callback's) */
    cmd = Tcl_FindCommand(interp, "my", NULL, 0);
    if ((owner = mqtcl_my_owner(interp, cmd)))
        return mqtcl_ctx_my(owner);
    if (!cmd && self && mqtcl_classes[self->cls].subclass) /* from outside a method */
        return mqtcl_ctx_my(self);
    if (!cmd)
        return NULL;
    name = Tcl_NewObj();
    Tcl_GetCommandFullName(interp, cmd, name);
    return name;
}

/* `my METHOD` that a context's own method registers on it (a service), or
 * NULL for any other callback. */
static mqtcl_cb *
own_callback(Tcl_Interp *interp, mqtcl_obj *self, int n, Tcl_Obj **w, int scope)
{
    mqtcl_state *st;
    const char *word;

    if (n != 2 || scope != MQTCL_SCOPE_NOTIFIED || !self || !mqtcl_classes[self->cls].subclass)
        return NULL;
    /* (self->ns, once set, is the object's namespace: no TclOO call) */
    if (Tcl_GetCurrentNamespace(interp) != (self->ns ? self->ns : Tcl_GetObjectNamespace(self->obj)))
        return NULL;
    word = w[0]->bytes ? w[0]->bytes : Tcl_GetString(w[0]);
    if (w[0]->length != 2 || word[0] != 'm' || word[1] != 'y')
        return NULL;
    if (!(st = mqtcl_state_of(interp)))
        return NULL;
    return own_shared(interp, st, w[1]);
}

int
mqtcl_to_CALLBACK(Tcl_Interp *interp, mqtcl_obj *self, Tcl_Obj *o, int scope, void **v,
                  const char *fn)
{
    Tcl_Obj **w, *my = NULL;
    int n;
    mqtcl_cb *cb;

    if (Tcl_ListObjGetElements(interp, o, &n, &w) != TCL_OK)
        return TCL_ERROR;
    if (n == 0) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: the callback is an empty command", fn));
        Tcl_SetErrorCode(interp, "MK", "8", NULL);
        return TCL_ERROR;
    }
    if ((cb = own_callback(interp, self, n, w, scope))) {
        *v = cb;
        return TCL_OK;
    }
    if (strcmp(Tcl_GetString(w[0]), "my") == 0 && n >= 2 && !(my = resolve_my(interp, self))) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: \"my\" outside of an object", fn));
        Tcl_SetErrorCode(interp, "MK", "8", NULL);
        return TCL_ERROR;
    }
    cb = (mqtcl_cb *)ckalloc(sizeof *cb + (n + (my == NULL)) * sizeof *cb->objv);
    memset(cb, 0, sizeof *cb);
    cb->interp = interp;
    cb->scope = scope;
    cb->append = my == NULL;
    cb->objc = n + cb->append;
    for (int i = 0; i < n; i++)
        cb->objv[i] = i == 0 && my ? my : w[i];
    if (cb->append)
        cb->objv[n] = Tcl_NewObj();
    for (int i = 0; i < cb->objc; i++)
        Tcl_IncrRefCount(cb->objv[i]);
    *v = cb;
    return TCL_OK;
}

void
mqtcl_cb_free(void *data)
{
    mqtcl_cb *cb = data;
    if (cb && (!cb->own_my || --cb->refs == 0))
        cb_release(cb);
}

/* The Tcl error in interp as ctx's error. */
static MkErrorE
error_to_ctx(Tcl_Interp *interp, MqContextC *ctx, int rc)
{
    MK_I32 code = MK_ERR_GENERIC;
    Tcl_Obj *opts = Tcl_GetReturnOptions(interp, rc), *key = Tcl_NewStringObj("-errorcode", -1);
    Tcl_Obj *ec = NULL, **w;
    int n;

    Tcl_IncrRefCount(opts);
    Tcl_IncrRefCount(key);
    if (Tcl_DictObjGet(NULL, opts, key, &ec) == TCL_OK && ec &&
        Tcl_ListObjGetElements(NULL, ec, &n, &w) == TCL_OK && n == 2 &&
        strcmp(Tcl_GetString(w[0]), "MK") == 0) {
        Tcl_WideInt c;
        if (Tcl_GetWideIntFromObj(NULL, w[1], &c) == TCL_OK && c > 0 && c <= INT32_MAX)
            code = (MK_I32)c;
    }
    if (MkLogGetLevel() >= MK_LOG_WARN) { /* the default level: the error's stack */
        Tcl_Obj *info = Tcl_NewStringObj("-errorinfo", -1), *v = NULL;
        Tcl_IncrRefCount(info);
        if (Tcl_DictObjGet(NULL, opts, info, &v) == TCL_OK && v)
            fprintf(stderr, "%s\n", Tcl_GetString(v));
        Tcl_DecrRefCount(info);
    }
    if (rc == TCL_ERROR)
        MqErrorSet(ctx, code, "%s", Tcl_GetString(Tcl_GetObjResult(interp)));
    else
        MqErrorSet(ctx, code, "the callback ended with %s outside of a loop",
                   rc == TCL_BREAK ? "break" : "continue");
    Tcl_DecrRefCount(key);
    Tcl_DecrRefCount(opts);
    Tcl_ResetResult(interp);
    return MK_ERROR;
}

/* An own_my callback: METHOD of ctx's object (nothing of cb is read after
 * the call, which may replace the service). */
static MkErrorE
own_call(MqContextC *ctx, mqtcl_cb *cb)
{
    mqtcl_obj *self = MqContextGetUserData(ctx);
    Tcl_Interp *interp = cb->interp;
    int rc;

    if (!self) {
        MqErrorSet(ctx, MK_ERR_GENERIC, "%s: the Tcl server instance has no object (destroyed)",
                   Tcl_GetString(cb->objv[1]));
        return MK_ERROR;
    }
    rc = mqtcl_call_own(self, interp, cb->objv[1]);
    mqtcl_view_touch(MQTCL_CLASS_MqContextC, ctx);
    if (rc == TCL_OK || rc == TCL_RETURN)
        return MK_OK;
    return error_to_ctx(interp, ctx, rc);
}

MkErrorE
mqtcl_cb_call(MqContextC *ctx, void *data)
{
    mqtcl_cb *cb = data;
    Tcl_Interp *interp = cb->interp;
    int rc;

    /* the link ran: a kept value of a context's read takes its own copy,
     * here and when the service returns (buffer.c) */
    mqtcl_view_touch(MQTCL_CLASS_MqContextC, ctx);
    if (cb->own_my)
        return own_call(ctx, cb);
    if (cb->append) {
        Tcl_Obj *name = mqtcl_from_CTX(ctx);
        Tcl_IncrRefCount(name);
        Tcl_DecrRefCount(cb->objv[cb->objc - 1]);
        cb->objv[cb->objc - 1] = name;
    }
    rc = Tcl_EvalObjv(interp, cb->objc, cb->objv, TCL_EVAL_GLOBAL);
    mqtcl_view_touch(MQTCL_CLASS_MqContextC, ctx);
    if (rc == TCL_OK || rc == TCL_RETURN)
        return MK_OK;
    if (cb->scope == MQTCL_SCOPE_ONCE) {
        /* nobody to hand a call callback's error to: Tcl's background error */
        Tcl_BackgroundException(interp, rc);
        Tcl_ResetResult(interp);
        return MK_ERROR;
    }
    return error_to_ctx(interp, ctx, rc);
}

/* ------------------------------------------------- server setup and factory */

/* Shared by every instance, in every thread's interpreter: text only. */
typedef struct {
    char *method; /* `my NAME`: run NAME of the new instance, else NULL */
    char *prefix; /* any other prefix, called with the instance appended */
    char *cls;    /* the template's class, made anew per instance */
    char *script; /* the server's script, sourced by a --thread interpreter */
    unsigned long serial; /* this setup among all (from 1; never reused) */
} setup_data;

/* The serial of the last setup made (set_server_setup). */
static unsigned long setup_serials;

static char *
dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void
setup_free(void *data)
{
    setup_data *sd = data;
    if (!sd)
        return;
    free(sd->method);
    free(sd->prefix);
    free(sd->cls);
    free(sd->script);
    free(sd);
}

/* The text of setup serial (0: a constant) as a Tcl_Obj kept in *slot by
 * the interpreter: a server instance names the same setup method and class
 * as the last one, and the same setup needs no compare of the text.  The
 * serial, not sd's address, tells the setup: a freed setup's memory may
 * hold the next one. */
static Tcl_Obj *
kept_word(mqtcl_kept *slot, unsigned long serial, const char *text)
{
    if (slot->obj && slot->serial == serial)
        return slot->obj;
    if (!slot->obj || strcmp(Tcl_GetString(slot->obj), text) != 0) {
        if (slot->obj)
            Tcl_DecrRefCount(slot->obj);
        slot->obj = Tcl_NewStringObj(text, -1);
        Tcl_IncrRefCount(slot->obj);
    }
    slot->serial = serial;
    return slot->obj;
}

static MkErrorE
setup_call(MqContextC *ctx, void *data)
{
    setup_data *sd = data;
    mqtcl_obj *self = MqContextGetUserData(ctx);
    mqtcl_state *st;
    Tcl_Obj *cmd;
    int rc;

    mqtcl_view_touch(MQTCL_CLASS_MqContextC, ctx);
    if (!self) {
        MqErrorSet(ctx, MK_ERR_GENERIC, "the Tcl server instance has no object");
        return MK_ERROR;
    }
    if (sd->method && self->oo_my && (st = mqtcl_state_of(self->interp))) {
        /* straight into the instance's TclOO `my` (what `my NAME` runs): a
         * new instance's `my` has no cached name lookup to reuse */
        Tcl_Obj *objv[2] = {kept_word(&st->word_my, 0, "my"),
                            kept_word(&st->setup_method, sd->serial, sd->method)};

        Tcl_ResetResult(self->interp);
        rc = self->oo_my(self->oo_my_data, self->interp, 2, objv);
        if (rc == TCL_OK || rc == TCL_RETURN)
            return MK_OK;
        return error_to_ctx(self->interp, ctx, rc);
    }
    if (sd->method) {
        cmd = Tcl_NewListObj(0, NULL);
        Tcl_ListObjAppendElement(NULL, cmd, mqtcl_ctx_my(self));
        Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj(sd->method, -1));
    } else {
        cmd = Tcl_NewStringObj(sd->prefix, -1);
        Tcl_IncrRefCount(cmd);
        if (Tcl_ListObjAppendElement(self->interp, cmd,
                                     Tcl_GetObjectName(self->interp, self->obj)) != TCL_OK) {
            Tcl_DecrRefCount(cmd);
            return error_to_ctx(self->interp, ctx, TCL_ERROR);
        }
        Tcl_DecrRefCount(cmd);
    }
    Tcl_IncrRefCount(cmd);
    rc = Tcl_EvalObjEx(self->interp, cmd, TCL_EVAL_GLOBAL);
    Tcl_DecrRefCount(cmd);
    if (rc == TCL_OK || rc == TCL_RETURN)
        return MK_OK;
    return error_to_ctx(self->interp, ctx, rc);
}

/* The thread's interpreter for --thread instances. */
static _Thread_local Tcl_Interp *thread_interp;

static void
thread_end(void)
{
    if (thread_interp) {
        mqtcl_buf_release();
        Tcl_DeleteInterp(thread_interp);
        thread_interp = NULL;
        mqtcl_objs_release();
        Tcl_FinalizeThread();
    }
}

/* (the interpreter is made on the thread's first instance, not here) */
static void
thread_start(void)
{
}

static Tcl_Interp *
interp_for_thread(setup_data *sd, MqContextC *tmpl)
{
    Tcl_Interp *ti;

    if (thread_interp)
        return thread_interp;
    ti = Tcl_CreateInterp();
    Tcl_Init(ti); /* auto_path and the library; a failure leaves the core */
    Tcl_ResetResult(ti);
    Tcl_SetVar2Ex(ti, "argv0", NULL, Tcl_NewStringObj("mqlink-thread", -1), TCL_GLOBAL_ONLY);
    Tcl_SetVar2Ex(ti, "argv", NULL, Tcl_NewObj(), TCL_GLOBAL_ONLY);
    Tcl_SetVar2Ex(ti, "argc", NULL, Tcl_NewIntObj(0), TCL_GLOBAL_ONLY);
    if (mqtcl_init_interp(ti) != TCL_OK ||
        Tcl_PkgProvide(ti, "mqlink", MQTCL_VERSION) != TCL_OK ||
        !Tcl_SetVar2Ex(ti, "::mqlink::thread", NULL, Tcl_NewIntObj(1), TCL_GLOBAL_ONLY) ||
        !sd->script || Tcl_EvalFile(ti, sd->script) != TCL_OK) {
        MqErrorSet(tmpl, MK_ERR_GENERIC, "--thread: cannot load %s in a new interpreter: %s",
                   sd->script ? sd->script : "the server script",
                   Tcl_GetString(Tcl_GetObjResult(ti)));
        Tcl_DeleteInterp(ti);
        return NULL;
    }
    thread_interp = ti;
    return ti;
}

/* Set while the factory makes an instance: its constructor leaves the setup
 * to the library (the instance takes the template's). */
static MQTCL_HOT_TLS int in_factory;

static MqContextC *
factory(MqContextC *tmpl, void *data)
{
    setup_data *sd = data;
    mqtcl_obj *t = MqContextGetUserData(tmpl), *self;
    Tcl_Interp *interp;
    Tcl_Object co;
    Tcl_Class cls;
    mqtcl_state *st;
    int rc;

    mqtcl_view_touch(MQTCL_CLASS_MqContextC, tmpl);
    if (t && (st = mqtcl_state_of(t->interp)) && st->thread == Tcl_GetCurrentThread())
        interp = t->interp;
    else if (!(interp = interp_for_thread(sd, tmpl)))
        return NULL;
    /* the kept name caches its command lookup */
    st = mqtcl_state_of(interp);
    co = st ? Tcl_GetObjectFromObj(interp, kept_word(&st->factory_class, sd->serial, sd->cls))
            : NULL;
    if (!co || !(cls = Tcl_GetObjectAsClass(co))) {
        MqErrorSet(tmpl, MK_ERR_GENERIC, "no server class %s: %s", sd->cls,
                   Tcl_GetString(Tcl_GetObjResult(interp)));
        return NULL;
    }
    in_factory = 1;
    rc = mqtcl_new_object_of(interp, cls, MQTCL_CLASS_MqContextC, NULL, 1, &self);
    in_factory = 0;
    if (rc != TCL_OK) {
        MqErrorSet(tmpl, MK_ERR_GENERIC, "%s", Tcl_GetString(Tcl_GetObjResult(interp)));
        return NULL;
    }
    Tcl_ResetResult(interp);
    self->lib_owned = 1;
    return self->c;
}

/* Register the setup of self's server instances: `my NAME` or a prefix. */
static int
set_server_setup(Tcl_Interp *interp, mqtcl_obj *self, Tcl_Obj *setup)
{
    setup_data *sd = calloc(1, sizeof *sd);
    Tcl_Obj **w, *r;
    int n;

    if (!sd)
        return TCL_ERROR;
    sd->serial = __atomic_add_fetch(&setup_serials, 1, __ATOMIC_RELAXED);
    if (Tcl_ListObjGetElements(interp, setup, &n, &w) != TCL_OK || n == 0)
        goto error;
    if (n == 2 && strcmp(Tcl_GetString(w[0]), "my") == 0)
        sd->method = dup(Tcl_GetString(w[1]));
    else
        sd->prefix = dup(Tcl_GetString(setup));
    if (Tcl_EvalEx(interp, "::mqlink::ServerScript", -1, TCL_EVAL_GLOBAL) == TCL_OK)
        sd->script = dup(Tcl_GetString(Tcl_GetObjResult(interp)));
    r = Tcl_ObjPrintf("::info object class {%s}",
                      Tcl_GetString(Tcl_GetObjectName(interp, self->obj)));
    Tcl_IncrRefCount(r);
    n = Tcl_EvalObjEx(interp, r, TCL_EVAL_GLOBAL);
    Tcl_DecrRefCount(r);
    if (n != TCL_OK)
        goto error;
    sd->cls = dup(Tcl_GetString(Tcl_GetObjResult(interp)));
    Tcl_ResetResult(interp);
    MqConfigSetServerSetup(self->c, setup_call, sd, setup_free);
    MqConfigSetFactory(self->c, factory, sd, NULL); /* freed with the setup */
    return TCL_OK;
error:
    setup_free(sd);
    if (!*Tcl_GetString(Tcl_GetObjResult(interp)))
        Tcl_SetObjResult(interp, Tcl_NewStringObj("ConfigSetServerSetup: empty setup", -1));
    return TCL_ERROR;
}

int
mqtcl_rt_MqContextC_ConfigSetServerSetup(Tcl_Interp *interp, mqtcl_obj *self, int objc,
                                         Tcl_Obj *const objv[])
{
    if (objc != 1)
        return mqtcl_wrong_args(interp, "ConfigSetServerSetup", "setup");
    return set_server_setup(interp, self, objv[0]);
}

int
mqtcl_auto_setup(Tcl_Interp *interp, mqtcl_obj *self)
{
    Tcl_Obj *cmd;
    int rc, has = 0;

    if (in_factory)
        return TCL_OK;
    cmd = Tcl_ObjPrintf("::mqlink::HasSetup {%s}",
                        Tcl_GetString(Tcl_GetObjectName(interp, self->obj)));
    Tcl_IncrRefCount(cmd);
    rc = Tcl_EvalObjEx(interp, cmd, TCL_EVAL_GLOBAL);
    Tcl_DecrRefCount(cmd);
    if (rc != TCL_OK || Tcl_GetBooleanFromObj(interp, Tcl_GetObjResult(interp), &has) != TCL_OK)
        return TCL_ERROR;
    Tcl_ResetResult(interp);
    if (!has)
        return TCL_OK;
    cmd = Tcl_NewStringObj("my ServerSetup", -1);
    Tcl_IncrRefCount(cmd);
    rc = set_server_setup(interp, self, cmd);
    Tcl_DecrRefCount(cmd);
    return rc;
}

int
mqtcl_callback_init(Tcl_Interp *interp)
{
    static const char helpers[] =
        "namespace eval ::mqlink {\n"
        "  if {![info exists thread]} {variable thread 0}\n"
        "  proc HasSetup {obj} {\n"
        "    expr {\"ServerSetup\" in [info object methods $obj -all -private]}\n"
        "  }\n"
        "  proc ServerScript {} {\n"
        "    set s [info script]\n"
        "    if {$s eq \"\" && [info exists ::argv0]} {set s $::argv0}\n"
        "    if {$s eq \"\"} {return \"\"}\n"
        "    file normalize $s\n"
        "  }\n"
        "}\n";
    static int hooks;

    mqtcl_convert_init();
    if (!hooks) {
        hooks = 1;
        MqSetThreadHooks(thread_start, thread_end);
    }
    return Tcl_EvalEx(interp, helpers, -1, TCL_EVAL_GLOBAL);
}
