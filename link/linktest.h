/* linktest.h — helpers shared by the link tests: the transport × start-mode
 * table, and starting a test server with a client connected to it. */
#ifndef MQ_LINKTEST_H
#define MQ_LINKTEST_H

#include "mqlink.h"
#include "testlib.h"

typedef struct lt_mode {
    const char *name;  /* pipe, uds_fork, ... */
    const char *tp;    /* NULL for pipe, "--uds", "--tcp" */
    const char *start; /* NULL, "--fork", "--thread", "--spawn" */
} lt_mode;

extern const lt_mode lt_modes[];
const lt_mode *lt_mode_get(const char *name);

/* Start the server for mode (uds/tcp: launched listener) and return a
 * client linked to it; fails the case and returns NULL on error. */
MqContextC *lt_connect(const lt_mode *m);
/* Another client for the server lt_connect started last. */
MqContextC *lt_connect_again(void);
/* pid of the listener lt_connect launched (0 for pipe). */
pid_t lt_server_pid(void);
/* TCP port of the listener lt_connect launched (0 for pipe and uds). */
int lt_server_port(void);

#endif
