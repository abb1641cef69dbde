/* unique.c - the UNIQUE layer (ONNX Unique): X -> Y (X's type), indices?,
 * inverse_indices?, counts? (int64). X is seen as [outer, n, inner] around
 * the axis (-1: the flattened X, n = numel). Y [.., u, ..], indices and
 * counts [u] are planned at their bound (u = n); run sets u (run-time
 * shapes, packed at them); inverse_indices [n] is static. One worker;
 * scratch 5 * n int64. */
#include "rt/ops/ops.h"

static void unique_geometry(const pz_unique_params *p, const pz_tensor *x, int64_t *outer,
                            int64_t *len, int64_t *inner)
{
    *outer = *inner = 1;
    if (p->axis < 0) {
        *len = pz_numel(x);
        return;
    }
    *len = x->dims[p->axis];
    for (int a = 0; a < p->axis; a++) *outer *= x->dims[a];
    for (int a = p->axis + 1; a < x->rank; a++) *inner *= x->dims[a];
}

static int unique_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_unique_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (p->axis >= x->rank) return pz_layer_fail(l, err, n, "axis %d is out of range", p->axis);
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    int64_t outer, len, inner;
    unique_geometry(p, x, &outer, &len, &inner);
    int ok = p->axis < 0 ? y->rank == 1 && y->dims[0] == len : y->rank == x->rank;
    for (int a = 0; ok && p->axis >= 0 && a < x->rank; a++) ok = y->dims[a] == x->dims[a];
    for (int k = 1; ok && k < 4; k++) {
        const pz_tensor *t = pz_out(l, k);
        if (!t) continue;
        if (pz_layer_want_dtype(l, err, n, k == 1 ? "indices" : k == 2 ? "inverse_indices" : "counts",
                                t, PZ_I64))
            return 1;
        ok = t->rank == 1 && t->dims[0] == len;
    }
    if (!ok) {
        char bx[96];
        return pz_layer_fail(l, err, n, "the outputs are not the bounds of Unique of X %s on axis %d",
                             pz_shape_str(x, bx, sizeof bx), p->axis);
    }
    if (!pz_dtype_is_float(x->dtype) && !pz_dtype_is_int(x->dtype) && x->dtype != PZ_BOOL)
        return pz_layer_fail(l, err, n, "X has type %s, expected a number type",
                             pz_dtype_name(x->dtype));
    l->nth = 1;
    l->scratch_bytes = 5 * (size_t)(len ? len : 1) * sizeof(int64_t);
    l->scratch_run_only = 1;
    return 0;
}

static void unique_run(const pz_layer *l, int ith, int nth)
{
    const pz_unique_params *p = l->params;
    const pz_tensor *x = l->in[0];
    pz_tensor *idx = pz_out(l, 1), *inv = pz_out(l, 2), *cnt = pz_out(l, 3);
    int64_t outer, len, inner;
    unique_geometry(p, x, &outer, &len, &inner);
    int64_t u = pz_any_unique__ref(x->dtype, p->sorted, outer, len, inner, x->data,
                                   l->out[0]->data, idx ? idx->data : NULL,
                                   inv ? inv->data : NULL, cnt ? cnt->data : NULL, l->scratch);
    l->out[0]->dims[p->axis < 0 ? 0 : p->axis] = u;
    if (idx) idx->dims[0] = u;
    if (cnt) cnt->dims[0] = u;
}

static const pz_param_field unique_fields[] = {
    PZ_FIELD(pz_unique_params, axis, PZ_F_INT),
    PZ_FIELD(pz_unique_params, sorted, PZ_F_INT),
};

const pz_rt_op pz_rt_op_unique = {
    .name = "UNIQUE", PZ_OP_PARAMS(pz_unique_params, unique_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 4,
    .prepare = unique_prepare, .run = unique_run,
    .dyn_out = 1,
};
