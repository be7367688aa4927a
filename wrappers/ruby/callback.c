/* callback.c — calls from the library into Ruby (services, the server
 * setup, call callbacks, the factory that makes each server instance a new
 * object of the user's class), the GVL, and fork.
 *
 * The GVL.  Ruby can release the GVL only around a function
 * (rb_thread_call_without_gvl2), so the library's scoped blocking hook
 * (MqSetBlockingCall) is used: every call keeps the GVL, and the library
 * hands us each system call that may really sleep (a poll, a recv, an
 * accept...), which runs without it.  Other Ruby threads run while the
 * library waits; frames already read, and every service and callback, cost
 * no handover at all (the thread holds the GVL when the library calls
 * Ruby), and neither does a wait when no other Ruby thread exists
 * (wait_alone).  RUBY_UBF_IO wakes a sleeping system call for an interrupt
 * (Thread#kill, Thread#raise, a signal trap such as Ctrl-C's); the hook runs
 * Ruby's interrupt handling under rb_protect: what does not raise (a
 * SIGCHLD from an instance that ended) lets the wait go on, what raises is
 * kept, the library is told to end its wait early, and the glue raises it
 * when the call returns (mqrb_check_ints).  Nothing ever raises inside the
 * library's frames (the ...2 form does not check interrupts), which a
 * longjmp would corrupt.
 *
 * Fork.  A forked instance starts with the interpreter as the forking
 * thread left it (holding the GVL: forks happen outside any wait); at the
 * first entry from C in the child, the first wait included,
 * rb_thread_atfork() does what Ruby's own fork does in its child (the other
 * threads are gone, the GVL and the timer thread start anew).  Ruby's own
 * Process._fork is told apart (a prepended _fork sets a flag), as it does
 * that work itself.
 *
 * Calling convention (services, setup and call callbacks): a method name
 * (Symbol or String) is called on the context without arguments, and so is
 * a Method bound to a context (the setup's on each new instance, as in
 * Python); a block, Proc or other Method gets the context as its argument
 * (a lambda that takes none gets none); any other object gets #call(ctx).
 * An exception becomes the context's error (code and text of an
 * MkExceptionC, "ClassName: message" otherwise), so the caller on the other
 * side of the link receives the text. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime.h"

#include <ruby/debug.h> /* rb_postponed_job_register_one; needs ruby.h first */

int ruby_thread_has_gvl_p(void); /* exported by libruby, not declared */
void mqrb_ctx_destroyed_locked(MqContextC *ctx, void *data);

enum { CB_NAME, CB_BOUND, CB_PROC, CB_METHOD, CB_CALL };

typedef struct {
    mqrb_keep keep; /* holds callable (not linked for a shared one) */
    VALUE recv;     /* CB_BOUND: the context the Method is bound to */
    ID mid;         /* CB_NAME, CB_BOUND: the method called */
    int kind, nargs, scope;
    int shared; /* one of named_cb's: never freed */
} mqrb_cb;

static ID id_call;

/* Registrations come and go with every server instance (its setup's
 * ServiceCreate calls, freed when the library deletes it): freed ones wait
 * here for the next, sparing the allocator.  With the GVL held. */
enum { SPARE_CBS = 64 };
static mqrb_cb *spare_cb[SPARE_CBS];
static int spare_cbs;

/* A registration by a method name that is a static Symbol (a literal
 * :NAME) holds nothing the GC could take: such a Symbol lives as long as
 * the process, and the call goes to whichever context the library names.
 * So one registration per Symbol and scope serves every context, and the
 * setup of each server instance (the same ServiceCreate calls every time)
 * allocates, keeps and frees nothing.  A Symbol that finds no free slot
 * among its PROBE, and any other name, gets a registration of its own. */
enum { PROBE = 8 };
mqrb_named_slot mqrb_named[MQRB_NAMED_SLOTS];
static unsigned long registrations_made; /* for the tests */

/* ------------------------------------------------------------------- fork */

static volatile int ruby_forking, forked;
static int library_child; /* this process is an instance the library forked */

static void
atfork_parent(void)
{
    ruby_forking = 0;
}

static void
atfork_child(void)
{
    forked = !ruby_forking;
    ruby_forking = 0;
}

static VALUE
ruby_fork_flag(VALUE self, VALUE on)
{
    ruby_forking = RTEST(on);
    return Qnil;
}

