/* generated from wrappers/gen/golden/sample.api by wrappers/gen/mqgen.py — do not edit */
#include "runtime.h"

/* The name of an item type. */
static VALUE
module_MkTypeName(VALUE self, VALUE a0)
{
    MkTypeE type;
    const char *r;

    type = mqrb_to_TYPE(a0, "MkTypeName");
    r = MkTypeName(type);
    return mqrb_from_STR(r);
}

/* The process-wide log level. */
static VALUE
module_MkLogGetLevel(VALUE self)
{
    MK_I32 r;
    r = MkLogGetLevel();
    return INT2FIX(r);
}

/* An I8. */
static VALUE
module_SampleRetI8(VALUE self)
{
    MK_I8 r;
    r = SampleRetI8();
    return INT2FIX(r);
}

/* An I16. */
static VALUE
module_SampleRetI16(VALUE self)
{
    MK_I16 r;
    r = SampleRetI16();
    return INT2FIX(r);
}

/* A FLT. */
static VALUE
module_SampleRetFLT(VALUE self)
{
    MK_FLT r;
    r = SampleRetFLT();
    return DBL2NUM(r);
}

/* A DBL. */
static VALUE
module_SampleRetDBL(VALUE self)
{
    MK_DBL r;
    r = SampleRetDBL();
    return DBL2NUM(r);
}

/* A TYPE through an out parameter. */
static VALUE
module_SampleOutTYPE(VALUE self)
{
    MkTypeE t = 0;
    MkErrorE rc;
    rc = SampleOutTYPE(&t);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return INT2FIX(t);
}

/* A SIZE through an out parameter. */
static VALUE
module_SampleOutSIZE(VALUE self)
{
    size_t n = 0;
    MkErrorE rc;
    rc = SampleOutSIZE(&n);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return SIZET2NUM(n);
}

/* ---- MkBufferC: One typed value. */

VALUE mqrb_cMkBufferC;

static void
MkBufferC_free(void *p)
{
    if (mqrb_plain_owned(p))
        mqrb_buf_delete(p);
}

/* WB_PROTECTED: the object holds no Ruby reference, so there is no
 * write to guard, and Ruby makes it on its fast path (an unprotected
 * object takes the VM lock at each allocation).  data: the class, for
 * the runtime's exact-class test (mqrb_plain_typed). */
const rb_data_type_t mqrb_MkBufferC_type = {
    "Mqlink::MkBufferC", {NULL, MkBufferC_free, NULL}, NULL, (void *)&mqrb_cMkBufferC,
    RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED};

static VALUE
MkBufferC_alloc(VALUE klass)
{
    return TypedData_Wrap_Struct(klass, &mqrb_MkBufferC_type, NULL);
}

/* new: Create an empty buffer. */
static VALUE
MkBufferC_initialize(VALUE self)
{
    if (!rb_check_typeddata(self, &mqrb_MkBufferC_type)) {
        void *obj = mqrb_buf_create();
        if (!obj)
            rb_memerror();
        RTYPEDDATA_DATA(self) = obj;
    }
    return self;
}

/* Create an empty buffer. */
static VALUE
MkBufferC_Create(VALUE self)
{
    return mqrb_plain_wrap(self, &mqrb_MkBufferC_type, mqrb_buf_create(), 1);
}

/* Free the buffer. */
static VALUE
MkBufferC_Delete(VALUE self)
{
    mqrb_plain_delete(self, &mqrb_MkBufferC_type, (void (*)(void *))mqrb_buf_delete);
    return Qnil;
}

/* A new buffer holding a copy of this buffer's value. */
static VALUE
MkBufferC_Dup(VALUE self)
{
    MkBufferC *obj = mqrb_plain_self(self, "Dup");

    return mqrb_plain_wrap(rb_obj_class(self), &mqrb_MkBufferC_type, MkBufferDup(obj), 1);
}

/* The type of the value held. */
static VALUE
MkBufferC_GetType(VALUE self)
{
    MkBufferC *obj = mqrb_plain_self(self, "GetType");
    MkTypeE r;

    r = MkBufferGetType(obj);
    return INT2FIX(r);
}

/* Store a FLT. */
static VALUE
MkBufferC_SetFLT(VALUE self, VALUE a0)
{
    MkBufferC *obj = mqrb_plain_self(self, "SetFLT");
    MK_FLT v;

    v = mqrb_to_FLT(a0, "SetFLT");
    MkBufferSetFLT(obj, v);
    return Qnil;
}

