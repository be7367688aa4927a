/* storage_dir_test.c — a receiver's per-sender file removed by the handle
 * that holds it (mqi_storage_close_if_empty) while other processes open the
 * same name: nothing an opener writes is lost, no open fails for it, and an
 * empty file leaves nothing behind. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "storage.h"
#include "testlib.h"

static MkErrorC *err;
static char dir[256], file[300];

/* A directory of its own per case (mqt_cleanup removes it). */
static void
fresh_dir(void)
{
    snprintf(dir, sizeof dir, "%s", mqt_temp_dir("stdir"));
    snprintf(file, sizeof file, "%s/srv.db.peer", dir);
}

/* Entries in dir other than . and .. */
static int
entries(void)
{
    return mqt_dir_each(dir, NULL, NULL);
}

static mqi_storage *
open_removable(MkErrorC *e)
{
    mqi_storage *st = NULL;
    if (mqi_storage_open(file, MQI_STORAGE_REMOVABLE, &st, e) != MK_OK)
        return NULL;
    return st;
}

static MK_I64
pending_at_path(void)
{
    mqi_storage *st = NULL;
    MK_I64 n = -1;
    MQT_OK(mqi_storage_open(file, 0, &st, err), MkErrorGetText(err));
    if (st)
        MQT_OK(mqi_storage_pending_count(st, &n, err), MkErrorGetText(err));
    mqi_storage_close(st, err);
    return n;
}

/* An empty storage goes with every side file; one holding a call stays. */
static void
empty_removed(void)
{
    int removed = -1;
    MK_I64 id = 0;
    fresh_dir();
    mqi_storage *st = open_removable(err);
    MQT_CHECK_MSG(st != NULL, "%s", MkErrorGetText(err));
    MQT_OK(mqi_storage_close_if_empty(st, &removed, err), MkErrorGetText(err));
    MQT_CHECK_MSG(removed == 1 && entries() == 0, "removed %d, %d files left", removed,
                  entries());
    st = open_removable(err);
    MQT_OK(mqi_storage_put(st, "PERS", 0, 0, "x", 1, &id, err), MkErrorGetText(err));
    MQT_OK(mqi_storage_close_if_empty(st, &removed, err), MkErrorGetText(err));
    MQT_CHECK_MSG(removed == 0, "a storage holding a call was removed");
    MQT_CHECK_MSG(pending_at_path() == 1, "the call did not stay");
}

/* Store one call on a handle that opened the name and close it. */
static int
store_one(const char *body)
{
    MkErrorC *e = MkErrorCreate();
    mqi_storage *st = open_removable(e);
    MK_I64 id = 0;
    int ok = st && mqi_storage_put(st, "PERS", 0, 0, body, strlen(body), &id, e) == MK_OK &&
             mqi_storage_commit(st, e) == MK_OK;
    if (mqi_storage_close(st, e) != MK_OK)
        ok = 0;
    if (!ok)
        fprintf(stderr, "# %s: %s\n", body, MkErrorGetText(e));
    return ok;
}

/* A second instance of the same sender's receiver opens the name while the
 * first, which holds the file, is about to remove it: the second's call must
 * land in the file at that name, not in the removed one. */
static void
opener_during_removal(void)
{
    int ready[2];
    char c;
    fresh_dir();
    mqi_storage *st = open_removable(err);
    MQT_CHECK_MSG(st != NULL, "%s", MkErrorGetText(err));
    MQT_CHECK(pipe(ready) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        MQT_CHECK(write(ready[1], "r", 1) == 1);
        _exit(store_one("second") ? 0 : 1);
    }
    close(ready[1]);
    MQT_CHECK(read(ready[0], &c, 1) == 1);
    usleep(200000); /* the second is waiting for our lock by now, most likely */
    MQT_OK(mqi_storage_close_if_empty(st, NULL, err), MkErrorGetText(err));
    int status = -1;
    waitpid(pid, &status, 0);
    MQT_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the second failed: %d",
                  status);
    MQT_CHECK_MSG(pending_at_path() == 1, "the second's call is not in the file at the name");
    close(ready[0]);
}

enum { PROCS = 4, ROUNDS = 40, KEEP_EVERY = 10 };

