/* perflimit.h — the machine's limits for the performance suite, measured
 * without mqlink: what the same work costs in raw system calls. */
#ifndef PERFLIMIT_H
#define PERFLIMIT_H

#include <stddef.h>

#include "clock.h"
#include "runs.h"

/* The transports, as the link's: pipe is a socketpair. */
typedef enum lim_transport { LIM_PIPE, LIM_UDS, LIM_TCP } lim_transport;

typedef struct lim_opts {
    lim_transport transport;
    size_t size;        /* bytes of a send/ECUL message */
    size_t size_empty;  /* bytes of an empty (NOTHING) message */
    size_t batch;       /* bytes per write() for lim_oneway, 0: one write per message */
    long num;           /* most operations per measurement */
    double sec;         /* most seconds per measurement */
    int peer_cpu;       /* CPU for the forked peer, -1: inherit */
    const char *exec;   /* program run as `PROG --version` for the spawn limit */
    const char *db;     /* scratch sqlite3 file for the persist limit (NULL: na.) */
    int sync_full;      /* --sync full (1, default) or normal (0) */
    int runs;           /* --runs: measurements per figure, the median printed */
    int wrk;            /* --wrk: client threads of the connect floors (1..LIM_MAX_WRK) */
} lim_opts;

#define LIM_MAX_WRK 64

/* One measured figure. */
typedef perf_run lim_result;

/* True while a loop that did n operations since t0 should go on. */
int lim_more(const lim_opts *o, long n, double t0);
/* Pin the calling process to cpu (cpu < 0: do nothing). */
void lim_pin(int cpu);

/* limit_io.c: all of size bytes read / written (EINTR retried); 0, or -1 at
 * an error or end of file. */
int lim_read_full(int fd, char *buf, size_t size);
int lim_write_full(int fd, const char *buf, size_t size);
/* limit_io.c: message limits over o->transport; 0 on success, -1 with errno. */
int lim_roundtrip(const lim_opts *o, lim_result *res);
int lim_oneway(const lim_opts *o, lim_result *res); /* o->size bytes, o->batch */

/* limit_start.c: start-up limits. */
int lim_fork(const lim_opts *o, lim_result *res);
int lim_spawn(const lim_opts *o, lim_result *res);
int lim_thread(const lim_opts *o, lim_result *res);
/* limit_sqlite.c: insert + commit of one row per operation into o->db. */
int lim_persist(const lim_opts *o, lim_result *res);
/* limit_connect.c: connect + handshake + close on o->transport (uds, tcp),
 * served in the accepting process (lim_connect) or by a child forked per
 * connection (lim_connect_fork), the server closing first; the _wait ones
 * with the server waiting for the client's close before its own, as a
 * link's server does. */
int lim_connect(const lim_opts *o, lim_result *res);
int lim_connect_fork(const lim_opts *o, lim_result *res);
int lim_connect_wait(const lim_opts *o, lim_result *res);
int lim_connect_fork_wait(const lim_opts *o, lim_result *res);
/* A TCP port on 127.0.0.1 that is free now (the kernel's choice), or -1. */
int lim_free_port(void);

#endif
