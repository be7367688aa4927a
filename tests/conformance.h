/* conformance.h — the conformance suite (conformance.c), one row per case
 * and mode (pipe, uds_fork, uds_thread, uds_spawn, tcp_fork, tcp_thread,
 * tcp_spawn; the thread rows only in builds with threads).  A folder's test
 * runs the rows of its own modes, so every row runs once, beside the code it
 * checks, and no folder copies a case. */
#ifndef LT_CONFORMANCE_H
#define LT_CONFORMANCE_H

#include "testlib.h"

/* mqt_main over the cases own (NULL-terminated, may be NULL) followed by the
 * conformance rows of modes (NULL-terminated). */
int lt_conformance_main(int argc, char **argv, const char *const *modes, const mqt_case *own);

#endif /* LT_CONFORMANCE_H */
