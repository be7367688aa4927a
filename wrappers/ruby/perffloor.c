/* perffloor.c — bin/perffloor-ruby: what a Ruby server costs at least, C
 * calling into Ruby through its C API as the runtime does (callback.c:
 * rb_protect around rb_funcallv on the instance), N times after a warm-up.
 * One line each, in perfclient's form:
 *
 *   floor-ruby        the empty service NTHT of a plain class.
 *   floor-ruby-SVC    SVC = RDUL ECUL BUST BFLT: the service as perfserver.rb
 *                     writes it (its class PerfServer, read from the file,
 *                     compiled in module PerfFloor) against a binding whose
 *                     every method does nothing (perffloor_nop.c), for
 *                     perfclient's messages (5 items; 7 for BUST and BFLT):
 *                     commands=K, the calls of those no-op methods (not
 *                     BFLT's Integer#times nor its block, which are in the
 *                     time), and ns/command, the time per call above
 *                     floor-ruby's.
 *   floor-ruby-child  a new server instance: a new PerfServer (as the
 *                     factory makes it: allocated, its initialize called
 *                     when it is not the binding's own) and its ServerSetup;
 *                     the instance is then garbage, as a deleted one is,
 *                     and the collector's share of it is in the figure.
 *
 * A Ruby server reaches at most 1/(1/C + 1/floor) of each column, C the C
 * server's figure in the same run.
 *
 *   perffloor-ruby [--num N] [--sec S] [PERFSERVER.RB]   (default --sec 0.4) */
#include <stdio.h>

#include "perffloor.h"

#ifndef MQRB_PERFSERVER
#define MQRB_PERFSERVER "perfserver.rb"
#endif

static void
report_exception(const char *what)
{
    VALUE exc = rb_errinfo();
    VALUE text = rb_funcall(exc, rb_intern("full_message"), 0);
    rb_set_errinfo(Qnil);
    fprintf(stderr, "perffloor-ruby: %s: %s\n", what, StringValueCStr(text));
}

/* Blocks of 1000 calls: the clock is read once per block. */
double
perffloor_measure(floor_op *op, void *arg, const floor_size *z, long *count)
{
    double t0, t;
    long n = 0;

    for (int i = 0; i < 10000; i++) /* warm-up: method and inline caches */
        if (!op(arg))
            return -1;
    t0 = perf_now();
    for (;;) {
        for (int i = 0; i < 1000; i++)
            op(arg);
        n += 1000;
        t = perf_now() - t0;
        if (floor_done(z, n, t))
            break;
    }
    *count = n;
    return t / n;
}

/* ------------------------------------------------------------ a service */

typedef struct {
    VALUE obj;
    ID mid;
} service_call;

static VALUE
funcall(VALUE p)
{
    service_call *s = (service_call *)p;
    return rb_funcallv(s->obj, s->mid, 0, NULL);
}

/* One service call as callback.c makes it. */
static int
service(void *arg)
{
    int state = 0;
    rb_protect(funcall, (VALUE)arg, &state);
    return !state;
}

/* floor-ruby-SVC for each service of PerfFloor::PerfServer. */
static int
service_floors(VALUE server, double empty, const floor_size *z)
{
    static const char *const names[] = {"RDUL", "ECUL", "BUST", "BFLT", NULL};

    for (int i = 0; names[i]; i++) {
        service_call s = {server, rb_intern(names[i])};
        char name[40], extra[64];
        long n, k;
        double t;

        perffloor_calls = 0;
        if (!service(&s)) {
            report_exception(names[i]);
            return 1;
        }
        k = perffloor_calls;
        if ((t = perffloor_measure(service, &s, z, &n)) < 0) {
            report_exception(names[i]);
            return 1;
        }
        snprintf(name, sizeof name, "floor-ruby-%s", names[i]);
        snprintf(extra, sizeof extra, " commands=%ld ns/command=%.1f", k, (t - empty) * 1e9 / k);
        floor_report(name, t, n, extra);
    }
    return 0;
}

/* ------------------------------------------------- a new server instance */

/* As the factory (callback.c new_instance): allocated, and initialized only
 * when the class's initialize is not the binding's own, which does nothing. */
