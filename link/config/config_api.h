/* config_api.h — PROPOSED public API: typed reads from a libconfig file.
 *
 * Not installed yet.  Once accepted these declarations move into mqlink.h
 * (section "configuration files") and into the API description, so every
 * wrapper gets them as a ConfigFile class:
 *     MqConfigFileGetI64(cfg, "server.timeout", 30, &t)        C
 *     cfg.GetI64("server.timeout", 30)                         Python/Ruby/C++/Java
 *     $cfg GetI64 server.timeout 30                            Tcl
 *
 * Rules, once for the whole file:
 *  - A path is libconfig's: "timeout", "myclient.timeout", "hosts.[0]".
 *  - A path that is not in the file gives the default and MK_OK; a path
 *    whose value has another type is MK_ERROR naming FILE:LINE, the path and
 *    both types ("app.cfg:3: 'timeout' is a string, not an integer").  An
 *    integer is read as a double where a double is asked for, never the
 *    reverse.
 *  - Strings handed out are borrowed until the next Read or the Delete.
 *  - Every MK_ERROR leaves the reason on the object: MqConfigFileErrorGetText. */
#ifndef MQ_CONFIG_API_H
#define MQ_CONFIG_API_H

#include "mkkernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A parsed configuration file. */
typedef struct MqConfigFileC MqConfigFileC;

/* Create an empty configuration (no file read; every Get gives its default). */
MqConfigFileC *MqConfigFileCreate(void);
/* Free a configuration and everything borrowed from it. */
void MqConfigFileDelete(MqConfigFileC *cfg);
/* Read and parse file, replacing what was read before; a syntax error
 * reports FILE:LINE and libconfig's message. */
MkErrorE MqConfigFileRead(MqConfigFileC *cfg, const char *file);
/* True when path names a setting of the file. */
MK_BOL MqConfigFileExists(MqConfigFileC *cfg, const char *path);
/* The string at path, or def (which may be NULL) when path is absent. */
MkErrorE MqConfigFileGetSTR(MqConfigFileC *cfg, const char *path, const char *def,
                            const char **out);
/* The integer at path, or def when path is absent. */
MkErrorE MqConfigFileGetI64(MqConfigFileC *cfg, const char *path, MK_I64 def, MK_I64 *out);
/* The boolean at path, or def when path is absent. */
MkErrorE MqConfigFileGetBOL(MqConfigFileC *cfg, const char *path, MK_BOL def, MK_BOL *out);
/* The number at path (a float or an integer), or def when path is absent. */
MkErrorE MqConfigFileGetDBL(MqConfigFileC *cfg, const char *path, MK_DBL def, MK_DBL *out);
/* The error text of the last failed call ("" when none); borrowed. */
const char *MqConfigFileErrorGetText(MqConfigFileC *cfg);
/* The error code of the last failed call (0 when none). */
MK_I32 MqConfigFileErrorGetCode(MqConfigFileC *cfg);

#ifdef __cplusplus
}
#endif
#endif /* MQ_CONFIG_API_H */
