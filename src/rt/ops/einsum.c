/* einsum.c - the EINSUM layer (ONNX Einsum): inputs X0..Xn of one numeric
 * type, each axis labelled (pz_einsum_params); Y's axes are labels 0 to
 * out_rank-1, the other labels are summed over. */
#include "rt/ops/ops.h"

static int einsum_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_einsum_params *p = l->params;
    const pz_tensor *y = pz_out(l, 0);
    int64_t size[PZ_EINSUM_MAX_LABELS];
    if (p->n_in < 1 || p->n_in > PZ_EINSUM_MAX_IN || p->n_in != l->n_in)
        return pz_layer_fail(l, err, n, "n_in %d, the layer has %d inputs", p->n_in, l->n_in);
    if (p->n_labels < p->out_rank || p->n_labels > PZ_EINSUM_MAX_LABELS || p->out_rank < 0 ||
        p->out_rank > PZ_MAX_RANK)
        return pz_layer_fail(l, err, n, "%d labels, %d of the output", p->n_labels, p->out_rank);
    if (!y) return pz_layer_fail(l, err, n, "needs Y");
    for (int k = 0; k < p->n_labels; k++) size[k] = -1;
    for (int i = 0; i < p->n_in; i++) {
        const pz_tensor *x = pz_in(l, i);
        if (!x) return pz_layer_fail(l, err, n, "input %d is missing", i);
        if (!pz_dtype_is_float(x->dtype) && !pz_dtype_is_int(x->dtype))
            return pz_layer_fail(l, err, n, "input %d has type %s, expected a number type", i,
                                 pz_dtype_name(x->dtype));
        if (x->dtype != pz_in(l, 0)->dtype)
            return pz_layer_fail(l, err, n, "input %d has type %s, input 0 %s", i,
                                 pz_dtype_name(x->dtype), pz_dtype_name(pz_in(l, 0)->dtype));
        if (x->rank != p->in_rank[i])
            return pz_layer_fail(l, err, n, "input %d has rank %d, expected %d", i, x->rank,
                                 p->in_rank[i]);
        for (int a = 0; a < x->rank; a++) {
            const int k = p->in_label[i * PZ_MAX_RANK + a];
            if (k < 0 || k >= p->n_labels)
                return pz_layer_fail(l, err, n, "input %d axis %d has label %d", i, a, k);
            if (size[k] >= 0 && size[k] != x->dims[a])
                return pz_layer_fail(l, err, n, "label %d has sizes %lld and %lld", k,
                                     (long long)size[k], (long long)x->dims[a]);
            size[k] = x->dims[a];
        }
    }
    if (pz_layer_want_dtype(l, err, n, "Y", y, pz_in(l, 0)->dtype)) return 1;
    if (y->rank != p->out_rank) return pz_layer_fail(l, err, n, "Y has rank %d, expected %d",
                                                     y->rank, p->out_rank);
    for (int k = 0; k < p->out_rank; k++)
        if (size[k] != y->dims[k])
            return pz_layer_fail(l, err, n, "Y dim %d is %lld, its label %lld", k,
                                 (long long)y->dims[k], (long long)size[k]);
    return 0;
}

static void einsum_run(const pz_layer *l, int ith, int nth)
{
    const pz_einsum_params *p = l->params;
    const int64_t *dims[PZ_EINSUM_MAX_IN];
    const void *x[PZ_EINSUM_MAX_IN];
    for (int i = 0; i < p->n_in; i++) {
        dims[i] = l->in[i]->dims;
        x[i] = l->in[i]->data;
    }
    pz_any_einsum__ref(p, l->in[0]->dtype, dims, x, l->out[0]->data, ith, nth);
}

static const pz_param_field einsum_fields[] = {
    PZ_FIELD(pz_einsum_params, n_in, PZ_F_INT),
    PZ_FIELD(pz_einsum_params, n_labels, PZ_F_INT),
    PZ_FIELD(pz_einsum_params, out_rank, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_einsum_params, in_rank, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_einsum_params, in_label, PZ_F_INT),
};

const pz_rt_op pz_rt_op_einsum = {
    .name = "EINSUM", PZ_OP_PARAMS(pz_einsum_params, einsum_fields),
    .min_in = 1, .max_in = PZ_EINSUM_MAX_IN, .min_out = 1, .max_out = 1,
    .prepare = einsum_prepare, .run = einsum_run,
};