const void *rb_callable_method_entry(VALUE klass, ID id); /* libruby's, undeclared */
static ID id_initialize;
static const void *nop_init;

static VALUE
new_instance(VALUE klass)
{
    VALUE inst = rb_obj_alloc(klass);
    if (rb_callable_method_entry(klass, id_initialize) != nop_init)
        rb_obj_call_init_kw(inst, 0, NULL, RB_NO_KEYWORDS);
    return inst;
}

static ID id_setup;

static VALUE
setup(VALUE inst)
{
    return rb_funcallv(inst, id_setup, 0, NULL);
}

/* The factory's call, then the setup's, each under rb_protect as there. */
static int
child(void *arg)
{
    int state = 0;
    VALUE inst = rb_protect(new_instance, (VALUE)arg, &state);
    if (!state)
        rb_protect(setup, inst, &state);
    return !state;
}

static int
child_floor(VALUE klass, const floor_size *z)
{
    long n;
    double t;

    id_setup = rb_intern("ServerSetup");
    id_initialize = rb_intern("initialize");
    /* a method entry, kept alive by its class */
    nop_init = rb_callable_method_entry(rb_path2class("PerfFloor::MqContextC"), id_initialize);
    if ((t = perffloor_measure(child, (void *)klass, z, &n)) < 0) {
        report_exception("floor-ruby-child");
        return 1;
    }
    floor_report("floor-ruby-child", t, n, "");
    return 0;
}

/* ----------------------------------------------------------------- main */

/* PerfFloor.load(path): perfserver.rb's class PerfServer, compiled under
 * module PerfFloor with the file's own magic comments (its string literals
 * frozen, as when ruby runs it), so that its MqContextC, MkBufferStreamC
 * and MkBufferListC are the no-op ones. */
static const char loader[] =
    "def PerfFloor.load(path)\n"
    "  src = File.read(path, encoding: \"UTF-8\")\n"
    "  cls = src[/^class PerfServer < MqContextC\\n.*?^end\\n/m] or\n"
    "    raise \"#{path}: no class PerfServer < MqContextC\"\n"
    "  magic = src.lines.take_while { |l| l.start_with?('#') }.join\n"
    "  eval(magic + \"module PerfFloor\\n\" + cls + \"end\\n\", TOPLEVEL_BINDING, path)\n"
    "  PerfFloor::PerfServer\n"
    "end\n";

static VALUE
load_server(VALUE path)
{
    rb_eval_string(loader);
    return rb_funcall(rb_const_get(rb_cObject, rb_intern("PerfFloor")), rb_intern("load"), 1,
                      path);
}

int
main(int argc, char **argv)
{
    floor_size z = {0, 0.4};
    const char *script = MQRB_PERFSERVER;
    service_call ntht;
    VALUE klass, server;
    int state = 0;
    long n;
    double t;

    floor_options(&z, argc, argv, &script);
    ruby_init();
    /* through ruby_options, as the ruby command starts: it sets the load
     * path and reads RUBYOPT, so the floor runs the Ruby the server runs
     * (performance.bash turns YJIT on there) */
    ruby_options(3, (char *[]){"perffloor-ruby", "-e", "", NULL});
    rb_eval_string("class PerfFloorEmpty; def NTHT; end; end");
    ntht.obj = rb_eval_string("PerfFloorEmpty.new");
    rb_gc_register_mark_object(ntht.obj);
    ntht.mid = rb_intern("NTHT");
    if ((t = perffloor_measure(service, &ntht, &z, &n)) < 0) {
        report_exception("NTHT");
        return 1;
    }
    floor_report("floor-ruby", t, n, "");

    perffloor_define_nops();
    klass = rb_protect(load_server, rb_str_new_cstr(script), &state);
    if (state) {
        report_exception(script);
        return 1;
    }
    rb_gc_register_mark_object(klass);
    server = rb_class_new_instance(0, NULL, klass);
    rb_gc_register_mark_object(server);
    if (service_floors(server, t, &z) || child_floor(klass, &z))
        return 1;
    return ruby_cleanup(0);
}
