/* config_load.c — link options from a libconfig file; see config_load.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"
#include "config_load.h"
#include "mqlink.h"

static const char *const wanted[] = {
    [MQI_KEY_STR] = "a string", [MQI_KEY_INT] = "an integer", [MQI_KEY_BOOL] = "a boolean",
    [MQI_KEY_SYNC] = "\"full\", \"normal\" or a boolean",
};

/* The values found so far, one slot per key; later groups override. */
typedef struct loader {
    const char *file;
    const mqi_cfgkey *keys;
    size_t nkeys;
    const config_setting_t *val[MQI_CFG_MAXKEYS];
    MkErrorC *err;
} loader;

static int
find_key(const loader *l, const char *name)
{
    for (size_t i = 0; i < l->nkeys; i++)
        if (!strcmp(l->keys[i].name, name))
            return (int)i;
    return -1;
}

static int
type_ok(mqi_keytype want, const config_setting_t *s)
{
    int t = config_setting_type(s);
    const char *v;
    switch (want) {
    case MQI_KEY_STR:
        return t == CONFIG_TYPE_STRING;
    case MQI_KEY_INT:
        return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
    case MQI_KEY_BOOL:
        return t == CONFIG_TYPE_BOOL;
    case MQI_KEY_SYNC:
        v = t == CONFIG_TYPE_STRING ? config_setting_get_string(s) : NULL;
        return t == CONFIG_TYPE_BOOL || (v && (!strcmp(v, "full") || !strcmp(v, "normal")));
    }
    return 0;
}

static MkErrorE
unknown(loader *l, const config_setting_t *s, const config_setting_t *group)
{
    char where[512], known[512] = "";
    for (size_t i = 0; i < l->nkeys; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 l->keys[i].name);
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
        int k = find_key(l, config_setting_name(s));
        if (k < 0 && !group && config_setting_is_group(s))
            continue;
        if (k < 0)
            return unknown(l, s, group);
        if (!type_ok(l->keys[k].type, s))
            return MkErrorSet(l->err, MQ_ERR_OPTION, "%s: '%s' must be %s, not %s",
                              mqi_cfg_where(s, l->file, where, sizeof where), l->keys[k].name,
                              wanted[l->keys[k].type], mqi_cfg_type_name(config_setting_type(s)));
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
        if (!config_setting_is_group(g) || find_key(l, config_setting_name(g)) >= 0)
            continue;
        loader check = {.file = l->file, .keys = l->keys, .nkeys = l->nkeys, .err = l->err};
        int chosen = name && !strcmp(name, config_setting_name(g));
        if (take(chosen ? l : &check, g, g) != MK_OK)
            return MK_ERROR;
    }
    return MK_OK;
}

/* One option (and its value) for key k; returns the number of strings added. */
static int
emit(char **argv, const mqi_cfgkey *k, const config_setting_t *s)
{
    char opt[64], num[32];
    const char *value = NULL;
    snprintf(opt, sizeof opt, "--%s", k->name);
    if (k->type == MQI_KEY_BOOL && !config_setting_get_bool(s))
        return 0;
    if (k->type == MQI_KEY_STR)
        value = config_setting_get_string(s);
    else if (k->type == MQI_KEY_INT && snprintf(num, sizeof num, "%lld", config_setting_get_int64(s)))
        value = num;
    else if (k->type == MQI_KEY_SYNC && config_setting_type(s) == CONFIG_TYPE_BOOL)
        value = config_setting_get_bool(s) ? "full" : "normal";
    else if (k->type == MQI_KEY_SYNC)
        value = config_setting_get_string(s);
    argv[0] = strdup(opt);
    if (value)
        argv[1] = strdup(value);
    return value ? 2 : 1;
}

static MkErrorE
build(loader *l, int *argc_out, char ***argv_out)
{
    char **argv = calloc(2 * l->nkeys + 1, sizeof *argv);
    int argc = 0;
    if (!argv)
        return MkErrorSet(l->err, MK_ERR_MEMORY, "config %s: out of memory", l->file);
    for (size_t i = 0; i < l->nkeys; i++)
        if (l->val[i])
            argc += emit(argv + argc, &l->keys[i], l->val[i]);
    for (int i = 0; i < argc; i++) {
        if (argv[i])
            continue;
        for (size_t j = 0; j < 2 * l->nkeys; j++) /* past the hole, not only up to it */
            free(argv[j]);
        free(argv);
        return MkErrorSet(l->err, MK_ERR_MEMORY, "config %s: out of memory", l->file);
    }
    *argc_out = argc;
    *argv_out = argv;
    return MK_OK;
}

MkErrorE
mqi_config_load(const char *file, const char *name, const mqi_cfgkey *keys, size_t nkeys,
                int *argc_out, char ***argv_out, MkErrorC *err)
{
    config_t c;
    loader l = {.file = file, .keys = keys, .nkeys = nkeys, .err = err};
    MkErrorE rc;
    *argc_out = 0;
    *argv_out = NULL;
    if (nkeys > MQI_CFG_MAXKEYS)
        return MkErrorSet(err, MK_ERR_ARGUMENT, "config %s: %zu keys, at most %d", file, nkeys,
                          MQI_CFG_MAXKEYS);
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
