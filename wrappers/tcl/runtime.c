/* runtime.c — the mqlink Tcl package: its TclOO classes, object lifetime and
 * initialisation.  Methods come from the generated glue (gen/glue.c).
 *
 * Who owns what: an object of a plain class (MkBufferC, MkBufferStreamC,
 * MkBufferListC, MqConfigFileC) frees its C object when it is destroyed
 * (`$obj Delete` or `$obj destroy`), unless a tls ctor made it: the thread
 * owns those, and the same C object always comes back as the same Tcl
 * object.  A context object and its C context point at each other; the C
 * context's destroy callback clears the object's pointer whoever deletes the
 * context (Delete, a parent's delete, the library ending a server instance),
 * so a stale object raises "the context was deleted" instead of touching
 * freed memory, and a server instance's object goes with its context. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

/* ------------------------------------------------------------- metadata */

static void meta_delete(ClientData data);
static void object_cmd_forget(mqtcl_obj *self);

static const Tcl_ObjectMetadataType meta_type = {
    TCL_OO_METADATA_VERSION_CURRENT, "mqlink", meta_delete, NULL};

mqtcl_obj *
mqtcl_self(Tcl_Object o)
{
    return o ? Tcl_ObjectGetMetadata(o, &meta_type) : NULL;
}

/* The TclOO object named o, or NULL (and interp's result untouched). */
Tcl_Object
mqtcl_object_of(Tcl_Interp *interp, Tcl_Obj *o)
{
    Tcl_Obj *keep = Tcl_GetObjResult(interp);
    Tcl_Object obj;

    Tcl_IncrRefCount(keep);
    if (!(obj = Tcl_GetObjectFromObj(interp, o)))
        Tcl_SetObjResult(interp, keep);
    Tcl_DecrRefCount(keep);
    return obj;
}

/* Freed records kept for the next objects (a server instance's per child,
 * a CreateTLS stream's never), at most MAX_SPARE_OBJS per thread: a new
 * instance allocates none, its delete frees none.  A spare's c links the
 * next one. */
enum { MAX_SPARE_OBJS = 16 };
static MQTCL_HOT_TLS struct {
    mqtcl_obj *head;
    int n;
} spare_objs;

static mqtcl_obj *
obj_alloc(void)
{
    mqtcl_obj *self = spare_objs.head;

    if (!self)
        return (mqtcl_obj *)ckalloc(sizeof *self);
    spare_objs.head = self->c;
    spare_objs.n--;
    return self;
}

static void
obj_free(mqtcl_obj *self)
{
    if (spare_objs.n >= MAX_SPARE_OBJS) {
        ckfree(self);
        return;
    }
    self->c = spare_objs.head;
    spare_objs.head = self;
    spare_objs.n++;
}

void
mqtcl_objs_release(void)
{
    while (spare_objs.head) {
        mqtcl_obj *self = spare_objs.head;
        spare_objs.head = self->c;
        ckfree(self);
    }
    spare_objs.n = 0;
}

static void
meta_delete(ClientData data)
{
    mqtcl_obj *self = data;
    mqtcl_state *st = mqtcl_state_of(self->interp);

    if (self->c)
        mqtcl_view_touch(self->cls, self->c);
    if (self->c && mqtcl_classes[self->cls].subclass) {
        MqContextC *ctx = self->c;
        self->c = NULL;
        self->oo_epoch = &mqtcl_dead_epoch;
        MqContextSetDestroyCallback(ctx, NULL, NULL);
        MqContextSetUserData(ctx, NULL);
        if (!self->lib_owned)
            MqContextDelete(ctx);
    } else if (self->c && self->owned) {
        mqtcl_classes[self->cls].destroy(self->c);
    } else if (self->c && st) {
        Tcl_HashEntry *e = Tcl_FindHashEntry(&st->tls, self->c);
        if (e && Tcl_GetHashValue(e) == self)
            Tcl_DeleteHashEntry(e);
        mqtcl_tls_forget(st, self);
    }
    if (self->fast) { /* NULL first: object_cmd_deleted must not destroy us again */
        Tcl_Command fast = self->fast;
        self->fast = NULL;
        Tcl_DeleteCommandFromToken(self->interp, fast);
    }
    if (self->name)
        Tcl_DecrRefCount(self->name);
    object_cmd_forget(self);
    if (st && st->last_self == self)
        st->last_ns = NULL, st->last_self = NULL;
    if (self->my)
        Tcl_DecrRefCount(self->my);
    obj_free(self);
}

