/* runtime.c — the mqlink Ruby extension: module initialisation, object
 * lifetime (plain objects, contexts, what the library keeps alive) and the
 * exception.  Methods come from the generated glue (gen/glue.c).
 *
 * Who owns what: the wrapper of a plain object frees its C object in its
 * dfree unless a tls ctor made it (CreateTLS: the thread owns those).  A
 * context wrapper and its C context point at each other; the C context's
 * destroy callback clears the wrapper's pointer whoever deletes the context
 * (Delete, a parent's delete, the library ending a server instance), so a
 * stale wrapper raises instead of touching freed memory.  What the library
 * holds (callbacks, the server instances it made) is on one list that the
 * module marks, so the GC neither frees nor moves it. */
#include <string.h>

#include "runtime.h"

VALUE mqrb_mMqlink;
VALUE mqrb_cMqContextC;
VALUE mqrb_eMkExceptionC;
static VALUE eRactorUnsafe; /* Ractor::UnsafeError, as the VM raises it */

/* ------------------------------------------------------------ the keep list */

static mqrb_keep keep_head = {&keep_head, &keep_head, Qnil};

void
mqrb_keep_add(mqrb_keep *k, VALUE v)
{
    k->value = v;
    k->next = keep_head.next;
    k->prev = &keep_head;
    keep_head.next->prev = k;
    keep_head.next = k;
}

void
mqrb_keep_del(mqrb_keep *k)
{
    if (!k->next)
        return;
    k->prev->next = k->next;
    k->next->prev = k->prev;
    k->next = k->prev = NULL;
}

/* The wrappers of thread-owned objects, by their C address (addr_cache.h):
 * a wrapper pushed out of the table stays valid, only no longer found, so
 * the table never grows.  A thread's objects end with the thread, as their
 * wrappers' did before; an address reused by a later thread's object of the
 * same type finds a wrapper that points at that very address.  Marked with
 * the keep list; used with the GVL held. */
enum { TLS_BITS = 5 }; /* 32 sets of 2 */
static mqrb_addr_set tls_wrappers[1 << TLS_BITS];

static void
keep_mark(void *p)
{
    for (mqrb_keep *k = keep_head.next; k != &keep_head; k = k->next)
        rb_gc_mark(k->value);
    mqrb_addr_mark(tls_wrappers, TLS_BITS);
    mqrb_src_views_mark();
    mqrb_own_init_mark();
}

static const rb_data_type_t keep_type = {
    "mqlink keep list", {keep_mark, NULL, NULL}, NULL, NULL, 0};

/* ------------------------------------------------------------ plain objects */

VALUE
mqrb_plain_wrap(VALUE klass, const rb_data_type_t *type, void *obj, int owned)
{
    if (!obj)
        rb_memerror();
    return TypedData_Wrap_Struct(klass, type,
                                 owned ? obj : (void *)((uintptr_t)obj | MQRB_BORROWED));
}

VALUE
mqrb_plain_wrap_tls(VALUE klass, const rb_data_type_t *type, void *obj)
{
    mqrb_addr_set *set;
    mqrb_addr_way *way;
    VALUE w;

    if (!obj)
        rb_memerror();
    mqrb_src_end(obj); /* a tls ctor empties the object */
    set = mqrb_addr_set_of(tls_wrappers, TLS_BITS, obj);
    way = mqrb_addr_find(set, obj);
    if (way && RTYPEDDATA_TYPE(w = way->value) == type &&
        (RBASIC_CLASS(w) == klass || rb_obj_class(w) == klass)) { /* no singleton: no call */
        /* after a Delete too: the object is still the thread's */
        RTYPEDDATA_DATA(w) = (void *)((uintptr_t)obj | MQRB_BORROWED);
        return w;
    }
    w = mqrb_plain_wrap(klass, type, obj, 0);
    if (way)
        way->value = w; /* another class's wrapper of the same object */
    else
        mqrb_addr_put(set, obj, w);
    return w;
}

