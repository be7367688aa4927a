/* start.h — start modes: how a listening server runs the instance for each
 * accepted connection.  Every start mode plugs in through one table of
 * operations and declares its own option rows, like a transport; the
 * listener (listen.c) hands it what it needs in an mqi_listener, so a start
 * mode calls nothing in link.c or listen.c by name. */
#ifndef MQ_START_H
#define MQ_START_H

#include "link_int.h"
#include "option.h"
#include "transport/transport.h"

/* A start mode's id: its name's first four letters as one word.  Its option
 * row stores it into mqi_config.start (0: no start mode); names, and so ids,
 * are unique without a list of them. */
#define MQI_START_ID(a, b, c, d) \
    ((int)((unsigned)(a) | (unsigned)(b) << 8 | (unsigned)(c) << 16 | (unsigned)(d) << 24))

/* Connections refused past --max-connections, for the log. */
typedef struct mqi_refusals {
    MK_I64 logged_ms; /* when the last line went out, 0: never */
    unsigned long count; /* refused since */
} mqi_refusals;

/* What the listener gives a start mode: the template of its instances, the
 * listening socket and the three things a start mode does with them. */
typedef struct mqi_listener {
    MqContextC *tmpl;
    const mqi_transport *tp;
    int lfd;
    int inherit; /* accepted sockets inherit lfd's options (listen.c) */
    /* Accept one connection and tune it for tp: the fd, or -1 with errno
     * (EINTR only when the listener was told to stop; EAGAIN when lfd's
     * receive timeout passed). */
    int (*accept)(const struct mqi_listener *l);
    /* Create an instance for fd, serve it until its link ends, delete it. */
    void (*serve)(MqContextC *tmpl, int fd);
    /* Close fd, a connection past --max-connections with alive instances
     * running; logged at most once a second. */
    void (*refuse)(MqContextC *tmpl, mqi_refusals *r, int fd, int alive);
} mqi_listener;

typedef struct mqi_start_mode {
    int id;           /* MQI_START_ID of name */
    const char *name; /* as its option: --NAME */
    /* Before listening (spawn reads its own command line); may be NULL. */
    MkErrorE (*prepare)(MqContextC *tmpl);
    /* The listener accepted fd: start its instance, taking fd.  NULL for a
     * mode that accepts on its own (run). */
    MkErrorE (*start)(const mqi_listener *l, int fd);
    /* Start accepting and serving (the listener's thread then waits for
     * the stop signal); NULL when the listener accepts (start). */
    MkErrorE (*run)(const mqi_listener *l);
    /* The mode's own option rows (option.h), terminated by a row with name
     * NULL. */
    const mqi_option *options;
    /* Its instances are new programs (exec): what the listener holds in
     * memory reaches them only through cfg.secure.pass_fd (TLS keys). */
    int execs;
} mqi_start_mode;

extern const mqi_start_mode mqi_fork_start;
extern const mqi_start_mode mqi_thread_start;
extern const mqi_start_mode mqi_spawn_start;

/* The start mode of id, NULL for none. */
MQI_SHARED const mqi_start_mode *mqi_start_get(int id);
/* Every start mode, in registration order, NULL-terminated. */
const mqi_start_mode *const *mqi_start_modes(void);

#endif
