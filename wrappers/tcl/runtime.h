/* runtime.h — the hand-written part of the Tcl binding: the objects behind
 * the TclOO classes, argument conversion, errors, callbacks into Tcl and
 * server-instance creation.  The generated glue (gen/glue.c) calls only what
 * is declared here and the C API itself.
 *
 * Shape (wrappers/api/README.md, Tcl column): every class of the description
 * is a TclOO class of the same name whose methods are C methods; a method
 * is one function of the glue, `int fn(interp, self, objc, objv)` with objv
 * holding the method's arguments only.  The same function is reached two
 * ways: through TclOO (`$obj SendI32 5`, `next`, introspection, overrides)
 * and, for contexts, through `my` inside the object's methods, which a
 * namespace resolver (resolver.c) answers with a C command that picks the
 * method from the class's static table (tclsqlite.c's shape) and hands
 * anything else to TclOO's `my`.  A service's `my ReadI32` so costs one
 * object-command dispatch, not a TclOO method call.  Objects of the plain
 * classes (MkBufferStreamC CreateTLS, MkBufferC new, ...) get the same
 * dispatch on their object command itself (`$bus WriteBUF ...`). */
#ifndef MQTCL_RUNTIME_H
#define MQTCL_RUNTIME_H

#include <stdint.h>
#include <tcl.h>
#include <tclOO.h>

#include <mqlink.h>

/* One wrapper object: the metadata of a TclOO object of an mqlink class. */
typedef struct mqtcl_obj {
    void *c;              /* the C object; NULL once the C side is gone */
    Tcl_Object obj;       /* the TclOO object */
    Tcl_Interp *interp;   /* the interpreter the object lives in */
    int cls;              /* MQTCL_CLASS_* */
    const struct mqtcl_method *methods; /* its class's table (dispatch's, per call) */
    int owned;            /* the wrapper frees c (not for tls objects) */
    /* TclOO's procedure behind our fast command: a context's `my`, a plain
     * object's object command */
    Tcl_ObjCmdProc *oo_my;
    ClientData oo_my_data;
    /* objects of the plain classes themselves (not of a subclass): the
     * object command users hold, dispatched from C (runtime.c) */
    Tcl_Command fast;
    Tcl_Obj *name;        /* its fully qualified name */
    /* contexts only */
    int lib_owned;        /* a server instance: the library deletes the context */
    Tcl_Namespace *ns;    /* the object's namespace, once the fast `my` answers in it */
    Tcl_Obj *my;          /* the fully qualified name of TclOO's own `my` (made on first use) */
    struct mqtcl_overrides *ovr; /* its dispatch table (module.h; plain objects too) */
    const int *oo_epoch;  /* the epoch ovr must have: TclOO's; a plain object's
                           * constant; a deleted context's mqtcl_dead_epoch */
} mqtcl_obj;

