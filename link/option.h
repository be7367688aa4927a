/* option.h — one row per link option: its name (which is also its key in a
 * --config file), its value, its --help text and the field of mqi_config it
 * sets.  The command line, --help and the config-file keys all read these
 * rows, so an option added here appears in all three (option_test checks).
 * options.c holds the rows of the core; each transport and each start mode
 * declares its own rows beside its table of operations (mqi_transport.options,
 * mqi_start_mode.options). */
#ifndef MQ_OPTION_H
#define MQ_OPTION_H

#include <stddef.h>
#include <stdio.h>

#include "config/config_load.h"
#include "link_int.h"

typedef enum mqi_optkind {
    MQI_OPT_FLAG,   /* no value: stores .val into an int-sized field */
    MQI_OPT_STR,    /* a non-empty string, copied into a char * field */
    MQI_OPT_INT,    /* a number from .min to .max, times .scale, into an integer field */
    MQI_OPT_NUMSTR, /* a number from .min to .max, kept as its text (a port) */
    MQI_OPT_SYNC,   /* full | normal into sync_full */
    MQI_OPT_CONFIG, /* --config FILE: read before the command line, not a key */
    MQI_OPT_HELP,   /* --help: print the rows and exit, not a key */
    MQI_OPT_VERSION, /* --version: print the program and mqlink version and exit, not a key */
} mqi_optkind;

/* Flags of a row. */
enum {
    MQI_OPT_CLI_ONLY = 1, /* not a config-file key */
    MQI_OPT_HIDDEN = 2,   /* not in --help: set by the link for a program it starts */
};

typedef struct mqi_option {
    const char *name; /* without the leading "--" */
    mqi_optkind kind;
    const char *arg;  /* the value's name in --help (NULL for FLAG) */
    const char *help; /* "\n" starts a continuation line */
    long long min, max;
    long long scale;  /* INT: the field holds value * scale (seconds -> ms); 0 is 1 */
    size_t offset, size; /* the field of mqi_config (MQI_FIELD) */
    int val;          /* FLAG: the value stored */
    const char *unavailable; /* set: the option is refused, "needs <this>" */
    int flags;
} mqi_option;

#define MQI_FIELD(f) .offset = offsetof(mqi_config, f), .size = sizeof(((mqi_config *)0)->f)

/* The i-th list of rows, terminated by a row with name NULL: 0 is the
 * core's, then one per transport and one per start mode in registration
 * order, then the program's (--config, --help, --version); NULL past the last.
 * Their order is the order of --help and of the options a config file gives. */
const mqi_option *mqi_option_list(size_t i);

/* The row called name (without "--"), NULL if there is none. */
const mqi_option *mqi_option_find(const char *name);

/* The config-file keys: every row a file may set, in the rows' order; at
 * most max of them.  Returns their number. */
size_t mqi_option_keys(mqi_cfgkey *keys, size_t max);

/* Write --help to f. */
void mqi_option_help(FILE *f);

#endif /* MQ_OPTION_H */
