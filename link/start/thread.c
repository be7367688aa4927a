/* thread.c — the --thread start mode: one detached thread per connection.
 * The template is only read by the threads; each instance is the thread's
 * own, and so are the thread's cached streams, freed when it ends. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "start.h"

#ifdef MQ_HAVE_THREADS
#include <pthread.h>

struct job {
    MqContextC *tmpl;
    int fd;
};

static void *
run(void *arg)
{
    struct job job = *(struct job *)arg;
    free(arg);
    mqi_instance_serve(job.tmpl, job.fd);
    mki_tls_free_all();
    return NULL;
}

MkErrorE
mqi_start_thread(MqContextC *tmpl, int fd)
{
    pthread_t t;
    pthread_attr_t attr;
    struct job *job = malloc(sizeof *job);
    int e = job ? 0 : 12;
    if (job) {
        *job = (struct job){tmpl, fd};
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        e = pthread_create(&t, &attr, run, job);
        pthread_attr_destroy(&attr);
    }
    if (e) {
        free(job);
        close(fd);
        return MkErrorSet(tmpl->err, MQ_ERR_SYSTEM, "cannot start a thread: %s", strerror(e));
    }
    return MK_OK;
}
#else
MkErrorE
mqi_start_thread(MqContextC *tmpl, int fd)
{
    close(fd);
    return MkErrorSet(tmpl->err, MQ_ERR_OPTION, "--thread needs a build with threads");
}
#endif
