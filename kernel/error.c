/* error.c — MkErrorC: an error code plus a growing text, and the calling
 * thread's default error where kernel calls leave their reason. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mk_internal.h"

/* A runaway MkErrorStack loop must not eat memory: text stops growing here. */
#define TEXT_MAX (64 * 1024)

/* An error's text is its own (cap > 0), none (text NULL), or fixed: a
 * string that lives as long as the program (mki_error_set_fixed, cap 0),
 * never written nor freed, copied before anything is added to it. */
static int
fixed(const MkErrorC *err)
{
    return err->cap == 0 && err->text != NULL;
}

/* Free err's text unless it is fixed (then it is not ours). */
static void
free_text(MkErrorC *err)
{
    if (!fixed(err))
        free(err->text);
}

/* Zero-initialised per thread; its text is allocated on the first Set. */
static _Thread_local MkErrorC tls_error;

MkErrorC *
MkErrorDEFAULT(void)
{
    return &tls_error;
}

void
mki_error_tls_free(void)
{
    free_text(&tls_error);
    memset(&tls_error, 0, sizeof tls_error);
}

MkErrorC *
MkErrorCreate(void)
{
    return calloc(1, sizeof(MkErrorC));
}

void
MkErrorDelete(MkErrorC *err)
{
    if (err == NULL || err == &tls_error)
        return;
    free_text(err);
    free(err);
}

void
mki_error_release(MkErrorC *err)
{
    free_text(err);
    memset(err, 0, sizeof *err);
}

/* Make room for need bytes (NUL included), never past TEXT_MAX; on ENOMEM
 * the text is truncated to what already fits. */
static size_t
room(MkErrorC *err, size_t need)
{
    if (need > TEXT_MAX)
        need = TEXT_MAX;
    if (need > err->cap) {
        const char *was = fixed(err) ? err->text : NULL;
        char *p = mki_grow(was ? NULL : err->text, &err->cap, need, 1);
        if (p != NULL && was)
            memcpy(p, was, err->len + 1);
        if (p != NULL)
            err->text = p;
    }
    return err->cap < TEXT_MAX ? err->cap : TEXT_MAX;
}

static void
append_v(MkErrorC *err, const char *fmt, va_list ap)
{
    /* a fixed text (a peer's ordinary close) is copied: no formatting pass */
    int plain = strchr(fmt, '%') == NULL;
    size_t n;
    if (plain) {
        n = strlen(fmt);
    } else {
        va_list aq;
        va_copy(aq, ap);
        int len = vsnprintf(NULL, 0, fmt, aq);
        va_end(aq);
        n = len > 0 ? (size_t)len : 0;
    }
    if (n == 0)
        return;
    size_t cap = room(err, err->len + n + 1);
    if (cap <= err->len + 1)
        return;
    size_t added = n < cap - err->len - 1 ? n : cap - err->len - 1;
    if (plain) {
        memcpy(err->text + err->len, fmt, added);
        err->text[err->len + added] = '\0';
    } else {
        vsnprintf(err->text + err->len, cap - err->len, fmt, ap);
    }
    err->len += added;
}

static void
append(MkErrorC *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    append_v(err, fmt, ap);
    va_end(ap);
}

MkErrorE
MkErrorSetV(MkErrorC *err, MK_I32 code, const char *fmt, va_list ap)
{
    if (err == NULL)
        err = &tls_error;
    MkErrorReset(err);
    err->code = code;
    append_v(err, fmt, ap);
    return MK_ERROR;
}

MkErrorE
MkErrorSet(MkErrorC *err, MK_I32 code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    MkErrorSetV(err, code, fmt, ap);
    va_end(ap);
    return MK_ERROR;
}

void
MkErrorStack(MkErrorC *err, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL)
        err = &tls_error;
    append(err, "\n  ");
    va_start(ap, fmt);
    append_v(err, fmt, ap);
    va_end(ap);
}

void
MkErrorReset(MkErrorC *err)
{
    if (err == NULL)
        err = &tls_error;
    err->code = 0;
    err->len = 0;
    if (fixed(err))
        err->text = NULL;
    else if (err->text != NULL)
        err->text[0] = '\0';
}

MkErrorE
mki_error_set_fixed(MkErrorC *err, MK_I32 code, const char *text)
{
    if (err->cap > 0) /* a buffer of its own already: no allocation either way */
        return MkErrorSet(err, code, "%s", text);
    err->code = code;
    err->text = (char *)text; /* never written: fixed() */
    err->len = strlen(text);
    return MK_ERROR;
}

void
MkErrorCopy(MkErrorC *dst, const MkErrorC *src)
{
    if (dst == NULL)
        dst = &tls_error;
    if (src == NULL)
        src = &tls_error;
    if (dst == src)
        return;
    MkErrorReset(dst);
    dst->code = src->code;
    append(dst, "%s", MkErrorGetText(src));
}

MK_BOL
MkErrorIsSet(const MkErrorC *err)
{
    if (err == NULL)
        err = &tls_error;
    return err->code != 0;
}

const char *
MkErrorGetText(const MkErrorC *err)
{
    if (err == NULL)
        err = &tls_error;
    return err->text != NULL ? err->text : "";
}

MK_I32
MkErrorGetCode(const MkErrorC *err)
{
    if (err == NULL)
        err = &tls_error;
    return err->code;
}