/* In the child of a fork the library made: redo Ruby's after-fork work
 * (with the GVL, which the forking thread held). */
static inline void
after_fork(void)
{
    if (forked) {
        forked = 0;
        library_child = 1;
        rb_thread_atfork();
    }
}

/* ---------------------------------------------------------------- the GVL */

/* Whether this thread is one Ruby knows (1), asked once per thread.  Such a
 * thread holds the GVL whenever it runs the library's code: it entered the
 * library through the glue, which Ruby calls with the GVL, and this runtime
 * gives the GVL up only in wait_released, around fn, the one system call
 * that calls nothing back.  So the hooks ask ruby_thread_has_gvl_p (~23
 * instructions with its __tls_get_addr; twice a round trip) only a thread's
 * first time, and each time a thread Ruby does not know (the library's
 * --thread pool, which the Ruby options refuse; C code using libmqlink on
 * threads of its own).  Not served: C code that calls libmqlink from a
 * thread Ruby knows while it has given the GVL up (inside another
 * extension's rb_thread_call_without_gvl); it must hold the GVL, as the
 * callbacks it may cause run Ruby.  initial-exec: a load from the thread
 * pointer, not a __tls_get_addr call (one byte of glibc's static TLS
 * surplus, as the Tcl and Java bindings' hot thread-locals). */
static __thread signed char ruby_thread __attribute__((tls_model("initial-exec")));

static inline int
holds_gvl(void)
{
    if (ruby_thread)
        return 1;
    if (!ruby_thread_has_gvl_p())
        return 0;
    ruby_thread = 1;
    return 1;
}

/* Waits with the GVL released, and kept (wait_alone), for the tests. */
static unsigned long releases, kept;
static ID id_pending;
/* An interrupt raised during a wait of this thread (its jump tag, the
 * exception in the thread's @__mqlink_pending), kept until the call returns
 * to the glue.  pending_threads counts the threads whose pending is set
 * (changed with the GVL held), so the hook and the glue's check after each
 * blocking call read one global instead of looking up the thread-local
 * (__tls_get_addr: ~11 instructions) when, as nearly always, none is. */
static __thread int pending;
static int pending_threads;

/* Whether a signal is waiting for its trap: rb_thread_check_trap_pending,
 * which libruby exports without declaring it (as ruby_thread_has_gvl_p),
 * found at load; else the interrupt test of the current thread.  The only
 * interrupt a thread alone can get is a signal's (wait_alone), and this
 * reads one counter where rb_thread_interrupted costs ~87 instructions (a
 * thread lookup and two type checks) on every wait. */
static int (*trap_pending)(void);

static VALUE
check_ints(VALUE unused)
{
    rb_thread_check_ints();
    return Qnil;
}

/* Handle what woke the wait: many interrupts do nothing (a SIGCHLD without a
 * trap, a trap handler that returns); one that raises (Thread#raise,
 * Thread#kill, Ctrl-C's Interrupt) is kept for the glue and ends the wait. */
static int
handle_interrupt(VALUE th)
{
    int state = 0;
    VALUE exc;

    rb_protect(check_ints, Qnil, &state);
    if (!state)
        return 0;
    exc = rb_errinfo();
    rb_set_errinfo(Qnil);
    rb_ivar_set(th, id_pending, rb_obj_is_kind_of(exc, rb_eException) ? exc : Qnil);
    if (!pending)
        pending_threads++;
    pending = state;
    return 1;
}

typedef struct {
    MqBlockingFnF fn;
    void *arg;
    int ran;
} nogvl_call;

static void *
run_nogvl(void *p)
{
    nogvl_call *c = p;
    c->ran = 1;
    return c->fn(c->arg);
}

/* The wait of the only Ruby thread, GVL held: releasing it (~700
 * instructions, a round trip's wait each) would serve nobody.  No other
 * thread can be starved (none exists, and none starts while this one holds
 * the GVL in C), and no interrupt can come from one (Thread#raise, #kill, the
 * timer).  What is left is a signal: Ruby's handler sets the trap interrupt
 * and arms its timer, which sends SIGVTALRM every 100 ms until the signal is
 * served; Ruby's handlers are installed without SA_RESTART, so the signal, or
 * the timer's for one that came just before the system call, ends it with
 * EINTR, and the interrupt is handled then as after a release.  One already
 * set is handled first (a trap that does not raise lets the wait start). */