/* Runs at the start of MqContextDelete, whoever calls it. */
void
mqtcl_ctx_destroyed(MqContextC *ctx, void *data)
{
    mqtcl_obj *self = data;

    mqtcl_view_touch(MQTCL_CLASS_MqContextC, ctx);
    MqContextSetUserData(ctx, NULL);
    self->c = NULL;
    self->oo_epoch = &mqtcl_dead_epoch; /* (dispatch_stale tells it) */
    if (self->lib_owned && !Tcl_InterpDeleted(self->interp))
        mqtcl_instance_delete(self->interp, self->obj); /* (frees self) */
}

/* ----------------------------------------------------------- dispatch */

static int
not_ready(Tcl_Interp *interp, mqtcl_obj *self, const char *name)
{
    if (!self)
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: the object has no mqlink state (a "
                                               "constructor that did not call next?)", name));
    else
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: the context was deleted", name));
    Tcl_SetErrorCode(interp, "MK", "101", NULL);
    return TCL_ERROR;
}

/* A method through TclOO: `$obj SendI32 5`, `next`, a forward. */
static int
method_call(ClientData cd, Tcl_Interp *interp, Tcl_ObjectContext oc, int objc,
            Tcl_Obj *const objv[])
{
    const mqtcl_method *m = cd;
    mqtcl_obj *self = mqtcl_self(Tcl_ObjectContextObject(oc));
    int skip = Tcl_ObjectContextSkippedArgs(oc);

    if (!self || !self->c)
        return not_ready(interp, self, m->name);
    mqtcl_view_touch(self->cls, self->c);
    return m->fn(interp, self, objc - skip, objv + skip);
}

static const Tcl_MethodType method_type = {
    TCL_OO_METHOD_VERSION_CURRENT, "mqlink method", method_call, NULL, NULL};

/* Method name -> its index in every class's table (-1: not a method of
 * that class) and its word id, shared by every interpreter and built once.
 * Not Tcl_GetIndexFromObjStruct: that caches the index of one table in the
 * word's Tcl_Obj, and an interpreter shares one literal object per word, so
 * `my ReadBUF` and `$bus ReadBUF` would evict each other's cache and scan a
 * whole table on every call.  Instead a word caches its id, which answers
 * for every class at once: it indexes every dispatch table (module.h's
 * mqtcl_overrides: per word id, the C method a call runs, or NULL for
 * TclOO). */
typedef struct {
    short index[MQTCL_CLASS_COUNT];
    int id; /* 1..; 0: no method of any class */
} method_word;
static Tcl_HashTable words; /* every method name -> its method_word */
static int words_ready;
int mqtcl_word_count = 1; /* word ids in use, the id 0 of no method included */
TCL_DECLARE_MUTEX(words_lock)
static const method_word no_method = {.index[0 ... MQTCL_CLASS_COUNT - 1] = -1, .id = 0};

/* The dispatch table of each plain class's objects: its C methods by word
 * id, at an epoch that is always current (nothing is taken over on their
 * fast path: runtime.c, "object commands"). */
static mqtcl_overrides *plain_tables[MQTCL_CLASS_COUNT];
static const int plain_epoch = 0;
/* A deleted context's epoch: never current, so its next call through the
 * fast path takes dispatch_stale's way, which tells it. */
const int mqtcl_dead_epoch = INT_MIN;

/* A word's cached id (internalRep.twoPtrValue.ptr2): a number, so nothing
 * to free or copy; the string stays the word's value. */
static const Tcl_ObjType word_type = {"mqlink method name", NULL, NULL, NULL, NULL};
#define WORD_ID(o) ((intptr_t)(o)->internalRep.twoPtrValue.ptr2)

static void
method_names_init(void)
{
    Tcl_MutexLock(&words_lock);
    if (!words_ready)
        Tcl_InitHashTable(&words, TCL_STRING_KEYS);
    for (int c = 0; !words_ready && c < MQTCL_CLASS_COUNT; c++) {
        for (int i = 0; mqtcl_classes[c].methods[i].name; i++) {
            const char *name = mqtcl_classes[c].methods[i].name;
            int isnew;
            Tcl_HashEntry *e = Tcl_CreateHashEntry(&words, name, &isnew);
            if (isnew) {
                method_word *w = (method_word *)ckalloc(sizeof *w);
                *w = no_method;
                w->id = mqtcl_word_count++;
                Tcl_SetHashValue(e, w);
            }
            ((method_word *)Tcl_GetHashValue(e))->index[c] = (short)i;
        }
    }
    for (int c = 0; !words_ready && c < MQTCL_CLASS_COUNT; c++) {
        mqtcl_overrides *t;
        if (mqtcl_classes[c].subclass)
            continue;
        t = (mqtcl_overrides *)ckalloc(sizeof *t + mqtcl_word_count * sizeof t->fn[0]);
        t->cls = NULL;
        t->mqcls = c;
        t->epoch = plain_epoch;
        mqtcl_methods_fill(c, t->fn);
        plain_tables[c] = t;
    }
    words_ready = 1;
    Tcl_MutexUnlock(&words_lock);
}

