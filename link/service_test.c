/* service_test.c — a context's table of services: held in the context for
 * the first few (an instance allocates none for them), moved to the heap
 * when more come; every service found by its token before and after, each
 * callback's data freed exactly once. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "link_int.h"
#include "testlib.h"

enum { MANY = 20 }; /* more than the context holds */

static int freed[MANY + 1];

static void
count_free(void *data)
{
    freed[(int *)data - freed]++;
}

static MkErrorE
nothing(MqContextC *ctx, void *data)
{
    return MK_OK;
}

static void
token(char *out, int i)
{
    snprintf(out, 5, "S%03d", i);
}

/* MANY services on ctx, service i with data &freed[i]. */
static void
create_many(MqContextC *ctx)
{
    memset(freed, 0, sizeof freed);
    for (int i = 0; i < MANY; i++) {
        char t[5];
        token(t, i);
        MQT_OK(MqServiceCreate(ctx, t, nothing, &freed[i], count_free), MqErrorGetText(ctx));
    }
    MQT_CHECK(ctx->nsvc == MANY && ctx->svc != ctx->svc_inline);
}

static void
found_after_growing(void)
{
    MqContextC *ctx = MqContextCreate();
    create_many(ctx);
    /* replacing a service frees its old data once, adds no entry */
    MQT_OK(MqServiceCreate(ctx, "S003", nothing, &freed[MANY], count_free), MqErrorGetText(ctx));
    MQT_CHECK(freed[3] == 1 && ctx->nsvc == MANY);
    for (int i = 0; i < MANY; i++) { /* each found by its token, once */
        char t[5];
        token(t, i);
        MQT_CHECK_MSG(MqServiceDelete(ctx, t) == MK_OK, "%s not found", t);
        MQT_CHECK_MSG(MqServiceDelete(ctx, t) == MK_ERROR, "%s deleted twice", t);
    }
    MQT_CHECK(ctx->nsvc == 0);
    for (int i = 0; i <= MANY; i++)
        MQT_CHECK_MSG(freed[i] == 1, "data %d freed %d times", i, freed[i]);
    MqContextDelete(ctx);
}

static void
freed_with_the_context(void)
{
    MqContextC *few = MqContextCreate(), *many = MqContextCreate();
    MQT_OK(MqServiceCreate(few, "ONE_", nothing, &freed[0], count_free), MqErrorGetText(few));
    MQT_CHECK(few->svc == few->svc_inline);
    MqContextDelete(few); /* the table in the context: nothing to free but the data */
    MQT_CHECK(freed[0] == 1);
    create_many(many);
    MqContextDelete(many);
    for (int i = 0; i < MANY; i++)
        MQT_CHECK_MSG(freed[i] == 1, "data %d freed %d times", i, freed[i]);
}

static const mqt_case cases[] = {
    {"services past the context's table are found by their token", found_after_growing},
    {"a context's services are freed with it, once each", freed_with_the_context},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
