/* tfidf_vectorizer.c - TfIdfVectorizer (opset 9): the n-grams of each row of
 * X counted against a pool.
 *   X int32/int64 [C] or [N, C] -> Y float [W] or [N, W], W = max(ngram_indexes) + 1
 * An n-gram takes n tokens spaced d apart (d = 1 .. max_skip_count + 1);
 * sizes min_gram_length .. max_gram_length count, unigrams once (at d = 1).
 * Y[ngram_indexes[i]] is the count of the pool's i-th n-gram (TF), its weight
 * when present (IDF), or count * weight (TFIDF), where weights are given per
 * output column, weights[ngram_indexes[i]], as ONNX Runtime and the ONNX
 * reference read them. pool_strings (string X) is
 * refused: strings are not an element type here.
 *
 * The pool travels as three constants that tfidf_expand adds as inputs 1-3
 * (the runtime reads no attributes): the n-grams of each size sorted by
 * their tokens (int64), each one's output index (int64) and weight (float),
 * so a run finds an n-gram by binary search. */
#include <stdlib.h>
#include <string.h>

#include "op_infer.h"
#include "op.h"

#define MAX_GRAM 16   /* the sizes the runtime's params hold */

typedef struct {
    int64_t min_gram, max_gram, max_skip;
    int mode;           /* PZ_TFIDF_TF, _IDF, _TFIDF */
    int64_t width;      /* W */
    int64_t count[MAX_GRAM];   /* n-grams of size s + 1 in the pool */
} tfidf_params;

static int i64_cmp(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static pz_status tfidf_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    tfidf_params *p = params;
    const char *mode;
    if (op_attr_int(n, "min_gram_length", 1, &p->min_gram, err) ||
        op_attr_int(n, "max_gram_length", 1, &p->max_gram, err) ||
        op_attr_int(n, "max_skip_count", 0, &p->max_skip, err) ||
        op_attr_string(n, "mode", NULL, &mode, err))
        return err->code;
    if (!mode) return op_err_attr(err, n, "mode", "is required (TF, IDF or TFIDF)");
    if (!strcmp(mode, "TF")) p->mode = PZ_TFIDF_TF;
    else if (!strcmp(mode, "IDF")) p->mode = PZ_TFIDF_IDF;
    else if (!strcmp(mode, "TFIDF")) p->mode = PZ_TFIDF_TFIDF;
    else return op_err_attr(err, n, "mode", "\"%s\" is not TF, IDF or TFIDF", mode);
    if (p->min_gram < 1 || p->max_gram < p->min_gram)
        return op_err(err, n, "min_gram_length %lld and max_gram_length %lld: need 1 <= min <= "
                      "max", (long long)p->min_gram, (long long)p->max_gram);
    if (p->max_gram > MAX_GRAM)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (TfIdfVectorizer): attribute "
                       "'max_gram_length' %lld: at most %d is supported", n->name,
                       (long long)p->max_gram, MAX_GRAM);
    if (p->max_skip < 0 || p->max_skip > 1000000)
        return op_err_attr(err, n, "max_skip_count", "%lld is out of range",
                           (long long)p->max_skip);
    if (op_attr(n, "pool_strings"))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (TfIdfVectorizer): attribute "
                       "'pool_strings': string tensors are not supported", n->name);
    const ir_attr *pool = op_attr(n, "pool_int64s"), *cnt = op_attr(n, "ngram_counts"),
                  *idx = op_attr(n, "ngram_indexes"), *w = op_attr(n, "weights");
    if (!pool || op_attr_expect(n, pool, IR_ATTR_INTS, err))
        return pool ? err->code : op_err_attr(err, n, "pool_int64s", "is required");
    if (!cnt || op_attr_expect(n, cnt, IR_ATTR_INTS, err))
        return cnt ? err->code : op_err_attr(err, n, "ngram_counts", "is required");
    if (!idx || op_attr_expect(n, idx, IR_ATTR_INTS, err))
        return idx ? err->code : op_err_attr(err, n, "ngram_indexes", "is required");
    if (w && op_attr_expect(n, w, IR_ATTR_FLOATS, err)) return err->code;
    if (pool->n < 1) return op_err_attr(err, n, "pool_int64s", "is empty");
    if (cnt->n < 1 || cnt->n > MAX_GRAM)
        return op_err_attr(err, n, "ngram_counts", "has %d entries: 1 to %d supported", cnt->n,
                           MAX_GRAM);
    /* ngram_counts[s] is where the (s+1)-grams start in the pool */
    int64_t total = 0;
    memset(p->count, 0, sizeof p->count);
    for (int s = 0; s < cnt->n; s++) {
        int64_t b = cnt->ints[s], e = s + 1 < cnt->n ? cnt->ints[s + 1] : pool->n;
        if (b < 0 || e < b || e > pool->n || (e - b) % (s + 1))
            return op_err_attr(err, n, "ngram_counts", "entry %d (%lld to %lld) does not cut "
                               "pool_int64s (%d tokens) into %d-grams", s, (long long)b,
                               (long long)e, pool->n, s + 1);
        p->count[s] = (e - b) / (s + 1);
        total += p->count[s];
    }
    if (cnt->ints[0] != 0)
        return op_err_attr(err, n, "ngram_counts", "must start at 0, got %lld",
                           (long long)cnt->ints[0]);
    if (idx->n != total)
        return op_err_attr(err, n, "ngram_indexes", "has %d entries for %lld n-grams in the "
                           "pool", idx->n, (long long)total);
    /* Y[ngram_indexes[i]] is one n-gram's: an index given twice would sum two */
    p->width = 0;
    for (int i = 0; i < idx->n; i++) {
        if (idx->ints[i] < 0 || idx->ints[i] >= (int64_t)1 << 31)
            return op_err_attr(err, n, "ngram_indexes", "entry %d is %lld", i,
                               (long long)idx->ints[i]);
        if (idx->ints[i] + 1 > p->width) p->width = idx->ints[i] + 1;
    }
    /* a sorted copy finds a repeat in n log n (a vocabulary runs to 1e5 entries) */
    int64_t *sorted = pz_xmalloc((size_t)idx->n * sizeof *sorted + 1);
    memcpy(sorted, idx->ints, (size_t)idx->n * sizeof *sorted);
    qsort(sorted, (size_t)idx->n, sizeof *sorted, i64_cmp);
    for (int i = 1; i < idx->n; i++)
        if (sorted[i] == sorted[i - 1]) {
            const long long v = (long long)sorted[i];
            free(sorted);
            return op_err_attr(err, n, "ngram_indexes", "%lld is given twice", v);
        }
    free(sorted);
    if (w && (w->n != total || p->width != total))
        return op_err_attr(err, n, "weights", "has %d entries for %lld n-grams and %lld output "
                           "columns: weights are read per column, so the three must agree",
                           w->n, (long long)total, (long long)p->width);
    return PZ_OK;
}