int
mqtcl_method_find(int cls, const char *name)
{
    Tcl_HashEntry *e = Tcl_FindHashEntry(&words, name);
    return e ? ((const method_word *)Tcl_GetHashValue(e))->index[cls] : -1;
}

int
mqtcl_word_id(const char *name)
{
    Tcl_HashEntry *e = Tcl_FindHashEntry(&words, name);
    return e ? ((const method_word *)Tcl_GetHashValue(e))->id : 0;
}

void
mqtcl_methods_fill(int cls, mqtcl_fn **fn)
{
    Tcl_HashSearch s;

    memset(fn, 0, mqtcl_word_count * sizeof fn[0]);
    for (Tcl_HashEntry *e = Tcl_FirstHashEntry(&words, &s); e; e = Tcl_NextHashEntry(&s)) {
        const method_word *w = Tcl_GetHashValue(e);
        if (w->index[cls] >= 0)
            fn[w->id] = mqtcl_classes[cls].methods[w->index[cls]].fn;
    }
}

/* word (not yet of word_type) as a word_type object. */
static __attribute__((noinline)) void
word_convert(Tcl_Obj *word)
{
    int id = mqtcl_word_id(Tcl_GetString(word));

    if (word->typePtr && word->typePtr->freeIntRepProc)
        word->typePtr->freeIntRepProc(word);
    word->typePtr = &word_type;
    word->internalRep.twoPtrValue.ptr2 = (void *)(intptr_t)id;
}

/* fn (self's method named by objv[1]) when a kept buffer value shows what
 * the call may move (buffer.c): the value takes its own copy first. */
static __attribute__((noinline)) int
method_run_kept(mqtcl_fn *fn, mqtcl_obj *self, Tcl_Interp *interp, int objc,
                Tcl_Obj *const objv[])
{
    mqtcl_view_keep();
    return fn(interp, self, objc - 2, objv + 2);
}

/* The C method fn on self, past dispatch's checks; ctx: self is a context
 * (the fast `my`), 0: a plain object (its object command), -1: either. */
static inline __attribute__((always_inline)) int
method_run(mqtcl_fn *fn, mqtcl_obj *self, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
           int ctx)
{
    if (ctx < 0)
        ctx = self->cls == MQTCL_CLASS_MqContextC;
    if (ctx ? mqtcl_view_kept_ctx() : mqtcl_view_kept_plain(self->c))
        return method_run_kept(fn, self, interp, objc, objv);
    return fn(interp, self, objc - 2, objv + 2);
}

/* dispatch's way when self's table is not current: TclOO's epoch moved (a
 * class gained or lost a method, a mixin, ...: work the table out again),
 * or self is a deleted context (its epoch is mqtcl_dead_epoch): a call of
 * a C method it does not take over raises, any other word goes to TclOO. */
static __attribute__((noinline)) int
dispatch_stale(mqtcl_obj *self, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    mqtcl_state *st = mqtcl_state_of(interp);
    mqtcl_fn *fn;

    if (!st)
        return TCL_ERROR;
    if (self->ovr->epoch != *st->oo_epoch && mqtcl_overrides_refresh(interp, self) != TCL_OK)
        return TCL_ERROR;
    if (!(fn = self->ovr->fn[WORD_ID(objv[1])]))
        return self->oo_my(self->oo_my_data, interp, objc, objv);
    if (!self->c)
        return not_ready(interp, self, Tcl_GetString(objv[1]));
    return method_run(fn, self, interp, objc, objv, -1);
}

/* `WORD args...` on self, for its fast command (a context's `my`, a plain
 * object's object command; ctx as method_run's): the C method that self's
 * table (module.h's mqtcl_overrides) has for WORD's id, straight; anything
 * else (the user's methods, `my variable`, an override, destroy) through
 * TclOO's procedure behind that command.  One compare tells that the table
 * is current (TclOO's epoch, which also moves on any override made or
 * deleted) and that self is no deleted context; one load gives the method
 * or NULL, which decides the override and the word's lookup in one.  The
 * usual way ends in a tail call: no frame of its own (inlined into each
 * caller, so that ctx is a constant there). */
static int dispatch_new_word(mqtcl_obj *self, Tcl_Interp *interp, int objc,
                             Tcl_Obj *const objv[]);

