/* start_test.c — the start modes (--fork, --thread, --spawn) over both
 * socket transports: the conformance suite's rows for each pair
 * (tests/conformance.c); fork_test.c has what only --fork does. */
#include "config.h"

#include "conformance.h"

int
main(int argc, char **argv)
{
    static const char *const modes[] = {"uds_fork", "uds_thread", "uds_spawn", "tcp_fork",
                                        "tcp_thread", "tcp_spawn", NULL};
    return lt_conformance_main(argc, argv, modes, NULL);
}
