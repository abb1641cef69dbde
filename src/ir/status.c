#include "status.h"

#include <stdarg.h>
#include <string.h>

pz_status pz_fail(pz_err *err, pz_status code, const char *fmt, ...)
{
    if (err && err->code == PZ_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

int pz_exit_code(pz_status s)
{
    switch (s) {
    case PZ_OK: return 0;
    case PZ_ERR_INPUT:
    case PZ_ERR_UNSUPPORTED: return 2;
    default: return 1;
    }
}

static void oom(size_t n)
{
    fprintf(stderr, "paleozoic: internal error: out of memory allocating %zu bytes\n", n);
    exit(1);
}

void *pz_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

void *pz_xcheck(void *p, size_t n)
{
    if (!p) oom(n);
    return p;
}

void *pz_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom(n * size);
    return p;
}

void *pz_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) oom(n);
    return q;
}

char *pz_xstrdup(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = pz_xmalloc(n);
    memcpy(d, s ? s : "", n);
    return d;
}
