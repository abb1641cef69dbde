/* compress.c - the COMPRESS layer (ONNX Compress): X, condition (bool, 1-D)
 * -> Y, X's slices along axis (-1: elements of the flattened X) where the
 * condition is true. Y is planned at its bound (X's length along the axis,
 * capped by the condition's); run sets that dim to the count (a run-time
 * shape, Y packed at it). One worker. */
#include "rt/ops/ops.h"

/* X as [outer, n, inner] around the axis. */
static void compress_geometry(const pz_compress_params *p, const pz_tensor *x, int64_t *outer,
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

static int compress_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_compress_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *c = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !c || !y) return pz_layer_fail(l, err, n, "needs X, condition and Y");
    if (pz_layer_want_dtype(l, err, n, "condition", c, PZ_BOOL) ||
        pz_layer_want_dtype(l, err, n, "Y", y, x->dtype))
        return 1;
    if (c->rank != 1) return pz_layer_fail(l, err, n, "condition must be 1-D, has rank %d", c->rank);
    if (p->axis >= x->rank) return pz_layer_fail(l, err, n, "axis %d is out of range", p->axis);
    int64_t outer, len, inner, bound;
    compress_geometry(p, x, &outer, &len, &inner);
    bound = len < c->dims[0] ? len : c->dims[0];
    int ok = p->axis < 0 ? y->rank == 1 && y->dims[0] >= 0 && y->dims[0] <= bound
                         : y->rank == x->rank;
    for (int a = 0; ok && p->axis >= 0 && a < x->rank; a++)
        ok = a == p->axis ? y->dims[a] <= bound : y->dims[a] == x->dims[a];
    if (!ok) {
        char bx[96], by[96];
        return pz_layer_fail(l, err, n, "Y %s does not fit X %s compressed along axis %d",
                             pz_shape_str(y, by, sizeof by), pz_shape_str(x, bx, sizeof bx),
                             p->axis);
    }
    l->nth = 1;
    return 0;
}

static void compress_run(const pz_layer *l, int ith, int nth)
{
    const pz_compress_params *p = l->params;
    const pz_tensor *x = l->in[0], *c = l->in[1];
    int64_t outer, len, inner;
    compress_geometry(p, x, &outer, &len, &inner);
    int64_t k = pz_any_compress__ref(pz_dtype_size(x->dtype), outer, len, inner, x->data,
                                     c->data, c->dims[0], l->out[0]->data);
    l->out[0]->dims[p->axis < 0 ? 0 : p->axis] = k;
}

static const pz_param_field compress_fields[] = {
    PZ_FIELD(pz_compress_params, axis, PZ_F_INT),
};

const pz_rt_op pz_rt_op_compress = {
    .name = "COMPRESS", PZ_OP_PARAMS(pz_compress_params, compress_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = compress_prepare, .run = compress_run,
    .dyn_out = 1,
};