static int
wait_alone(MqBlockingFnF fn, void *arg)
{
    VALUE th;

    if (trap_pending() && handle_interrupt(rb_thread_current()))
        return 1;
    errno = 0;
    fn(arg);
    kept++;
    if (errno != EINTR)
        return 0;
    th = rb_thread_current();
    return rb_thread_interrupted(th) && handle_interrupt(th);
}

/* trap_pending without rb_thread_check_trap_pending. */
static int
current_interrupted(void)
{
    return rb_thread_interrupted(rb_thread_current());
}

/* The wait of a thread that is not alone: fn runs with the GVL released.
 * rb_thread_call_without_gvl2 returns without calling fn when any interrupt
 * is set, also those rb_thread_interrupted does not report: the timer's
 * (another thread waits for the GVL) and a postponed job's (a GC finalizer,
 * a profiler).  Such an interrupt is cleared only by serving it, so it is
 * served here (which hands the GVL to the waiting thread) and fn tried
 * again: returning 0 with fn not run would make the library retry at once,
 * holding the GVL, until its deadline (threads_test.rb, "postponed job"). */
static __attribute__((noinline)) int
wait_released(MqBlockingFnF fn, void *arg)
{
    nogvl_call call = {fn, arg, 0};
    VALUE th = rb_thread_current();

    /* An interrupt set before the wait is seen by rb_thread_call_without_gvl2
     * itself, which then does not run fn: no check of our own first. */
    for (;;) {
        rb_thread_call_without_gvl2(run_nogvl, &call, RUBY_UBF_IO, NULL);
        if (call.ran)
            break;
        if (handle_interrupt(th))
            return 1;
    }
    releases++;
    return rb_thread_interrupted(th) && handle_interrupt(th);
}

/* The library's blocking hook: fn(arg) is one system call that may sleep.
 * A thread without the GVL (one Ruby does not know) just makes it. */
static int
blocking_call(MqBlockingFnF fn, void *arg)
{
    if (!holds_gvl()) {
        fn(arg);
        return 0;
    }
    if (pending_threads && pending)
        return 1; /* an interrupt waits for the glue: no new wait */
    after_fork();
    if (rb_thread_alone())
        return wait_alone(fn, arg);
    return wait_released(fn, arg);
}

/* Raise what handle_interrupt kept: the exception, or else (Thread#kill,
 * whose errinfo is no exception) resume the jump that ends the thread. */
void
mqrb_check_ints(void)
{
    VALUE th, exc;
    int state;

    if (!pending_threads || !(state = pending))
        return;
    pending = 0;
    pending_threads--;
    th = rb_thread_current();
    exc = rb_ivar_get(th, id_pending);
    rb_ivar_set(th, id_pending, Qnil);
    if (NIL_P(exc))
        rb_jump_tag(state);
    rb_exc_raise(exc);
}

/* Mqlink.gvl_releases: how often the library released the GVL, so a test
 * can tell a wait from a call served without one. */
static VALUE
gvl_releases(VALUE self)
{
    return ULONG2NUM(releases);
}

/* Mqlink.gvl_kept (private, for the tests): waits made holding the GVL
 * because no other Ruby thread existed. */
static VALUE
gvl_kept(VALUE self)
{
    return ULONG2NUM(kept);
}

/* Mqlink.registrations_made (private, for the tests): registrations made
 * since the start, a shared one counted once. */
static VALUE
registrations(VALUE self)
{
    return ULONG2NUM(registrations_made);
}

static void
postponed_noop(void *unused)
{
}

/* Mqlink.postponed_job_then(obj, name, *args) (private, for the tests):
 * register a postponed job, as a GC finalizer or a sampling profiler does,
 * and call obj.name(*args) at once, so that the call runs with an interrupt
 * set that rb_thread_interrupted does not report. */
static VALUE
postponed_job_then(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 2, UNLIMITED_ARGUMENTS);
    if (!rb_postponed_job_register_one(0, postponed_noop, NULL))
        rb_raise(rb_eRuntimeError, "postponed job table full");
    return rb_funcallv(argv[0], rb_to_id(argv[1]), argc - 2, argv + 2);
}

/* Mqlink.signal_then(sig, obj, name, *args) (private, for the tests): send
 * this process signal sig and call obj.name(*args) at once, so that the call
 * starts with the signal waiting for its trap (Ruby's own Process.kill of
 * itself runs the trap before it returns). */
