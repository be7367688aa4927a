/* config_load.c — link options from a libconfig file; see config_load.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"
#include "config_load.h"
#include "mqlink.h"

typedef enum keytype { T_STR, T_INT, T_BOOL, T_SYNC } keytype;

/* Every key a file may set; the option is "--" and the key.  The order here
 * is the order of the options returned. */
static const struct key {
    const char *name;
    keytype type;
} keys[] = {
    {"name", T_STR},     {"srvname", T_STR},  {"buffersize", T_INT}, {"timeout", T_INT},
    {"max-frame", T_INT}, {"debug", T_INT},   {"silent", T_BOOL},    {"storage", T_STR},
    {"sync", T_SYNC},    {"tcp", T_BOOL},     {"uds", T_BOOL},       {"host", T_STR},
    {"port", T_INT},     {"file", T_STR},     {"fork", T_BOOL},      {"thread", T_BOOL},
    {"spawn", T_BOOL},
    {"max-children", T_INT},
    {"max-senders", T_INT}, {"max-storage", T_INT},
    {"max-buffered", T_INT}, {"max-connections", T_INT}, {"idle-timeout", T_INT},
    {"frame-timeout", T_INT},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static const char *const wanted[] = {
    [T_STR] = "a string", [T_INT] = "an integer", [T_BOOL] = "a boolean",
    [T_SYNC] = "\"full\", \"normal\" or a boolean",
};

/* The values found so far, one slot per key; later groups override. */
typedef struct loader {
    const char *file;
    const config_setting_t *val[NKEYS];
    MkErrorC *err;
} loader;

static int
find_key(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].name, name))
            return (int)i;
    return -1;
}

static int
type_ok(keytype want, const config_setting_t *s)
{
    int t = config_setting_type(s);
    const char *v;
    switch (want) {
    case T_STR:
        return t == CONFIG_TYPE_STRING;
    case T_INT:
        return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
    case T_BOOL:
        return t == CONFIG_TYPE_BOOL;
    case T_SYNC:
        v = t == CONFIG_TYPE_STRING ? config_setting_get_string(s) : NULL;
        return t == CONFIG_TYPE_BOOL || (v && (!strcmp(v, "full") || !strcmp(v, "normal")));
    }
    return 0;
}

static MkErrorE
unknown(loader *l, const config_setting_t *s, const config_setting_t *group)
{
    char where[512], known[512] = "";
    for (size_t i = 0; i < NKEYS; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 keys[i].name);
    return MkErrorSet(l->err, MQ_ERR_OPTION, "%s: unknown key '%s'%s%s%s (known keys: %s)",
                      mqi_cfg_where(s, l->file, where, sizeof where), config_setting_name(s),
                      group ? " in group '" : "", group ? config_setting_name(group) : "",
                      group ? "'" : "", known);
}

/* Take the keys of group g (the root when group is NULL: its groups are the
 * per-name sections, skipped here) into l, checking names and types. */
static MkErrorE
take(loader *l, const config_setting_t *g, const config_setting_t *group)
{
    char where[512];
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        int k = find_key(config_setting_name(s));
        if (k < 0 && !group && config_setting_is_group(s))
            continue;
        if (k < 0)
            return unknown(l, s, group);
        if (!type_ok(keys[k].type, s))
            return MkErrorSet(l->err, MQ_ERR_OPTION, "%s: '%s' must be %s, not %s",
                              mqi_cfg_where(s, l->file, where, sizeof where), keys[k].name,
                              wanted[keys[k].type], mqi_cfg_type_name(config_setting_type(s)));
        l->val[k] = s;
    }
    return MK_OK;
}

/* Check every section; the one called name overrides the globals. */
static MkErrorE
sections(loader *l, const config_setting_t *root, const char *name)
{
    int n = config_setting_length(root);
    for (int i = 0; i < n; i++) {
        const config_setting_t *g = config_setting_get_elem(root, (unsigned)i);
        if (!config_setting_is_group(g) || find_key(config_setting_name(g)) >= 0)
            continue;
        loader check = {.file = l->file, .err = l->err};
        int chosen = name && !strcmp(name, config_setting_name(g));
        if (take(chosen ? l : &check, g, g) != MK_OK)
            return MK_ERROR;
    }
    return MK_OK;
}

/* One option (and its value) for key k; returns the number of strings added. */
static int
emit(char **argv, const struct key *k, const config_setting_t *s)
{
    char opt[64], num[32];
    const char *value = NULL;
    snprintf(opt, sizeof opt, "--%s", k->name);
    if (k->type == T_BOOL && !config_setting_get_bool(s))
        return 0;
    if (k->type == T_STR)
        value = config_setting_get_string(s);
    else if (k->type == T_INT && snprintf(num, sizeof num, "%lld", config_setting_get_int64(s)))
        value = num;
    else if (k->type == T_SYNC && config_setting_type(s) == CONFIG_TYPE_BOOL)
        value = config_setting_get_bool(s) ? "full" : "normal";
    else if (k->type == T_SYNC)
        value = config_setting_get_string(s);
    argv[0] = strdup(opt);
    if (value)
        argv[1] = strdup(value);
    return value ? 2 : 1;
}

static MkErrorE
build(loader *l, int *argc_out, char ***argv_out)
{
    char **argv = calloc(2 * NKEYS + 1, sizeof *argv);
    int argc = 0;
    if (!argv)
        return MkErrorSet(l->err, MK_ERR_MEMORY, "config %s: out of memory", l->file);
    for (size_t i = 0; i < NKEYS; i++)
        if (l->val[i])
            argc += emit(argv + argc, &keys[i], l->val[i]);
    for (int i = 0; i < argc; i++) {
        if (argv[i])
            continue;
        for (size_t j = 0; j < 2 * NKEYS; j++) /* past the hole, not only up to it */
            free(argv[j]);
        free(argv);
        return MkErrorSet(l->err, MK_ERR_MEMORY, "config %s: out of memory", l->file);
    }
    *argc_out = argc;
    *argv_out = argv;
    return MK_OK;
}

MkErrorE
mqi_config_load(const char *file, const char *name, int *argc_out, char ***argv_out,
                MkErrorC *err)
{
    config_t c;
    loader l = {.file = file, .err = err};
    MkErrorE rc;
    *argc_out = 0;
    *argv_out = NULL;
    config_init(&c);
    rc = mqi_cfg_read(&c, file, MQ_ERR_OPTION, err);
    if (rc == MK_OK)
        rc = take(&l, config_root_setting(&c), NULL);
    if (rc == MK_OK)
        rc = sections(&l, config_root_setting(&c), name);
    if (rc == MK_OK)
        rc = build(&l, argc_out, argv_out);
    config_destroy(&c);
    return rc;
}

void
mqi_config_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}
