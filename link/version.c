/* version.c — MqVersion and the --version option every program built on
 * the link understands. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link_int.h"

const char *
MqVersion(void)
{
    return PACKAGE_VERSION;
}

/* `PROGRAM --version`: one line and exit 0, like --help.  PROGRAM is the
 * context's --name (or MqConfigSetName) when set, else argv[0]'s last part. */
void
mqi_version_exit(MqContextC *ctx, const char *argv0)
{
    const char *prog = ctx->cfg.name;
    if (!prog && argv0)
        prog = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
    printf("%s (mqlink %s)\n", prog ? prog : "mqlink", MqVersion());
    exit(0);
}
