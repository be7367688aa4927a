/* runtime.h — the hand-written part of the Ruby binding: object layouts,
 * argument conversion, exceptions, callbacks into Ruby and server-instance
 * creation.  The generated glue (gen/glue.c) calls only what is declared
 * here and the C API itself.
 *
 * Conversions raise (a Ruby exception is a longjmp), so the glue converts
 * every argument before it makes anything it must free: the one such thing,
 * a callback registration, is converted last, and freed by the glue before
 * it raises when the C call did not take it. */
#ifndef MQRB_RUNTIME_H
#define MQRB_RUNTIME_H

#include <ruby.h>
#include <ruby/encoding.h>
#include <ruby/thread.h>

#include <mqlink.h>

#include "addr_cache.h"

/* ------------------------------------------------------------ plain objects */

/* An object of a plain class (MkBufferC, MkBufferStreamC, ...) holds its
 * C object itself as the data pointer, so a new object (each ReadBUF copy)
 * costs one Ruby object and no struct beside it.  The pointer's low bits
 * (C objects are at least 8-byte aligned) say what the wrapper does not
 * own; after Delete, or once a view ends, the pointer is NULL and the tag
 * stays, so the error can say which.  Every wrapper owns its object except:
 *   MQRB_BORROWED  a CreateTLS object: the thread owns it
 *   MQRB_VIEW      a context's ReadBUFR buffer: the context's read owns it
 *   MQRB_SRC_VIEW  a stream's ReadBUFR or a list's IndexGetR buffer (view.c):
 *                  the stream or list owns it */
enum { MQRB_BORROWED = 1, MQRB_VIEW = 2, MQRB_SRC_VIEW = 4, MQRB_TAGS = 7 };

static inline void *
mqrb_untag(void *p)
{
    return (void *)((uintptr_t)p & ~(uintptr_t)MQRB_TAGS);
}
/* Whether the wrapper's data pointer p is a C object it frees. */
static inline int
mqrb_plain_owned(void *p)
{
    return p && !((uintptr_t)p & MQRB_TAGS);
}
/* The data pointer of v when it is of exactly type (every call's self and
 * most arguments), else rb_check_typeddata's answer: a subclass's type, or
 * its TypeError.  The inline test spares every method the library call. */
static inline void *
mqrb_typed(VALUE v, const rb_data_type_t *type)
{
    if (!RB_SPECIAL_CONST_P(v) && RB_BUILTIN_TYPE(v) == RUBY_T_DATA && RTYPEDDATA_P(v) &&
        RTYPEDDATA_TYPE(v) == type)
        return RTYPEDDATA_DATA(v);
    return rb_check_typeddata(v, type);
}
/* mqrb_typed for a plain class, whose type holds the address of its class
 * (data): only the class's allocator and the glue make objects of exactly
 * that class, all wrappers of that type, so one compare of the class
 * stands for the three of the type.  A subclass takes mqrb_typed. */
static inline void *
mqrb_plain_typed(VALUE v, const rb_data_type_t *type)
{
    if (!RB_SPECIAL_CONST_P(v) && RBASIC_CLASS(v) == *(const VALUE *)type->data)
        return RTYPEDDATA_DATA(v);
    return mqrb_typed(v, type);
}
/* A new Ruby object of klass wrapping obj, which it frees when owned
 * (NULL raises NoMemoryError). */
VALUE mqrb_plain_wrap(VALUE klass, const rb_data_type_t *type, void *obj, int owned);
/* The wrapper of a thread's object (CreateTLS), which is the same object on
 * every call of that thread: the wrapper made for it before, when it is
 * still known, so a hot loop allocates nothing (NULL raises). */
VALUE mqrb_plain_wrap_tls(VALUE klass, const rb_data_type_t *type, void *obj);
/* CreateTLS(name) of a plain class: the wrapper (mqrb_plain_wrap_tls) of
 * the calling thread's object called name, emptied by reset.  create (the
 * kernel's CreateTLS) is called for a name the thread has not used lately;
 * the thread remembers the objects of its last names, so a hot loop's
 * CreateTLS neither converts the name nor searches the kernel's registry
 * (runtime.c). */