static inline __attribute__((always_inline)) int
dispatch(mqtcl_obj *self, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[], int ctx)
{
    const mqtcl_overrides *t = self->ovr;
    mqtcl_fn *fn;

    if (objc < 2)
        return self->oo_my(self->oo_my_data, interp, objc, objv);
    if (objv[1]->typePtr != &word_type)
        return dispatch_new_word(self, interp, objc, objv);
    if (t->epoch != *self->oo_epoch)
        return dispatch_stale(self, interp, objc, objv);
    if (!(fn = t->fn[WORD_ID(objv[1])]))
        return self->oo_my(self->oo_my_data, interp, objc, objv);
    return method_run(fn, self, interp, objc, objv, ctx);
}

/* dispatch for a word seen the first time (or changed since) */
static __attribute__((noinline)) int
dispatch_new_word(mqtcl_obj *self, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    word_convert(objv[1]);
    return dispatch(self, interp, objc, objv, -1);
}

int
mqtcl_dispatch(mqtcl_obj *self, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    return dispatch(self, interp, objc, objv, 1);
}

/* ------------------------------------------------------ object commands
 * An object of a plain class itself (MkBufferC, MkBufferStreamC, ...; not
 * of a subclass) has two commands.  TclOO keeps the object at
 * ::mqlink::oo::objN; ::mqlink::objN, the name new, Create and CreateTLS
 * return, is a command whose plain procedure and client data are those of
 * TclOO's object command, so TclOO takes that name for the object (info
 * object, oo::objdefine, a method argument), while its NRE procedure, the
 * one Tcl calls to run the command, dispatches the class's C methods from
 * the name table as the fast `my` does and hands any other word (destroy,
 * a method defined on the object) to TclOO.  Why: a TclOO method call costs
 * Tcl 8.6 about twice a plain command, and a BUS service makes 23 calls on
 * its stream.  The cost: a method redefined on one of these objects, or
 * mixed into the mqlink class itself, is not seen by the fast path; a
 * subclass's objects are plain TclOO objects and keep every override. */

/* The last object called (a service calls one stream many times). */
static MQTCL_HOT_TLS struct {
    Tcl_Object o;
    mqtcl_obj *self;
} last_obj;

static void
object_cmd_forget(mqtcl_obj *self)
{
    if (last_obj.self == self)
        last_obj.o = NULL, last_obj.self = NULL;
}

/* object_cmd for an object other than the last one (out of line, so that
 * the usual way saves no registers and ends in tail calls). */
static __attribute__((noinline)) int
object_cmd_other(Tcl_Object o, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    mqtcl_obj *self = mqtcl_self(o);

    if (!self) /* not set up yet, or going: TclOO says what it is */
        return Tcl_GetObjectFromObj(interp, objv[0]) ? not_ready(interp, NULL, "object") : TCL_ERROR;
    last_obj.o = o;
    last_obj.self = self;
    return dispatch(self, interp, objc, objv, 0);
}

static int
object_cmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    if (last_obj.o != (Tcl_Object)cd)
        return object_cmd_other(cd, interp, objc, objv);
    return dispatch(last_obj.self, interp, objc, objv, 0);
}

/* `rename $obj {}` destroys the object, as for any TclOO object. */
static void
object_cmd_deleted(ClientData cd)
{
    mqtcl_obj *self = mqtcl_self(cd);

    if (self && self->fast) {
        self->fast = NULL;
        Tcl_DeleteCommandFromToken(self->interp, Tcl_GetObjectCommand(cd));
    }
}

static int
object_cmd_create(Tcl_Interp *interp, mqtcl_obj *self, unsigned long id)
{
    Tcl_CmdInfo info;

    if (!Tcl_GetCommandInfoFromToken(Tcl_GetObjectCommand(self->obj), &info))
        return TCL_ERROR;
    self->oo_my = info.objProc;
    self->oo_my_data = info.objClientData;
    self->name = Tcl_ObjPrintf("::mqlink::obj%lu", id);
    Tcl_IncrRefCount(self->name);
    self->fast = Tcl_NRCreateCommand(interp, Tcl_GetString(self->name), info.objProc, object_cmd,
                                     info.objClientData, object_cmd_deleted);
    return TCL_OK;
}

/* The class mqtcl_new_object_of is instantiating (NULL: unknown).  This
 * and pending below are read a few times per new server instance. */
static MQTCL_HOT_TLS Tcl_Class pending_class;

/* The class of o (made by TclOO's own `new` or `create`), or NULL with the
 * message in interp. */
static Tcl_Class
class_of(Tcl_Interp *interp, Tcl_Object o)
{
    Tcl_Obj *q = Tcl_ObjPrintf("::info object class {%s}",
                               Tcl_GetString(Tcl_GetObjectName(interp, o)));
    Tcl_Object co;
    Tcl_Class cls = NULL;

    Tcl_IncrRefCount(q);
    if (Tcl_EvalObjEx(interp, q, TCL_EVAL_GLOBAL) == TCL_OK &&
        (co = Tcl_GetObjectFromObj(interp, Tcl_GetObjResult(interp))))
        cls = Tcl_GetObjectAsClass(co);
    Tcl_DecrRefCount(q);
    return cls;
}

