/* module.h — shared by the hand-written runtime files of the Tcl binding:
 * the per-interpreter state and the object layer.  The generated glue sees
 * runtime.h only. */
#ifndef MQTCL_MODULE_H
#define MQTCL_MODULE_H

#include "instance_delete.h"
#include "runtime.h"

/* A thread-local read on every method call (runtime.c's last object and
 * state, buffer.c's spare value and its view) or several times per new server instance
 * (runtime.c's pending object and class and spare records, callback.c's
 * factory flag).  The extension is -fPIC, so a plain one is reached through
 * a __tls_get_addr call (global-dynamic); initial-exec makes it a load from
 * the thread pointer.  tclsh dlopens the extension after start, so these
 * come from glibc's static TLS surplus (512 bytes by default, shared by
 * every dlopened library): keep them few and small (100 bytes now); a bigger
 * one (convert.c's scratch strings) stays general-dynamic.  Should the
 * surplus run out, `package require mqlink` fails with "cannot allocate
 * memory in static TLS block", never silently. */
#define MQTCL_HOT_TLS _Thread_local __attribute__((tls_model("initial-exec")))

#ifndef MQTCL_VERSION
#define MQTCL_VERSION "1.0"
#endif

/* A word kept as a Tcl_Obj, and the setup it was last asked for
 * (callback.c's kept_word). */
typedef struct mqtcl_kept {
    Tcl_Obj *obj;
    unsigned long serial;
} mqtcl_kept;

/* Shared service callbacks kept per interpreter: as many words as a few
 * servers' setups register. */
#define MQTCL_OWN_CBS 16

/* Per interpreter (assoc data "mqlink"): each interpreter has its own
 * classes, and an interpreter belongs to one thread. */
typedef struct mqtcl_state {
    Tcl_Class classes[MQTCL_CLASS_COUNT];
    Tcl_ThreadId thread;
    Tcl_HashTable overrides; /* Tcl_Class -> mqtcl_overrides (overrides.c) */
    struct mqtcl_overrides *last_ovr; /* the last one attached */
    const int *oo_epoch;     /* TclOO's class-structure epoch (resolver.c) */
    Tcl_HashTable tls;       /* C object of a tls ctor -> its mqtcl_obj */
    /* the fast `my` of every context object (runtime.c, resolver.c) */
    Tcl_Command my_cmd;
    Tcl_Namespace *last_ns;   /* the last namespace my_cmd was called in */
    mqtcl_obj *last_self;     /* ... and its context */
    Tcl_ObjCmdProc *oo_my;    /* TclOO's `my` procedure (its data: the object) */
    mqtcl_kept setup_method;  /* the server setup's method name (callback.c) */
    mqtcl_kept word_my;       /* "my", the setup's first word (callback.c) */
    mqtcl_kept factory_class; /* the server instances' class name (callback.c) */
    /* the services `my METHOD` of the last words registered (callback.c) */
    struct mqtcl_cb *own_cbs[MQTCL_OWN_CBS];
    unsigned own_next;       /* the slot the next new one takes */
    int own_hint;            /* the slot after the last one found */
    unsigned long next_id;   /* names of new objects (runtime.c) */
    Tcl_Object class_objs[MQTCL_CLASS_COUNT]; /* the classes as objects (classcmd.c) */
    /* each class's last CreateTLS (classcmd.c): the ctor, its word and
     * the name value (a reference held on each), the object it gave and
     * its class's Reset */
    struct {
        const void *ctor;
        Tcl_Obj *word;
        Tcl_Obj *name;
        mqtcl_obj *self;
        int reset;
    } tls_last[MQTCL_CLASS_COUNT];
    mqtcl_obj *tls_made;     /* the object mqtcl_new_object last gave a tls ctor */
} mqtcl_state;

/* buffer.c: the thread's spare buffer value and, while it shows a borrowed
 * buffer, where from: a plain object's C object (a stream, a list), or any
 * context's read. */