/* The objects of a thread's last CreateTLS names, by class and name (the
 * UTF-8 bytes that create was given).  An object stays valid as long as its
 * memo: the kernel keeps a thread's objects until the thread ends, and the
 * memo ends with it (a new thread, or the child of a fork, starts with the
 * memo and the registry of its own thread).  Only a UTF-8 String is looked
 * up: its bytes are what mqrb_to_STR would pass; a name with a NUL never
 * matches, as no memo holds one. */
enum { TLS_MEMOS = 4, TLS_NAME_MAX = 31 };
typedef struct {
    const rb_data_type_t *type;
    void *obj;
    long len;
    char name[TLS_NAME_MAX + 1];
} tls_memo;
typedef struct {
    tls_memo memo[TLS_MEMOS];
    unsigned next;
} tls_memo_set;
/* A thread's memos are general-dynamic (their 228 bytes would take much of
 * glibc's static TLS surplus, which every dlopened library shares); their
 * address, kept initial-exec (8 bytes), is a load from the thread pointer
 * instead of a __tls_get_addr call per CreateTLS.  A thread's first
 * CreateTLS sets it; it lasts as long as the memos, the thread's life. */
static __thread tls_memo_set tls_memos;
static __thread tls_memo_set *own_memos __attribute__((tls_model("initial-exec")));

static inline tls_memo_set *
thread_memos(void)
{
    tls_memo_set *s = own_memos;
    return s ? s : (own_memos = &tls_memos);
}

/* Whether the len bytes at a and b (len <= TLS_NAME_MAX) are the same: in
 * 8-byte words, the last one ending at len (overlapping the one before), so
 * no byte past either is read; a hit costs no memcmp call and no frame. */
static inline int
same_name(const char *a, const char *b, long len)
{
    uint64_t x, y;

    if (len < 8) {
        for (long i = 0; i < len; i++)
            if (a[i] != b[i])
                return 0;
        return 1;
    }
    for (long i = 0; i + 8 < len; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return 0;
    }
    memcpy(&x, a + len - 8, 8);
    memcpy(&y, b + len - 8, 8);
    return x == y;
}

static inline void *
tls_memo_find(const rb_data_type_t *type, VALUE name)
{
    tls_memo_set *set;
    long len;
    const char *s;

    if (!RB_TYPE_P(name, T_STRING) || RB_ENCODING_GET_INLINED(name) != mqrb_utf8_index ||
        (len = RSTRING_LEN(name)) > TLS_NAME_MAX)
        return NULL;
    s = RSTRING_PTR(name);
    set = thread_memos();
    for (tls_memo *m = set->memo; m < set->memo + TLS_MEMOS; m++)
        if (m->type == type && m->len == len && same_name(m->name, s, len))
            return m->obj;
    return NULL;
}

static void
tls_memo_add(const rb_data_type_t *type, const char *name, void *obj)
{
    size_t len = strlen(name);
    tls_memo_set *set = thread_memos();
    tls_memo *m = &set->memo[set->next++ % TLS_MEMOS];

    if (len > TLS_NAME_MAX)
        return;
    m->type = type;
    m->obj = obj;
    m->len = (long)len;
    memcpy(m->name, name, len);
}

/* CreateTLS of a name the thread has not used lately: the kernel's, which
 * finds or makes the object.  Apart, so that a memo's hit sets up no frame
 * for it. */
static __attribute__((noinline)) VALUE
tls_create(VALUE klass, const rb_data_type_t *type, VALUE name, void *(*create)(const char *),
           const char *fn)
{
    volatile VALUE keep;
    const char *s = mqrb_to_STR(name, &keep, fn);
    void *obj = create(s);

    if (obj)
        tls_memo_add(type, s, obj);
    RB_GC_GUARD(keep);
    return mqrb_plain_wrap_tls(klass, type, obj);
}

VALUE
mqrb_plain_tls(VALUE klass, const rb_data_type_t *type, VALUE name,
               void *(*create)(const char *), void (*reset)(void *), const char *fn)
{
    void *obj = tls_memo_find(type, name);

    if (!obj)
        return tls_create(klass, type, name, create, fn);
    reset(obj);
    return mqrb_plain_wrap_tls(klass, type, obj);
}