VALUE mqrb_plain_tls(VALUE klass, const rb_data_type_t *type, VALUE name,
                     void *(*create)(const char *), void (*reset)(void *), const char *fn);
/* The C object of self; raises MkExceptionC when it was deleted. */
static inline void *
mqrb_plain_get(VALUE self, const rb_data_type_t *type, const char *fn)
{
    void *obj = mqrb_untag(mqrb_plain_typed(self, type));
    void *mqrb_deleted_ptr(VALUE self, const char *fn);
    return obj ? obj : mqrb_deleted_ptr(self, fn);
}
/* The receiver of an instance method needs no type check: the VM calls a
 * method only on an object whose class has it (bind and bind_call check
 * kind_of? and raise TypeError first; a class's C method cannot be moved
 * to a module or refinement), and every object of a class of this module
 * or of a subclass is made by the class's allocator (new, allocate, dup
 * and clone, Marshal), so it is a typed T_DATA of the class's type or of
 * one with the same layout (a deleted context's).  The data pointer alone
 * is read: ~14 instructions less per context call (SendBUF 45 -> 30), ~8
 * per plain one (AppendBUF 48 -> 40), than mqrb_typed and mqrb_plain_typed,
 * which arguments still take (buffer_test.rb and callback_test.rb:
 * bind_call, subclasses, deleted). */
void *mqrb_deleted_ptr(VALUE self, const char *fn);
static inline void *
mqrb_plain_self(VALUE self, const char *fn)
{
    void *obj = mqrb_untag(RTYPEDDATA_DATA(self));
    return obj ? obj : mqrb_deleted_ptr(self, fn);
}
/* Delete: free the C object now (idempotent). */
void mqrb_plain_delete(VALUE self, const rb_data_type_t *type, void (*del)(void *));

/* What the generated glue defines for each plain class (gen/glue.c); the
 * runtime names MkBufferC itself, for BUF arguments and results. */
extern const rb_data_type_t mqrb_MkBufferC_type;
extern VALUE mqrb_cMkBufferC;

/* ------------------------------------------------------------------ contexts */

/* A context.  The C context's user data points back at the Ruby object; obj
 * is cleared by the context's destroy callback, whoever deletes it.  A server
 * instance made by the factory is owned by the library, which keeps the Ruby
 * object alive (keep) until it deletes the context. */
typedef struct mqrb_keep {
    struct mqrb_keep *prev, *next;
    VALUE value;
} mqrb_keep;

typedef struct {
    MqContextC *obj;
    VALUE self;
    mqrb_keep lib; /* linked while the library owns this instance */
    VALUE view;    /* the ReadBUFR buffer, made at the first ReadBUFR (0 before) */
} mqrb_ctx;

/* ReadBUFR: the context's one reusable MkBufferC, pointed at buf: no
 * allocation and no copy per read.  mqrb_view_end points it at nothing (its
 * methods raise from then on): the runtime calls it when a service or
 * callback returns, before each blocking call on the context (the event
 * loop replaces the read message) and when the context is deleted, so a
 * kept view never reaches freed memory. */
VALUE mqrb_view_first(VALUE self, MkBufferC *buf);
static inline VALUE
mqrb_view(VALUE self, MkBufferC *buf)
{
    mqrb_ctx *o = RTYPEDDATA_DATA(self);
    if (!o->view)
        return mqrb_view_first(self, buf); /* makes the buffer */
    RTYPEDDATA_DATA(o->view) = (void *)((uintptr_t)buf | MQRB_VIEW);
    return o->view;
}
void mqrb_view_end(VALUE self);

/* A stream's ReadBUFR and a list's IndexGetR (view.c): the one reusable
 * MkBufferC of that stream or list (src, its C object), pointed at the
 * value the C call lent; it ends at the next call that may change src
 * (mqrb_src_end, first in each of their methods but the queries, and in
 * CreateTLS, which empties src) and when src is freed (mqrb_src_forget). */