static pz_status tfidf_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const tfidf_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (x->dtype == IR_STRING)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (TfIdfVectorizer): input X of "
                       "strings is not supported", n->name);
    if (x->dtype != IR_I32 && x->dtype != IR_I64)
        return op_err(err, n, "input X has type %s, expected int32 or int64",
                      ir_dtype_name(x->dtype));
    if (x->rank != 1 && x->rank != 2)
        return op_err(err, n, "input X has rank %d, expected 1 ([C]) or 2 ([N, C])", x->rank);
    int64_t dims[2] = {x->dims[0], p->width};
    if (x->rank == 1) dims[0] = p->width;
    op_set_out(g, n, 0, IR_F32, x->rank, dims);
    return PZ_OK;
}

/* The sorted pool: n-grams of one size compared token by token. */
typedef struct {
    const int64_t *tok;
    int64_t id;
    int len;
} gram;

static int gram_cmp(const void *a, const void *b)
{
    const gram *x = a, *y = b;
    for (int k = 0; k < x->len; k++)
        if (x->tok[k] != y->tok[k]) return x->tok[k] < y->tok[k] ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int tfidf_expand(ir_graph *g, int i)
{
    ir_node *n = &g->nodes[i];
    const tfidf_params *p = n->params;
    if (!p || n->n_in != 1) return 0;   /* done already */
    const ir_attr *pool = op_attr(n, "pool_int64s"), *idx = op_attr(n, "ngram_indexes"),
                  *w = op_attr(n, "weights");
    const int64_t total = idx->n;
    gram *gr = pz_xcalloc((size_t)total, sizeof *gr);
    int64_t *sorted = pz_xcalloc((size_t)pool->n, sizeof *sorted), *out = pz_xcalloc(
        (size_t)total, sizeof *out);
    float *wt = pz_xcalloc((size_t)total, sizeof *wt);
    int64_t k = 0, t = 0;
    for (int s = 0; s < MAX_GRAM; s++) {
        const int64_t k0 = k;
        for (int64_t j = 0; j < p->count[s]; j++, k++)
            gr[k] = (gram){pool->ints + t + j * (s + 1), k, s + 1};
        qsort(gr + k0, (size_t)(k - k0), sizeof *gr, gram_cmp);
        for (int64_t j = k0; j < k; j++) {
            memcpy(sorted + t + (j - k0) * (s + 1), gr[j].tok, (size_t)(s + 1) * sizeof *sorted);
            out[j] = idx->ints[gr[j].id];
            wt[j] = w ? w->floats[out[j]] : 1.0f;
        }
        t += p->count[s] * (s + 1);
    }
    int in_pool = op_add_const(g, i, "pool", IR_I64, pool->n, sorted);
    int in_idx = op_add_const(g, i, "index", IR_I64, total, out);
    int in_w = op_add_const(g, i, "weight", IR_F32, total, wt);
    free(gr);
    free(sorted);
    free(out);
    free(wt);
    n = &g->nodes[i];
    ir_node_set_n_in(n, 4);
    n->in[1] = in_pool;
    n->in[2] = in_idx;
    n->in[3] = in_w;
    ir_cost_node(g, n);
    return 0;
}

static pz_status tfidf_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const tfidf_params *p = n->params;
    if (n->n_in != 4)   /* tfidf_expand did not run (a caller that skips ir_model_lower) */
        return pz_fail(err, PZ_ERR_INTERNAL, "node \"%s\" (TfIdfVectorizer): its pool was not "
                       "prepared for the runtime", n->name);
    pz_tfidf_params tp = {.min_gram = (int)p->min_gram, .max_gram = (int)p->max_gram,
                          .max_skip = p->max_skip, .mode = p->mode, .width = p->width};
    memcpy(tp.count, p->count, sizeof tp.count);
    op_lowered_init(out, n, PZ_OP_TFIDF, &tp, sizeof tp);
    return PZ_OK;
}

const op_def op_tfidf_vectorizer = {
    .name = "TfIdfVectorizer",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(tfidf_params),
    .parse = tfidf_parse,
    .infer = tfidf_infer,
    .expand = tfidf_expand,
    .lower = tfidf_lower,
};
