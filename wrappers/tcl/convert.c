/* convert.c — Tcl values to C arguments and back, and C errors to Tcl
 * errors.  Numbers are read from their internal representation
 * (Tcl_GetWideIntFromObj, Tcl_GetDoubleFromObj), never from their string;
 * integers are range-checked against the mqlink type: 300 for an I8 is an
 * error naming the call, never a silent wrap.  BIN is a byte array, STR the
 * UTF-8 text. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

static const Tcl_ObjType *int_type, *double_type;
const Tcl_ObjType *mqtcl_int_type; /* (runtime.h: NULL leaves it to Tcl's calls) */
const char *mqtcl_empty_rep;

static void
code_error(Tcl_Interp *interp, int code)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%d", code);
    Tcl_SetErrorCode(interp, "MK", buf, NULL);
}

int
mqtcl_wrong_args(Tcl_Interp *interp, const char *fn, const char *args)
{
    Tcl_SetObjResult(interp, Tcl_ObjPrintf("wrong # args: should be \"%s%s%s\"", fn,
                                           *args ? " " : "", args));
    Tcl_SetErrorCode(interp, "TCL", "WRONGARGS", NULL);
    return TCL_ERROR;
}

int
mqtcl_range_error(Tcl_Interp *interp, Tcl_Obj *o, const char *fn, const char *type)
{
    Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: %s out of range for %s", fn, Tcl_GetString(o),
                                           type));
    code_error(interp, MK_ERR_RANGE);
    return TCL_ERROR;
}

/* Tcl 8.6 reads an integer of magnitude 2**63 .. 2**64-1 with its sign
 * flipped; only a value that is not already a plain integer can be one. */
int
mqtcl_to_I64(Tcl_Interp *interp, Tcl_Obj *o, MK_I64 *v, const char *fn)
{
    Tcl_WideInt x;
    if (Tcl_GetWideIntFromObj(interp, o, &x) != TCL_OK)
        return TCL_ERROR;
    if (o->typePtr != int_type) {
        const char *s = Tcl_GetString(o);
        while (*s == ' ' || *s == '\t' || *s == '\n')
            s++;
        if ((*s == '-') != (x < 0) && x != 0)
            return mqtcl_range_error(interp, o, fn, "I64");
    }
    *v = x;
    return TCL_OK;
}

/* "NaN", "-nan", "NaN(...)": Tcl prints NaN so and refuses to read it back. */
static int
is_nan_text(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    return strncasecmp(s, "nan", 3) == 0 && (s[3] == '\0' || s[3] == '(');
}

int
mqtcl_to_DBL(Tcl_Interp *interp, Tcl_Obj *o, MK_DBL *v, const char *fn)
{
    if (o->typePtr == double_type) {
        *v = o->internalRep.doubleValue;
        return TCL_OK;
    }
    if (Tcl_GetDoubleFromObj(NULL, o, v) == TCL_OK)
        return TCL_OK;
    if (o->typePtr == double_type) { /* a NaN Tcl parsed and refused */
        *v = o->internalRep.doubleValue;
        return TCL_OK;
    }
    if (is_nan_text(Tcl_GetString(o))) {
        *v = NAN;
        return TCL_OK;
    }
    Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: expected a number but got \"%s\"", fn,
                                           Tcl_GetString(o)));
    code_error(interp, MK_ERR_TYPE);
    return TCL_ERROR;
}

int
mqtcl_to_FLT(Tcl_Interp *interp, Tcl_Obj *o, MK_FLT *v, const char *fn)
{
    double d;
    if (mqtcl_to_DBL(interp, o, &d, fn) != TCL_OK)
        return TCL_ERROR;
    if (isfinite(d) && fabs(d) > FLT_MAX)
        return mqtcl_range_error(interp, o, fn, "FLT");
    *v = (MK_FLT)d;
    return TCL_OK;
}

int
mqtcl_to_BOL(Tcl_Interp *interp, Tcl_Obj *o, MK_BOL *v, const char *fn)
{
    int b;
    if (Tcl_GetBooleanFromObj(interp, o, &b) != TCL_OK)
        return TCL_ERROR;
    *v = b != 0;
    return TCL_OK;
}

static const char *const wait_names[] = {"MQ_WAIT_NO", "MQ_WAIT_ONCE", "MQ_WAIT_FOREVER", NULL};

int
mqtcl_to_WAIT(Tcl_Interp *interp, Tcl_Obj *o, MqWaitE *v, const char *fn)
{
    Tcl_WideInt x;
    int i;
    if (Tcl_GetWideIntFromObj(NULL, o, &x) == TCL_OK) {
        if (x < MQ_WAIT_NO || x > MQ_WAIT_FOREVER)
            return mqtcl_range_error(interp, o, fn, "MqWaitE");
        *v = (MqWaitE)x;
        return TCL_OK;
    }
    if (Tcl_GetIndexFromObj(interp, o, wait_names, "wait", 0, &i) != TCL_OK)
        return TCL_ERROR;
    *v = (MqWaitE)i;
    return TCL_OK;
}

