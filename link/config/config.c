/* config.c — the proposed public config-file API (mqlink.h) and the
 * libconfig helpers the option loader shares. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config_int.h"
#include "mqlink.h"

struct MqConfigFileC {
    config_t c;
    char *file;   /* NULL until a Read succeeded */
};

/* ------------------------------------------------------------ shared helpers */

MkErrorE
mqi_cfg_read(config_t *c, const char *file, MK_I32 code, MkErrorC *err)
{
    struct stat st;
    FILE *f = file ? fopen(file, "r") : NULL;
    int e = f ? 0 : errno;
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
        e = EISDIR; /* fopen opens a directory; libconfig would say only "file I/O error" */
    if (f)
        fclose(f);
    if (!file)
        return MkErrorSet(err, MK_ERR_ARGUMENT, "config file: no file name");
    if (e)
        return MkErrorSet(err, code, "config file %s: %s", file, strerror(e));
    if (config_read_file(c, file) == CONFIG_TRUE)
        return MK_OK;
    if (config_error_type(c) == CONFIG_ERR_FILE_IO)
        return MkErrorSet(err, code, "config file %s: %s", file,
                          config_error_text(c) ? config_error_text(c) : "cannot be read");
    return MkErrorSet(err, code, "%s:%d: %s",
                      config_error_file(c) ? config_error_file(c) : file, config_error_line(c),
                      config_error_text(c) ? config_error_text(c) : "syntax error");
}

const char *
mqi_cfg_where(const config_setting_t *s, const char *fallback, char *buf, size_t size)
{
    const char *file = config_setting_source_file(s);
    snprintf(buf, size, "%s:%u", file ? file : fallback, config_setting_source_line(s));
    return buf;
}

const char *
mqi_cfg_type_name(int type)
{
    switch (type) {
    case CONFIG_TYPE_GROUP: return "a group";
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a float";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "a boolean";
    case CONFIG_TYPE_ARRAY: return "an array";
    case CONFIG_TYPE_LIST: return "a list";
    default: return "nothing";
    }
}

/* ---------------------------------------------------------------- the object */

MqConfigFileC *
MqConfigFileCreate(void)
{
    MqConfigFileC *cfg = calloc(1, sizeof *cfg);
    if (!cfg)
        return NULL;
    config_init(&cfg->c);
    return cfg;
}

void
MqConfigFileDelete(MqConfigFileC *cfg)
{
    if (!cfg)
        return;
    config_destroy(&cfg->c);
    free(cfg->file);
    free(cfg);
}

MkErrorE
MqConfigFileRead(MqConfigFileC *cfg, const char *file)
{
    char *name = file ? strdup(file) : NULL;
    MkErrorReset(MkErrorDEFAULT());
    config_destroy(&cfg->c);
    config_init(&cfg->c);
    free(cfg->file);
    cfg->file = NULL;
    if (file && !name)
        return MkErrorSet(MkErrorDEFAULT(), MK_ERR_MEMORY, "config file %s: out of memory", file);
    if (mqi_cfg_read(&cfg->c, file, MK_ERR_FORMAT, MkErrorDEFAULT()) != MK_OK) {
        config_destroy(&cfg->c);
        config_init(&cfg->c); /* a half-read file answers nothing */
        free(name);
        return MK_ERROR;
    }
    cfg->file = name;
    return MK_OK;
}

MK_BOL
MqConfigFileExists(MqConfigFileC *cfg, const char *path)
{
    return path && config_lookup(&cfg->c, path) != NULL;
}

#define TYPE(t) (1u << (t))

/* The setting at path: *s is NULL (and MK_OK) when absent; MK_ERROR when
 * present with a type outside the mask types. */
static MkErrorE
lookup(MqConfigFileC *cfg, const char *path, unsigned types, const char *want,
       config_setting_t **s)
{
    char where[512];
    MkErrorReset(MkErrorDEFAULT());
    *s = path ? config_lookup(&cfg->c, path) : NULL;
    if (!path)
        return MkErrorSet(MkErrorDEFAULT(), MK_ERR_ARGUMENT, "config: path is NULL");
    if (!*s || (TYPE(config_setting_type(*s)) & types))
        return MK_OK;
    return MkErrorSet(MkErrorDEFAULT(), MK_ERR_TYPE, "%s: '%s' is %s, not %s",
                      mqi_cfg_where(*s, cfg->file, where, sizeof where), path,
                      mqi_cfg_type_name(config_setting_type(*s)), want);
}

MkErrorE
MqConfigFileGetSTR(MqConfigFileC *cfg, const char *path, const char *def, const char **out)
{
    config_setting_t *s;
    if (lookup(cfg, path, TYPE(CONFIG_TYPE_STRING), "a string", &s) != MK_OK)
        return MK_ERROR;
    *out = s ? config_setting_get_string(s) : def;
    return MK_OK;
}

MkErrorE
MqConfigFileGetI64(MqConfigFileC *cfg, const char *path, MK_I64 def, MK_I64 *out)
{
    config_setting_t *s;
    unsigned ints = TYPE(CONFIG_TYPE_INT) | TYPE(CONFIG_TYPE_INT64);
    if (lookup(cfg, path, ints, "an integer", &s) != MK_OK)
        return MK_ERROR;
    *out = s ? (MK_I64)config_setting_get_int64(s) : def;
    return MK_OK;
}

MkErrorE
MqConfigFileGetBOL(MqConfigFileC *cfg, const char *path, MK_BOL def, MK_BOL *out)
{
    config_setting_t *s;
    if (lookup(cfg, path, TYPE(CONFIG_TYPE_BOOL), "a boolean", &s) != MK_OK)
        return MK_ERROR;
    *out = s ? config_setting_get_bool(s) != 0 : def;
    return MK_OK;
}

MkErrorE
MqConfigFileGetDBL(MqConfigFileC *cfg, const char *path, MK_DBL def, MK_DBL *out)
{
    config_setting_t *s;
    unsigned nums = TYPE(CONFIG_TYPE_FLOAT) | TYPE(CONFIG_TYPE_INT) | TYPE(CONFIG_TYPE_INT64);
    if (lookup(cfg, path, nums, "a number", &s) != MK_OK)
        return MK_ERROR;
    if (!s)
        *out = def;
    else if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
        *out = config_setting_get_float(s);
    else
        *out = (MK_DBL)config_setting_get_int64(s);
    return MK_OK;
}
