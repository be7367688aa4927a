/* linktest.c — see linktest.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linktest.h"

const lt_mode lt_modes[] = {
    {"pipe", NULL, NULL},
    {"uds_fork", "--uds", "--fork"},
    {"uds_thread", "--uds", "--thread"},
    {"uds_spawn", "--uds", "--spawn"},
    {"tcp_fork", "--tcp", "--fork"},
    {"tcp_thread", "--tcp", "--thread"},
    {"tcp_spawn", "--tcp", "--spawn"},
    {NULL, NULL, NULL},
};

static const char *args[12];
static int nargs;
static char where[256];
static pid_t server;

const lt_mode *
lt_mode_get(const char *name)
{
    for (const lt_mode *m = lt_modes; m->name; m++)
        if (!strcmp(m->name, name))
            return m;
    return NULL;
}

MqContextC *
lt_connect_again(void)
{
    MqContextC *ctx = MqContextCreate();
    if (MqLinkCreate(ctx, nargs, args) != MK_OK) {
        mqt_fail(__FILE__, __LINE__, "LinkCreate: %s", MqErrorGetText(ctx));
        MqContextDelete(ctx);
        return NULL;
    }
    return ctx;
}

static int
launch(const lt_mode *m, const char *srv)
{
    char port[16];
    int isuds = !strcmp(m->tp, "--uds");
    if (isuds) {
        snprintf(where, sizeof where, "%s", mqt_temp_path("sock"));
    } else {
        snprintf(port, sizeof port, "%d", mqt_free_port());
        snprintf(where, sizeof where, "%s", port);
    }
    const char *argv[] = {srv, m->tp, isuds ? "--file" : "--port", where, m->start, NULL};
    server = mqt_launch(argv, 120);
    int ok = isuds ? mqt_wait_for_file(where, 5000) : mqt_wait_for_port(atoi(where), 5000);
    if (ok != 0) {
        mqt_fail(__FILE__, __LINE__, "server for %s did not come up", m->name);
        return -1;
    }
    nargs = 0;
    args[nargs++] = "client";
    args[nargs++] = m->tp;
    args[nargs++] = isuds ? "--file" : "--port";
    args[nargs++] = where;
    return 0;
}

MqContextC *
lt_connect(const lt_mode *m)
{
    static char srv[1024];
    snprintf(srv, sizeof srv, "%s", mqt_build_path("link/testserver"));
    server = 0;
    if (!m->tp) {
        nargs = 0;
        args[nargs++] = "client";
        args[nargs++] = "@";
        args[nargs++] = srv;
    } else if (launch(m, srv) != 0) {
        return NULL;
    }
    return lt_connect_again();
}

pid_t
lt_server_pid(void)
{
    return server;
}

int
lt_server_port(void)
{
    return server && nargs == 4 && !strcmp(args[1], "--tcp") ? atoi(where) : 0;
}
