/* linktest.h — helpers shared by the link tests: the transport × start-mode
 * table, and starting a test server with a client connected to it. */
#ifndef MQ_LINKTEST_H
#define MQ_LINKTEST_H

#include <stdint.h>
#include <sys/types.h>

#include "mqlink.h"
#include "testlib.h"

typedef struct lt_mode {
    const char *name;  /* pipe, uds_fork, ... */
    const char *tp;    /* NULL for pipe, "--uds", "--tcp" */
    const char *start; /* NULL, "--fork", "--thread", "--spawn" */
    int tls;           /* tcp over TLS with mutual authentication (lt_tls_dir) */
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

/* The test certificates (tests/tls_certs.sh): made on the first call, in a
 * directory removed when the process that made it exits; NULL and the case
 * failed when they could not be made.  Call it before mqt_main so that
 * every case shares one set. */
const char *lt_tls_dir(void);
/* dir/name of the test certificates, in a static buffer (one of 32). */
const char *lt_tls_file(const char *name);

/* Hand-made peers for hostile-input tests, on the Unix socket at path:
 * a connected socket with nothing sent, or with the handshake done by
 * hand (-1 and the case failed when it could not be). */
int lt_raw_socket(const char *path);
int lt_raw_connect(const char *path);
/* A frame header in this machine's byte order, transaction 1, child 0. */
void lt_frame_header(unsigned char *h, unsigned char kind, const char *token, uint32_t items,
                     uint32_t len);

/* What a server process holds: resident memory in kB, CPU time (user and
 * system) in ms; -1 when unknown. */
long lt_rss_kb(pid_t pid);
long lt_cpu_ms(pid_t pid);
/* True when the file (a server's log) contains what. */
int lt_file_mentions(const char *path, const char *what);
/* The same for the part of the file from byte offset on (what one case added). */
int lt_file_mentions_from(const char *path, long offset, const char *what);
/* The size of the file at path (0 when there is none). */
long lt_file_size(const char *path);
/* When the running case failed, show the file (a server's log) as TAP comments. */
void lt_dump_on_failure(const char *path);

#endif