/* Store a copy of the bytes. */
static VALUE
MkBufferC_SetBIN(VALUE self, VALUE a0)
{
    MkBufferC *obj = mqrb_plain_self(self, "SetBIN");
    const void *v;
    size_t v_size;
    MkErrorE rc;

    v = mqrb_to_BIN(a0, &v_size, "SetBIN");
    rc = MkBufferSetBIN(obj, v, v_size);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return Qnil;
}

/* Copy src's value into this buffer. */
static VALUE
MkBufferC_Copy(VALUE self, VALUE a0)
{
    MkBufferC *obj = mqrb_plain_self(self, "Copy");
    MkBufferC *src;
    MkErrorE rc;

    src = mqrb_to_BUF(a0, "Copy");
    rc = MkBufferCopy(obj, src);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return Qnil;
}

/* The value as I8. */
static VALUE
MkBufferC_GetI8(VALUE self)
{
    MkBufferC *obj = mqrb_plain_self(self, "GetI8");
    MK_I8 v = 0;
    MkErrorE rc;

    rc = MkBufferGetI8(obj, &v);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return INT2FIX(v);
}

/* The value as text. */
static VALUE
MkBufferC_GetSTR(VALUE self)
{
    MkBufferC *obj = mqrb_plain_self(self, "GetSTR");
    const char *v = NULL;
    MkErrorE rc;

    rc = MkBufferGetSTR(obj, &v);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return mqrb_from_STR(v);
}

/* ---- MkBufferListC: An array of typed values. */

VALUE mqrb_cMkBufferListC;

/* Free a C MkBufferListC; its view ends first. */
static void
MkBufferListC_release(void *p)
{
    mqrb_src_forget(p);
    MkBufferListDelete(p);
}

static void
MkBufferListC_free(void *p)
{
    if (mqrb_plain_owned(p))
        MkBufferListC_release(p);
}

/* WB_PROTECTED: the object holds no Ruby reference, so there is no
 * write to guard, and Ruby makes it on its fast path (an unprotected
 * object takes the VM lock at each allocation).  data: the class, for
 * the runtime's exact-class test (mqrb_plain_typed). */
const rb_data_type_t mqrb_MkBufferListC_type = {
    "Mqlink::MkBufferListC", {NULL, MkBufferListC_free, NULL}, NULL, (void *)&mqrb_cMkBufferListC,
    RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED};

static VALUE
MkBufferListC_alloc(VALUE klass)
{
    return TypedData_Wrap_Struct(klass, &mqrb_MkBufferListC_type, NULL);
}

/* new: Create an empty list. */
static VALUE
MkBufferListC_initialize(VALUE self)
{
    if (!rb_check_typeddata(self, &mqrb_MkBufferListC_type)) {
        void *obj = MkBufferListCreate();
        if (!obj)
            rb_memerror();
        RTYPEDDATA_DATA(self) = obj;
    }
    return self;
}

/* Create an empty list. */
static VALUE
MkBufferListC_Create(VALUE self)
{
    return mqrb_plain_wrap(self, &mqrb_MkBufferListC_type, MkBufferListCreate(), 1);
}

/* The thread's list called name. */
static VALUE
MkBufferListC_CreateTLS(VALUE self, VALUE a0)
{
    const char *name;
    volatile VALUE name_keep;

    name = mqrb_to_STR(a0, &name_keep, "CreateTLS");
    return mqrb_plain_wrap_tls(self, &mqrb_MkBufferListC_type, MkBufferListCreateTLS(name));
}

/* Number of values. */
static VALUE
MkBufferListC_Size(VALUE self)
{
    MkBufferListC *obj = mqrb_plain_self(self, "Size");
    MK_I32 r;

    r = MkBufferListSize(obj);
    return INT2FIX(r);
}

/* The value at index i, borrowed until the list changes. */
static VALUE
MkBufferListC_IndexGet(VALUE self, VALUE a0)
{
    MkBufferListC *obj = mqrb_plain_self(self, "IndexGet");
    MK_I32 i;
    MkBufferC *r;

    mqrb_src_end(obj); /* a call that may change it ends its view */
    i = mqrb_to_I32(a0, "IndexGet");
    r = MkBufferListIndexGet(obj, i);
    if (!r)
        mqrb_raise_kernel();
    return mqrb_from_BUF(r);
}

