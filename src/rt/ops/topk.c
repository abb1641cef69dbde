/* topk.c - the TOPK layer (ONNX TopK): X -> Values (X's type) and Indices
 * (int64), X's shape with k along axis; k is the compiler's constant, or
 * (k -1) the int64 of input 1 read at run time: the outputs, planned at k =
 * X's size along axis, then have run-time shapes (dyn_self). Any numeric
 * type; per worker, scratch for a row's sort (2 * n int64). */
#include "rt/ops/ops.h"

static int topk_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_topk_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *kt = pz_in(l, 1), *v = pz_out(l, 0), *i = pz_out(l, 1);
    if (!x || !v || !i) return pz_layer_fail(l, err, n, "needs X, Values and Indices");
    if (p->k < 0 && (!kt || kt->dtype != PZ_I64 || pz_numel(kt) != 1))
        return pz_layer_fail(l, err, n, "k -1 (the run's) needs K, one int64");
    const int64_t k = p->k < 0 ? x->rank > p->axis && p->axis >= 0 ? x->dims[p->axis] : 0 : p->k;
    if (!pz_dtype_is_float(x->dtype) && !pz_dtype_is_int(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s, expected a number type",
                             pz_dtype_name(x->dtype));
    if (p->axis < 0 || p->axis >= x->rank)
        return pz_layer_fail(l, err, n, "axis %d is out of range for rank %d", p->axis, x->rank);
    if (k > x->dims[p->axis])
        return pz_layer_fail(l, err, n, "k %lld is not in [0, %lld]", (long long)k,
                             (long long)x->dims[p->axis]);
    if (pz_layer_want_dtype(l, err, n, "Values", v, x->dtype) ||
        pz_layer_want_dtype(l, err, n, "Indices", i, PZ_I64))
        return 1;
    for (int t = 0; t < 2; t++) {
        const pz_tensor *y = t ? i : v;
        int ok = y->rank == x->rank;
        for (int a = 0; ok && a < x->rank; a++)
            ok = y->dims[a] == (a == p->axis ? k : x->dims[a]);
        if (!ok) {
            char bx[96], by[96];
            return pz_layer_fail(l, err, n, "%s %s is not X %s with %lld along axis %d",
                                 t ? "Indices" : "Values", pz_shape_str(y, by, sizeof by),
                                 pz_shape_str(x, bx, sizeof bx), (long long)k, p->axis);
        }
    }
    l->scratch_bytes = (size_t)(l->nth > 0 ? l->nth : 1) * 2 * (size_t)x->dims[p->axis] *
                       sizeof(int64_t);
    l->scratch_run_only = 1;
    return 0;
}

static void topk_run(const pz_layer *l, int ith, int nth)
{
    pz_topk_params p = *(const pz_topk_params *)l->params;
    const pz_tensor *x = l->in[0];
    p.k = l->out[0]->dims[p.axis];   /* the run's k, in a dynamic region */
    pz_axis_shape s = pz_axis_shape_of(x->rank, x->dims, p.axis, 0);
    pz_any_topk__ref(&p, x->dtype, &s, x->data, l->out[0]->data, l->out[1]->data, l->scratch,
                     ith, nth);
}

/* A dynamic region, or k the run's: X's dims with k along axis. A k beyond
 * X's size there, or negative, fails the run (pz_layer_run_fail; the
 * outputs are then planned at the size, or empty). */
static void topk_run_shape(const pz_layer *l)
{
    const pz_topk_params *p = l->params;
    const pz_tensor *x = l->in[0];
    int64_t k = p->k < 0 ? *(const int64_t *)l->in[1]->data : p->k;
    if (k > x->dims[p->axis] || k < 0)
        pz_layer_run_fail(l, "k %lld is outside [0, %lld], the size of axis %d", (long long)k,
                          (long long)x->dims[p->axis], p->axis);
    if (k > x->dims[p->axis]) k = x->dims[p->axis];
    if (k < 0) k = 0;
    for (int t = 0; t < 2; t++) {
        pz_tensor *y = l->out[t];
        y->rank = x->rank;
        for (int a = 0; a < x->rank; a++) y->dims[a] = a == p->axis ? k : x->dims[a];
    }
}

static int topk_dyn_self(const pz_layer *l)
{
    return ((const pz_topk_params *)l->params)->k < 0;
}

static const pz_param_field topk_fields[] = {
    PZ_FIELD(pz_topk_params, axis, PZ_F_INT),
    PZ_FIELD(pz_topk_params, k, PZ_F_I64),
    PZ_FIELD(pz_topk_params, largest, PZ_F_INT),
    PZ_FIELD(pz_topk_params, sorted, PZ_F_INT),
};

const pz_rt_op pz_rt_op_topk = {
    .name = "TOPK", PZ_OP_PARAMS(pz_topk_params, topk_fields),
    .min_in = 1, .max_in = 2, .min_out = 2, .max_out = 2,
    .prepare = topk_prepare, .run = topk_run,
    .run_shape = topk_run_shape, .dyn_self = topk_dyn_self,
};
