/* str_split.c - the STR_SPLIT layer (ONNX StringSplit): X string, the
 * delimiter (a uint8 constant, pz_op_params.h) -> Y string [..X, width]
 * the parts (pz_str_split), padded with "", and Z int64 [..X] their counts.
 * The parts are copied into the layer's string store. */
#include <string.h>

#include "rt/ops/ops.h"
#include "rt/pz_strings.h"

typedef struct {
    pz_strstore *st;
    const char *delim;
    const char **part;   /* [width] */
    size_t *len;
} split_state;

static int split_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_str_split_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *d = pz_in(l, 1), *y = pz_out(l, 0), *z = pz_out(l, 1);
    if (!x || !d || !y || !z) return pz_layer_fail(l, err, n, "needs X, delimiter, Y and Z");
    if (pz_layer_want_dtype(l, err, n, "X", x, PZ_STRING) ||
        pz_layer_want_dtype(l, err, n, "delimiter", d, PZ_U8) ||
        pz_layer_want_dtype(l, err, n, "Y", y, PZ_STRING) ||
        pz_layer_want_dtype(l, err, n, "Z", z, PZ_I64))
        return 1;
    if (p->width < 0 || x->rank + 1 > PZ_MAX_RANK || y->rank != x->rank + 1 ||
        y->dims[x->rank] != p->width || z->rank != x->rank)
        return pz_layer_fail(l, err, n, "Y must be X's shape and [%lld], Z X's shape",
                             (long long)p->width);
    for (int i = 0; i < x->rank; i++)
        if (y->dims[i] != x->dims[i] || z->dims[i] != x->dims[i])
            return pz_layer_fail(l, err, n, "Y and Z must have X's leading dims");
    const char *one[1];
    if (!d->data || pz_strings_index(d->data, pz_numel(d), NULL) != 1)
        return pz_layer_fail(l, err, n, "the delimiter must be one NUL-terminated string");
    pz_strings_index(d->data, pz_numel(d), one);
    split_state *s = calloc(1, sizeof *s);
    if (!s) return pz_layer_fail(l, err, n, "out of memory");
    l->state = s;
    s->delim = one[0];
    s->st = pz_strstore_new();
    s->part = calloc((size_t)p->width + 1, sizeof *s->part);
    s->len = calloc((size_t)p->width + 1, sizeof *s->len);
    if (!s->st || !s->part || !s->len) return pz_layer_fail(l, err, n, "out of memory");
    l->nth = 1;
    return 0;
}

static void split_run(const pz_layer *l, int ith, int nth)
{
    const pz_str_split_params *p = l->params;
    split_state *s = l->state;
    if (ith) return;
    (void)nth;
    pz_strstore_reset(s->st);
    const int64_t rows = pz_numel(l->in[0]), w = p->width;
    const char **y = l->out[0]->data;
    int64_t *z = l->out[1]->data;
    for (int64_t r = 0; r < rows; r++) {
        int64_t k = pz_str_split(pz_str_at(l->in[0]->data, r), s->delim, p->maxsplit, s->part,
                                 s->len, w);
        z[r] = k;
        for (int64_t j = 0; j < w; j++) {
            /* more parts than width cannot happen (the compiler sized it from X): kept out */
            y[r * w + j] = j < k ? pz_strstore_add(s->st, s->part[j], s->len[j]) : "";
            PZ_RT_ASSERT(y[r * w + j]);
        }
    }
}

static void split_release(pz_layer *l)
{
    split_state *s = l->state;
    if (!s) return;
    pz_strstore_free(s->st);
    free(s->part);
    free(s->len);
}

static const pz_param_field split_fields[] = {
    PZ_FIELD(pz_str_split_params, maxsplit, PZ_F_I64),
    PZ_FIELD(pz_str_split_params, width, PZ_F_I64),
};

const pz_rt_op pz_rt_op_str_split = {
    .name = "STR_SPLIT", PZ_OP_PARAMS(pz_str_split_params, split_fields),
    .min_in = 2, .max_in = 2, .min_out = 2, .max_out = 2,
    .prepare = split_prepare, .run = split_run, .release = split_release,
};