/* A method of the glue: objv holds its arguments (without object and name). */
typedef int mqtcl_fn(Tcl_Interp *interp, mqtcl_obj *self, int objc, Tcl_Obj *const objv[]);
/* A class-level method (a ctor: `MkBufferStreamC CreateTLS name`). */
typedef int mqtcl_cfn(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
/* A module function (`mqlink::MkTypeName 3`). */
typedef int mqtcl_mfn(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);

/* Tables end with a NULL name; name first, for Tcl_GetIndexFromObjStruct. */
typedef struct mqtcl_method {
    const char *name;
    mqtcl_fn *fn;
} mqtcl_method;

typedef struct {
    const char *name;
    mqtcl_cfn *fn;
} mqtcl_ctor;

typedef struct {
    const char *name;
    mqtcl_mfn *fn;
} mqtcl_function;

typedef struct {
    const char *name;
    long value;
} mqtcl_const;

/* A class of the description.  create/destroy: the argument-free ctor and
 * the free function (plain classes; the context's are in the runtime). */
typedef struct {
    const char *name;
    const char *doc;
    const mqtcl_method *methods;
    const mqtcl_ctor *ctors;
    void *(*create)(void);
    void (*destroy)(void *c);
    int subclass; /* MqContextC: user data, destroy callback, factory */
} mqtcl_class;

/* The generated tables (gen/glue.c): classes by MQTCL_CLASS_* index
 * (gen/glue.h), constants and module functions. */
#include "gen/glue.h"

extern const mqtcl_class mqtcl_classes[MQTCL_CLASS_COUNT];
extern const mqtcl_const mqtcl_consts[];
extern const mqtcl_function mqtcl_functions[];

/* How long the library keeps a callback. */
enum { MQTCL_SCOPE_NOTIFIED = 1, MQTCL_SCOPE_ONCE = 2 };

/* ------------------------------------------------------------ arguments
 * Each returns TCL_OK, or TCL_ERROR with the message in interp: fn is the
 * method ("SendI8: 300 out of range for I8"). */
int mqtcl_wrong_args(Tcl_Interp *interp, const char *fn, const char *args);
int mqtcl_range_error(Tcl_Interp *interp, Tcl_Obj *o, const char *fn, const char *type);

/* Tcl's integer type and the string of every new empty value (convert.c,
 * found once; NULL leaves everything to Tcl's calls). */
extern const Tcl_ObjType *mqtcl_int_type;
extern const char *mqtcl_empty_rep;

/* The range check inline: numbers never go through their string.  A Tcl
 * integer (a counter, another Read's result) is read in place, as Tcl's
 * own reader does past its stub call (~15 instructions per argument). */
#define MQTCL_TO_INT(T, LO, HI)                                                         \
    static inline int mqtcl_to_##T(Tcl_Interp *interp, Tcl_Obj *o, MK_##T *v,           \
                                   const char *fn)                                      \
    {                                                                                   \
        Tcl_WideInt x = 0;                                                              \
        if (sizeof(long) == sizeof(Tcl_WideInt) && o->typePtr &&                        \
            o->typePtr == mqtcl_int_type)                                               \
            x = o->internalRep.longValue;                                               \
        else if (Tcl_GetWideIntFromObj(interp, o, &x) != TCL_OK)                        \
            return TCL_ERROR;                                                           \
        if (x < (LO) || x > (HI)) {                                                     \
            mqtcl_range_error(interp, o, fn, #T);                                       \
            return TCL_ERROR;                                                           \
        }                                                                               \
        *v = (MK_##T)x;                                                                 \
        return TCL_OK;                                                                  \
    }
MQTCL_TO_INT(I8, INT8_MIN, INT8_MAX)
MQTCL_TO_INT(I16, INT16_MIN, INT16_MAX)
MQTCL_TO_INT(I32, INT32_MIN, INT32_MAX)
#undef MQTCL_TO_INT
/* The whole I64 range, exact: Tcl 8.6 reads 2**63 .. 2**64-1 as wrapped. */
int mqtcl_to_I64(Tcl_Interp *interp, Tcl_Obj *o, MK_I64 *v, const char *fn);
/* NaN and the infinities included (Tcl_GetDoubleFromObj refuses NaN). */
int mqtcl_to_DBL(Tcl_Interp *interp, Tcl_Obj *o, MK_DBL *v, const char *fn);
int mqtcl_to_FLT(Tcl_Interp *interp, Tcl_Obj *o, MK_FLT *v, const char *fn);
int mqtcl_to_BOL(Tcl_Interp *interp, Tcl_Obj *o, MK_BOL *v, const char *fn);
/* An integer or a constant's name (MQ_WAIT_FOREVER). */
int mqtcl_to_WAIT(Tcl_Interp *interp, Tcl_Obj *o, MqWaitE *v, const char *fn);
int mqtcl_to_TYPE(Tcl_Interp *interp, Tcl_Obj *o, MkTypeE *v, const char *fn);
/* UTF-8 text, borrowed from o or, when Tcl's internal form differs from
 * UTF-8, from a per-thread scratch slot valid until a few calls later. */
int mqtcl_to_STR(Tcl_Interp *interp, Tcl_Obj *o, const char **v, const char *fn);
int mqtcl_to_TOKEN(Tcl_Interp *interp, Tcl_Obj *o, const char **v, const char *fn);
/* A byte array, borrowed from o. */
static inline int
mqtcl_to_BIN(Tcl_Interp *interp, Tcl_Obj *o, const void **data, size_t *size, const char *fn)
{
    int n;
    *data = Tcl_GetByteArrayFromObj(o, &n);
    *size = (size_t)n;
    return TCL_OK;
}
/* A buffer value (ReadBUF's result) or an MkBufferC object.  The value,
 * what a service passes on (`$bus WriteBUF [my ReadBUF]`), inline: a type
 * check and a load; an object's name goes through its lookup. */
extern const Tcl_ObjType mqtcl_buf_type;
int mqtcl_to_BUF_object(Tcl_Interp *interp, Tcl_Obj *o, MkBufferC **v, const char *fn);
static inline int
mqtcl_to_BUF(Tcl_Interp *interp, Tcl_Obj *o, MkBufferC **v, const char *fn)
{
    if (o->typePtr != &mqtcl_buf_type)
        return mqtcl_to_BUF_object(interp, o, v, fn);
    *v = (MkBufferC *)o->internalRep.twoPtrValue.ptr1;
    return TCL_OK;
}
/* An MqContextC object (of any subclass). */
int mqtcl_to_CTX(Tcl_Interp *interp, Tcl_Obj *o, MqContextC **v, const char *fn);
/* A list of words as a C argv (argv[0] = the program); mqtcl_argv_free it.
 * A list that starts with an option or "@" is Tcl's $argv, without the
 * program: $::argv0 goes first. */
int mqtcl_to_ARGV(Tcl_Interp *interp, Tcl_Obj *o, int *argc, const char ***argv, const char *fn);
void mqtcl_argv_free(int argc, const char **argv);
/* A command prefix as the data of a C callback registration. */
int mqtcl_to_CALLBACK(Tcl_Interp *interp, mqtcl_obj *self, Tcl_Obj *o, int scope, void **v,
                      const char *fn);
MkErrorE mqtcl_cb_call(MqContextC *ctx, void *data);
void mqtcl_cb_free(void *data);

/* -------------------------------------------------------------- results */
static inline Tcl_Obj *
mqtcl_from_int(Tcl_WideInt v)
{
    return Tcl_NewWideIntObj(v);
}
Tcl_Obj *mqtcl_from_DBL(double v);
Tcl_Obj *mqtcl_from_STR(const char *s);
static inline Tcl_Obj *
mqtcl_from_BIN(const void *data, size_t size)
{
    return Tcl_NewByteArrayObj(data, (int)size);
}
/* A buffer value of buf, borrowed from self (a stream, list or context).
 * The thread's last buffer value is reused when nothing else holds it
 * (`$bus WriteBUF [my ReadBUF]` drops it at once) and shows buf itself until
 * self moves on (buffer.c): no new Tcl_Obj, no malloc and no copy per item;
 * a value kept longer takes its own copy. */
Tcl_Obj *mqtcl_from_BUF(mqtcl_obj *self, MkBufferC *buf);
/* Drop the thread's spare buffer value (before its interpreter goes). */
void mqtcl_buf_release(void);

/* The interpreter's result, as Tcl_GetObjResult gives it, read where Tcl
 * 8.6 keeps it (the private Interp's objResultPtr, at the offset resolver.c
 * takes from tclInt.h) instead of through a stub call (~15 instructions per
 * ReadItemExists); a legacy string result, never set by this binding, takes
 * Tcl_GetObjResult's way, which moves it into the object result. */
extern const size_t mqtcl_result_offset;
static inline Tcl_Obj *
mqtcl_result(Tcl_Interp *interp)
{
    if (*interp->resultDontUse)
        return Tcl_GetObjResult(interp);
    return *(Tcl_Obj **)((char *)interp + mqtcl_result_offset);
}

/* A scalar as the method's result.  Tcl resets the result to an unshared
 * empty value before each command, so setting that one in place saves a
 * Tcl_Obj per call (and the free of the empty one). */
/* An integer result goes into the fresh empty result (mqtcl_int_type and
 * mqtcl_empty_rep above) with three stores, what Tcl_SetWideIntObj does
 * (TclSetLongObj) past its stub call and its checks (~25 instructions per
 * ReadItemExists). */
static inline int
mqtcl_set_fresh_int(Tcl_Obj *r, Tcl_WideInt v)
{
    if (sizeof(long) != sizeof(Tcl_WideInt) || r->refCount > 1 || r->typePtr ||
        r->bytes != mqtcl_empty_rep || !mqtcl_int_type)
        return 0;
    r->bytes = NULL;
    r->internalRep.longValue = (long)v;
    r->typePtr = mqtcl_int_type;
    return 1;
}
static inline void
mqtcl_set_int(Tcl_Interp *interp, Tcl_WideInt v)
{
    Tcl_Obj *r = mqtcl_result(interp);
    if (mqtcl_set_fresh_int(r, v))
        return;
    if (Tcl_IsShared(r))
        Tcl_SetObjResult(interp, Tcl_NewWideIntObj(v));
    else
        Tcl_SetWideIntObj(r, v);
}
static inline void
mqtcl_set_DBL(Tcl_Interp *interp, double v)
{
    Tcl_Obj *r = mqtcl_result(interp);
    if (Tcl_IsShared(r))
        Tcl_SetObjResult(interp, Tcl_NewDoubleObj(v));
    else
        Tcl_SetDoubleObj(r, v);
}
static inline void
mqtcl_set_BOL(Tcl_Interp *interp, int v)
{
    Tcl_Obj *r = mqtcl_result(interp);
    if (mqtcl_set_fresh_int(r, v != 0)) /* Tcl 8.6's booleans are ints 0/1 */
        return;
    if (Tcl_IsShared(r))
        Tcl_SetObjResult(interp, Tcl_NewBooleanObj(v));
    else
        Tcl_SetBooleanObj(r, v);
}
/* mqtcl_set_int and mqtcl_set_BOL out of line, returning TCL_OK: a
 * method whose result is its C call's value ends in a tail call of one
 * (the generator's RETURNING), its own frame gone by then (callgrind: ~7
 * instructions less per ReadItemExists). */
int mqtcl_return_int(Tcl_Interp *interp, Tcl_WideInt v);
int mqtcl_return_BOL(Tcl_Interp *interp, int v);
/* The object name of ctx's wrapper, or "" */
Tcl_Obj *mqtcl_from_CTX(MqContextC *ctx);

/* ------------------------------------------------------------- objects */
/* Make a new TclOO object of class cls wrapping c and set it as the result;
 * owned: the object frees c when it goes (else c is the thread's: a tls
 * ctor, and the same c gives the same object). */
int mqtcl_new_object(Tcl_Interp *interp, int cls, void *c, int owned);
/* The dtor: destroy the TclOO object (its metadata frees the C object). */
int mqtcl_delete(Tcl_Interp *interp, mqtcl_obj *self);

/* --------------------------------------------------------------- errors
 * Set the interp's result and -errorcode {MK code} from the C error and
 * return TCL_ERROR; the error is reset. */
int mqtcl_raise_kernel(Tcl_Interp *interp);
int mqtcl_raise_ctx(Tcl_Interp *interp, MqContextC *ctx);
int mqtcl_raise_null(Tcl_Interp *interp, const char *fn);

/* Hand-written methods named in the description. */
int mqtcl_rt_MqContextC_ConfigSetServerSetup(Tcl_Interp *interp, mqtcl_obj *self, int objc,
                                             Tcl_Obj *const objv[]);

#endif
