/* strings.c - string tensors: packed blocks and the layers' string stores
 * (pz_strings.h). */
#include "rt/pz_strings.h"

#include "rt/pz_rt.h"
#include "rt/pz_op_params.h"

#include <stdlib.h>
#include <string.h>
#include <wctype.h>

void *pz_strings_pack(int64_t n, const char *const *s, const size_t *len)
{
    size_t bytes = (size_t)n * sizeof(char *);
    for (int64_t i = 0; i < n; i++) bytes += (len ? len[i] : strlen(s[i] ? s[i] : "")) + 1;
    char *block = malloc(bytes ? bytes : 1);
    if (!block) return NULL;
    const char **ptr = (const char **)block;
    char *p = block + (size_t)n * sizeof(char *);
    for (int64_t i = 0; i < n; i++) {
        const char *src = s[i] ? s[i] : "";
        size_t l = len ? len[i] : strlen(src);
        if (l) memcpy(p, src, l);
        p[l] = 0;
        ptr[i] = p;
        p += l + 1;
    }
    return block;
}

void *pz_strings_copy(const void *data, int64_t n)
{
    return pz_strings_pack(n, (const char *const *)data, NULL);
}

int64_t pz_strings_index(const uint8_t *blob, int64_t nbytes, const char **out)
{
    if (nbytes && blob[nbytes - 1]) return -1;
    int64_t n = 0;
    for (int64_t i = 0; i < nbytes; i++) {
        if (out) out[n] = (const char *)blob + i;
        n++;
        while (blob[i]) i++;
    }
    return n;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int64_t add_part(const char **part, size_t *len, int64_t n, int64_t max, const char *p,
                        size_t l)
{
    if (n < max) {
        part[n] = p;
        len[n] = l;
    }
    return n + 1;
}

int64_t pz_str_split(const char *s, const char *delim, int64_t maxsplit, const char **part,
                     size_t *len, int64_t max)
{
    int64_t n = 0;
    size_t dl = strlen(delim);
    if (!*s) return 0;   /* "": no part, with a delimiter too (as ONNX Runtime) */
    if (dl) {
        for (;;) {
            const char *hit = maxsplit < 0 || n < maxsplit ? strstr(s, delim) : NULL;
            if (!hit) return add_part(part, len, n, max, s, strlen(s));
            n = add_part(part, len, n, max, s, (size_t)(hit - s));
            s = hit + dl;
        }
    }
    for (;;) {
        while (is_space(*s)) s++;
        if (!*s) return n;
        if (maxsplit >= 0 && n == maxsplit) {
            /* the rest, without the whitespace at its end (ONNX: "leading or
             * trailing whitespace is removed") */
            size_t l = strlen(s);
            while (l && is_space(s[l - 1])) l--;
            return add_part(part, len, n, max, s, l);
        }
        const char *e = s;
        while (*e && !is_space(*e)) e++;
        n = add_part(part, len, n, max, s, (size_t)(e - s));
        s = e;
    }
}

/* The code point at s (its length in *n), or -1 for a byte that starts no
 * well-formed UTF-8 sequence (*n = 1). */
static int32_t utf8_next(const unsigned char *s, int *n)
{
    int len = s[0] < 0x80 ? 1 : (s[0] >> 5) == 6 ? 2 : (s[0] >> 4) == 14 ? 3 : (s[0] >> 3) == 30 ? 4 : 0;
    *n = 1;
    if (!len) return -1;
    int32_t c = len == 1 ? s[0] : s[0] & (0x7f >> len);
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return -1;
        c = c << 6 | (s[i] & 0x3f);
    }
    *n = len;
    return c;
}

static int utf8_put(int32_t c, char *out)
{
    if (c < 0x80) { out[0] = (char)c; return 1; }
    if (c < 0x800) { out[0] = (char)(0xc0 | c >> 6); out[1] = (char)(0x80 | (c & 0x3f)); return 2; }
    if (c < 0x10000) {
        out[0] = (char)(0xe0 | c >> 12);
        out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        out[2] = (char)(0x80 | (c & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | c >> 18);
    out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
    out[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

size_t pz_str_case_map(const char *x, int change, locale_t loc, char *out)
{
    size_t len = strlen(x), k = 0;
    for (size_t j = 0; j < len;) {
        int n;
        int32_t c = utf8_next((const unsigned char *)x + j, &n);
        if (c < 0 || change == PZ_CASE_NONE) {
            memcpy(out + k, x + j, (size_t)n);
            k += (size_t)n;
        } else {
            wint_t m = change == PZ_CASE_LOWER ? towlower_l((wint_t)c, loc)
                                               : towupper_l((wint_t)c, loc);
            k += (size_t)utf8_put((int32_t)m, out + k);
        }
        j += (size_t)n;
    }
    out[k] = 0;
    return k;
}

/* Chunks never move, so what add returned stays valid until reset. */
typedef struct chunk {
    struct chunk *next;
    size_t size, used;
    char bytes[];
} chunk;

struct pz_strstore {
    chunk *head;   /* the chunk being filled; its next ones are full */
};

#define CHUNK_MIN 4096

pz_strstore *pz_strstore_new(void)
{
    return calloc(1, sizeof(pz_strstore));
}

static void free_chain(chunk *c)
{
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
}

void pz_strstore_free(pz_strstore *st)
{
    if (!st) return;
    free_chain(st->head);
    free(st);
}

void pz_strstore_reset(pz_strstore *st)
{
    if (!st || !st->head) return;
    /* keep the newest chunk, the largest: the next run likely fits in it */
    free_chain(st->head->next);
    st->head->next = NULL;
    st->head->used = 0;
}

char *pz_strstore_alloc(pz_strstore *st, size_t len)
{
    chunk *c = st->head;
    if (!c || c->size - c->used < len + 1) {
        size_t size = len + 1 > CHUNK_MIN ? len + 1 : CHUNK_MIN;
        if (c && size < 2 * c->size) size = 2 * c->size;   /* grows geometrically */
        chunk *nc = malloc(sizeof(chunk) + size);
        if (!nc) return NULL;
        nc->next = c;
        nc->size = size;
        nc->used = 0;
        st->head = c = nc;
    }
    char *p = c->bytes + c->used;
    p[len] = 0;
    c->used += len + 1;
    return p;
}

const char *pz_strstore_add(pz_strstore *st, const char *s, size_t len)
{
    char *p = pz_strstore_alloc(st, len);
    if (p && len) memcpy(p, s, len);
    return p;
}