/* Open the name, trying again while another process holds the file (four
 * processes taking turns on one file may wait longer than an open does). */
static mqi_storage *
open_in_turn(MkErrorC *e)
{
    mqi_storage *st = NULL;
    for (int i = 0; i < 600 && !(st = open_removable(e)); i++) {
        if (!strstr(MkErrorGetText(e), "is locked by another process"))
            break;
        usleep(50000);
    }
    return st;
}

/* One process's rounds: open, store a call, and either answer it and close
 * with removal, or (every KEEP_EVERY-th round) keep it.  A storage error
 * other than a lock held by another process fails the process. */
static int
rounds(int proc)
{
    MkErrorC *e = MkErrorCreate();
    char body[32];
    for (int r = 0; r < ROUNDS; r++) {
        mqi_storage *st = open_in_turn(e);
        MK_I64 id = 0;
        snprintf(body, sizeof body, "p%d-r%d", proc, r);
        if (!st || mqi_storage_put(st, "PERS", 0, 0, body, strlen(body), &id, e) != MK_OK ||
            mqi_storage_commit(st, e) != MK_OK ||
            (r % KEEP_EVERY != KEEP_EVERY - 1 && mqi_storage_done(st, id, e) != MK_OK) ||
            mqi_storage_close_if_empty(st, NULL, e) != MK_OK) {
            fprintf(stderr, "# %s: %s\n", body, MkErrorGetText(e));
            return 0;
        }
    }
    return 1;
}

/* Instances of one sender's receiver coming and going at once (fork or
 * thread servers, a sender that reconnects): every kept call is found. */
static void
many_instances(void)
{
    pid_t pid[PROCS];
    fresh_dir();
    for (int i = 0; i < PROCS; i++)
        if ((pid[i] = fork()) == 0)
            _exit(rounds(i) ? 0 : 1);
    for (int i = 0; i < PROCS; i++) {
        int status = -1;
        waitpid(pid[i], &status, 0);
        MQT_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process %d: %d", i,
                      status);
    }
    MK_I64 n = pending_at_path();
    MQT_CHECK_MSG(n == PROCS * (ROUNDS / KEEP_EVERY), "%lld of %d kept calls found", (long long)n,
                  PROCS * (ROUNDS / KEEP_EVERY));
}

/* The directory locked by something else (another program, a process
 * stopped while holding it): an open and a removal each give up after a
 * bounded wait instead of blocking for good; the removal keeps the file. */
static void
foreign_lock_bounded(void)
{
    int removed = -1;
    fresh_dir();
    mqi_storage *st = open_removable(err);
    MQT_CHECK_MSG(st != NULL, "%s", MkErrorGetText(err));
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    MQT_CHECK(fd >= 0 && flock(fd, LOCK_SH) == 0);
    alarm(20); /* a wait without bound ends the case here */
    MQT_OK(mqi_storage_close_if_empty(st, &removed, err), MkErrorGetText(err));
    MQT_CHECK_MSG(removed == 0 && entries() > 0, "removed %d under a foreign lock", removed);
    MQT_CHECK(flock(fd, LOCK_EX) == 0);
    MQT_CHECK_MSG(open_removable(err) == NULL, "opened under a foreign exclusive lock");
    MQT_CHECK_MSG(strstr(MkErrorGetText(err), "directory"), "error: %s", MkErrorGetText(err));
    alarm(0);
    close(fd);
    st = open_removable(err);
    MQT_CHECK_MSG(st != NULL, "%s", MkErrorGetText(err));
    MQT_OK(mqi_storage_close_if_empty(st, &removed, err), MkErrorGetText(err));
    MQT_CHECK_MSG(removed == 1 && entries() == 0, "removed %d, %d files left", removed, entries());
}

static const mqt_case cases[] = {
    {"an empty storage is removed with its side files, one with a call stays", empty_removed},
    {"an opener waiting during a removal gets the file at the name", opener_during_removal},
    {"four processes open, store, remove one name: no call lost", many_instances},
    {"a directory locked elsewhere bounds an open's and a removal's wait", foreign_lock_bounded},
    {NULL, NULL},
};

int
main(int argc, char **argv)
{
    err = MkErrorCreate();
    return mqt_main(argc, argv, cases);
}
