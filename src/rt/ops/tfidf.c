/* tfidf.c - the TFIDF layer (ONNX TfIdfVectorizer): X int32/int64 [C] or
 * [N, C], the pool as three constants (src/ops/tfidf_vectorizer.c sorts
 * it) -> Y float [W] or [N, W]. */
#include "rt/ops/ops.h"

static int tfidf_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tfidf_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *pool = pz_in(l, 1), *idx = pz_in(l, 2),
                    *w = pz_in(l, 3), *y = pz_out(l, 0);
    if (!x || !pool || !idx || !w || !y)
        return pz_layer_fail(l, err, n, "needs X, pool, index, weight and Y");
    if (x->dtype != PZ_I32 && x->dtype != PZ_I64)
        return pz_layer_fail(l, err, n, "X has type %s, expected int32 or int64",
                             pz_dtype_name(x->dtype));
    if (x->rank != 1 && x->rank != 2)
        return pz_layer_fail(l, err, n, "X has rank %d, expected 1 or 2", x->rank);
    if (pz_layer_want_dtype(l, err, n, "pool", pool, PZ_I64) ||
        pz_layer_want_dtype(l, err, n, "index", idx, PZ_I64) ||
        pz_layer_want_dtype(l, err, n, "weight", w, PZ_F32) ||
        pz_layer_want_dtype(l, err, n, "Y", y, PZ_F32))
        return 1;
    if (p->min_gram < 1 || p->max_gram < p->min_gram || p->max_gram > 16 || p->max_skip < 0 ||
        p->width < 1 || (unsigned)p->mode > PZ_TFIDF_TFIDF)
        return pz_layer_fail(l, err, n, "bad params");
    int64_t grams = 0, toks = 0;
    for (int s = 0; s < 16; s++) {
        if (p->count[s] < 0) return pz_layer_fail(l, err, n, "bad params");
        grams += p->count[s];
        toks += p->count[s] * (s + 1);
    }
    if (pz_numel(pool) != toks || pz_numel(idx) != grams || pz_numel(w) != grams)
        return pz_layer_fail(l, err, n, "the pool holds %lld tokens and %lld index/%lld weight "
                             "entries, the params say %lld and %lld", (long long)pz_numel(pool),
                             (long long)pz_numel(idx), (long long)pz_numel(w), (long long)toks,
                             (long long)grams);
    const int64_t rows = x->rank == 2 ? x->dims[0] : 1;
    if (y->rank != x->rank || y->dims[y->rank - 1] != p->width ||
        (x->rank == 2 && y->dims[0] != rows))
        return pz_layer_fail(l, err, n, "Y must be [%s%lld]", x->rank == 2 ? "N, " : "",
                             (long long)p->width);
    const int64_t *ix = idx->data;   /* constants: checked once here, trusted by run */
    for (int64_t k = 0; ix && k < grams; k++)
        if (ix[k] < 0 || ix[k] >= p->width)
            return pz_layer_fail(l, err, n, "index %lld is outside [0, %lld)",
                                 (long long)ix[k], (long long)p->width);
    return 0;
}

static void tfidf_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    const int64_t rows = x->rank == 2 ? x->dims[0] : 1, C = x->dims[x->rank - 1];
    pz_any_tfidf__ref(l->params, x->dtype, rows, C, x->data, l->in[1]->data, l->in[2]->data,
                      l->in[3]->data, l->out[0]->data, ith, nth);
}

static const char *const tfidf_modes[] = {"PZ_TFIDF_TF", "PZ_TFIDF_IDF", "PZ_TFIDF_TFIDF"};

static const pz_param_field tfidf_fields[] = {
    PZ_FIELD(pz_tfidf_params, min_gram, PZ_F_INT),
    PZ_FIELD(pz_tfidf_params, max_gram, PZ_F_INT),
    PZ_FIELD_ENUM(pz_tfidf_params, mode, tfidf_modes),
    PZ_FIELD(pz_tfidf_params, max_skip, PZ_F_I64),
    PZ_FIELD(pz_tfidf_params, width, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_tfidf_params, count, PZ_F_I64),
};

const pz_rt_op pz_rt_op_tfidf = {
    .name = "TFIDF", PZ_OP_PARAMS(pz_tfidf_params, tfidf_fields),
    .min_in = 4, .max_in = 4, .min_out = 1, .max_out = 1,
    .prepare = tfidf_prepare, .run = tfidf_run,
};