/* IndexGetR: the view form of IndexGet, no allocation and no copy: one buffer per MkBufferListC, valid until the next call on this MkBufferListC but a query; after that its methods raise. */
static VALUE
MkBufferListC_IndexGetR(VALUE self, VALUE a0)
{
    MkBufferListC *obj = mqrb_plain_self(self, "IndexGetR");
    MK_I32 i;
    MkBufferC *r;

    i = mqrb_to_I32(a0, "IndexGetR");
    r = MkBufferListIndexGet(obj, i);
    if (!r)
        mqrb_raise_kernel();
    return mqrb_src_view(obj, r);
}

/* ---- MkBufferStreamC: Typed items, encoded. */

VALUE mqrb_cMkBufferStreamC;

/* Free a C MkBufferStreamC; its view ends first. */
static void
MkBufferStreamC_release(void *p)
{
    mqrb_src_forget(p);
    MkBufferStreamDelete(p);
}

static void
MkBufferStreamC_free(void *p)
{
    if (mqrb_plain_owned(p))
        MkBufferStreamC_release(p);
}

/* WB_PROTECTED: the object holds no Ruby reference, so there is no
 * write to guard, and Ruby makes it on its fast path (an unprotected
 * object takes the VM lock at each allocation).  data: the class, for
 * the runtime's exact-class test (mqrb_plain_typed). */
const rb_data_type_t mqrb_MkBufferStreamC_type = {
    "Mqlink::MkBufferStreamC", {NULL, MkBufferStreamC_free, NULL}, NULL, (void *)&mqrb_cMkBufferStreamC,
    RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED};

static VALUE
MkBufferStreamC_alloc(VALUE klass)
{
    return TypedData_Wrap_Struct(klass, &mqrb_MkBufferStreamC_type, NULL);
}

/* new: Create an empty stream. */
static VALUE
MkBufferStreamC_initialize(VALUE self)
{
    if (!rb_check_typeddata(self, &mqrb_MkBufferStreamC_type)) {
        void *obj = MkBufferStreamCreate();
        if (!obj)
            rb_memerror();
        RTYPEDDATA_DATA(self) = obj;
    }
    return self;
}

/* Create an empty stream. */
static VALUE
MkBufferStreamC_Create(VALUE self)
{
    return mqrb_plain_wrap(self, &mqrb_MkBufferStreamC_type, MkBufferStreamCreate(), 1);
}

/* Encoded size in bytes. */
static VALUE
MkBufferStreamC_Size(VALUE self)
{
    MkBufferStreamC *obj = mqrb_plain_self(self, "Size");
    size_t r;

    r = MkBufferStreamSize(obj);
    return SIZET2NUM(r);
}

/* The next item as FLT. */
static VALUE
MkBufferStreamC_ReadFLT(VALUE self)
{
    MkBufferStreamC *obj = mqrb_plain_self(self, "ReadFLT");
    MK_FLT v = 0;
    MkErrorE rc;

    mqrb_src_end(obj); /* a call that may change it ends its view */
    rc = MkBufferStreamReadFLT(obj, &v);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return DBL2NUM(v);
}

/* The next item as a buffer, borrowed until the next call. */
static VALUE
MkBufferStreamC_ReadBUF(VALUE self)
{
    MkBufferStreamC *obj = mqrb_plain_self(self, "ReadBUF");
    MkBufferC *v = NULL;
    MkErrorE rc;

    mqrb_src_end(obj); /* a call that may change it ends its view */
    rc = MkBufferStreamReadBUF(obj, &v);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return mqrb_from_BUF(v);
}

/* ReadBUFR: the view form of ReadBUF, no allocation and no copy: one buffer per MkBufferStreamC, valid until the next call on this MkBufferStreamC but a query; after that its methods raise. */
static VALUE
MkBufferStreamC_ReadBUFR(VALUE self)
{
    MkBufferStreamC *obj = mqrb_plain_self(self, "ReadBUFR");
    MkBufferC *v = NULL;
    MkErrorE rc;

    rc = MkBufferStreamReadBUF(obj, &v);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return mqrb_src_view(obj, v);
}

/* True when an item is left. */
static VALUE
MkBufferStreamC_ReadItemExists(VALUE self)
{
    MkBufferStreamC *obj = mqrb_plain_self(self, "ReadItemExists");
    MK_BOL r;

    r = MkBufferStreamReadItemExists(obj);
    return ((r) ? Qtrue : Qfalse);
}