int
mqtcl_to_TYPE(Tcl_Interp *interp, Tcl_Obj *o, MkTypeE *v, const char *fn)
{
    Tcl_WideInt x;
    if (Tcl_GetWideIntFromObj(interp, o, &x) != TCL_OK)
        return TCL_ERROR;
    if (x < MK_TYPE_NONE || x > MK_TYPE_LST_END)
        return mqtcl_range_error(interp, o, fn, "MkTypeE");
    *v = (MkTypeE)x;
    return TCL_OK;
}

/* Tcl keeps text in a modified UTF-8: NUL as C0 80 and, in 8.6, characters
 * past U+FFFF as two 3-byte surrogates (ED A0..BF ..).  Text without those
 * bytes is UTF-8 as it is; the rest is converted into one of a few
 * per-thread scratch strings (an argument lives until the call returns,
 * and no call takes more than two texts).  The strings are on the heap,
 * made on the first conversion: in the thread-local block they would add
 * 872 bytes to what the extension takes of glibc's static TLS (module.h,
 * MQTCL_HOT_TLS). */
#define SCRATCH 4
static _Thread_local struct {
    Tcl_DString *s; /* SCRATCH of them */
    int next;
} scratch;

/* (Tcl_GetString and the object's length: Tcl_GetStringFromObj costs 12
 * instructions more per call) */
int
mqtcl_to_STR(Tcl_Interp *interp, Tcl_Obj *o, const char **v, const char *fn)
{
    const char *s = Tcl_GetString(o);
    int n = o->length;
    Tcl_DString *d;

    /* two memchr scans (vectorised in libc) instead of a byte loop: about
     * 50 instructions for CreateTLS's name instead of 150, n/16 for a long text */
    if (!memchr(s, 0xC0, (size_t)n) && !memchr(s, 0xED, (size_t)n)) {
        *v = s;
        return TCL_OK;
    }
    if (!scratch.s) {
        scratch.s = (Tcl_DString *)ckalloc(SCRATCH * sizeof *scratch.s);
        for (int i = 0; i < SCRATCH; i++)
            Tcl_DStringInit(&scratch.s[i]);
    }
    d = &scratch.s[scratch.next++ % SCRATCH];
    Tcl_DStringFree(d);
    Tcl_UtfToExternalDString(Tcl_GetEncoding(NULL, "utf-8"), s, n, d);
    if ((int)strlen(Tcl_DStringValue(d)) != Tcl_DStringLength(d)) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: the text contains a NUL character", fn));
        code_error(interp, MK_ERR_ARGUMENT);
        return TCL_ERROR;
    }
    *v = Tcl_DStringValue(d);
    return TCL_OK;
}

int
mqtcl_to_TOKEN(Tcl_Interp *interp, Tcl_Obj *o, const char **v, const char *fn)
{
    /* a literal token has its text: no stub call (5 per new server instance) */
    const char *s = o->bytes ? o->bytes : Tcl_GetString(o);
    if (o->length != 4) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: a token is exactly 4 characters, got \"%s\"",
                                               fn, s));
        code_error(interp, MK_ERR_ARGUMENT);
        return TCL_ERROR;
    }
    *v = s;
    return TCL_OK;
}

int
mqtcl_to_CTX(Tcl_Interp *interp, Tcl_Obj *o, MqContextC **v, const char *fn)
{
    mqtcl_state *st = mqtcl_state_of(interp);
    Tcl_Object obj;
    mqtcl_obj *self;

    /* `my ProxyItem [self]`: o is the current name value TclOO keeps for
     * the context of the last fast `my` (what `self` returns; a rename
     * drops it), so no lookup by name and in the object's metadata
     * (callgrind: ~165 instructions per ECUL) */
    if (st && (self = st->last_self) && self->c && Tcl_GetObjectName(interp, self->obj) == o) {
        *v = self->c;
        return TCL_OK;
    }
    obj = mqtcl_object_of(interp, o);
    self = mqtcl_self(obj);

    if (!self || !mqtcl_classes[self->cls].subclass) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: expected an MqContextC, got \"%s\"", fn,
                                               Tcl_GetString(o)));
        code_error(interp, MK_ERR_ARGUMENT);
        return TCL_ERROR;
    }
    if (!self->c) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: the context was deleted", fn));
        code_error(interp, MQ_ERR_LINK);
        return TCL_ERROR;
    }
    *v = self->c;
    return TCL_OK;
}

int
mqtcl_to_ARGV(Tcl_Interp *interp, Tcl_Obj *o, int *argc, const char ***argv, const char *fn)
{
    Tcl_Obj **w;
    int n, k = 0;
    const char **a;

    if (Tcl_ListObjGetElements(interp, o, &n, &w) != TCL_OK)
        return TCL_ERROR;
    a = (const char **)ckalloc((n + 2) * sizeof *a);
    if (n == 0 || *Tcl_GetString(w[0]) == '-' || strcmp(Tcl_GetString(w[0]), "@") == 0) {
        const char *p = Tcl_GetVar(interp, "::argv0", TCL_GLOBAL_ONLY);
        a[k++] = p ? p : "tclsh";
    }
    for (int i = 0; i < n; i++)
        if (mqtcl_to_STR(interp, w[i], &a[k++], fn) != TCL_OK) {
            ckfree(a);
            return TCL_ERROR;
        }
    /* the scratch texts may be reused by the next conversion: copy all */
    for (int i = 0; i < k; i++) {
        size_t len = strlen(a[i]) + 1;
        char *c = ckalloc(len);
        memcpy(c, a[i], len);
        a[i] = c;
    }
    a[k] = NULL;
    *argc = k;
    *argv = a;
    return TCL_OK;
}

