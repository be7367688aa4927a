/* perffloor.h — the parts of bin/perffloor-ruby (perffloor.c): the
 * measuring loop and the no-op binding the services' shapes call
 * (perffloor_nop.c). */
#ifndef MQRB_PERFFLOOR_H
#define MQRB_PERFFLOOR_H

#include <ruby.h>

#include "floor.h" /* perfclient/: floor_size, floor_done, floor_options, floor_report */

/* One operation into Ruby: 0 when it raised (the exception is reported). */
typedef int floor_op(void *arg);

/* Seconds per operation after a warm-up, -1 when it raised; count: how many. */
double perffloor_measure(floor_op *op, void *arg, const floor_size *z, long *count);

/* Module PerfFloor: MqContextC, MkBufferStreamC and MkBufferListC whose
 * methods are the ones perfserver.rb calls, each a C function that does
 * nothing, defined with the generated binding's arity. */
void perffloor_define_nops(void);

/* Calls of those methods so far: the commands= of a line. */
extern long perffloor_calls;

#endif