/* Move the read position back to the first item. */
static VALUE
MkBufferStreamC_PosToStart(VALUE self)
{
    MkBufferStreamC *obj = mqrb_plain_self(self, "PosToStart");

    mqrb_src_end(obj); /* a call that may change it ends its view */
    MkBufferStreamPosToStart(obj);
    return Qnil;
}

/* ---- MqConfigFileC: Typed reads from a "libconfig" file. */

VALUE mqrb_cMqConfigFileC;

static void
MqConfigFileC_free(void *p)
{
    if (mqrb_plain_owned(p))
        MqConfigFileDelete(p);
}

/* WB_PROTECTED: the object holds no Ruby reference, so there is no
 * write to guard, and Ruby makes it on its fast path (an unprotected
 * object takes the VM lock at each allocation).  data: the class, for
 * the runtime's exact-class test (mqrb_plain_typed). */
const rb_data_type_t mqrb_MqConfigFileC_type = {
    "Mqlink::MqConfigFileC", {NULL, MqConfigFileC_free, NULL}, NULL, (void *)&mqrb_cMqConfigFileC,
    RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED};

static VALUE
MqConfigFileC_alloc(VALUE klass)
{
    return TypedData_Wrap_Struct(klass, &mqrb_MqConfigFileC_type, NULL);
}

/* new: Create an empty configuration. */
static VALUE
MqConfigFileC_initialize(VALUE self)
{
    if (!rb_check_typeddata(self, &mqrb_MqConfigFileC_type)) {
        void *obj = MqConfigFileCreate();
        if (!obj)
            rb_memerror();
        RTYPEDDATA_DATA(self) = obj;
    }
    return self;
}

/* Create an empty configuration. */
static VALUE
MqConfigFileC_Create(VALUE self)
{
    return mqrb_plain_wrap(self, &mqrb_MqConfigFileC_type, MqConfigFileCreate(), 1);
}

/* Read and parse file. */
static VALUE
MqConfigFileC_Read(VALUE self, VALUE a0)
{
    MqConfigFileC *obj = mqrb_plain_self(self, "Read");
    const char *file;
    volatile VALUE file_keep;
    MkErrorE rc;

    file = mqrb_to_STR(a0, &file_keep, "Read");
    rc = MqConfigFileRead(obj, file);
    RB_GC_GUARD(file_keep);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return Qnil;
}

/* The string at path, or def. */
static VALUE
MqConfigFileC_GetSTR(int nargs, VALUE *args, VALUE self)
{
    MqConfigFileC *obj = mqrb_plain_self(self, "GetSTR");
    VALUE a[2];
    const char *path;
    volatile VALUE path_keep;
    const char *def = "";
    volatile VALUE def_keep;
    const char *v = NULL;
    MkErrorE rc;

    mqrb_args(nargs, args, 1, 2, -1, a);
    path = mqrb_to_STR(a[0], &path_keep, "GetSTR");
    if (a[1] != Qundef)
        def = mqrb_to_STR(a[1], &def_keep, "GetSTR");
    rc = MqConfigFileGetSTR(obj, path, def, &v);
    RB_GC_GUARD(path_keep);
    RB_GC_GUARD(def_keep);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return mqrb_from_STR(v);
}

/* The boolean at path, or def. */
static VALUE
MqConfigFileC_GetBOL(int nargs, VALUE *args, VALUE self)
{
    MqConfigFileC *obj = mqrb_plain_self(self, "GetBOL");
    VALUE a[2];
    const char *path;
    volatile VALUE path_keep;
    MK_BOL def = false;
    MK_BOL v = 0;
    MkErrorE rc;

    mqrb_args(nargs, args, 1, 2, -1, a);
    path = mqrb_to_STR(a[0], &path_keep, "GetBOL");
    if (a[1] != Qundef)
        def = mqrb_to_BOL(a[1], "GetBOL");
    rc = MqConfigFileGetBOL(obj, path, def, &v);
    RB_GC_GUARD(path_keep);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return ((v) ? Qtrue : Qfalse);
}