/* ns::my as a new Tcl_Obj, once per server instance (Tcl_ObjPrintf costs a
 * format parse, Tcl_AppendStringsToObj a grown copy). */
static Tcl_Obj *
qualified_my(Tcl_Namespace *ns)
{
    size_t n = strlen(ns->fullName);
    Tcl_Obj *o = Tcl_NewObj();
    char *s;

    Tcl_SetObjLength(o, (int)n + 4);
    s = Tcl_GetString(o);
    memcpy(s, ns->fullName, n);
    memcpy(s + n, "::my", 4);
    return o;
}

Tcl_Obj *
mqtcl_ctx_my_make(mqtcl_obj *self)
{
    self->my = qualified_my(Tcl_GetObjectNamespace(self->obj));
    Tcl_IncrRefCount(self->my);
    return self->my;
}

/* Give a context object the fast `my` (resolver.c), keeping TclOO's under
 * its own name for callbacks and as the fallback. */
static int
install_my(Tcl_Interp *interp, mqtcl_state *st, mqtcl_obj *self)
{
    Tcl_Namespace *ns = Tcl_GetObjectNamespace(self->obj);
    Tcl_Class cls = pending_class;

    if (!mqtcl_resolver_fits(ns, self->obj))
        return TCL_OK; /* not the TclOO we know: nothing to speed up */
    if (!st->oo_my) { /* TclOO's `my` is the same procedure on every object */
        Tcl_Command my = Tcl_FindCommand(interp, "my", ns, TCL_NAMESPACE_ONLY);
        Tcl_CmdInfo info;
        if (!my || !Tcl_GetCommandInfoFromToken(my, &info) ||
            info.objClientData != (ClientData)self->obj)
            return TCL_OK; /* not the TclOO we know: nothing to speed up */
        st->oo_my = info.objProc;
    }
    if (!cls && !(cls = class_of(interp, self->obj)))
        return TCL_ERROR;
    if (mqtcl_overrides_attach(interp, st, self, cls) != TCL_OK)
        return TCL_ERROR;
    self->oo_my = st->oo_my;
    self->oo_my_data = self->obj;
    self->ns = ns;
    mqtcl_resolver_install(ns);
    /* the next `my` is most likely the new instance's setup's, in ns: the
     * fast `my`'s last namespace, no lookup of its context then (meta_delete
     * clears it with the object) */
    st->last_ns = ns;
    st->last_self = self;
    return TCL_OK;
}

/* ------------------------------------------------------------- objects */

/* What the next constructor adopts instead of creating a C object. */
static MQTCL_HOT_TLS struct {
    void *c;
    int owned;
} pending;

/* Object o of mqlink class cls takes its C object (pending's, or a new
 * one) and its metadata (*made, when made is not NULL); a context also its
 * fast `my` and server setup. */
static int
adopt(Tcl_Interp *interp, int cls, Tcl_Object o, mqtcl_obj **made)
{
    const mqtcl_class *k = &mqtcl_classes[cls];
    mqtcl_state *st = mqtcl_state_of(interp);
    mqtcl_obj *self;
    void *c = pending.c;
    int owned = c ? pending.owned : 1;

    pending.c = NULL;
    if (mqtcl_self(o))
        return TCL_OK; /* a second `next` */
    if (!c && !(c = k->subclass ? (void *)MqContextCreate() : k->create())) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: out of memory", k->name));
        return TCL_ERROR;
    }
    self = obj_alloc();
    memset(self, 0, sizeof *self);
    self->c = c;
    self->obj = o;
    self->interp = interp;
    self->cls = cls;
    self->methods = k->methods;
    self->owned = owned;
    Tcl_ObjectSetMetadata(o, &meta_type, self);
    if (made)
        *made = self;
    if (!k->subclass) {
        self->ovr = plain_tables[cls];
        self->oo_epoch = &plain_epoch;
        return TCL_OK;
    }
    MqContextSetUserData(c, self);
    MqContextSetDestroyCallback(c, mqtcl_ctx_destroyed, self);
    if (install_my(interp, st, self) != TCL_OK)
        return TCL_ERROR;
    return mqtcl_auto_setup(interp, self);
}

/* The constructor of every mqlink class: a new C object (no arguments), or
 * the one mqtcl_new_object is wrapping. */