typedef struct {
    Tcl_Obj *spare;
    const void *plain_src;
    int ctx;
} mqtcl_view_state;
extern MQTCL_HOT_TLS mqtcl_view_state mqtcl_view;
/* The spare takes its own copy of what it shows (someone keeps it). */
void mqtcl_view_keep(void);
/* Whether a method call on a context (ctx) or on the plain object c must
 * first give a kept spare value its own copy: it shows a buffer the call
 * may move on.  The usual answer, no, is a few loads. */
static inline int
mqtcl_view_kept_ctx(void)
{
    return mqtcl_view.ctx && mqtcl_view.spare->refCount > 1;
}
static inline int
mqtcl_view_kept_plain(const void *c)
{
    return c && mqtcl_view.plain_src == c && mqtcl_view.spare->refCount > 1;
}
/* Before a CreateTLS, whose C ctor empties the thread's object of that
 * name (known only after the call): a kept value of any plain object's. */
static inline void
mqtcl_view_touch_plain(void)
{
    if (mqtcl_view.plain_src && mqtcl_view.spare->refCount > 1)
        mqtcl_view_keep();
}
/* Before anything may move the C object c of class cls on (a call on it,
 * its end; for a context, also the link running): mqtcl_view_keep if so. */
static inline void
mqtcl_view_touch(int cls, const void *c)
{
    if (cls == MQTCL_CLASS_MqContextC ? mqtcl_view_kept_ctx() : mqtcl_view_kept_plain(c))
        mqtcl_view_keep();
}

/* The state last looked up in this thread, of an interpreter of this
 * thread (a server instance asks several times; Tcl_GetAssocData is a
 * string hash lookup): the usual answer is a compare, inline. */
typedef struct {
    Tcl_Interp *interp;
    mqtcl_state *st;
} mqtcl_last_state;
extern MQTCL_HOT_TLS mqtcl_last_state mqtcl_last;
mqtcl_state *mqtcl_state_lookup(Tcl_Interp *interp);
static inline mqtcl_state *
mqtcl_state_of(Tcl_Interp *interp)
{
    if (interp == mqtcl_last.interp)
        return mqtcl_last.st;
    return mqtcl_state_lookup(interp);
}
/* The mqlink state of a TclOO object, or NULL. */
mqtcl_obj *mqtcl_self(Tcl_Object o);
/* The context whose `my` cmd is, called from the current namespace, or NULL
 * (another command, NULL). */
mqtcl_obj *mqtcl_my_owner(Tcl_Interp *interp, Tcl_Command cmd);
/* `WORD args...` on self: the class's C method or TclOO's `my`. */
int mqtcl_dispatch(mqtcl_obj *self, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);

/* overrides.c: a context class's dispatch table, kept while TclOO's epoch
 * is the same: by word id (runtime.c), the C method a call through the fast
 * `my` runs, or NULL for TclOO's (no method of the class, or one the class
 * takes over).  The plain classes' objects have one each (runtime.c). */
typedef struct mqtcl_overrides {
    Tcl_Class cls;      /* (NULL: a plain class's) */
    int mqcls;          /* the mqlink class (MQTCL_CLASS_*) it answers for */
    int epoch;          /* TclOO's epoch it was worked out at; -1: none yet */
    mqtcl_fn *fn[];     /* per word id (mqtcl_word_count of them) */
} mqtcl_overrides;
/* Give self (a new object of cls) its class's answer; TCL_ERROR with the
 * message in interp. */
int mqtcl_overrides_attach(Tcl_Interp *interp, mqtcl_state *st, mqtcl_obj *self, Tcl_Class cls);
/* Work self's class's answer out again (TclOO's epoch moved). */
int mqtcl_overrides_refresh(Tcl_Interp *interp, mqtcl_obj *self);
/* The index of the method called name in class cls's table, or -1. */
int mqtcl_method_find(int cls, const char *name);
/* Word ids (runtime.c): how many (0, no method's, included); the id of
 * the method name name (0: none); fn[id] for every id: class cls's C
 * method of that name, or NULL. */