/* The number at path, or def. */
static VALUE
MqConfigFileC_GetDBL(int nargs, VALUE *args, VALUE self)
{
    MqConfigFileC *obj = mqrb_plain_self(self, "GetDBL");
    VALUE a[2];
    const char *path;
    volatile VALUE path_keep;
    MK_DBL def = 0.0;
    MK_DBL v = 0;
    MkErrorE rc;

    mqrb_args(nargs, args, 1, 2, -1, a);
    path = mqrb_to_STR(a[0], &path_keep, "GetDBL");
    if (a[1] != Qundef)
        def = mqrb_to_DBL(a[1], "GetDBL");
    rc = MqConfigFileGetDBL(obj, path, def, &v);
    RB_GC_GUARD(path_keep);
    if (rc == MK_ERROR)
        mqrb_raise_kernel();
    return DBL2NUM(v);
}

/* ---- MqContextC: One end of a link. */

/* Create a context. */
static VALUE
MqContextC_Create(VALUE self)
{
    return mqrb_ctx_new(self, MqContextCreate());
}

/* Free the context. */
static VALUE
MqContextC_Delete(VALUE self)
{
    mqrb_ctx_delete(self);
    return Qnil;
}

/* Open the link. */
static VALUE
MqContextC_LinkCreate(VALUE self, VALUE a0)
{
    MqContextC *obj = mqrb_ctx_self(self, "LinkCreate");
    mqrb_argv argv;
    volatile VALUE argv_keep;
    MkErrorE rc;

    mqrb_view_end(self);
    mqrb_to_ARGV(a0, &argv, &argv_keep, "LinkCreate");
    rc = MqLinkCreate(obj, argv.argc, argv.argv);
    mqrb_argv_done(&argv); RB_GC_GUARD(argv_keep);
    mqrb_check_ints();
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return Qnil;
}

/* Register a service. */
static VALUE
MqContextC_ServiceCreate(int nargs, VALUE *args, VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ServiceCreate");
    VALUE a[2];
    const char *token;
    volatile VALUE token_keep;
    void *fn;
    MkErrorE rc;

    mqrb_args(nargs, args, 2, 2, 1, a);
    token = mqrb_to_TOKEN(a[0], &token_keep, "ServiceCreate");
    fn = mqrb_cb_new(self, a[1], MQRB_SCOPE_NOTIFIED, "ServiceCreate");
    rc = MqServiceCreate(obj, token, mqrb_cb_call, fn, mqrb_cb_free);
    RB_GC_GUARD(token_keep);
    if (rc == MK_ERROR) {
        VALUE e = mqrb_error_ctx(obj);
        mqrb_cb_free(fn); /* not taken: still ours */
        rb_exc_raise(e);
    }
    return Qnil;
}

/* Serve events. */
static VALUE
MqContextC_ProcessEvent(int nargs, VALUE *args, VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ProcessEvent");
    VALUE a[2];
    MqWaitE wait = MQ_WAIT_NO;
    MK_I64 timeout_ms = MQ_TIMEOUT_DEFAULT;
    MkErrorE rc;

    mqrb_args(nargs, args, 0, 2, -1, a);
    mqrb_view_end(self);
    if (a[0] != Qundef)
        wait = mqrb_to_WAIT(a[0], "ProcessEvent");
    if (a[1] != Qundef)
        timeout_ms = mqrb_to_I64(a[1], "ProcessEvent");
    rc = MqProcessEvent(obj, wait, timeout_ms);
    mqrb_check_ints();
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return rc == MK_OK ? Qtrue : Qfalse;
}

/* The running service's token. */
static VALUE
MqContextC_ServiceGetToken(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ServiceGetToken");
    const char *r;

    r = MqServiceGetToken(obj);
    if (!r)
        return Qnil;
    return mqrb_from_STR(r);
}

/* The default timeout in milliseconds. */
static VALUE
MqContextC_ConfigGetTimeout(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ConfigGetTimeout");
    MK_I64 r;

    r = MqConfigGetTimeout(obj);
    return LL2NUM(r);
}

/* True while the link is up. */
static VALUE
MqContextC_LinkIsConnected(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "LinkIsConnected");
    MK_BOL r;

    r = MqLinkIsConnected(obj);
    return ((r) ? Qtrue : Qfalse);
}

