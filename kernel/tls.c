/* tls.c — the per-thread registry behind MkBufferStreamCreateTLS and
 * MkBufferListCreateTLS: a short list of named objects owned by the thread. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mk_internal.h"

typedef struct tls_entry {
    struct tls_entry *next;
    int kind;
    char *name;
    void *obj;
    void (*destroy)(void *);
} tls_entry;

/* A thread uses a handful of names, so a linked list beats a hash table. */
static _Thread_local tls_entry *entries;

void *
mki_tls_find(int kind, const char *name)
{
    for (tls_entry *e = entries; e != NULL; e = e->next)
        if (e->kind == kind && strcmp(e->name, name) == 0)
            return e->obj;
    return NULL;
}

MkErrorE
mki_tls_add(int kind, const char *name, void *obj, void (*destroy)(void *))
{
    tls_entry *e = malloc(sizeof *e);
    char *copy = strdup(name);
    if (e == NULL || copy == NULL) {
        free(e);
        free(copy);
        return MkErrorSet(NULL, MK_ERR_MEMORY, "out of memory registering \"%s\"", name);
    }
    e->kind = kind;
    e->name = copy;
    e->obj = obj;
    e->destroy = destroy;
    e->next = entries;
    entries = e;
    return MK_OK;
}

void
mki_tls_free_all(void)
{
    while (entries != NULL) {
        tls_entry *e = entries;
        entries = e->next;
        e->destroy(e->obj);
        free(e->name);
        free(e);
    }
    mki_error_tls_free();
}
