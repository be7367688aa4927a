/* version.c — the version of the installed library, as configure's AC_INIT
 * says it, so a program can report which library it runs against (not the
 * one it was compiled with). */
#include "config.h"

#include "mk_internal.h"

const char *
MkVersion(void)
{
    return PACKAGE_VERSION;
}
