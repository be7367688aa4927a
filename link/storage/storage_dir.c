/* storage_dir.c — files that come and go by name (MQI_STORAGE_REMOVABLE):
 * a receiver's per-sender file is opened by whichever instance of the
 * server the sender reaches, and removed by the instance that closes it
 * holding no call, while other instances (forked, threaded, spawned; the
 * same sender reconnecting) may be opening the same name.
 *
 * sqlite's lock is on the file, not on its name, so it cannot order the two
 * by itself: an opener that opened the name just before a removal waits for
 * the file's lock and then holds a removed file (what it stores is gone at
 * its close), and the remover's close deletes NAME-wal by name, which may be
 * a newer file's by then.  (Both happened under load: "I/O error ... No such
 * file or directory" on the receiver, a sender waiting for an answer that
 * never came.)  So opening and removing take turns on a lock on the
 * directory (flock): an opener holds it shared from opening the name until
 * it holds sqlite's lock, or finds that lock taken, closes and tries again
 * after releasing the directory; a remover holds it exclusively from the
 * moment it has decided to remove until its files are gone.  An opener
 * never waits for sqlite's lock while holding the directory's, and a remover
 * only waits for openers that do not wait, so no two wait on each other.
 * Neither waits for the directory's lock without bound (something outside
 * the library may hold it, or a process stopped while holding it): after
 * MQI_STORAGE_BUSY_MS an opener fails and a remover keeps the file.
 * When the directory cannot be opened for reading, the file is opened as
 * any other and never removed. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "storage_int.h"

char *
mqi_storage_dirname(const char *file)
{
    const char *slash = strrchr(file, '/');
    return !slash ? strdup(".") : slash == file ? strdup("/") : strndup(file, slash - file);
}

/* Between two tries: 1, 2, 4 ... 16 ms, and a part that differs between
 * processes and threads so that two openers of one new file do not keep
 * meeting. */
static void
pause_before_try(unsigned n, const void *who)
{
    long ms = 1L << (n < 4 ? n : 4);
    long us = ms * 1000 + (long)(((uintptr_t)who >> 4) ^ (unsigned)getpid()) % 1000;
    struct timespec ts = {us / 1000000, us % 1000000 * 1000};
    nanosleep(&ts, NULL);
}

enum { NO_DIR = -1, DIR_BUSY = -2 };

/* The directory of file, locked with how (LOCK_SH, LOCK_EX) by until (ms,
 * mqi_storage_now_ms); its descriptor, closed to release, or NO_DIR when it
 * cannot be opened or locked, DIR_BUSY when until passed. */
static int
dir_lock(const char *file, int how, MK_I64 until)
{
    char *dir = mqi_storage_dirname(file);
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    free(dir);
    for (unsigned n = 0; fd >= 0 && flock(fd, how | LOCK_NB) != 0; n++) {
        int busy = errno == EWOULDBLOCK;
        if (errno == EINTR)
            continue;
        if (!busy || mqi_storage_now_ms() >= until) {
            close(fd);
            return busy ? DIR_BUSY : NO_DIR;
        }
        pause_before_try(n, &fd);
    }
    return fd < 0 ? NO_DIR : fd;
}

MkErrorE
mqi_storage_open_removable(const char *file, int flags, mqi_storage **out, MkErrorC *err)
{
    MK_I64 until = mqi_storage_now_ms() + MQI_STORAGE_BUSY_MS;
    int busy = 0;
    for (unsigned n = 0;; n++) {
        int fd = dir_lock(file, LOCK_SH, until);
        if (fd == DIR_BUSY)
            return MkErrorSet(err, MQI_ERR_STORAGE,
                              "storage %s: its directory stayed locked for %d ms (removal lock)",
                              file, MQI_STORAGE_BUSY_MS);
        if (fd < 0)
            return mqi_storage_open_once(file, flags, MQI_STORAGE_BUSY_MS, out, NULL, err);
        MkErrorE rc = mqi_storage_open_once(file, flags, 0, out, &busy, err);
        close(fd);
        if (rc == MK_OK)
            (*out)->removable = 1;
        if (rc == MK_OK || !busy || mqi_storage_now_ms() >= until)
            return rc;
        pause_before_try(n, &busy);
    }
}

/* Close st and remove its files, under the directory's exclusive lock;
 * without the lock, close only (an empty file left is harmless). */
static MkErrorE
close_and_remove(mqi_storage *st, int *removed, MkErrorC *err)
{
    static const char *const side[] = {"", "-wal", "-shm", "-journal"};
    char path[4096];
    char *file = strdup(st->file);
    int fd = file ? dir_lock(file, LOCK_EX, mqi_storage_now_ms() + MQI_STORAGE_BUSY_MS) : -1;
    MkErrorE rc = mqi_storage_close(st, err); /* sqlite removes its -wal itself */
    if (rc == MK_OK && fd >= 0) {
        for (size_t i = 0; i < sizeof side / sizeof *side; i++)
            if (snprintf(path, sizeof path, "%s%s", file, side[i]) < (int)sizeof path)
                unlink(path);
        *removed = 1;
    }
    if (fd >= 0)
        close(fd);
    free(file);
    return rc;
}

MkErrorE
mqi_storage_close_if_empty(mqi_storage *st, int *removed, MkErrorC *err)
{
    int any = 1, ignored;
    removed = removed ? removed : &ignored;
    *removed = 0;
    if (!st || !st->removable)
        return mqi_storage_close(st, err);
    if (mqi_storage_commit(st, err) != MK_OK || mqi_storage_has_calls(st, &any, err) != MK_OK) {
        mqi_storage_close(st, NULL);
        return MK_ERROR;
    }
    return any ? mqi_storage_close(st, err) : close_and_remove(st, removed, err);
}