void
mqrb_plain_delete(VALUE self, const rb_data_type_t *type, void (*del)(void *))
{
    void *p = rb_check_typeddata(self, type);
    RTYPEDDATA_DATA(self) = (void *)((uintptr_t)p & MQRB_TAGS); /* keeps what it was */
    if (mqrb_plain_owned(p))
        del(p);
}

void *
mqrb_deleted_ptr(VALUE self, const char *fn)
{
    uintptr_t tags = rb_typeddata_is_kind_of(self, &mqrb_MkBufferC_type)
                         ? (uintptr_t)RTYPEDDATA_DATA(self) : 0;
    VALUE text;
    if (tags & MQRB_SRC_VIEW)
        text = rb_sprintf("%s: the buffer from ReadBUFR or IndexGetR is no longer valid (it "
                          "lasts until the next call that may change its stream or list); use "
                          "ReadBUF or IndexGet for a copy to keep", fn);
    else if (tags & MQRB_VIEW)
        text = rb_sprintf("%s: the buffer from ReadBUFR is no longer valid (it lasts until the "
                          "next ReadBUFR, the end of the service or callback, or the next "
                          "blocking call on its context); use ReadBUF for a copy to keep", fn);
    else
        text = rb_sprintf("%s: the object was deleted", fn);
    rb_exc_raise(rb_funcall(mqrb_eMkExceptionC, rb_intern("new"), 2, text,
                            INT2FIX(MK_ERR_ARGUMENT)));
    return NULL;
}

/* ------------------------------------------------------------------ contexts */

/* A child's wrapper keeps its parent's alive: the C child lives inside the
 * parent's link, and collecting the parent would delete it. */
static void
ctx_mark(void *p)
{
    mqrb_ctx *o = p;
    MqContextC *parent = o->obj ? MqLinkGetParent(o->obj) : NULL;
    VALUE pv;
    if (parent && parent != o->obj && (pv = (VALUE)MqContextGetUserData(parent)))
        rb_gc_mark(pv);
    if (o->view)
        rb_gc_mark(o->view);
}

VALUE
mqrb_view_first(VALUE self, MkBufferC *buf)
{
    mqrb_ctx *o = RTYPEDDATA_DATA(self);
    void *p = (void *)((uintptr_t)buf | MQRB_VIEW);
    RB_OBJ_WRITE(self, &o->view, TypedData_Wrap_Struct(mqrb_cMkBufferC, &mqrb_MkBufferC_type, p));
    return o->view;
}

static void
view_end(mqrb_ctx *o)
{
    if (o->view)
        RTYPEDDATA_DATA(o->view) = (void *)(uintptr_t)MQRB_VIEW;
}

void
mqrb_view_end(VALUE self)
{
    view_end(RTYPEDDATA_DATA(self));
}


void mqrb_ctx_destroyed_cb(MqContextC *ctx, void *data);

/* The structs of context wrappers, recycled: a server serves each child and
 * each parent with a new wrapper, whose struct through malloc and free costs
 * ~230 instructions (the allocator's caches hold a few).  A deleted
 * context's wrapper gives its struct back at once (ctx_destroyed): the next
 * instance takes that same struct, still in the cache.  A wrapper the GC
 * frees with its context alive (nobody deleted it) gives its struct back in
 * its finalizer, and a sweep may free thousands of them, so the list keeps
 * up to SPARE_CTXS_MAX (~3 MB of structs), growing with what a sweep
 * returns.  Used with the GVL held (allocation, deletion, and the sweep and
 * finalizers that free).  A wrapper points at no_ctx until it has a struct
 * of its own and again once its context is deleted, so one whose struct
 * could not be allocated is a deleted context, not a NULL one, and a
 * deleted one never reaches the struct a later context took over. */
