/* kv_server.c — a key-value service: SET key value, GET key, DEL key.
 *
 *   ./kv_client @ ./kv_server                       (the client starts it)
 *   ./kv_server --uds --file /tmp/kv --fork &       (or it listens)
 *   ./kv_client --uds --file /tmp/kv
 *
 * The store belongs to the server process: every instance in it (the
 * parent's and each child's) sees the same keys.  With --fork every
 * connection gets a process, so a store of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mqlink.h>

struct entry { char *key, *value; struct entry *next; };
static struct entry *store;

static struct entry **
find(const char *key)
{
    struct entry **e = &store;
    while (*e && strcmp((*e)->key, key) != 0)
        e = &(*e)->next;
    return e;
}

/* SET key value: no answer items */
static MkErrorE
set(MqContextC *ctx, void *data)
{
    const char *key, *value;
    (void)data;
    if (MqReadSTR(ctx, &key) != MK_OK)
        return MK_ERROR;
    char *k = strdup(key);  /* the next read may reuse key's memory */
    if (MqReadSTR(ctx, &value) != MK_OK) {
        free(k);
        return MK_ERROR;
    }
    struct entry **e = find(k);
    if (*e) {
        free(k);
        free((*e)->value);
    } else {
        *e = calloc(1, sizeof **e);
        (*e)->key = k;
    }
    (*e)->value = strdup(value);
    MqSendSTART(ctx);
    return MqSendRETURN(ctx);
}

/* GET key: the value, or an error naming the key */
static MkErrorE
get(MqContextC *ctx, void *data)
{
    const char *key;
    (void)data;
    if (MqReadSTR(ctx, &key) != MK_OK)
        return MK_ERROR;
    struct entry *e = *find(key);
    if (!e)
        return MqErrorSet(ctx, MK_ERR_USER, "no key '%s'", key);
    MqSendSTART(ctx);
    MqSendSTR(ctx, e->value);
    return MqSendRETURN(ctx);
}

/* DEL key: 1 when the key was there, else 0 */
static MkErrorE
del(MqContextC *ctx, void *data)
{
    const char *key;
    (void)data;
    if (MqReadSTR(ctx, &key) != MK_OK)
        return MK_ERROR;
    struct entry **e = find(key), *gone = *e;
    if (gone) {
        *e = gone->next;
        free(gone->key);
        free(gone->value);
        free(gone);
    }
    MqSendSTART(ctx);
    MqSendI32(ctx, gone != NULL);
    return MqSendRETURN(ctx);
}

/* runs for every new instance: the parent's and each child's */
static MkErrorE
setup(MqContextC *ctx, void *data)
{
    (void)data;
    if (MqServiceCreate(ctx, "SET_", set, NULL, NULL) != MK_OK ||
        MqServiceCreate(ctx, "GET_", get, NULL, NULL) != MK_OK ||
        MqServiceCreate(ctx, "DEL_", del, NULL, NULL) != MK_OK)
        return MK_ERROR;
    return MK_OK;
}

int
main(int argc, char **argv)
{
    MqContextC *ctx = MqContextCreate();
    MqConfigSetServerSetup(ctx, setup, NULL, NULL);
    MkErrorE rc = MqLinkCreate(ctx, argc, (const char **)argv);
    if (rc == MK_OK)
        rc = MqProcessEvent(ctx, MQ_WAIT_FOREVER, MQ_TIMEOUT_DEFAULT);
    if (rc == MK_ERROR)
        fprintf(stderr, "kv_server: %s\n", MqErrorGetText(ctx));
    MqContextDelete(ctx);
    return rc == MK_ERROR;
}
