/* log.c — one process-wide level and one line per message on stderr. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mk_internal.h"

/* -1 until first use, when MK_LOG_LEVEL (a number 0..4) may set it. */
static atomic_int log_level = -1;

static int
level_from_env(void)
{
    const char *s = getenv("MK_LOG_LEVEL");
    if (s == NULL || *s < '0' || *s > '9')
        return MK_LOG_WARN;
    int l = atoi(s);
    return l > MK_LOG_TRACE ? MK_LOG_TRACE : l;
}

void
MkLogSetLevel(int level)
{
    atomic_store_explicit(&log_level, level < 0 ? 0 : level, memory_order_relaxed);
}

int
MkLogGetLevel(void)
{
    int l = atomic_load_explicit(&log_level, memory_order_relaxed);
    if (l >= 0)
        return l;
    /* Lose gracefully to a concurrent MkLogSetLevel. */
    int expected = -1;
    atomic_compare_exchange_strong(&log_level, &expected, level_from_env());
    return atomic_load_explicit(&log_level, memory_order_relaxed);
}

void
MkLog(int level, const char *who, const char *fmt, ...)
{
    char line[2048];
    if (level > MkLogGetLevel())
        return;
    int n = snprintf(line, sizeof line, "[%s] ", who != NULL ? who : "mqlink");
    if (n < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m > 0 ? (size_t)m : 0);
    /* A long message is cut, but the line still ends with its newline. */
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    /* One write() so that lines from concurrent processes do not interleave. */
    ssize_t w;
    do
        w = write(STDERR_FILENO, line, len);
    while (w < 0 && errno == EINTR);
}