enum { SPARE_CTXS_MAX = 65536 };
static mqrb_ctx **spare_ctx;
static int spare_ctxs, spare_cap;
static mqrb_ctx no_ctx;

/* Room for one more spare struct; 0 when the list is full or cannot grow. */
static int
spare_room(void)
{
    mqrb_ctx **grown;
    int cap;

    if (spare_ctxs < spare_cap)
        return 1;
    if (spare_cap == SPARE_CTXS_MAX)
        return 0;
    cap = spare_cap ? spare_cap * 2 : 1024;
    if (!(grown = realloc(spare_ctx, (size_t)cap * sizeof *grown)))
        return 0;
    spare_ctx = grown;
    spare_cap = cap;
    return 1;
}

static void
ctx_struct_free(mqrb_ctx *o)
{
    if (o == &no_ctx)
        return;
    if (spare_room())
        spare_ctx[spare_ctxs++] = o;
    else
        free(o);
}

/* A new wrapper of klass with an empty struct (the object first: its
 * allocation may sweep, which refills the list). */
static VALUE
ctx_wrap(VALUE klass, mqrb_ctx **op)
{
    VALUE self = TypedData_Wrap_Struct(klass, &mqrb_ctx_type, &no_ctx);
    mqrb_ctx *o = spare_ctxs ? spare_ctx[--spare_ctxs] : malloc(sizeof *o);
    if (!o)
        rb_memerror();
    memset(o, 0, sizeof *o);
    RTYPEDDATA_DATA(self) = *op = o;
    return self;
}

/* The GC collects the wrapper of a context nobody deleted: delete it now,
 * without telling the (dead) wrapper.  A library-owned instance is never
 * collected while the library holds it (keep list). */
static void
ctx_free(void *p)
{
    mqrb_ctx *o = p;
    if (o->obj) {
        MqContextSetDestroyCallback(o->obj, NULL, NULL);
        MqContextSetUserData(o->obj, NULL);
        MqContextDelete(o->obj);
    }
    ctx_struct_free(o);
}

static size_t
ctx_size(const void *p)
{
    return sizeof(mqrb_ctx);
}

/* Not RUBY_TYPED_FREE_IMMEDIATELY: deleting a context closes its link and
 * may wait for a pipe server to end, which belongs in a finalizer, not in
 * the sweep.  Write-barrier protected, so that a new wrapper (one per server
 * instance) takes the allocator's fast path instead of its locked slow
 * path (~180 instructions): the two objects ctx_mark marks are written
 * with a barrier, the view in mqrb_view_first and the parent where a
 * context is given to a context's method (mqrb_to_CTX_of); a server
 * instance's parent is older than the instance the factory makes. */
const rb_data_type_t mqrb_ctx_type = {
    "Mqlink::MqContextC", {ctx_mark, ctx_free, ctx_size}, NULL, NULL, RUBY_TYPED_WB_PROTECTED};

/* The type of a wrapper whose context was deleted: it points at no_ctx, its
 * struct already serving another context, so the GC has nothing to mark or
 * free (a deferred finalizer would cost ~330 instructions, once per child
 * and per parent instance a server serves).  Its parent is the context
 * type, so every check still takes it for a context (and raises that it was
 * deleted). */
static const rb_data_type_t ctx_deleted_type = {
    "Mqlink::MqContextC", {NULL, NULL, NULL}, &mqrb_ctx_type, NULL,
    RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED};

/* Runs at the start of MqContextDelete, whoever calls it, with the GVL
 * (callback.c takes it when the library calls without); the wrapper is
 * alive (ctx_free unhooks this first). */
static void
ctx_destroyed(MqContextC *ctx, void *data)
{
    mqrb_ctx *o = data;
    MqContextSetUserData(ctx, NULL);
    o->obj = NULL;
    view_end(o);
    mqrb_keep_del(&o->lib);
    RTYPEDDATA(o->self)->type = &ctx_deleted_type;
    RTYPEDDATA_DATA(o->self) = &no_ctx;
    ctx_struct_free(o);
}

