/* testlib.h — the one registry of test helpers: a TAP runner that runs every
 * named case in its own process with a time limit, checks that report
 * file:line and keep going, and a launcher for server processes that always
 * has a timeout and always reaps what it started. */
#ifndef MQ_TESTLIB_H
#define MQ_TESTLIB_H

#include <stdio.h>
#include <sys/types.h>

typedef struct mqt_case {
    const char *name;
    void (*fn)(void);
} mqt_case;

/* Run the cases (terminated by {NULL, NULL}) and print TAP; each case runs in
 * a forked child killed after MQT_TIMEOUT seconds (env, default 60).  With an
 * argument, run only the cases whose name contains it.  Returns the exit code. */
int mqt_main(int argc, char **argv, const mqt_case *cases);

/* Record a failed check (used by the macros). */
void mqt_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Number of failed checks in the running case. */
int mqt_failures(void);

#define MQT_CHECK(cond)                                                     \
    do {                                                                    \
        if (!(cond)) mqt_fail(__FILE__, __LINE__, "check failed: %s", #cond); \
    } while (0)
#define MQT_CHECK_MSG(cond, ...)                                            \
    do {                                                                    \
        if (!(cond)) mqt_fail(__FILE__, __LINE__, __VA_ARGS__);             \
    } while (0)
/* Check that an MkErrorE call returns MK_OK; print text on failure. */
#define MQT_OK(call, errtext)                                               \
    do {                                                                    \
        if ((call) != MK_OK) mqt_fail(__FILE__, __LINE__, "%s: %s", #call, (errtext)); \
    } while (0)

/* Path of a file in the build tree (top_builddir from the environment). */
const char *mqt_build_path(const char *rel);
/* A fresh temporary path for a socket or file (removed by mqt_cleanup). */
const char *mqt_temp_path(const char *stem);
/* A fresh temporary directory, removed with its files by mqt_cleanup in the
 * process that made it (not in a child forked after), or when it exits. */
const char *mqt_temp_dir(const char *stem);
/* Each entry of dir but . and ..: fn(path, name, arg) when fn is not NULL;
 * returns how many there are (0 when dir cannot be read). */
int mqt_dir_each(const char *dir, void (*fn)(const char *path, const char *name, void *arg),
                 void *arg);
/* A free TCP port on 127.0.0.1. */
int mqt_free_port(void);

/* Start argv (argv[0] searched in PATH) in the background; it is killed
 * after timeout_s seconds at the latest, and by mqt_stop / at exit. */
pid_t mqt_launch(const char *const *argv, int timeout_s);
/* Wait until path exists (a socket file) or port accepts, up to timeout_ms. */
int mqt_wait_for_file(const char *path, int timeout_ms);
int mqt_wait_for_port(int port, int timeout_ms);
/* Stop a launched process (SIGTERM, then SIGKILL) and reap it; returns its status. */
int mqt_stop(pid_t pid);
/* Kill and reap everything launched, remove temporary files. */
void mqt_cleanup(void);

#endif
