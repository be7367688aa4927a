/* buffer.c — BUF values.  ReadBUF and IndexGet return a Tcl value, not an
 * object: a Tcl_Obj whose internal representation is an owned copy of the
 * C buffer, freed with the value (an object command per item would leak
 * unless the script destroyed each one).  Passed to SendBUF, WriteBUF,
 * AppendBUF or Copy it keeps its type; its string is the value's text, so
 * it also works as a plain number or string.  An MkBufferC object is
 * accepted wherever a BUF goes. */
#include <stdlib.h>
#include <string.h>

#include "module.h"

static void buf_free(Tcl_Obj *o);
static void buf_dup(Tcl_Obj *src, Tcl_Obj *dst);
static void buf_string(Tcl_Obj *o);

/* (runtime.h's mqtcl_to_BUF checks for it inline) */
const Tcl_ObjType mqtcl_buf_type = {"mqlink.buffer", buf_free, buf_dup, buf_string, NULL};

#define BUF(o) ((MkBufferC *)(o)->internalRep.twoPtrValue.ptr1)

static void
buf_free(Tcl_Obj *o)
{
    MkBufferDelete(BUF(o));
    o->typePtr = NULL;
}

static void
buf_dup(Tcl_Obj *src, Tcl_Obj *dst)
{
    dst->internalRep.twoPtrValue.ptr1 = MkBufferDup(BUF(src));
    dst->internalRep.twoPtrValue.ptr2 = NULL;
    dst->typePtr = BUF(dst) ? &mqtcl_buf_type : NULL;
}

/* The text of the value, as the plain Tcl value of its type would print. */
static Tcl_Obj *
plain_value(MkBufferC *b)
{
    union {
        MK_I64 i;
        MK_DBL d;
        MK_BOL b;
        const char *s;
    } v;
    const void *data;
    size_t size;

    switch (MkBufferGetType(b)) {
    case MK_TYPE_I8:
    case MK_TYPE_I16:
    case MK_TYPE_I32:
    case MK_TYPE_I64:
        return MkBufferGetI64(b, &v.i) == MK_OK ? Tcl_NewWideIntObj(v.i) : Tcl_NewObj();
    case MK_TYPE_FLT:
    case MK_TYPE_DBL:
        return MkBufferGetDBL(b, &v.d) == MK_OK ? Tcl_NewDoubleObj(v.d) : Tcl_NewObj();
    case MK_TYPE_BOL:
        return MkBufferGetBOL(b, &v.b) == MK_OK ? Tcl_NewBooleanObj(v.b) : Tcl_NewObj();
    case MK_TYPE_STR:
        return MkBufferGetSTR(b, &v.s) == MK_OK ? mqtcl_from_STR(v.s) : Tcl_NewObj();
    case MK_TYPE_BIN:
        return MkBufferGetBIN(b, &data, &size) == MK_OK ? Tcl_NewByteArrayObj(data, (int)size)
                                                         : Tcl_NewObj();
    default:
        return Tcl_NewObj();
    }
}

static void
buf_string(Tcl_Obj *o)
{
    Tcl_Obj *p = plain_value(BUF(o));
    int n;
    const char *s = Tcl_GetStringFromObj(p, &n);

    o->bytes = ckalloc(n + 1);
    memcpy(o->bytes, s, n + 1);
    o->length = n;
    Tcl_DecrRefCount(p);
    MkErrorReset(MkErrorDEFAULT());
}

/* The thread's last buffer value, one reference held here (a Tcl_Obj
 * belongs to the thread that made it). */
static MQTCL_HOT_TLS Tcl_Obj *spare;

Tcl_Obj *
mqtcl_from_BUF(MkBufferC *buf)
{
    Tcl_Obj *o = spare;
    MkBufferC *copy;

    if (o && !Tcl_IsShared(o) && o->typePtr == &mqtcl_buf_type &&
        MkBufferCopy(BUF(o), buf) == MK_OK) {
        if (o->bytes) /* (only if a script asked for its text: no call per item) */
            Tcl_InvalidateStringRep(o);
        return o;
    }
    o = Tcl_NewObj();
    if (!(copy = MkBufferDup(buf)))
        return o;
    Tcl_InvalidateStringRep(o);
    o->internalRep.twoPtrValue.ptr1 = copy;
    o->internalRep.twoPtrValue.ptr2 = NULL;
    o->typePtr = &mqtcl_buf_type;
    mqtcl_buf_release();
    spare = o;
    Tcl_IncrRefCount(spare);
    return o;
}

void
mqtcl_buf_release(void)
{
    if (spare)
        Tcl_DecrRefCount(spare);
    spare = NULL;
}

/* mqtcl_to_BUF's way for anything but a buffer value. */
int
mqtcl_to_BUF_object(Tcl_Interp *interp, Tcl_Obj *o, MkBufferC **v, const char *fn)
{
    mqtcl_obj *self;

    self = mqtcl_self(mqtcl_object_of(interp, o));
    if (self && self->cls == MQTCL_CLASS_MkBufferC && self->c) {
        *v = self->c;
        return TCL_OK;
    }
    Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: expected a buffer (ReadBUF's value or an "
                                           "MkBufferC), got \"%.60s\"", fn, Tcl_GetString(o)));
    Tcl_SetErrorCode(interp, "MK", "2", NULL);
    return TCL_ERROR;
}