static void
ctx_attach(mqrb_ctx *o, VALUE self, MqContextC *ctx)
{
    o->obj = ctx;
    o->self = self;
    MqContextSetUserData(ctx, (void *)self);
    MqContextSetDestroyCallback(ctx, mqrb_ctx_destroyed_cb, o);
}

/* A new wrapper of klass with a new C context. */
static VALUE
ctx_make(VALUE klass)
{
    mqrb_ctx *o;
    VALUE self = ctx_wrap(klass, &o);
    MqContextC *ctx = MqContextCreate();
    if (!ctx)
        rb_memerror();
    ctx_attach(o, self, ctx);
    return self;
}

static VALUE
ctx_alloc(VALUE klass)
{
    if (!mqrb_main_ractor())
        rb_raise(eRactorUnsafe, "%" PRIsVALUE ": a context can be made only in the main Ractor",
                 klass);
    return ctx_make(klass);
}

VALUE
mqrb_ctx_allocate(VALUE klass)
{
    if (rb_get_alloc_func(klass) != ctx_alloc)
        return rb_obj_alloc(klass);
    return ctx_make(klass);
}

VALUE
mqrb_ctx_new(VALUE klass, MqContextC *ctx)
{
    mqrb_ctx *o;
    VALUE self;
    if (!ctx)
        rb_memerror();
    self = ctx_wrap(klass, &o);
    ctx_attach(o, self, ctx);
    return self;
}

void
mqrb_ctx_delete(VALUE self)
{
    mqrb_ctx *o = rb_check_typeddata(self, &mqrb_ctx_type);
    if (o->obj)
        MqContextDelete(o->obj); /* the destroy callback clears obj */
}

/* Subclasses may take constructor arguments of their own; the factory calls
 * new without arguments. */
static VALUE
ctx_initialize(int argc, VALUE *argv, VALUE self)
{
    return self;
}

/* The part of the destroy callback that needs the GVL (callback.c). */
void
mqrb_ctx_destroyed_locked(MqContextC *ctx, void *data)
{
    ctx_destroyed(ctx, data);
}

/* ------------------------------------------------------------------ Ractors */

/* See runtime.h.  The Ractor that loaded the extension sets its local
 * pointer to the key itself; every other Ractor's is NULL. */
#ifdef HAVE_RB_EXT_RACTOR_SAFE
#include <ruby/ractor.h>
static rb_ractor_local_key_t main_key;
#endif

int
mqrb_main_ractor(void)
{
#ifdef HAVE_RB_EXT_RACTOR_SAFE
    return rb_ractor_local_storage_ptr(main_key) == &main_key;
#else
    return 1;
#endif
}

static void
ractor_init(void)
{
#ifdef HAVE_RB_EXT_RACTOR_SAFE
    main_key = rb_ractor_local_storage_ptr_newkey(NULL);
    rb_ractor_local_storage_ptr_set(main_key, &main_key);
    eRactorUnsafe = rb_path2class("Ractor::UnsafeError");
#else
    eRactorUnsafe = rb_eRuntimeError;
#endif
}

VALUE
mqrb_no_copy(VALUE self, VALUE orig)
{
    rb_raise(rb_eTypeError, "%" PRIsVALUE " cannot be copied%s", rb_obj_class(orig),
             rb_typeddata_is_kind_of(orig, &mqrb_MkBufferC_type) ? " (Dup() copies a buffer)"
                                                                  : "");
}

/* ------------------------------------------------------------------ errors */

static ID id_new;

static VALUE
error_value(const char *text, MK_I32 code)
{
    VALUE args[2] = {rb_utf8_str_new_cstr(text && *text ? text : "unknown error"),
                     INT2FIX(code)};
    return rb_class_new_instance(2, args, mqrb_eMkExceptionC);
}

VALUE
mqrb_error_kernel(void)
{
    MkErrorC *err = MkErrorDEFAULT();
    VALUE e = error_value(MkErrorGetText(err), MkErrorGetCode(err));
    MkErrorReset(err);
    return e;
}

