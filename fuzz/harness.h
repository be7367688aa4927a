/* harness.h — the server fuzz_server feeds: perfserver's five services on
 * a real server instance (mqi_instance_serve, as --thread and --fork start
 * one per connection), served on one end of a socketpair. */
#ifndef MQ_FUZZ_HARNESS_H
#define MQ_FUZZ_HARNESS_H

#include <stddef.h>

#include "mqlink.h"

/* The listener-like template every instance is made from: services NTHT
 * RDUL ECUL BUST BFLT, --silent, a 1 s timeout.  Storage is not configured,
 * so a peer's _SID opens it in memory.  Made once, kept. */
MqContextC *fuzz_harness_template(void);

/* Write wire (preamble and frames) into a new server instance while a
 * thread drains its answers; returns when the instance has ended. */
void fuzz_harness_run(MqContextC *tmpl, const void *wire, size_t len);

#endif /* MQ_FUZZ_HARNESS_H */