static int
ctor_call(ClientData cd, Tcl_Interp *interp, Tcl_ObjectContext oc, int objc,
          Tcl_Obj *const objv[])
{
    int cls = (int)(intptr_t)cd;

    if (objc > Tcl_ObjectContextSkippedArgs(oc)) {
        pending.c = NULL;
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: the constructor takes no arguments",
                                               mqtcl_classes[cls].name));
        return TCL_ERROR;
    }
    return adopt(interp, cls, Tcl_ObjectContextObject(oc), NULL);
}

static const Tcl_MethodType ctor_type = {
    TCL_OO_METHOD_VERSION_CURRENT, "mqlink constructor", ctor_call, NULL, NULL};

/* prefix and id in decimal into buf (48 bytes; prefix up to 24 chars). */
static void
numbered(char *buf, const char *prefix, unsigned long id)
{
    char digits[24];
    int n = 0;
    size_t k = strlen(prefix);

    do
        digits[n++] = (char)('0' + id % 10);
    while ((id /= 10) != 0);
    memcpy(buf, prefix, k);
    while (n > 0)
        buf[k++] = digits[--n];
    buf[k] = '\0';
}

/* A new object of class cls (the mqlink class, or the context's subclass
 * in tcls when not NULL) around c; its name is the result. */
int
mqtcl_new_object_of(Tcl_Interp *interp, Tcl_Class tcls, int cls, void *c, int owned,
                    mqtcl_obj **made)
{
    mqtcl_state *st = mqtcl_state_of(interp);
    int plain = !tcls && !mqtcl_classes[cls].subclass;
    unsigned long id = ++st->next_id;
    int direct;
    char name[48];
    Tcl_Object o;
    mqtcl_obj *self = NULL;

    /* a plain object's TclOO name; a server instance's namespace (and so
     * its name), which TclOO would otherwise format with sprintf.  The
     * latter two levels deep, as TclOO's own ::oo::ObjN: Tcl walks every
     * level when it makes the namespace and, for each command made in it,
     * checks each ancestor for shadowed commands (a third level cost a new
     * instance ~750 instructions) */
    numbered(name, plain ? "::mqlink::oo::obj" : "::mqlink::srv", id);
    pending.c = c;
    pending.owned = owned;
    pending_class = tcls ? tcls : st->classes[cls];
    /* a server instance whose class chain has no constructor but ours: the
     * binding runs it itself, without TclOO's call chain for it (objc -1:
     * TclOO runs no constructor, as for a copy) */
    direct = tcls && mqtcl_class_ctor_only(tcls, st->classes[cls]);
    o = Tcl_NewObjectInstance(interp, pending_class, plain ? name : NULL, plain ? NULL : name,
                              direct ? -1 : 0, NULL, 0);
    if (o && direct && adopt(interp, cls, o, &self) != TCL_OK) {
        pending_class = NULL;
        Tcl_DeleteCommandFromToken(interp, Tcl_GetObjectCommand(o));
        return TCL_ERROR;
    }
    pending_class = NULL;
    /* (the direct way knows self; TclOO's constructor chain leaves it in o) */
    if (pending.c || (o && !self && !(self = mqtcl_self(o)))) {
        /* the constructor never ran ours: nothing adopted c */
        pending.c = NULL;
        if (o)
            Tcl_DeleteCommandFromToken(interp, Tcl_GetObjectCommand(o));
        if (owned && c)
            mqtcl_classes[cls].subclass ? MqContextDelete(c) : mqtcl_classes[cls].destroy(c);
        if (o)
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: a constructor did not call next",
                                                   mqtcl_classes[cls].name));
        return TCL_ERROR;
    }
    if (!o)
        return TCL_ERROR;
    if (plain && object_cmd_create(interp, self, id) != TCL_OK) {
        Tcl_DeleteCommandFromToken(interp, Tcl_GetObjectCommand(o));
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: no object command", mqtcl_classes[cls].name));
        return TCL_ERROR;
    }
    /* the factory's instance needs no name: TclOO makes it on first use */
    if (!made)
        Tcl_SetObjResult(interp, plain ? self->name : Tcl_GetObjectName(interp, o));
    else
        *made = self;
    return TCL_OK;
}