void
mqtcl_argv_free(int argc, const char **argv)
{
    for (int i = 0; i < argc; i++)
        ckfree((char *)argv[i]);
    ckfree((char *)argv);
}

/* --------------------------------------------------------------- results */

Tcl_Obj *
mqtcl_from_DBL(double v)
{
    return Tcl_NewDoubleObj(v);
}

/* UTF-8 with characters past U+FFFF goes through the encoding; the rest
 * is Tcl's form as it is. */
Tcl_Obj *
mqtcl_from_STR(const char *s)
{
    Tcl_DString d;
    Tcl_Obj *o;
    size_t n = strlen(s);

    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0xF0)
            goto convert;
    return Tcl_NewStringObj(s, (int)n);
convert:
    Tcl_ExternalToUtfDString(Tcl_GetEncoding(NULL, "utf-8"), s, (int)n, &d);
    o = Tcl_NewStringObj(Tcl_DStringValue(&d), Tcl_DStringLength(&d));
    Tcl_DStringFree(&d);
    return o;
}

Tcl_Obj *
mqtcl_from_CTX(MqContextC *ctx)
{
    mqtcl_obj *self = ctx ? MqContextGetUserData(ctx) : NULL;
    return self ? Tcl_GetObjectName(self->interp, self->obj) : Tcl_NewObj();
}

/* ---------------------------------------------------------------- errors */

static int
raise(Tcl_Interp *interp, MK_I32 code, const char *text)
{
    Tcl_SetObjResult(interp, mqtcl_from_STR(text && *text ? text : "mqlink error"));
    code_error(interp, code ? code : MK_ERR_GENERIC);
    return TCL_ERROR;
}

int
mqtcl_raise_kernel(Tcl_Interp *interp)
{
    MkErrorC *e = MkErrorDEFAULT();
    int rc = raise(interp, MkErrorGetCode(e), MkErrorGetText(e));
    MkErrorReset(e);
    return rc;
}

int
mqtcl_raise_ctx(Tcl_Interp *interp, MqContextC *ctx)
{
    int rc = raise(interp, MqErrorGetCode(ctx), MqErrorGetText(ctx));
    MqErrorReset(ctx);
    return rc;
}

int
mqtcl_raise_null(Tcl_Interp *interp, const char *fn)
{
    MkErrorC *e = MkErrorDEFAULT();
    if (MkErrorIsSet(e))
        return mqtcl_raise_kernel(interp);
    Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: no such item", fn));
    code_error(interp, MK_ERR_ARGUMENT);
    return TCL_ERROR;
}

void
mqtcl_convert_init(void)
{
    if (!int_type) {
        Tcl_Obj *i = Tcl_NewWideIntObj(1), *d = Tcl_NewDoubleObj(1.5);
        Tcl_Obj *b = Tcl_NewBooleanObj(1), *e = Tcl_NewObj();
        int_type = i->typePtr;
        double_type = d->typePtr;
        /* mqtcl_set_int's three stores are right only where a boolean is
         * an int and an empty value shares one string (Tcl 8.6) */
        if (b->typePtr == int_type && b->internalRep.longValue == 1 && e->bytes &&
            !e->length && !e->typePtr) {
            mqtcl_empty_rep = e->bytes;
            mqtcl_int_type = int_type;
        }
        Tcl_DecrRefCount(i);
        Tcl_DecrRefCount(d);
        Tcl_DecrRefCount(b);
        Tcl_DecrRefCount(e);
    }
}

/* mqtcl_return_int's and mqtcl_return_BOL's way when the result is not
 * Tcl's fresh empty one (out of line: their usual way saves no register). */
static __attribute__((noinline)) int
return_int_other(Tcl_Interp *interp, Tcl_WideInt v)
{
    mqtcl_set_int(interp, v);
    return TCL_OK;
}

static __attribute__((noinline)) int
return_BOL_other(Tcl_Interp *interp, int v)
{
    mqtcl_set_BOL(interp, v);
    return TCL_OK;
}

int
mqtcl_return_int(Tcl_Interp *interp, Tcl_WideInt v)
{
    if (*interp->resultDontUse || !mqtcl_set_fresh_int(mqtcl_result(interp), v))
        return return_int_other(interp, v);
    return TCL_OK;
}

int
mqtcl_return_BOL(Tcl_Interp *interp, int v)
{
    if (*interp->resultDontUse || !mqtcl_set_fresh_int(mqtcl_result(interp), v != 0))
        return return_BOL_other(interp, v);
    return TCL_OK;
}
