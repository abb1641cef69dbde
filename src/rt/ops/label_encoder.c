/* label_encoder.c - the LABEL_ENCODER layer (ONNX-ML LabelEncoder): X ->
 * Y of X's shape, each element looked up among the keys, the value of the
 * first key equal to it, else the default. Keys: a uint8 constant of
 * NUL-terminated strings for a string X, int64 for an integer X, float64
 * for a float X (NaN equal to NaN). Values: n + 1 of Y's type, the default
 * last (strings: a uint8 constant likewise). Sorted at prepare, searched in
 * log n per element. */
#include <math.h>
#include <string.h>

#include "rt/ops/ops.h"
#include "rt/elem.h"
#include "rt/pz_strings.h"

typedef struct {
    int64_t n;
    int kind;               /* 0 string, 1 int64, 2 float64 */
    const char **skey;      /* [n] string keys */
    const char **sval;      /* [n + 1] string values */
    const void *key;        /* numeric keys, the constant's data */
    int64_t *order;         /* [n] key indices, sorted (ties by index) */
} enc_state;

static int key_cmp(const enc_state *s, int64_t a, int64_t b)
{
    if (s->kind == 0) return strcmp(s->skey[a], s->skey[b]);
    if (s->kind == 1) {
        int64_t x = ((const int64_t *)s->key)[a], y = ((const int64_t *)s->key)[b];
        return (x > y) - (x < y);
    }
    double x = ((const double *)s->key)[a], y = ((const double *)s->key)[b];
    if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);   /* NaN last, equal to NaN */
    return (x > y) - (x < y);
}

/* order[lo, hi) sorted by key, ties by index (stable merge sort: the
 * comparator needs the state, and qsort has no context argument) */
static void sort_order(const enc_state *s, int64_t *order, int64_t *tmp, int64_t lo, int64_t hi)
{
    if (hi - lo < 2) return;
    int64_t mid = lo + (hi - lo) / 2, i = lo, j = mid, k = lo;
    sort_order(s, order, tmp, lo, mid);
    sort_order(s, order, tmp, mid, hi);
    while (i < mid || j < hi)
        tmp[k++] = j == hi || (i < mid && key_cmp(s, order[i], order[j]) <= 0) ? order[i++]
                                                                                : order[j++];
    memcpy(order + lo, tmp + lo, (size_t)(hi - lo) * sizeof *order);
}

static int enc_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *k = pz_in(l, 1), *v = pz_in(l, 2), *y = pz_out(l, 0);
    if (!x || !k || !v || !y) return pz_layer_fail(l, err, n, "needs X, keys, values and Y");
    if (pz_layer_want_same_shape(l, err, n, "Y", x, y)) return 1;
    int kind = x->dtype == PZ_STRING ? 0 : pz_dtype_is_float(x->dtype) ? 2 : 1;
    int kdt = kind == 0 ? PZ_U8 : kind == 1 ? PZ_I64 : PZ_F64;
    if (!pz_dtype_is_float(x->dtype) && !pz_dtype_is_int(x->dtype) && x->dtype != PZ_STRING)
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "keys", k, kdt) ||
        pz_layer_want_dtype(l, err, n, "values", v, y->dtype == PZ_STRING ? PZ_U8 : y->dtype))
        return 1;
    if ((!k->data && pz_numel(k)) || !v->data)
        return pz_layer_fail(l, err, n, "keys and values must be constants");
    enc_state *s = calloc(1, sizeof *s);
    if (!s) return pz_layer_fail(l, err, n, "out of memory");
    l->state = s;
    s->kind = kind;
    s->n = kind == 0 && pz_numel(k) ? pz_strings_index(k->data, pz_numel(k), NULL) : pz_numel(k);
    int64_t nv = y->dtype == PZ_STRING ? pz_strings_index(v->data, pz_numel(v), NULL)
                                       : pz_numel(v);
    if (s->n < 0 || nv != s->n + 1)
        return pz_layer_fail(l, err, n, "%lld keys want %lld values (the default last), "
                             "there are %lld", (long long)s->n, (long long)s->n + 1,
                             (long long)nv);
    s->order = calloc((size_t)s->n + 1, sizeof *s->order);
    s->skey = calloc((size_t)s->n + 1, sizeof *s->skey);
    s->sval = calloc((size_t)s->n + 2, sizeof *s->sval);
    if (!s->order || !s->skey || !s->sval) return pz_layer_fail(l, err, n, "out of memory");
    if (kind == 0 && s->n) pz_strings_index(k->data, pz_numel(k), s->skey);
    else s->key = k->data;
    if (y->dtype == PZ_STRING) pz_strings_index(v->data, pz_numel(v), s->sval);
    for (int64_t i = 0; i < s->n; i++) s->order[i] = i;
    int64_t *tmp = calloc((size_t)s->n + 1, sizeof *tmp);
    if (!tmp) return pz_layer_fail(l, err, n, "out of memory");
    sort_order(s, s->order, tmp, 0, s->n);
    free(tmp);
    return 0;
}

/* The first key (lowest index) equal to element i of X, or -1. */
static int64_t find(const enc_state *s, const pz_tensor *x, int64_t i)
{
    const char *xs = s->kind == 0 ? pz_str_at(x->data, i) : NULL;
    int64_t xi = s->kind == 1 ? (int64_t)pz_load_bits(x->data, x->dtype, i) : 0;   /* sign-extended */
    double xf = s->kind == 2 ? pz_load_f64(x->data, x->dtype, i) : 0;
    int64_t lo = 0, hi = s->n;   /* the first position whose key is >= x */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2, k = s->order[mid];
        int c;
        if (s->kind == 0) c = strcmp(s->skey[k], xs);
        else if (s->kind == 1) {
            int64_t a = ((const int64_t *)s->key)[k];
            c = (a > xi) - (a < xi);
        } else {
            double a = ((const double *)s->key)[k];
            c = isnan(a) || isnan(xf) ? isnan(a) - isnan(xf) : (a > xf) - (a < xf);
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == s->n) return -1;
    int64_t k = s->order[lo];
    if (s->kind == 0) return strcmp(s->skey[k], xs) ? -1 : k;
    if (s->kind == 1) return ((const int64_t *)s->key)[k] == xi ? k : -1;
    double a = ((const double *)s->key)[k];
    return a == xf || (isnan(a) && isnan(xf)) ? k : -1;
}

static void enc_run(const pz_layer *l, int ith, int nth)
{
    const enc_state *s = l->state;
    const pz_tensor *x = l->in[0], *v = l->in[2], *y = l->out[0];
    size_t es = pz_dtype_size(y->dtype);
    int64_t lo, hi;
    pz_split(pz_numel(x), ith, nth, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
        int64_t k = find(s, x, i);
        if (k < 0) k = s->n;   /* the default */
        if (y->dtype == PZ_STRING) ((const char **)y->data)[i] = s->sval[k];
        else memcpy((char *)y->data + (size_t)i * es, (const char *)v->data + (size_t)k * es, es);
    }
}

static void enc_release(pz_layer *l)
{
    enc_state *s = l->state;
    if (!s) return;
    free(s->order);
    free(s->skey);
    free(s->sval);
}

const pz_rt_op pz_rt_op_label_encoder = {
    .name = "LABEL_ENCODER",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = enc_prepare, .run = enc_run, .release = enc_release,
};
