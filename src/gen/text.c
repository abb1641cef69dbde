/* text.c - text buffer, C literals and line counts for the emitters. */
#include "text.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void gt_printf(gen_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) return;
    if (t->n + (size_t)need + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->n + (size_t)need + 1) cap *= 2;
        t->s = pz_xrealloc(t->s, cap);
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->n, (size_t)need + 1, fmt, ap);
    va_end(ap);
    t->n += (size_t)need;
}

void gt_puts(gen_text *t, const char *s)
{
    gt_printf(t, "%s", s);
}

void gt_cstr(gen_text *t, const char *s)
{
    gt_puts(t, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') gt_printf(t, "\\%c", *p);
        else if (*p == '?' && p[1] == '?') gt_puts(t, "\\?");   /* no trigraphs */
        else if (*p < 0x20 || *p == 0x7f) gt_printf(t, "\\%03o", *p);
        else gt_printf(t, "%c", *p);
    }
    gt_puts(t, "\"");
}

void gt_comment(gen_text *t, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '*' && p[1] == '/') gt_puts(t, "* ");
        else if (*p == '/' && p[1] == '*') gt_puts(t, "/ ");
        else if (*p < 0x20 || *p == 0x7f) gt_puts(t, "?");
        else gt_printf(t, "%c", *p);
    }
}

void gt_free(gen_text *t)
{
    free(t->s);
    memset(t, 0, sizeof *t);
}

/* Appends ".0" when a %g rendering has no '.', exponent, or name in it. */
static void number(gen_text *t, const char *s, const char *suffix)
{
    gt_puts(t, s);
    if (!strpbrk(s, ".eE")) gt_puts(t, ".0");
    gt_puts(t, suffix);
}

void gt_float(gen_text *t, float v)
{
    char s[64];
    if (isnan(v)) gt_puts(t, "NAN");
    else if (isinf(v)) gt_puts(t, v < 0 ? "-INFINITY" : "INFINITY");
    else {
        snprintf(s, sizeof s, "%.9g", (double)v);
        number(t, s, "f");
    }
}

void gt_double(gen_text *t, double v)
{
    char s[64];
    if (isnan(v)) gt_puts(t, "NAN");
    else if (isinf(v)) gt_puts(t, v < 0 ? "-INFINITY" : "INFINITY");
    else {
        snprintf(s, sizeof s, "%.17g", v);
        number(t, s, "");
    }
}

void gt_dims(gen_text *t, const int64_t *dims, int rank)
{
    for (int i = 0; i < rank; i++) gt_printf(t, "%s%lld", i ? ", " : "", (long long)dims[i]);
}

const char *gen_dtype_macro(int dtype)
{
    switch (dtype) {
    case PZ_F32: return "PZ_F32";
    case PZ_U8: return "PZ_U8";
    case PZ_I8: return "PZ_I8";
    case PZ_U16: return "PZ_U16";
    case PZ_I16: return "PZ_I16";
    case PZ_I32: return "PZ_I32";
    case PZ_I64: return "PZ_I64";
    case PZ_STRING: return "PZ_STRING";
    case PZ_BOOL: return "PZ_BOOL";
    case PZ_F16: return "PZ_F16";
    case PZ_F64: return "PZ_F64";
    case PZ_U32: return "PZ_U32";
    case PZ_U64: return "PZ_U64";
    case PZ_BF16: return "PZ_BF16";
    case PZ_F8E4M3FN: return "PZ_F8E4M3FN";
    case PZ_F8E4M3FNUZ: return "PZ_F8E4M3FNUZ";
    case PZ_F8E5M2: return "PZ_F8E5M2";
    case PZ_F8E5M2FNUZ: return "PZ_F8E5M2FNUZ";
    case PZ_U4: return "PZ_U4";
    case PZ_I4: return "PZ_I4";
    case PZ_F4E2M1: return "PZ_F4E2M1";
    case PZ_F8E8M0: return "PZ_F8E8M0";
    case PZ_U2: return "PZ_U2";
    case PZ_I2: return "PZ_I2";
    default: return NULL;
    }
}

void gen_count_lines(const char *s, int *total, int *code)
{
    *total = *code = 0;
    int in_comment = 0;
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        int blank = 1, has_code = 0;
        for (size_t i = 0; i < len; i++) {
            char c = s[i];
            if (in_comment) {
                if (c == '*' && i + 1 < len && s[i + 1] == '/') in_comment = 0, i++;
                blank = 0;
            } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
                in_comment = 1, blank = 0, i++;
            } else if (c == '/' && i + 1 < len && s[i + 1] == '/') {
                blank = 0;
                break;
            } else if (c == '"') {   /* a string literal may hold comment markers */
                has_code = 1, blank = 0;
                for (i++; i < len && s[i] != '"'; i++)
                    if (s[i] == '\\') i++;
            } else if (c != ' ' && c != '\t' && c != '\r') {
                has_code = 1, blank = 0;
            }
        }
        *total += !blank;
        *code += has_code;
        s += len + (e ? 1 : 0);
    }
}
