/* regex_match.c - the REGEX_MATCH layer (ONNX RegexFullMatch): X string,
 * the pattern (a uint8 constant: a POSIX extended regex, translated from
 * RE2 by the compiler, src/ops/regex_full_match.c) -> Y bool, 1 where the
 * whole string matches. Matching is glibc's <regex.h>, byte by byte in the
 * C locale: the translated pattern spells UTF-8 sequences out in bytes, so
 * the layer sets that locale for its thread around regcomp and regexec
 * (a host such as Python may have set another). */
#include <locale.h>
#include <regex.h>
#include <string.h>

#include "rt/ops/ops.h"
#include "rt/pz_strings.h"

typedef struct {
    regex_t re;
    int compiled;
    locale_t c_locale;
} regex_state;

static int regex_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *pat = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !pat || !y) return pz_layer_fail(l, err, n, "needs X, pattern and Y");
    if (pz_layer_want_dtype(l, err, n, "X", x, PZ_STRING) ||
        pz_layer_want_dtype(l, err, n, "pattern", pat, PZ_U8) ||
        pz_layer_want_dtype(l, err, n, "Y", y, PZ_BOOL) ||
        pz_layer_want_same_shape(l, err, n, "Y", x, y))
        return 1;
    const char *one[1];
    if (!pat->data || pz_strings_index(pat->data, pz_numel(pat), NULL) != 1)
        return pz_layer_fail(l, err, n, "the pattern must be one NUL-terminated string");
    pz_strings_index(pat->data, pz_numel(pat), one);
    size_t len = strlen(one[0]) + 8;
    char *full = malloc(len);
    regex_state *s = calloc(1, sizeof *s);
    l->state = s;
    if (!full || !s) {
        free(full);
        return pz_layer_fail(l, err, n, "out of memory");
    }
    snprintf(full, len, "^(%s)$", one[0]);   /* a full match */
    s->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!s->c_locale) {
        free(full);
        return pz_layer_fail(l, err, n, "cannot make the C locale");
    }
    locale_t old = uselocale(s->c_locale);
    int rc = regcomp(&s->re, full, REG_EXTENDED | REG_NOSUB);
    uselocale(old);
    free(full);
    if (rc) {
        char why[128];
        regerror(rc, &s->re, why, sizeof why);
        return pz_layer_fail(l, err, n, "the pattern does not compile: %s", why);
    }
    s->compiled = 1;
    return 0;
}

static void regex_run(const pz_layer *l, int ith, int nth)
{
    const regex_state *s = l->state;
    int64_t lo, hi;
    pz_split(pz_numel(l->in[0]), ith, nth, &lo, &hi);
    uint8_t *y = l->out[0]->data;
    locale_t old = uselocale(s->c_locale);
    for (int64_t i = lo; i < hi; i++)   /* regexec is thread-safe on one regex_t (POSIX) */
        y[i] = regexec(&s->re, pz_str_at(l->in[0]->data, i), 0, NULL, 0) == 0;
    uselocale(old);
}

static void regex_release(pz_layer *l)
{
    regex_state *s = l->state;
    if (s && s->compiled) regfree(&s->re);
    if (s && s->c_locale) freelocale(s->c_locale);
}

const pz_rt_op pz_rt_op_regex_match = {
    .name = "REGEX_MATCH",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = regex_prepare, .run = regex_run, .release = regex_release,
};
