/* perffloor.c — the Ruby floor of the performance suite: C calling an empty
 * Ruby service N times through the path the runtime takes for every
 * service (rb_protect around rb_funcallv on the instance, callback.c), after
 * a warm-up.  Prints one line in perfclient's format:
 *
 *   floor-ruby ops/s=X count=N sec=S
 *
 *   perffloor-ruby [--num N] [--sec S]      (default --sec 0.4) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ruby.h>

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static ID id_ntht;

static VALUE
call(VALUE obj)
{
    return rb_funcallv(obj, id_ntht, 0, NULL);
}

/* One service call as callback.c makes it; 0 when it raised. */
static int
service(VALUE obj)
{
    int state = 0;
    rb_protect(call, obj, &state);
    return !state;
}

int
main(int argc, char **argv)
{
    long num = 0, count = 0;
    double sec = 0.4, t0, t;
    VALUE obj;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--num"))
            num = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--sec"))
            sec = atof(argv[i + 1]);
    }
    ruby_init();
    ruby_init_loadpath();
    rb_eval_string("class PerfFloor; def NTHT; end; end");
    obj = rb_eval_string("PerfFloor.new");
    rb_gc_register_mark_object(obj);
    id_ntht = rb_intern("NTHT");
    for (int i = 0; i < 100000; i++) /* warm-up: method cache, inline caches */
        service(obj);
    t0 = now();
    do {
        for (int i = 0; i < 10000; i++)
            count += service(obj);
        t = now() - t0;
    } while (num ? count < num : t < sec);
    printf("floor-ruby ops/s=%.0f count=%ld sec=%.3f\n", count / t, count, t);
    return ruby_cleanup(0);
}