static VALUE
signal_then(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 3, UNLIMITED_ARGUMENTS);
    if (kill(getpid(), NUM2INT(argv[0])) != 0)
        rb_sys_fail("kill");
    return rb_funcallv(argv[1], rb_to_id(argv[2]), argc - 3, argv + 3);
}

/* ------------------------------------------------------- entries into Ruby */

/* with_gvl for a thread that does not hold the GVL (apart, so that the
 * common case needs no frame of its own). */
static __attribute__((noinline)) void *
with_gvl_slow(void *(*fn)(void *), void *arg, MqContextC *ctx)
{
    void *r;
    if (ruby_native_thread_p()) {
        r = rb_thread_call_with_gvl(fn, arg);
        ruby_thread = 0; /* fn's hooks saw the GVL, which is given up again */
        return r;
    }
    if (ctx)
        MqErrorSet(ctx, MK_ERR_GENERIC, "%s", "Ruby code called from a thread Ruby does not know");
    return NULL;
}

/* Run fn(arg) with the GVL: directly when this thread holds it, else
 * through rb_thread_call_with_gvl; from a thread Ruby does not know, set
 * ctx's error and return NULL without running it. */
static inline void *
with_gvl(void *(*fn)(void *), void *arg, MqContextC *ctx)
{
    if (holds_gvl()) {
        after_fork();
        return fn(arg);
    }
    return with_gvl_slow(fn, arg, ctx);
}

/* The exception in $! as ctx's error; clears it.  Never raises. */
static VALUE
error_text(VALUE exc)
{
    VALUE msg = rb_funcall(exc, rb_intern("message"), 0);
    if (rb_obj_is_kind_of(exc, mqrb_eMkExceptionC))
        return msg;
    return rb_sprintf("%" PRIsVALUE ": %" PRIsVALUE, rb_class_name(rb_obj_class(exc)), msg);
}

static VALUE
full_message(VALUE exc)
{
    return rb_funcall(exc, rb_intern("full_message"), 0);
}

/* At the default level the backtrace goes to stderr, as Ruby prints it. */
static void
print_backtrace(VALUE exc)
{
    int state = 0;
    VALUE full = rb_protect(full_message, exc, &state);
    if (!state && RB_TYPE_P(full, T_STRING))
        fprintf(stderr, "%.*s", (int)RSTRING_LEN(full), RSTRING_PTR(full));
    rb_set_errinfo(Qnil);
    RB_GC_GUARD(full);
}

static MkErrorE
error_to_ctx(MqContextC *ctx)
{
    VALUE exc = rb_errinfo(), text, code;
    int state = 0;
    MK_I32 c = MK_ERR_GENERIC;

    rb_set_errinfo(Qnil);
    if (MkLogGetLevel() >= MK_LOG_WARN)
        print_backtrace(exc);
    text = rb_protect(error_text, exc, &state);
    if (state || !RB_TYPE_P(text, T_STRING)) {
        rb_set_errinfo(Qnil);
        text = rb_str_new_cstr("ruby error");
    }
    if (rb_obj_is_kind_of(exc, mqrb_eMkExceptionC) &&
        RB_FIXNUM_P(code = rb_attr_get(exc, rb_intern("@code"))))
        c = (MK_I32)FIX2LONG(code);
    MqErrorSet(ctx, c, "%s", StringValueCStr(text));
    RB_GC_GUARD(text);
    return MK_ERROR;
}

typedef struct {
    mqrb_cb *cb;
    MqContextC *ctx;
    VALUE inst; /* the context's object (setup: the new instance) */
    MkErrorE rc;
} call_args;

/* Every service and callback enters Ruby here, under rb_protect.  It is the
 * cheapest correct entry Ruby 3.1's C API offers: an empty method costs 623
 * instructions per call, of which rb_funcallv's own method search, frame
 * and rb_vm_exec are 538 and rb_protect 85; rb_rescue2 costs 649, a cached
 * Method (rb_method_call) 700, its Proc 902 (callgrind, 100 000 calls from a
 * C loop).  No protection at all is not an option: an exception would jump
 * across the library's frames. */
