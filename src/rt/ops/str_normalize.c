/* str_normalize.c - the STR_NORMALIZE layer (ONNX StringNormalizer): X
 * string [C] or [1, C], the stopwords (a uint8 constant, pz_op_params.h) ->
 * Y: the strings of X that are no stopword (compared byte for byte, or
 * both lowered when not case_sensitive), in order, lowered or raised as
 * case_change says; [1] or [1, 1] "" when none is left. Y's length is
 * decided at compile (the compiler knows X when there are stopwords). Case
 * maps are Unicode's simple ones, code point by code point (glibc's
 * C.UTF-8 towlower/towupper); bytes that are no UTF-8 are copied as they are. */
#include <locale.h>
#include <string.h>

#include "rt/ops/ops.h"
#include "rt/pz_strings.h"

typedef struct {
    pz_strstore *st;
    const char **stop;   /* lowered when not case sensitive */
    int64_t n_stop;
    pz_strstore *run;    /* what a run makes (st: the lowered stopwords) */
    locale_t loc;        /* C.UTF-8, for the case maps */
} norm_state;

/* x with its case changed, in the store. */
static const char *case_map(const norm_state *s, const char *x, int change)
{
    char *r = pz_strstore_alloc(s->st, 4 * strlen(x));
    PZ_RT_ASSERT(r);
    pz_str_case_map(x, change, s->loc, r);
    return r;
}

static int norm_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_str_norm_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *sw = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !sw || !y) return pz_layer_fail(l, err, n, "needs X, stopwords and Y");
    if (pz_layer_want_dtype(l, err, n, "X", x, PZ_STRING) ||
        pz_layer_want_dtype(l, err, n, "stopwords", sw, PZ_U8) ||
        pz_layer_want_dtype(l, err, n, "Y", y, PZ_STRING))
        return 1;
    if ((x->rank != 1 && !(x->rank == 2 && x->dims[0] == 1)) || y->rank != x->rank ||
        pz_numel(y) < 1)
        return pz_layer_fail(l, err, n, "X must be [C] or [1, C] and Y of its rank, not empty");
    if ((unsigned)p->case_change > PZ_CASE_UPPER) return pz_layer_fail(l, err, n, "bad params");
    int64_t k = !pz_numel(sw) ? 0 : sw->data ? pz_strings_index(sw->data, pz_numel(sw), NULL) : -1;
    if (k < 0) return pz_layer_fail(l, err, n, "the stopwords must be NUL-terminated strings");
    norm_state *s = calloc(1, sizeof *s);
    if (!s) return pz_layer_fail(l, err, n, "out of memory");
    l->state = s;
    s->st = pz_strstore_new();
    s->stop = calloc((size_t)k + 1, sizeof *s->stop);
    if (!s->st || !s->stop) return pz_layer_fail(l, err, n, "out of memory");
    s->n_stop = k ? pz_strings_index(sw->data, pz_numel(sw), s->stop) : 0;
    s->loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (!s->loc) return pz_layer_fail(l, err, n, "the C.UTF-8 locale (its case maps) is missing");
    if (!p->case_sensitive)   /* compared lowered; the store keeps them (never reset) */
        for (int64_t i = 0; i < s->n_stop; i++) s->stop[i] = case_map(s, s->stop[i], PZ_CASE_LOWER);
    s->run = pz_strstore_new();
    if (!s->run) return pz_layer_fail(l, err, n, "out of memory");
    l->nth = 1;
    return 0;
}

static int is_stop(const norm_state *s, int sensitive, const char *x)
{
    if (!sensitive) x = case_map(s, x, PZ_CASE_LOWER);
    for (int64_t i = 0; i < s->n_stop; i++)
        if (!strcmp(x, s->stop[i])) return 1;
    return 0;
}

static void norm_run(const pz_layer *l, int ith, int nth)
{
    const pz_str_norm_params *p = l->params;
    const norm_state *s0 = l->state;
    if (ith) return;
    (void)nth;
    pz_strstore_reset(s0->run);
    norm_state s = *s0;
    s.st = s0->run;   /* case_map's results go to the run's store */
    const int64_t c = pz_numel(l->in[0]), cap = pz_numel(l->out[0]);
    const char **y = l->out[0]->data;
    int64_t k = 0;
    for (int64_t i = 0; i < c && k < cap; i++) {
        const char *x = pz_str_at(l->in[0]->data, i);
        if (is_stop(&s, p->case_sensitive, x)) continue;
        y[k++] = case_map(&s, x, p->case_change);
    }
    while (k < cap) y[k++] = "";   /* none left: [1] "" (the compiler sized Y to the rest) */
}

static void norm_release(pz_layer *l)
{
    norm_state *s = l->state;
    if (!s) return;
    pz_strstore_free(s->st);
    pz_strstore_free(s->run);
    if (s->loc) freelocale(s->loc);
    free(s->stop);
}

static const char *const norm_cases[] = {"PZ_CASE_NONE", "PZ_CASE_LOWER", "PZ_CASE_UPPER"};

static const pz_param_field norm_fields[] = {
    PZ_FIELD_ENUM(pz_str_norm_params, case_change, norm_cases),
    PZ_FIELD(pz_str_norm_params, case_sensitive, PZ_F_INT),
};

const pz_rt_op pz_rt_op_str_normalize = {
    .name = "STR_NORMALIZE", PZ_OP_PARAMS(pz_str_norm_params, norm_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = norm_prepare, .run = norm_run, .release = norm_release,
};