enum { MQRB_SRC_VIEW_BITS = 5 }; /* 32 sets of 2 */
/* An ended view: no object, and the tag that names the view in errors. */
#define MQRB_SRC_ENDED ((void *)(uintptr_t)MQRB_SRC_VIEW)
extern mqrb_addr_set mqrb_src_views[1 << MQRB_SRC_VIEW_BITS];
static inline mqrb_addr_set *
mqrb_src_set(const void *src)
{
    return mqrb_addr_set_of(mqrb_src_views, MQRB_SRC_VIEW_BITS, src);
}
VALUE mqrb_src_view_new(void *src, MkBufferC *buf);
static inline VALUE
mqrb_src_view(void *src, MkBufferC *buf)
{
    mqrb_addr_way *w = mqrb_addr_find(mqrb_src_set(src), src);
    if (!w)
        return mqrb_src_view_new(src, buf); /* makes the buffer */
    RTYPEDDATA_DATA(w->value) = (void *)((uintptr_t)buf | MQRB_SRC_VIEW);
    return w->value;
}
static inline void
mqrb_src_end(void *src)
{
    mqrb_addr_way *w = mqrb_addr_find(mqrb_src_set(src), src);
    if (w)
        RTYPEDDATA_DATA(w->value) = MQRB_SRC_ENDED;
}
void mqrb_src_forget(void *src);
void mqrb_src_views_mark(void);

extern const rb_data_type_t mqrb_ctx_type;
extern VALUE mqrb_cMqContextC;

/* The C context of self; raises MkExceptionC when it was deleted. */
static inline MqContextC *
mqrb_ctx_get(VALUE self, const char *fn)
{
    mqrb_ctx *o = mqrb_typed(self, &mqrb_ctx_type);
    void *mqrb_deleted_ptr(VALUE self, const char *fn);
    return o->obj ? o->obj : mqrb_deleted_ptr(self, fn);
}
/* The C context of the receiver of an instance method (see mqrb_plain_self:
 * its data is always a context struct, no_ctx before it has its own);
 * raises MkExceptionC when it was deleted. */
static inline MqContextC *
mqrb_ctx_self(VALUE self, const char *fn)
{
    MqContextC *ctx = ((mqrb_ctx *)RTYPEDDATA_DATA(self))->obj;
    return ctx ? ctx : mqrb_deleted_ptr(self, fn);
}
/* A new Ruby object of klass (MqContextC or a subclass) for a new C context. */
VALUE mqrb_ctx_new(VALUE klass, MqContextC *ctx);
void mqrb_ctx_delete(VALUE self);
/* A new, uninitialized server instance of klass (the factory's, in the main
 * Ractor, klass a real class): what rb_obj_alloc makes, without its checks
 * and the Ractor check (~120 instructions) when klass allocates with
 * MqContextC's allocator, as every subclass defined in Ruby does. */
VALUE mqrb_ctx_allocate(VALUE klass);

/* Keep v alive while the library holds it (a callback, a server instance):
 * an intrusive list the module marks.  Called with the GVL held. */
void mqrb_keep_add(mqrb_keep *k, VALUE v);
void mqrb_keep_del(mqrb_keep *k);
/* Marks (pins) the method entry of MqContextC#initialize (callback.c). */
void mqrb_own_init_mark(void);

/* --------------------------------------------------------------- arguments */

/* Each raises (TypeError, RangeError naming the call and the value) on a bad
 * argument; fn is the method name used in the message. */
NORETURN(void mqrb_range_error(VALUE v, const char *fn, const char *type));
long long mqrb_to_int_slow(VALUE v, long long lo, long long hi, const char *fn, const char *type);

