/* pipe_test.c — the pipe transport (a client starting its server over a
 * socket pair): the conformance suite's pipe rows (tests/conformance.c). */
#include "config.h"

#include "conformance.h"

int
main(int argc, char **argv)
{
    static const char *const modes[] = {"pipe", NULL};
    return lt_conformance_main(argc, argv, modes, NULL);
}