static VALUE
invoke(VALUE p)
{
    call_args *a = (call_args *)p;
    mqrb_cb *cb = a->cb;
    VALUE callable = cb->keep.value;

    switch (cb->kind) {
    case CB_NAME:
        return rb_funcallv(a->inst, cb->mid, 0, NULL);
    case CB_BOUND:
        return rb_funcallv(cb->recv, cb->mid, 0, NULL);
    case CB_PROC:
        return rb_proc_call_with_block(callable, cb->nargs, &a->inst, Qnil);
    case CB_METHOD:
        return rb_method_call(cb->nargs, &a->inst, callable);
    default:
        return rb_funcallv(callable, id_call, 1, &a->inst);
    }
}

/* The object of a context the library made without our factory (the
 * setup's instance in a pipe server is the template itself): a new
 * MqContextC the library owns. */
static VALUE
object_of(MqContextC *ctx)
{
    VALUE v = (VALUE)MqContextGetUserData(ctx);
    mqrb_ctx *o;
    if (v)
        return v;
    v = mqrb_ctx_new(mqrb_cMqContextC, ctx);
    o = RTYPEDDATA_DATA(v);
    mqrb_keep_add(&o->lib, v);
    return v;
}

static void
report_once(VALUE exc)
{
    VALUE text = rb_protect(error_text, exc, NULL);
    rb_set_errinfo(Qnil);
    if (RB_TYPE_P(text, T_STRING))
        fprintf(stderr, "mqlink: exception in a callback: %s\n", StringValueCStr(text));
}

static void *
cb_call_locked(void *p)
{
    call_args *a = p;
    int state = 0;

    a->inst = object_of(a->ctx);
    rb_protect(invoke, (VALUE)a, &state);
    /* the message the callback read ends here; inst, on this stack, is
     * alive, and when the callback deleted its context the view ended then */
    mqrb_view_end(a->inst);
    if (!state) {
        a->rc = MK_OK;
    } else if (a->cb->scope == MQRB_SCOPE_ONCE) {
        /* Nobody to hand a call callback's error to: say it on stderr, as
         * Ruby does for an exception in a thread nobody joins. */
        VALUE exc = rb_errinfo();
        rb_set_errinfo(Qnil);
        report_once(exc);
        a->rc = MK_ERROR;
    } else {
        a->rc = error_to_ctx(a->ctx);
    }
    return NULL;
}

MkErrorE
mqrb_cb_call(MqContextC *ctx, void *data)
{
    call_args a = {data, ctx, Qnil, MK_ERROR};
    with_gvl(cb_call_locked, &a, ctx);
    return a.rc;
}

/* Makes sym's shared registration in the empty slot (apart from named, which
 * then finds one without a frame of its own). */
static __attribute__((noinline)) mqrb_cb *
named_make(mqrb_named_slot *slot, VALUE sym, int scope)
{
    ID mid = rb_to_id(sym);
    mqrb_cb *cb = calloc(1, sizeof *cb);
    if (!cb)
        rb_memerror();
    cb->kind = CB_NAME;
    cb->mid = mid;
    cb->scope = scope;
    cb->keep.value = sym; /* not on the keep list */
    cb->recv = Qnil;
    cb->shared = 1;
    registrations_made++;
    slot->cb = cb;
    slot->scope = scope;
    slot->sym = sym;
    return cb;
}

/* The shared registration for sym and scope, made at its first use; NULL
 * when its slots are taken by other names.  mqrb_cb_new (runtime.h) finds
 * one in its first slot itself. */
static mqrb_cb *
named(VALUE sym, int scope)
{
    unsigned h = mqrb_named_hash(sym, scope);
    for (unsigned i = 0; i < PROBE; i++) {
        mqrb_named_slot *slot = &mqrb_named[(h + i) % MQRB_NAMED_SLOTS];
        if (slot->sym == sym && slot->scope == scope)
            return slot->cb;
        if (!slot->sym)
            return named_make(slot, sym, scope);
    }
    return NULL;
}

/* A registration of its own for callable (mqrb_cb_new's slow path, apart so
 * that the shared one is found without this function's frame). */