extern int mqtcl_word_count;
int mqtcl_word_id(const char *name);
void mqtcl_methods_fill(int cls, mqtcl_fn **fn);
/* The epoch of a deleted context: never a table's (runtime.c's dispatch). */
extern const int mqtcl_dead_epoch;

/* resolver.c: `my` in ns (a context object's namespace) is the fast `my`,
 * the command mqtcl_fast_my (client data: the interpreter's state). */
void mqtcl_resolver_install(Tcl_Namespace *ns);
/* Whether ns is obj's namespace as Tcl 8.6's TclOO makes it (its client
 * data is the object), which the resolver relies on. */
int mqtcl_resolver_fits(Tcl_Namespace *ns, Tcl_Object obj);
int mqtcl_fast_my(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
void mqtcl_fast_my_deleted(ClientData cd);
/* `my METHOD` through self's TclOO `my` at global level, as Tcl_EvalObjv
 * with TCL_EVAL_GLOBAL would run it, without its lookup. */
int mqtcl_call_own(mqtcl_obj *self, Tcl_Interp *interp, Tcl_Obj *method);
/* Whether base's is the only constructor in class cls's chain (its
 * superclasses and mixins, transitively), read from TclOO's class records:
 * a new instance's constructors are then base's alone. */
int mqtcl_class_ctor_only(Tcl_Class cls, Tcl_Class base);
/* TclOO's epoch of class structure changes (its foundation's). */
const int *mqtcl_oo_epoch(Tcl_Interp *interp);
/* The TclOO object named o, or NULL (and interp's result untouched). */
Tcl_Object mqtcl_object_of(Tcl_Interp *interp, Tcl_Obj *o);
/* A new object of tcls (a subclass of class cls; NULL: cls itself) around
 * c; owned: the object frees c.  Its name is the result, its state *made
 * (when made is not NULL). */
int mqtcl_new_object_of(Tcl_Interp *interp, Tcl_Class tcls, int cls, void *c, int owned,
                        mqtcl_obj **made);
/* The fully qualified name of context self's TclOO `my`, made on first use
 * (a server instance that never runs a callback needs none). */
Tcl_Obj *mqtcl_ctx_my_make(mqtcl_obj *self);
static inline Tcl_Obj *
mqtcl_ctx_my(mqtcl_obj *self)
{
    return self->my ? self->my : mqtcl_ctx_my_make(self);
}
/* classcmd.c: class cls's command (co's, a TclOO class object) runs the
 * class's ctors itself and hands anything else to TclOO. */
int mqtcl_class_cmd_install(Tcl_Interp *interp, mqtcl_state *st, int cls, Tcl_Object co);
/* Forget self as a class's last CreateTLS (it goes), or every one (self
 * NULL: the interpreter goes). */
void mqtcl_tls_forget(mqtcl_state *st, mqtcl_obj *self);
/* Free the thread's spare object records (before its interpreter goes). */
void mqtcl_objs_release(void);
/* Set up the package in interp; idempotent. */
int mqtcl_init_interp(Tcl_Interp *interp);

/* convert.c: find Tcl's own value types once. */
void mqtcl_convert_init(void);

/* callback.c */
void mqtcl_ctx_destroyed(MqContextC *ctx, void *data);
/* Drop st's shared service callbacks (the interpreter goes). */
void mqtcl_own_cbs_release(mqtcl_state *st);
int mqtcl_callback_init(Tcl_Interp *interp);
/* A new context object whose class has a ServerSetup method becomes a
 * server: its setup runs that method on every new instance. */
int mqtcl_auto_setup(Tcl_Interp *interp, mqtcl_obj *self);

#endif
