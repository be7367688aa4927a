/* module.c — loading a module (link_int.h, "modules"): where it is looked
 * for, and how a missing, broken or foreign one becomes an error at
 * LinkCreate that names the file, never a crash. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "link_int.h"

#define DIR_MAX 4096

/* The directory of the object this code is linked into (the shared
 * libmqlink), into out; 0 when it cannot be told. */
static const void *find_and_open(MqContextC *ctx, const char *name, const char *symbol);

static int
own_dir(char *out, size_t cap)
{
    Dl_info info;
    if (!dladdr((void *)find_and_open, &info) || !info.dli_fname)
        return 0;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash || (size_t)(slash - info.dli_fname) >= cap)
        return 0;
    snprintf(out, cap, "%.*s", (int)(slash - info.dli_fname), info.dli_fname);
    return 1;
}

static const void *
open_module(MqContextC *ctx, const char *path, const char *symbol)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot load the module %s: %s", path, dlerror());
        return NULL;
    }
    const mqi_module_head *t = dlsym(h, symbol);
    if (!t) {
        MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "%s is not an mqlink module (no %s in it)", path,
                   symbol);
    } else if (!t->version || strcmp(t->version, PACKAGE_VERSION) != 0) {
        MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "the module %s is of mqlink %s, this library is %s "
                   "(install both from one build)", path, t->version ? t->version : "(none)",
                   PACKAGE_VERSION);
    } else {
        return t;
    }
    dlclose(h);
    return NULL;
}

static const void *
find_and_open(MqContextC *ctx, const char *name, const char *symbol)
{
    char dir[2][DIR_MAX], lib[DIR_MAX - 16], path[DIR_MAX + 64];
    int n = 0;
    /* secure_getenv: a set-user-ID program loads no code a caller names */
    const char *env = secure_getenv("MQLINK_MODULE_DIR");
    if (env && strlen(env) >= DIR_MAX) {
        MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot find the module %s.so: MQLINK_MODULE_DIR "
                   "is longer than %d bytes", name, DIR_MAX - 1);
        return NULL;
    }
    if (env && *env) {
        snprintf(dir[n++], DIR_MAX, "%s", env);
    } else if (own_dir(lib, sizeof lib)) {
        snprintf(dir[n++], DIR_MAX, "%s/mqlink", lib);
        snprintf(dir[n++], DIR_MAX, "%s", lib);
    }
    for (int i = 0; i < n; i++) {
        /* a name too long for path is in no directory (not a shortened one) */
        if (snprintf(path, sizeof path, "%s/%s.so", dir[i], name) >= (int)sizeof path)
            continue;
        if (access(path, F_OK) == 0)
            return open_module(ctx, path, symbol);
    }
    if (n == 0)
        MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot find the module %s.so: the directory of "
                   "libmqlink is unknown (set MQLINK_MODULE_DIR)", name);
    else
        MkErrorSet(ctx->err, MQ_ERR_SYSTEM, "cannot find the module %s.so in %s%s%s%s", name,
                   dir[0], n > 1 ? " or " : "", n > 1 ? dir[1] : "",
                   env && *env ? " (MQLINK_MODULE_DIR)" : "");
    return NULL;
}

/* Two threads may both load at first: dlopen gives both the same table. */
const void *
mqi_module_load(MqContextC *ctx, const void **slot, const char *name, const char *symbol,
                const char *why)
{
    const void *t = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (t)
        return t;
    if (!(t = find_and_open(ctx, name, symbol))) {
        MkErrorStack(ctx->err, "%s", why);
        return NULL;
    }
    __atomic_store_n(slot, t, __ATOMIC_RELEASE);
    return t;
}