static __attribute__((noinline)) void *
cb_new_own(VALUE self, VALUE callable, int scope, const char *fn)
{
    mqrb_cb *cb;
    int kind, nargs = 1;
    VALUE recv = Qnil;
    ID mid = 0;

    if (RB_SYMBOL_P(callable) || RB_TYPE_P(callable, T_STRING)) {
        kind = CB_NAME;
        mid = rb_to_id(callable);
    } else if (rb_obj_is_proc(callable)) {
        kind = CB_PROC;
        nargs = rb_proc_lambda_p(callable) && rb_proc_arity(callable) == 0 ? 0 : 1;
    } else if (rb_obj_is_method(callable)) {
        VALUE r = rb_funcall(callable, rb_intern("receiver"), 0);
        if (rb_typeddata_is_kind_of(r, &mqrb_ctx_type)) {
            kind = CB_BOUND;
            recv = r;
            mid = rb_to_id(rb_funcall(callable, rb_intern("name"), 0));
        } else {
            kind = CB_METHOD;
            nargs = NUM2INT(rb_funcall(callable, rb_intern("arity"), 0)) == 0 ? 0 : 1;
        }
    } else if (rb_respond_to(callable, id_call)) {
        kind = CB_CALL;
    } else {
        rb_raise(rb_eTypeError,
                 "%s: expected a block, Proc, Method, method name or callable, got %" PRIsVALUE,
                 fn, rb_obj_class(callable));
    }
    if (spare_cbs)
        cb = spare_cb[--spare_cbs];
    else if (!(cb = malloc(sizeof *cb)))
        rb_memerror();
    cb->kind = kind;
    cb->nargs = nargs;
    cb->recv = recv;
    cb->mid = mid;
    cb->scope = scope;
    cb->shared = 0;
    registrations_made++;
    mqrb_keep_add(&cb->keep, callable);
    return cb;
}

void *
mqrb_cb_new_slow(VALUE self, VALUE callable, int scope, const char *fn)
{
    mqrb_cb *cb;
    if (RB_STATIC_SYM_P(callable) && (cb = named(callable, scope)))
        return cb;
    return cb_new_own(self, callable, scope, fn);
}

static void *
cb_free_locked(void *p)
{
    mqrb_cb *cb = p;
    mqrb_keep_del(&cb->keep);
    if (spare_cbs < SPARE_CBS)
        spare_cb[spare_cbs++] = cb;
    else
        free(cb);
    return cb;
}

static __attribute__((noinline)) void
cb_free_own(mqrb_cb *cb)
{
    if (!with_gvl(cb_free_locked, cb, NULL))
        free(cb);
}

/* A shared registration (each instance's setup deletes five with its
 * context) returns without the frame of a registration of its own. */
void
mqrb_cb_free(void *data)
{
    if (data && !((mqrb_cb *)data)->shared)
        cb_free_own(data);
}

/* --------------------------------------------------- context destruction */

typedef struct {
    MqContextC *ctx;
    void *data;
} destroy_args;

static VALUE
flush_std(VALUE unused)
{
    rb_io_flush(rb_stdout);
    rb_io_flush(rb_stderr);
    return Qnil;
}

/* A forked instance ends in _exit (the listener's exit handlers are not
 * its own): what its Ruby code wrote to $stdout leaves when it ends, that
 * is when its parent context does.  Not at the end of each child it
 * serves: that flush (rb_protect, two rb_io_flush) cost ~330 of the 5 440
 * instructions a --fork instance spent per child (perfclient --child). */
static void *
destroyed_locked(void *p)
{
    destroy_args *a = p;
    mqrb_ctx_destroyed_locked(a->ctx, a->data);
    if (library_child && MqLinkGetParent(a->ctx) == a->ctx) {
        rb_protect(flush_std, Qnil, NULL);
        rb_set_errinfo(Qnil);
    }
    return NULL;
}

void
mqrb_ctx_destroyed_cb(MqContextC *ctx, void *data)
{
    destroy_args a = {ctx, data};
    with_gvl(destroyed_locked, &a, NULL);
}

/* ------------------------------------------------- server setup and factory */

static void *
setup_locked(void *p)
{
    call_args *a = p;
    int state = 0;

    a->inst = object_of(a->ctx);
    if (a->cb->kind == CB_BOUND) {
        /* the setup of the template's class, run on the new instance */
        mqrb_cb named = *a->cb;
        call_args b = *a;
        named.kind = CB_NAME;
        b.cb = &named;
        rb_protect(invoke, (VALUE)&b, &state);
    } else {
        rb_protect(invoke, (VALUE)a, &state);
    }
    a->rc = state ? error_to_ctx(a->ctx) : MK_OK;
    return NULL;
}

static MkErrorE
setup_call(MqContextC *ctx, void *data)
{
    call_args a = {data, ctx, Qnil, MK_ERROR};
    with_gvl(setup_locked, &a, ctx);
    return a.rc;
}

typedef struct {
    MqContextC *tmpl, *ctx;
} factory_args;