VALUE
mqrb_error_ctx(MqContextC *ctx)
{
    VALUE e = error_value(MqErrorGetText(ctx), MqErrorGetCode(ctx));
    MqErrorReset(ctx);
    return e;
}

void
mqrb_raise_kernel(void)
{
    rb_exc_raise(mqrb_error_kernel());
}

void
mqrb_raise_ctx(MqContextC *ctx)
{
    rb_exc_raise(mqrb_error_ctx(ctx));
}

/* MkExceptionC.new(text = "", code = MK_ERR_USER): a StandardError whose
 * message is the text, with #text and #code. */
static VALUE
exc_initialize(int argc, VALUE *argv, VALUE self)
{
    VALUE text = argc > 0 ? argv[0] : rb_str_new(0, 0);
    VALUE code = argc > 1 ? argv[1] : INT2FIX(MK_ERR_USER);
    rb_check_arity(argc, 0, 2);
    StringValue(text);
    code = rb_to_int(code);
    rb_call_super(1, &text);
    rb_ivar_set(self, rb_intern("@text"), text);
    rb_ivar_set(self, rb_intern("@code"), code);
    return self;
}

/* Mqlink.context_structs_spare (private, for the tests): the structs of
 * context wrappers waiting for the next wrapper. */
static VALUE
context_structs_spare(VALUE self)
{
    return INT2FIX(spare_ctxs);
}

/* Mqlink.freed_in_sweep(obj) (private, for the tests): whether the GC frees
 * obj in its sweep, without a deferred finalizer. */
static VALUE
freed_in_sweep(VALUE self, VALUE obj)
{
    return RB_TYPE_P(obj, T_DATA) && RTYPEDDATA_P(obj) &&
                   (RTYPEDDATA_TYPE(obj)->flags & RUBY_TYPED_FREE_IMMEDIATELY)
               ? Qtrue
               : Qfalse;
}

/* ------------------------------------------------------------------ module */

void mqrb_callback_init(VALUE module);
void mqrb_convert_init(void);
void mqrb_bufpool_init(VALUE module);

RUBY_FUNC_EXPORTED void
Init_mqlink(void)
{
    VALUE keep;

    id_new = rb_intern("new");
    mqrb_mMqlink = rb_define_module("Mqlink");
    mqrb_eMkExceptionC = rb_define_class_under(mqrb_mMqlink, "MkExceptionC", rb_eStandardError);
    rb_define_method(mqrb_eMkExceptionC, "initialize", exc_initialize, -1);
    rb_define_attr(mqrb_eMkExceptionC, "text", 1, 0);
    rb_define_attr(mqrb_eMkExceptionC, "code", 1, 0);

    ractor_init();
    mqrb_cMqContextC = rb_define_class_under(mqrb_mMqlink, "MqContextC", rb_cObject);
    rb_define_alloc_func(mqrb_cMqContextC, ctx_alloc);
    rb_define_method(mqrb_cMqContextC, "initialize", ctx_initialize, -1);
    rb_define_method(mqrb_cMqContextC, "initialize_copy", mqrb_no_copy, 1);
    rb_define_method(mqrb_cMqContextC, "ConfigSetServerSetup",
                     mqrb_rt_MqContextC_ConfigSetServerSetup, -1);
    rb_define_private_method(rb_singleton_class(mqrb_mMqlink), "freed_in_sweep", freed_in_sweep,
                             1);
    rb_define_private_method(rb_singleton_class(mqrb_mMqlink), "context_structs_spare",
                             context_structs_spare, 0);

    /* The keep list is marked through one object the VM never frees. */
    keep = TypedData_Wrap_Struct(rb_cObject, &keep_type, &keep_head);
    rb_gc_register_mark_object(keep);

    mqrb_convert_init();
    mqrb_glue_init(mqrb_mMqlink, mqrb_cMqContextC);
    mqrb_callback_init(mqrb_mMqlink);
    mqrb_bufpool_init(mqrb_mMqlink);
}
