/* buffer.c — BUF values.  ReadBUF and IndexGet return a Tcl value, not an
 * object: a Tcl_Obj whose internal representation is the C buffer it shows
 * and, once it has one, its own copy, freed with the value (an object
 * command per item would leak unless the script destroyed each one).
 * Passed to SendBUF, WriteBUF, AppendBUF or Copy it keeps its type; its
 * string is the value's text, so it also works as a plain number or
 * string.  An MkBufferC object is accepted wherever a BUF goes.
 *
 * The thread's spare value (the last one made, reused while nothing else
 * holds it) shows the borrowed buffer itself: a read passed straight on
 * (`$bus WriteBUF [my ReadBUF]`) copies nothing.  The borrow lasts until
 * its source moves on, and a value someone keeps must never read past
 * that, so before anything that may move a source on, a kept spare takes
 * its own copy (mqtcl_view_touch): any method call on the source (runtime.c's
 * dispatch and method_call, classcmd.c's CreateTLS Reset), its object's end
 * (meta_delete), and for a context's read, whose bytes are the link's, also
 * any method call on any context, every entry from the link into Tcl and
 * its return (callback.c) and the context's end.  Only the spare can be a
 * view: the spare leaves that role with its own copy. */
#include <stdlib.h>
#include <string.h>

#include "module.h"

static void buf_free(Tcl_Obj *o);
static void buf_dup(Tcl_Obj *src, Tcl_Obj *dst);
static void buf_string(Tcl_Obj *o);

/* (runtime.h's mqtcl_to_BUF checks for it inline) */
const Tcl_ObjType mqtcl_buf_type = {"mqlink.buffer", buf_free, buf_dup, buf_string, NULL};

/* what the value shows (its own copy, or the spare's borrowed buffer) */
#define BUF(o) ((MkBufferC *)(o)->internalRep.twoPtrValue.ptr1)
/* its own copy, freed with it */
#define OWN(o) ((MkBufferC *)(o)->internalRep.twoPtrValue.ptr2)

MQTCL_HOT_TLS mqtcl_view_state mqtcl_view;

static void
buf_free(Tcl_Obj *o)
{
    if (o == mqtcl_view.spare) /* (another type takes it over) */
        mqtcl_view.plain_src = NULL, mqtcl_view.ctx = 0;
    MkBufferDelete(OWN(o));
    o->typePtr = NULL;
}

/* A value of the type around buf (owned: the value frees it). */
static void
set_own(Tcl_Obj *o, MkBufferC *buf)
{
    o->internalRep.twoPtrValue.ptr1 = buf;
    o->internalRep.twoPtrValue.ptr2 = buf;
    o->typePtr = &mqtcl_buf_type;
}

static void
buf_dup(Tcl_Obj *src, Tcl_Obj *dst)
{
    MkBufferC *copy = MkBufferDup(BUF(src));

    if (copy)
        set_own(dst, copy);
    else
        dst->typePtr = NULL;
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

/* The spare (a view) takes its own copy of what it shows.  Out of memory,
 * it shows an empty value rather than its source's later bytes. */
void
mqtcl_view_keep(void)
{
    Tcl_Obj *o = mqtcl_view.spare;
    MkBufferC *own = OWN(o);

    mqtcl_view.plain_src = NULL;
    mqtcl_view.ctx = 0;
    if (o->typePtr != &mqtcl_buf_type || BUF(o) == own)
        return;
    if (MkBufferCopy(own, BUF(o)) != MK_OK) {
        MkBufferReset(own);
        MkErrorReset(MkErrorDEFAULT());
    }
    o->internalRep.twoPtrValue.ptr1 = own;
}

/* The spare shows buf, borrowed from self. */
static inline Tcl_Obj *
view_set(Tcl_Obj *o, mqtcl_obj *self, MkBufferC *buf)
{
    o->internalRep.twoPtrValue.ptr1 = buf;
    mqtcl_view.ctx = self->cls == MQTCL_CLASS_MqContextC;
    mqtcl_view.plain_src = mqtcl_view.ctx ? NULL : self->c;
    return o;
}

/* mqtcl_from_BUF's way when the spare cannot simply show buf: the first
 * value, a kept spare (it takes its own copy and a new value with one of
 * its own becomes the spare), or a spare whose text a script asked for. */
static __attribute__((noinline)) Tcl_Obj *
from_BUF_other(mqtcl_obj *self, MkBufferC *buf)
{
    Tcl_Obj *o = mqtcl_view.spare;
    MkBufferC *copy;

    if (o && !Tcl_IsShared(o) && o->typePtr == &mqtcl_buf_type) {
        Tcl_InvalidateStringRep(o);
        return view_set(o, self, buf);
    }
    o = Tcl_NewObj();
    if (!(copy = MkBufferDup(buf)))
        return o;
    Tcl_InvalidateStringRep(o);
    set_own(o, copy);
    mqtcl_buf_release(); /* (the kept one takes its own copy first) */
    mqtcl_view.spare = o;
    Tcl_IncrRefCount(o);
    return o;
}

Tcl_Obj *
mqtcl_from_BUF(mqtcl_obj *self, MkBufferC *buf)
{
    Tcl_Obj *o = mqtcl_view.spare;

    /* only this holds it, and it has no text: it shows buf itself */
    if (o && !Tcl_IsShared(o) && o->typePtr == &mqtcl_buf_type && !o->bytes)
        return view_set(o, self, buf);
    return from_BUF_other(self, buf);
}

void
mqtcl_buf_release(void)
{
    Tcl_Obj *o = mqtcl_view.spare;

    if (!o)
        return;
    if ((mqtcl_view.plain_src || mqtcl_view.ctx) && Tcl_IsShared(o))
        mqtcl_view_keep();
    mqtcl_view.plain_src = NULL;
    mqtcl_view.ctx = 0;
    mqtcl_view.spare = NULL;
    Tcl_DecrRefCount(o);
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