/* MqContextC#initialize does nothing, and every server instance would pay
 * ~330 instructions (a call from C through rb_funcallv_kw) to run it.  So a
 * class whose initialize is that very method is only allocated; any other
 * initialize (the user's class's, a module's, a redefinition) is called as
 * Class#new calls it.  rb_callable_method_entry answers from the class's
 * method cache; libruby exports it, declared only in its internal method.h.
 * own_init, the method entry of MqContextC#initialize, is pinned by the keep
 * list's mark (mqrb_own_init_mark), so no other entry can take its address. */
const void *rb_callable_method_entry(VALUE klass, ID id);
static ID id_initialize;
static const void *own_init;

void
mqrb_own_init_mark(void)
{
    if (own_init)
        rb_gc_mark((VALUE)own_init);
}

static VALUE
new_instance(VALUE klass)
{
    VALUE inst = mqrb_ctx_allocate(klass);
    if (rb_callable_method_entry(klass, id_initialize) != own_init)
        rb_obj_call_init_kw(inst, 0, NULL, RB_NO_KEYWORDS);
    return inst;
}

/* A new object of the template's class (its initialize runs); its C context
 * goes to the library, which keeps the object until it deletes the context. */
static void *
factory_locked(void *p)
{
    factory_args *a = p;
    VALUE t = (VALUE)MqContextGetUserData(a->tmpl), inst;
    int state = 0;
    mqrb_ctx *o;

    if (!t) {
        a->ctx = MqContextCreate();
        return NULL;
    }
    inst = rb_protect(new_instance, rb_obj_class(t), &state);
    if (state) {
        error_to_ctx(a->tmpl);
        return NULL;
    }
    o = RTYPEDDATA_DATA(inst);
    if ((a->ctx = o->obj))
        mqrb_keep_add(&o->lib, inst);
    return NULL;
}

static MqContextC *
factory(MqContextC *tmpl, void *data)
{
    factory_args a = {tmpl, NULL};
    with_gvl(factory_locked, &a, tmpl);
    return a.ctx;
}

VALUE
mqrb_rt_MqContextC_ConfigSetServerSetup(int argc, VALUE *argv, VALUE self)
{
    MqContextC *obj = mqrb_ctx_get(self, "ConfigSetServerSetup");
    VALUE fn;
    void *cb;

    mqrb_args(argc, argv, 1, 1, 0, &fn);
    cb = mqrb_cb_new(self, fn, MQRB_SCOPE_NOTIFIED, "ConfigSetServerSetup");
    MqConfigSetServerSetup(obj, setup_call, cb, mqrb_cb_free);
    MqConfigSetFactory(obj, factory, NULL, NULL);
    return Qnil;
}

/* ------------------------------------------------------------------- init */

static const char ruby_fork_src[] =
    "module Mqlink::RubyFork\n"
    "  def _fork\n"
    "    Mqlink.__send__(:ruby_forking, true)\n"
    "    super\n"
    "  ensure\n"
    "    Mqlink.__send__(:ruby_forking, false)\n"
    "  end\n"
    "end\n"
    "Process.singleton_class.prepend(Mqlink::RubyFork)\n";

void
mqrb_callback_init(VALUE module)
{
    id_call = rb_intern("call");
    id_initialize = rb_intern("initialize");
    own_init = rb_callable_method_entry(mqrb_cMqContextC, id_initialize);
    id_pending = rb_intern("@__mqlink_pending");
    pthread_atfork(NULL, atfork_parent, atfork_child);
    rb_define_private_method(rb_singleton_class(module), "ruby_forking", ruby_fork_flag, 1);
    rb_eval_string(ruby_fork_src);
    rb_define_module_function(module, "gvl_releases", gvl_releases, 0);
    rb_define_private_method(rb_singleton_class(module), "gvl_kept", gvl_kept, 0);
    rb_define_private_method(rb_singleton_class(module), "registrations_made", registrations, 0);
    rb_define_private_method(rb_singleton_class(module), "postponed_job_then", postponed_job_then, -1);
    rb_define_private_method(rb_singleton_class(module), "signal_then", signal_then, -1);
    trap_pending = (int (*)(void))dlsym(RTLD_DEFAULT, "rb_thread_check_trap_pending");
    if (!trap_pending)
        trap_pending = current_interrupted;
    MqSetBlockingCall(blocking_call);
}