#define MQRB_TO_INT(T, LO, HI)                                                 \
    static inline MK_##T mqrb_to_##T(VALUE v, const char *fn)                  \
    {                                                                          \
        if (RB_FIXNUM_P(v)) {                                                  \
            long x = RB_FIX2LONG(v);                                           \
            if (x >= (LO) && x <= (HI))                                        \
                return (MK_##T)x;                                              \
        }                                                                      \
        return (MK_##T)mqrb_to_int_slow(v, (LO), (HI), fn, #T);                \
    }
MQRB_TO_INT(I8, INT8_MIN, INT8_MAX)
MQRB_TO_INT(I16, INT16_MIN, INT16_MAX)
MQRB_TO_INT(I32, INT32_MIN, INT32_MAX)
MQRB_TO_INT(I64, INT64_MIN, INT64_MAX)
#undef MQRB_TO_INT

double mqrb_to_double(VALUE v, const char *fn);
static inline MK_DBL
mqrb_to_DBL(VALUE v, const char *fn)
{
    return RB_FLOAT_TYPE_P(v) ? rb_float_value(v) : mqrb_to_double(v, fn);
}
MK_FLT mqrb_to_FLT(VALUE v, const char *fn);
static inline MK_BOL
mqrb_to_BOL(VALUE v, const char *fn)
{
    return RTEST(v) != 0;
}
MqWaitE mqrb_to_WAIT(VALUE v, const char *fn);
MkTypeE mqrb_to_TYPE(VALUE v, const char *fn);
/* The UTF-8 text of a String (converted when in another encoding; no NUL),
 * borrowed from *keep, which the caller keeps alive (RB_GC_GUARD). */
const char *mqrb_to_STR(VALUE v, volatile VALUE *keep, const char *fn);
/* A String of exactly 4 bytes. */
extern int mqrb_utf8_index, mqrb_ascii_index;
const char *mqrb_to_TOKEN_slow(VALUE v, volatile VALUE *keep, const char *fn);
static inline const char *
mqrb_to_TOKEN(VALUE v, volatile VALUE *keep, const char *fn)
{
    /* every server instance's setup registers its services: a UTF-8 or
     * US-ASCII String of 4 bytes, none NUL, needs no conversion */
    if (RB_TYPE_P(v, T_STRING) && RSTRING_LEN(v) == 4) {
        int e = RB_ENCODING_GET_INLINED(v);
        const char *s = RSTRING_PTR(v);
        if ((e == mqrb_utf8_index || e == mqrb_ascii_index) && s[0] && s[1] && s[2] && s[3]) {
            *keep = v;
            return s;
        }
    }
    return mqrb_to_TOKEN_slow(v, keep, fn);
}
/* The bytes of a String (any encoding), borrowed from v. */
const void *mqrb_to_BIN(VALUE v, size_t *size, const char *fn);
/* An MkBufferC's C buffer: inline for a live MkBufferC, the slow path for
 * a subclass, a deleted buffer and the errors. */
MkBufferC *mqrb_to_BUF_slow(VALUE v, const char *fn);
static inline MkBufferC *
mqrb_to_BUF(VALUE v, const char *fn)
{
    if (!RB_SPECIAL_CONST_P(v) && RBASIC_CLASS(v) == mqrb_cMkBufferC) { /* see mqrb_plain_typed */
        MkBufferC *buf = mqrb_untag(RTYPEDDATA_DATA(v));
        if (buf)
            return buf;
    }
    return mqrb_to_BUF_slow(v, fn);
}
/* A context's C context: inline for a live context, the slow path for a
 * deleted one and the errors. */
MqContextC *mqrb_to_CTX_slow(VALUE v, const char *fn);
static inline MqContextC *
mqrb_to_CTX(VALUE v, const char *fn)
{
    if (!RB_SPECIAL_CONST_P(v) && RB_BUILTIN_TYPE(v) == RUBY_T_DATA && RTYPEDDATA_P(v) &&
        RTYPEDDATA_TYPE(v) == &mqrb_ctx_type) {
        MqContextC *ctx = ((mqrb_ctx *)RTYPEDDATA_DATA(v))->obj;
        if (ctx)
            return ctx;
    }
    return mqrb_to_CTX_slow(v, fn);
}

/* A context argument of self's method: self may come to mark it (a child
 * marks its parent: LinkCreateChild), so the write is told to the
 * generational GC (the context type is write-barrier protected). */
static inline MqContextC *
mqrb_to_CTX_of(VALUE self, VALUE v, const char *fn)
{
    MqContextC *ctx = mqrb_to_CTX(v, fn);
    if (v != self)
        RB_OBJ_WRITTEN(self, Qundef, v);
    return ctx;
}

/* An Array of Strings as in ARGV (the options, without the program name):
 * argv[0] becomes $PROGRAM_NAME.  The strings are copied into one buffer the
 * GC frees, so nothing leaks when a later conversion raises; *keep holds it
 * (RB_GC_GUARD it after the call).  The options of a listener (--fork,
 * --spawn) hand SIGTERM and SIGINT to the library while it listens, as in C
 * and Python (Ruby's own handlers would only set a flag nobody reads), and a
 * --fork listener keeps the GVL so that each forked instance starts from a
 * consistent interpreter; mqrb_argv_done gives the signals back.  --thread
 * raises: the library's threads cannot enter Ruby. */
#include <signal.h>
typedef struct {
    int argc;
    const char **argv;
    int listener;
    struct sigaction term, intr;
} mqrb_argv;
void mqrb_to_ARGV(VALUE v, mqrb_argv *a, volatile VALUE *keep, const char *fn);
void mqrb_argv_done(mqrb_argv *a);

/* ----------------------------------------------------------------- results */

static inline VALUE
mqrb_from_STR(const char *s)
{
    return s ? rb_utf8_str_new_cstr(s) : rb_utf8_str_new("", 0);
}
static inline VALUE
mqrb_from_BIN(const void *data, size_t size)
{
    return rb_str_new((const char *)data, (long)size);
}
/* A new MkBufferC holding a copy of buf (borrowed from a stream, list or
 * context): safe to keep (bufpool.c). */
VALUE mqrb_from_BUF(MkBufferC *buf);
/* The C buffers of MkBufferC objects, recycled (bufpool.c): a new empty
 * buffer (NULL when out of memory), and the release of one (the object's
 * dfree, Delete).  With the GVL held. */
MkBufferC *mqrb_buf_create(void);
void mqrb_buf_delete(MkBufferC *buf);
/* The Ruby object of ctx, or nil. */
VALUE mqrb_from_CTX(MqContextC *ctx);

/* ------------------------------------------------------------------ errors */

/* The exception for the error (text and code) of the kernel or of ctx; the
 * error is reset.  The glue raises it (after freeing what it still owns). */
VALUE mqrb_error_kernel(void);
VALUE mqrb_error_ctx(MqContextC *ctx);
NORETURN(void mqrb_raise_kernel(void));
NORETURN(void mqrb_raise_ctx(MqContextC *ctx));
extern VALUE mqrb_eMkExceptionC;

/* ----------------------------------------------------------------- blocking */

/* After a call that may wait: raise the interrupt (Thread#kill, a signal
 * trap) that ended its wait early, if any (callback.c: the GVL). */
void mqrb_check_ints(void);

/* --------------------------------------------------------------- callbacks */

enum { MQRB_SCOPE_NOTIFIED = 1, MQRB_SCOPE_ONCE = 2 };

/* A method name given as a static Symbol (a literal :NAME) has one shared
 * registration per scope, which serves every context (callback.c: named):
 * slot by slot, the Symbol and scope each holds.  An empty slot's sym is 0,
 * which no Symbol is. */
typedef struct {
    VALUE sym;
    int scope;
    void *cb;
} mqrb_named_slot;
enum { MQRB_NAMED_BITS = 7, MQRB_NAMED_SLOTS = 1 << MQRB_NAMED_BITS };
extern mqrb_named_slot mqrb_named[MQRB_NAMED_SLOTS];
/* The first slot of sym and scope: the top bits of a Fibonacci hash, as a
 * Symbol's own bits vary little (the flags, the ID's kind, a serial). */
static inline unsigned
mqrb_named_hash(VALUE sym, int scope)
{
    return (unsigned)(((uint64_t)sym * 0x9E3779B97F4A7C15u) >> (64 - MQRB_NAMED_BITS)) ^
           (unsigned)scope; /* scope < MQRB_NAMED_SLOTS */
}
void *mqrb_cb_new_slow(VALUE self, VALUE callable, int scope, const char *fn);
/* Data for a C registration: a block, Proc, Method, method name (Symbol or
 * String, called on the context) or any object with #call.  Keeps callable
 * alive until mqrb_cb_free. */
static inline void *
mqrb_cb_new(VALUE self, VALUE callable, int scope, const char *fn)
{
    /* each server instance's setup registers the same Symbols again: the
     * first slot of its Symbol answers without a call */
    if (RB_STATIC_SYM_P(callable)) {
        const mqrb_named_slot *s = &mqrb_named[mqrb_named_hash(callable, scope)];
        if (s->sym == callable && s->scope == scope)
            return s->cb;
    }
    return mqrb_cb_new_slow(self, callable, scope, fn);
}
MkErrorE mqrb_cb_call(MqContextC *ctx, void *data);
void mqrb_cb_free(void *data);
/* The arguments of a method with optional inputs or a callback, into
 * out[0..nmax): a missing optional input is Qundef; with a block, the
 * callback input (index cb, -1 for none) is the block and the others move
 * up.  Raises ArgumentError for a wrong count. */
void mqrb_args_slow(int argc, const VALUE *argv, int nreq, int nmax, int cb, VALUE *out);
static inline void
mqrb_args(int argc, const VALUE *argv, int nreq, int nmax, int cb, VALUE *out)
{
    /* every input given (ServiceCreate in each instance's setup): only a
     * block, which would be one input too many, needs a look */
    if (argc == nmax && (cb < 0 || !rb_block_given_p())) {
        for (int i = 0; i < nmax; i++)
            out[i] = argv[i];
        return;
    }
    mqrb_args_slow(argc, argv, nreq, nmax, cb, out);
}

/* ------------------------------------------------------------------ Ractors */

/* The VM checks at every call of a C method defined while the extension is
 * not Ractor-safe that the caller is the main Ractor (~6 instructions a
 * call, ~220 a BUS message).  The glue defines the instance methods
 * without it (between mqrb_ractor_safe(1) and (0)), which is sound because
 * no other Ractor can hold a live object of this extension: constructors,
 * new and the module functions keep the VM's check; MqContextC's allocator
 * (the one allocator that makes a live C object) refuses another Ractor
 * itself (mqrb_main_ractor); and no object can be copied (clone, dup, a
 * Ractor's copy of its argument: mqrb_no_copy raises), while an object that
 * is not shareable cannot be passed on otherwise.  An instance method called
 * in another Ractor therefore finds no C object and raises before it
 * touches the runtime's process-wide lists. */
static inline void
mqrb_ractor_safe(int on)
{
#ifdef HAVE_RB_EXT_RACTOR_SAFE
    rb_ext_ractor_safe(on);
#else
    (void)on;
#endif
}
/* Whether the caller runs in the Ractor that loaded the extension. */
int mqrb_main_ractor(void);
/* initialize_copy of every class: raises TypeError (see above). */
VALUE mqrb_no_copy(VALUE self, VALUE orig);

/* Hand-written methods named in the description. */
VALUE mqrb_rt_MqContextC_ConfigSetServerSetup(int argc, VALUE *argv, VALUE self);

/* The generated glue's entry: defines the plain classes, the methods of
 * every class (MqContextC's on cContext), the module functions and the
 * constants. */
void mqrb_glue_init(VALUE module, VALUE cContext);

#endif