/* Call token; fn runs with the answer. */
static VALUE
MqContextC_SendEND_AND_CALLBACK(int nargs, VALUE *args, VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "SendEND_AND_CALLBACK");
    VALUE a[3];
    const char *token;
    volatile VALUE token_keep;
    void *fn;
    MK_I64 timeout_ms = MQ_TIMEOUT_DEFAULT;
    MkErrorE rc;

    mqrb_args(nargs, args, 2, 3, 1, a);
    token = mqrb_to_TOKEN(a[0], &token_keep, "SendEND_AND_CALLBACK");
    if (a[2] != Qundef)
        timeout_ms = mqrb_to_I64(a[2], "SendEND_AND_CALLBACK");
    fn = mqrb_cb_new(self, a[1], MQRB_SCOPE_ONCE, "SendEND_AND_CALLBACK");
    rc = MqSendEND_AND_CALLBACK(obj, token, mqrb_cb_call, fn, mqrb_cb_free, timeout_ms);
    RB_GC_GUARD(token_keep);
    if (rc == MK_ERROR) {
        VALUE e = mqrb_error_ctx(obj);
        mqrb_cb_free(fn); /* not taken: still ours */
        rb_exc_raise(e);
    }
    return Qnil;
}

/* Run fn with re-sent answers. */
static VALUE
MqContextC_ConfigSetTransactionHandler(int nargs, VALUE *args, VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ConfigSetTransactionHandler");
    VALUE a[1];
    void *fn;

    mqrb_args(nargs, args, 1, 1, 0, a);
    fn = mqrb_cb_new(self, a[0], MQRB_SCOPE_NOTIFIED, "ConfigSetTransactionHandler");
    MqConfigSetTransactionHandler(obj, mqrb_cb_call, fn, mqrb_cb_free);
    return Qnil;
}

/* Persistent calls not yet answered. */
static VALUE
MqContextC_StoragePendingCount(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "StoragePendingCount");
    MK_I64 count = 0;
    MkErrorE rc;

    rc = MqStoragePendingCount(obj, &count);
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return LL2NUM(count);
}

/* Append an I8. */
static VALUE
MqContextC_SendI8(VALUE self, VALUE a0)
{
    MqContextC *obj = mqrb_ctx_self(self, "SendI8");
    MK_I8 v;
    MkErrorE rc;

    v = mqrb_to_I8(a0, "SendI8");
    rc = MqSendI8(obj, v);
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return Qnil;
}

/* Append an I16. */
static VALUE
MqContextC_SendI16(VALUE self, VALUE a0)
{
    MqContextC *obj = mqrb_ctx_self(self, "SendI16");
    MK_I16 v;
    MkErrorE rc;

    v = mqrb_to_I16(a0, "SendI16");
    rc = MqSendI16(obj, v);
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return Qnil;
}

/* Append a buffer's value with its type. */
static VALUE
MqContextC_SendBUF(VALUE self, VALUE a0)
{
    MqContextC *obj = mqrb_ctx_self(self, "SendBUF");
    MkBufferC *v;
    MkErrorE rc;

    v = mqrb_to_BUF(a0, "SendBUF");
    rc = MqSendBUF(obj, v);
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return Qnil;
}

/* The next item as I16. */
static VALUE
MqContextC_ReadI16(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ReadI16");
    MK_I16 v = 0;
    MkErrorE rc;

    rc = MqReadI16(obj, &v);
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return INT2FIX(v);
}

/* The next item as I32. */
static VALUE
MqContextC_ReadI32(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ReadI32");
    MK_I32 v = 0;
    MkErrorE rc;

    rc = MqReadI32(obj, &v);
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return INT2FIX(v);
}

/* The next item as bytes. */
static VALUE
MqContextC_ReadBIN(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ReadBIN");
    const void *v = NULL;
    size_t v_size = 0;
    MkErrorE rc;

    rc = MqReadBIN(obj, &v, &v_size);
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return mqrb_from_BIN(v, v_size);
}

/* The next item as a buffer, borrowed until the next ReadBUF. */
static VALUE
MqContextC_ReadBUF(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ReadBUF");
    MkBufferC *v = NULL;
    MkErrorE rc;

    rc = MqReadBUF(obj, &v);
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return mqrb_from_BUF(v);
}

/* ReadBUFR: the view form of ReadBUF, no allocation and no copy: one buffer per context, valid until the next ReadBUFR, the end of the service or callback, or the next blocking call on this context; after that its methods raise. */
static VALUE
MqContextC_ReadBUFR(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ReadBUFR");
    MkBufferC *v = NULL;
    MkErrorE rc;

    rc = MqReadBUF(obj, &v);
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return mqrb_view(self, v);
}

/* True while an item is left. */
static VALUE
MqContextC_ReadItemExists(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "ReadItemExists");
    MK_BOL r;

    r = MqReadItemExists(obj);
    return ((r) ? Qtrue : Qfalse);
}

