/* perffloor_nop.c — the binding as the floor sees it: module PerfFloor with
 * the classes perfserver.rb's services use (MqContextC, MkBufferStreamC,
 * MkBufferListC), each method a C function that does nothing, defined with
 * rb_define_method (rb_define_singleton_method for CreateTLS) and the arity
 * the generated glue gives it (wrappers/gen/mqgen/ruby.py: the number of
 * inputs, -1 for ServiceCreate and for the runtime's initialize).
 *
 * The loops of the services run as Ruby runs them, not unrolled: a `while`
 * is a branch in Ruby's bytecode, but BFLT's `times` is a C method calling
 * a block, and unrolling would leave that out.  So ReadItemExists says true
 * for perfclient's seven items (tests.c: send_bufs) and then false, each
 * receiver counting its own, and Size is 7. */
#include "perffloor.h"

#define ITEMS 7 /* what perfclient's --bus and --bfl send */

long perffloor_calls; /* one add per call: what is counted is the call */

static VALUE
nop0(VALUE self)
{
    perffloor_calls++;
    return Qnil;
}

static VALUE
nop1(VALUE self, VALUE a)
{
    perffloor_calls++;
    return Qnil;
}

static VALUE
nopv(int argc, VALUE *argv, VALUE self)
{
    perffloor_calls++;
    return Qnil;
}

/* true ITEMS times, then false once, again and again */
static int
item_exists(int *left)
{
    perffloor_calls++;
    if (*left == 0) {
        *left = ITEMS;
        return 0;
    }
    (*left)--;
    return 1;
}

static VALUE
ctx_items(VALUE self)
{
    static int left = ITEMS;
    return item_exists(&left) ? Qtrue : Qfalse;
}

static VALUE
stream_items(VALUE self)
{
    static int left = ITEMS;
    return item_exists(&left) ? Qtrue : Qfalse;
}

static VALUE
list_size(VALUE self)
{
    perffloor_calls++;
    return INT2FIX(ITEMS);
}

/* CreateTLS: the one object of the class, as the per-thread instance is */
static VALUE stream_tls, list_tls;

static VALUE
stream_create_tls(VALUE klass, VALUE name)
{
    perffloor_calls++;
    return stream_tls;
}

static VALUE
list_create_tls(VALUE klass, VALUE name)
{
    perffloor_calls++;
    return list_tls;
}

static VALUE
plain_class(VALUE module, const char *name, VALUE (*create)(VALUE, VALUE), VALUE *tls)
{
    VALUE c = rb_define_class_under(module, name, rb_cObject);
    rb_define_singleton_method(c, "CreateTLS", create, 1);
    *tls = rb_class_new_instance(0, NULL, c);
    rb_gc_register_mark_object(*tls);
    return c;
}

static void
context(VALUE module)
{
    static const char *const reads[] = {"ReadI8", "ReadI16", "ReadI32", "ReadDBL", "ReadBUFR",
                                        "SendSTART", "SendRETURN", NULL};
    static const char *const sends[] = {"SendI8", "SendI16", "SendI32", "SendDBL", "SendBUF",
                                        "ProxyItem", NULL};
    VALUE c = rb_define_class_under(module, "MqContextC", rb_cObject);

    rb_define_method(c, "initialize", nopv, -1);
    rb_define_method(c, "ServiceCreate", nopv, -1);
    rb_define_method(c, "ReadItemExists", ctx_items, 0);
    for (int i = 0; reads[i]; i++)
        rb_define_method(c, reads[i], nop0, 0);
    for (int i = 0; sends[i]; i++)
        rb_define_method(c, sends[i], nop1, 1);
}

void
perffloor_define_nops(void)
{
    VALUE module = rb_define_module("PerfFloor"), c;

    context(module);
    c = plain_class(module, "MkBufferStreamC", stream_create_tls, &stream_tls);
    rb_define_method(c, "WriteBUF", nop1, 1);
    rb_define_method(c, "PosToStart", nop0, 0);
    rb_define_method(c, "ReadItemExists", stream_items, 0);
    rb_define_method(c, "ReadBUF", nop0, 0);
    rb_define_method(c, "ReadBUFR", nop0, 0);
    c = plain_class(module, "MkBufferListC", list_create_tls, &list_tls);
    rb_define_method(c, "AppendBUF", nop1, 1);
    rb_define_method(c, "Size", list_size, 0);
    rb_define_method(c, "IndexGet", nop1, 1);
    rb_define_method(c, "IndexGetR", nop1, 1);
}
