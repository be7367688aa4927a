/* config_int.h — what the option loader (config_load.c) and the public
 * config-file API (config.c) share.  Never included outside link/config/. */
#ifndef MQI_CONFIG_INT_H
#define MQI_CONFIG_INT_H

#include <libconfig.h>

#include "mkkernel.h"

/* Parse file into c (initialised by the caller, destroyed by the caller
 * whatever the result).  Errors: "config FILE: strerror" for a file that
 * cannot be read, "FILE:LINE: libconfig's message" for a syntax error. */
MkErrorE mqi_cfg_read(config_t *c, const char *file, MK_I32 code, MkErrorC *err);
/* "FILE:LINE" of a setting, where fallback names the file when libconfig
 * does not know it; written into buf. */
const char *mqi_cfg_where(const config_setting_t *s, const char *fallback, char *buf,
                          size_t size);
/* A type's name for error texts ("an integer", "a string", "a group", ...). */
const char *mqi_cfg_type_name(int type);

#endif /* MQI_CONFIG_INT_H */