int
mqtcl_new_object(Tcl_Interp *interp, int cls, void *c, int owned)
{
    mqtcl_state *st = mqtcl_state_of(interp);
    mqtcl_obj *self;
    Tcl_HashEntry *e;
    int isnew;

    if (!c) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: out of memory", mqtcl_classes[cls].name));
        return TCL_ERROR;
    }
    if (owned)
        return mqtcl_new_object_of(interp, NULL, cls, c, 1, NULL);
    /* a thread's object: the same C object is the same Tcl object */
    e = Tcl_CreateHashEntry(&st->tls, c, &isnew);
    if (!isnew) {
        self = Tcl_GetHashValue(e);
        Tcl_SetObjResult(interp, self->name ? self->name : Tcl_GetObjectName(interp, self->obj));
        st->tls_made = self;
        return TCL_OK;
    }
    Tcl_DeleteHashEntry(e);
    if (mqtcl_new_object_of(interp, NULL, cls, c, 0, &self) != TCL_OK)
        return TCL_ERROR;
    Tcl_SetObjResult(interp, self->name ? self->name : Tcl_GetObjectName(interp, self->obj));
    e = Tcl_CreateHashEntry(&st->tls, c, &isnew);
    Tcl_SetHashValue(e, self);
    st->tls_made = self;
    return TCL_OK;
}

int
mqtcl_delete(Tcl_Interp *interp, mqtcl_obj *self)
{
    Tcl_DeleteCommandFromToken(interp, Tcl_GetObjectCommand(self->obj));
    return TCL_OK;
}

/* The class-level methods (ctors): `MkBufferStreamC CreateTLS name`. */
static int
class_call(ClientData cd, Tcl_Interp *interp, Tcl_ObjectContext oc, int objc,
           Tcl_Obj *const objv[])
{
    const mqtcl_ctor *m = cd;
    int skip = Tcl_ObjectContextSkippedArgs(oc);

    mqtcl_view_touch_plain(); /* (a CreateTLS empties its object) */
    return m->fn(interp, objc - skip, objv + skip);
}

static const Tcl_MethodType class_type = {
    TCL_OO_METHOD_VERSION_CURRENT, "mqlink class method", class_call, NULL, NULL};

/* `MkBufferC new`: as Create, an object with its object command (TclOO's
 * own `new` would name the object's TclOO command).  A subclass's `new`
 * is TclOO's. */
static int
new_call(ClientData cd, Tcl_Interp *interp, Tcl_ObjectContext oc, int objc,
         Tcl_Obj *const objv[])
{
    int cls = (int)(intptr_t)cd;

    if (objc > Tcl_ObjectContextSkippedArgs(oc)) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: the constructor takes no arguments",
                                               mqtcl_classes[cls].name));
        return TCL_ERROR;
    }
    return mqtcl_new_object(interp, cls, mqtcl_classes[cls].create(), 1);
}

static const Tcl_MethodType new_type = {
    TCL_OO_METHOD_VERSION_CURRENT, "mqlink new", new_call, NULL, NULL};

/* ---------------------------------------------------------------- state */

MQTCL_HOT_TLS mqtcl_last_state mqtcl_last;

static void
state_free(ClientData cd, Tcl_Interp *interp)
{
    mqtcl_state *st = cd;
    Tcl_HashSearch s;

    if (mqtcl_last.st == st)
        mqtcl_last.interp = NULL, mqtcl_last.st = NULL;

    for (Tcl_HashEntry *e = Tcl_FirstHashEntry(&st->overrides, &s); e; e = Tcl_NextHashEntry(&s))
        ckfree(Tcl_GetHashValue(e));
    Tcl_DeleteHashTable(&st->overrides);
    Tcl_DeleteHashTable(&st->tls);
    mqtcl_tls_forget(st, NULL);
    mqtcl_own_cbs_release(st);
    if (st->word_my.obj)
        Tcl_DecrRefCount(st->word_my.obj);
    if (st->setup_method.obj)
        Tcl_DecrRefCount(st->setup_method.obj);
    if (st->factory_class.obj)
        Tcl_DecrRefCount(st->factory_class.obj);
    ckfree(st);
}

mqtcl_state *
mqtcl_state_lookup(Tcl_Interp *interp)
{
    mqtcl_state *st = Tcl_GetAssocData(interp, "mqlink", NULL);

    if (st && st->thread == Tcl_GetCurrentThread()) /* (state_free clears it) */
        mqtcl_last.interp = interp, mqtcl_last.st = st;
    return st;
}

/* Helpers in Tcl: the override check runs once per class. */
static const char helpers[] =
    "namespace eval ::mqlink {\n"
    "  proc Overrides {cls base} {\n"
    "    set r {}\n"
    "    if {$cls eq \"::$base\"} {return $r}\n"
    "    foreach m [info class methods ::$base -private] {\n"
    "      if {[lindex [info class call $cls $m] 0 2] ne \"::$base\"} {lappend r $m}\n"
    "    }\n"
    "    return $r\n"
    "  }\n"
    "}\n";

