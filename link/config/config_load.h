/* config_load.h — link options from a libconfig file (--config FILE).
 *
 * The file holds global defaults at the top level and one group per program
 * name that overrides them:
 *
 *     timeout = 30;  buffersize = 65536;  storage = "/var/lib/app/calls.db";
 *     myclient: { timeout = 5; sync = "full"; };
 *
 * The keys are the link's options without "--", given by the caller (the
 * rows of link/option.h): a string or an integer where the option takes one,
 * a boolean for a flag (true gives the flag, false leaves it out), and for
 * sync "full" or "normal", or a boolean (true is "full").  Anything else is
 * an error naming
 * FILE:LINE and the key — in every group, not only the one selected, so a
 * typo never hides until the day its group is used.
 *
 * The link puts these options before the command line's, so the command line
 * overrides the file (its parser keeps the last value of an option). */
#ifndef MQI_CONFIG_LOAD_H
#define MQI_CONFIG_LOAD_H

#include <stddef.h>

#include "mkkernel.h"

typedef enum mqi_keytype { MQI_KEY_STR, MQI_KEY_INT, MQI_KEY_BOOL, MQI_KEY_SYNC } mqi_keytype;

/* A key a file may set; the option it becomes is "--" and the name. */
typedef struct mqi_cfgkey {
    const char *name;
    mqi_keytype type;
} mqi_cfgkey;

/* The most keys one call takes. */
#define MQI_CFG_MAXKEYS 64

/* Read file and return its options for program name (NULL: the global ones
 * only) as *argc_out strings in *argv_out, NULL-terminated, each option once,
 * in the order of keys, no program name in front.  On MK_OK the caller owns
 * *argv_out and frees it with mqi_config_argv_free; on MK_ERROR (reason in
 * err, code MQ_ERR_OPTION) nothing is returned. */
MkErrorE mqi_config_load(const char *file, const char *name, const mqi_cfgkey *keys,
                         size_t nkeys, int *argc_out, char ***argv_out, MkErrorC *err);
/* Free an argv returned by mqi_config_load (NULL is fine). */
void mqi_config_argv_free(char **argv);

#endif /* MQI_CONFIG_LOAD_H */