/* Move the next item. */
static VALUE
MqContextC_ProxyItem(VALUE self, VALUE a0)
{
    MqContextC *obj = mqrb_ctx_self(self, "ProxyItem");
    MqContextC *to;
    MkErrorE rc;

    to = mqrb_to_CTX_of(self, a0, "ProxyItem");
    rc = MqProxyItem(obj, to);
    if (rc == MK_ERROR)
        mqrb_raise_ctx(obj);
    return Qnil;
}

/* The parent. */
static VALUE
MqContextC_LinkGetParent(VALUE self)
{
    MqContextC *obj = mqrb_ctx_self(self, "LinkGetParent");
    MqContextC *r;

    r = MqLinkGetParent(obj);
    return mqrb_from_CTX(r);
}

/* Set the error. */
static VALUE
MqContextC_ErrorSet(VALUE self, VALUE a0, VALUE a1)
{
    MqContextC *obj = mqrb_ctx_self(self, "ErrorSet");
    MK_I32 code;
    const char *text;
    volatile VALUE text_keep;

    code = mqrb_to_I32(a0, "ErrorSet");
    text = mqrb_to_STR(a1, &text_keep, "ErrorSet");
    MqErrorSet(obj, code, "%s", text);
    RB_GC_GUARD(text_keep);
    return Qnil;
}