static int
make_class(Tcl_Interp *interp, mqtcl_state *st, int i)
{
    const mqtcl_class *k = &mqtcl_classes[i];
    Tcl_Obj *name = Tcl_ObjPrintf("::oo::class create ::%s", k->name);
    Tcl_Object co;
    Tcl_Class cls;
    int rc;

    Tcl_IncrRefCount(name);
    rc = Tcl_EvalObjEx(interp, name, TCL_EVAL_GLOBAL);
    Tcl_DecrRefCount(name);
    if (rc != TCL_OK || !(co = Tcl_GetObjectFromObj(interp, Tcl_GetObjResult(interp))))
        return TCL_ERROR;
    cls = Tcl_GetObjectAsClass(co);
    st->classes[i] = cls;
    Tcl_ClassSetConstructor(interp, cls,
                            Tcl_NewMethod(interp, cls, NULL, 1, &ctor_type, (void *)(intptr_t)i));
    for (const mqtcl_method *m = k->methods; m->name; m++)
        Tcl_NewMethod(interp, cls, Tcl_NewStringObj(m->name, -1), 1, &method_type, (void *)m);
    for (const mqtcl_ctor *m = k->ctors; m && m->name; m++)
        Tcl_NewInstanceMethod(interp, co, Tcl_NewStringObj(m->name, -1), 1, &class_type,
                              (void *)m);
    if (!k->subclass && k->create)
        Tcl_NewInstanceMethod(interp, co, Tcl_NewStringObj("new", -1), 1, &new_type,
                              (void *)(intptr_t)i);
    return mqtcl_class_cmd_install(interp, st, i, co);
}

/* Set up the package in interp (the main one, or a --thread instance's). */
int
mqtcl_init_interp(Tcl_Interp *interp)
{
    mqtcl_state *st;
    Tcl_Namespace *ns;

    if (mqtcl_state_of(interp))
        return TCL_OK;
    method_names_init();
    st = (mqtcl_state *)ckalloc(sizeof *st);
    memset(st, 0, sizeof *st);
    st->thread = Tcl_GetCurrentThread();
    Tcl_InitHashTable(&st->overrides, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&st->tls, TCL_ONE_WORD_KEYS);
    if (!(st->oo_epoch = mqtcl_oo_epoch(interp))) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj("mqlink: TclOO is not initialised", -1));
        return TCL_ERROR;
    }
    Tcl_SetAssocData(interp, "mqlink", state_free, st);
    if (Tcl_EvalEx(interp, helpers, -1, TCL_EVAL_GLOBAL) != TCL_OK)
        return TCL_ERROR;
    if (!(ns = Tcl_FindNamespace(interp, "::mqlink", NULL, TCL_GLOBAL_ONLY)))
        return TCL_ERROR;
    for (int i = 0; i < MQTCL_CLASS_COUNT; i++)
        if (make_class(interp, st, i) != TCL_OK)
            return TCL_ERROR;
    /* constants: variables of ::mqlink ($mqlink::MK_ERR_RANGE); WAIT
     * arguments also take the names themselves (MQ_WAIT_FOREVER) */
    for (const mqtcl_const *c = mqtcl_consts; c->name; c++) {
        Tcl_Obj *n = Tcl_ObjPrintf("::mqlink::%s", c->name);
        Tcl_Obj *v;
        Tcl_IncrRefCount(n);
        v = Tcl_ObjSetVar2(interp, n, NULL, Tcl_NewWideIntObj(c->value), TCL_LEAVE_ERR_MSG);
        Tcl_DecrRefCount(n);
        if (!v)
            return TCL_ERROR;
    }
    for (const mqtcl_function *f = mqtcl_functions; f->name; f++) {
        Tcl_Obj *n = Tcl_ObjPrintf("::mqlink::%s", f->name);
        Tcl_IncrRefCount(n);
        Tcl_CreateObjCommand(interp, Tcl_GetString(n), f->fn, NULL, NULL);
        Tcl_DecrRefCount(n);
    }
    if (Tcl_Export(interp, ns, "*", 0) != TCL_OK)
        return TCL_ERROR;
    /* outside ::mqlink's exports; resolver.c makes it every context's `my` */
    st->my_cmd = Tcl_CreateObjCommand(interp, "::mqlink::oo::my", mqtcl_fast_my, st,
                                      mqtcl_fast_my_deleted);
    return mqtcl_callback_init(interp);
}

/* The package's entry point: `load libmqlinktcl.so Mqlink`. */
__attribute__((visibility("default"))) int
Mqlink_Init(Tcl_Interp *interp)
{
    if (!Tcl_InitStubs(interp, "8.6", 0) || !Tcl_OOInitStubs(interp))
        return TCL_ERROR;
    if (mqtcl_init_interp(interp) != TCL_OK)
        return TCL_ERROR;
    return Tcl_PkgProvide(interp, "mqlink", MQTCL_VERSION);
}