/* Classes, methods, module functions and constants, under module. */
void
mqrb_glue_init(VALUE module, VALUE cContext)
{
    VALUE c;

    rb_define_const(module, "MK_OK", INT2FIX(0));
    rb_define_const(module, "MQ_WAIT_FOREVER", INT2FIX(2));
    rb_define_const(module, "MQ_TIMEOUT_DEFAULT", INT2FIX(-1));
    rb_define_module_function(module, "MkTypeName", module_MkTypeName, 1);
    rb_define_module_function(module, "MkLogGetLevel", module_MkLogGetLevel, 0);
    rb_define_module_function(module, "SampleRetI8", module_SampleRetI8, 0);
    rb_define_module_function(module, "SampleRetI16", module_SampleRetI16, 0);
    rb_define_module_function(module, "SampleRetFLT", module_SampleRetFLT, 0);
    rb_define_module_function(module, "SampleRetDBL", module_SampleRetDBL, 0);
    rb_define_module_function(module, "SampleOutTYPE", module_SampleOutTYPE, 0);
    rb_define_module_function(module, "SampleOutSIZE", module_SampleOutSIZE, 0);

    c = mqrb_cMkBufferC = rb_define_class_under(module, "MkBufferC", rb_cObject);
    rb_define_alloc_func(c, MkBufferC_alloc);
    rb_define_method(c, "initialize", MkBufferC_initialize, 0);
    rb_define_method(c, "initialize_copy", mqrb_no_copy, 1);
    rb_define_singleton_method(c, "Create", MkBufferC_Create, 0);
    mqrb_ractor_safe(1); /* its instance methods: runtime.h */
    rb_define_method(c, "Delete", MkBufferC_Delete, 0);
    rb_define_method(c, "Dup", MkBufferC_Dup, 0);
    rb_define_method(c, "GetType", MkBufferC_GetType, 0);
    rb_define_method(c, "SetFLT", MkBufferC_SetFLT, 1);
    rb_define_method(c, "SetBIN", MkBufferC_SetBIN, 1);
    rb_define_method(c, "Copy", MkBufferC_Copy, 1);
    rb_define_method(c, "GetI8", MkBufferC_GetI8, 0);
    rb_define_method(c, "GetSTR", MkBufferC_GetSTR, 0);
    mqrb_ractor_safe(0);

    c = mqrb_cMkBufferListC = rb_define_class_under(module, "MkBufferListC", rb_cObject);
    rb_define_alloc_func(c, MkBufferListC_alloc);
    rb_define_method(c, "initialize", MkBufferListC_initialize, 0);
    rb_define_method(c, "initialize_copy", mqrb_no_copy, 1);
    rb_define_singleton_method(c, "Create", MkBufferListC_Create, 0);
    rb_define_singleton_method(c, "CreateTLS", MkBufferListC_CreateTLS, 1);
    mqrb_ractor_safe(1); /* its instance methods: runtime.h */
    rb_define_method(c, "Size", MkBufferListC_Size, 0);
    rb_define_method(c, "IndexGet", MkBufferListC_IndexGet, 1);
    rb_define_method(c, "IndexGetR", MkBufferListC_IndexGetR, 1);
    mqrb_ractor_safe(0);

    c = mqrb_cMkBufferStreamC = rb_define_class_under(module, "MkBufferStreamC", rb_cObject);
    rb_define_alloc_func(c, MkBufferStreamC_alloc);
    rb_define_method(c, "initialize", MkBufferStreamC_initialize, 0);
    rb_define_method(c, "initialize_copy", mqrb_no_copy, 1);
    rb_define_singleton_method(c, "Create", MkBufferStreamC_Create, 0);
    mqrb_ractor_safe(1); /* its instance methods: runtime.h */
    rb_define_method(c, "Size", MkBufferStreamC_Size, 0);
    rb_define_method(c, "ReadFLT", MkBufferStreamC_ReadFLT, 0);
    rb_define_method(c, "ReadBUF", MkBufferStreamC_ReadBUF, 0);
    rb_define_method(c, "ReadBUFR", MkBufferStreamC_ReadBUFR, 0);
    rb_define_method(c, "ReadItemExists", MkBufferStreamC_ReadItemExists, 0);
    rb_define_method(c, "PosToStart", MkBufferStreamC_PosToStart, 0);
    mqrb_ractor_safe(0);

    c = mqrb_cMqConfigFileC = rb_define_class_under(module, "MqConfigFileC", rb_cObject);
    rb_define_alloc_func(c, MqConfigFileC_alloc);
    rb_define_method(c, "initialize", MqConfigFileC_initialize, 0);
    rb_define_method(c, "initialize_copy", mqrb_no_copy, 1);
    rb_define_singleton_method(c, "Create", MqConfigFileC_Create, 0);
    mqrb_ractor_safe(1); /* its instance methods: runtime.h */
    rb_define_method(c, "Read", MqConfigFileC_Read, 1);
    rb_define_method(c, "GetSTR", MqConfigFileC_GetSTR, -1);
    rb_define_method(c, "GetBOL", MqConfigFileC_GetBOL, -1);
    rb_define_method(c, "GetDBL", MqConfigFileC_GetDBL, -1);
    mqrb_ractor_safe(0);

    c = cContext; /* MqContextC: the runtime's class */
    rb_define_singleton_method(c, "Create", MqContextC_Create, 0);
    mqrb_ractor_safe(1); /* its instance methods: runtime.h */
    rb_define_method(c, "Delete", MqContextC_Delete, 0);
    rb_define_method(c, "LinkCreate", MqContextC_LinkCreate, 1);
    rb_define_method(c, "ServiceCreate", MqContextC_ServiceCreate, -1);
    rb_define_method(c, "ProcessEvent", MqContextC_ProcessEvent, -1);
    rb_define_method(c, "ServiceGetToken", MqContextC_ServiceGetToken, 0);
    rb_define_method(c, "ConfigGetTimeout", MqContextC_ConfigGetTimeout, 0);
    rb_define_method(c, "LinkIsConnected", MqContextC_LinkIsConnected, 0);
    rb_define_method(c, "SendEND_AND_CALLBACK", MqContextC_SendEND_AND_CALLBACK, -1);
    rb_define_method(c, "ConfigSetTransactionHandler", MqContextC_ConfigSetTransactionHandler, -1);
    rb_define_method(c, "StoragePendingCount", MqContextC_StoragePendingCount, 0);
    rb_define_method(c, "SendI8", MqContextC_SendI8, 1);
    rb_define_method(c, "SendI16", MqContextC_SendI16, 1);
    rb_define_method(c, "SendBUF", MqContextC_SendBUF, 1);
    rb_define_method(c, "ReadI16", MqContextC_ReadI16, 0);
    rb_define_method(c, "ReadI32", MqContextC_ReadI32, 0);
    rb_define_method(c, "ReadBIN", MqContextC_ReadBIN, 0);
    rb_define_method(c, "ReadBUF", MqContextC_ReadBUF, 0);
    rb_define_method(c, "ReadBUFR", MqContextC_ReadBUFR, 0);
    rb_define_method(c, "ReadItemExists", MqContextC_ReadItemExists, 0);
    rb_define_method(c, "ProxyItem", MqContextC_ProxyItem, 1);
    rb_define_method(c, "LinkGetParent", MqContextC_LinkGetParent, 0);
    rb_define_method(c, "ErrorSet", MqContextC_ErrorSet, 2);
    mqrb_ractor_safe(0);
}
