/* rotary.c - the ROTARY layer (ONNX RotaryEmbedding): X [B, H, S, D] or
 * [B, S, H*D], cos_cache and sin_cache [positions, w] with position_ids
 * int64 [B, S], else [B, S, w]; w >= rot/2. Y has X's shape. */
#include "rt/ops/ops.h"

static int rotary_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_rotary_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *co = pz_in(l, 1), *si = pz_in(l, 2), *pos = pz_in(l, 3);
    const pz_tensor *y = pz_out(l, 0);
    if (!x || !co || !si || !y) return pz_layer_fail(l, err, n, "needs X, cos, sin and Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "cos_cache", co, x->dtype) ||
        pz_layer_want_dtype(l, err, n, "sin_cache", si, x->dtype) ||
        pz_layer_want_dtype(l, err, n, "Y", y, x->dtype) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x) ||
        pz_layer_want_same_shape(l, err, n, "sin_cache", si, co))
        return 1;
    pz_rotary_desc *d = calloc(1, sizeof *d);
    if (!d) return pz_layer_fail(l, err, n, "out of memory");
    l->state = d;
    d->B = x->dims[0];
    if (x->rank == 4) {
        d->H = x->dims[1], d->S = x->dims[2], d->D = x->dims[3];
        d->xs[0] = d->H * d->S * d->D, d->xs[1] = d->S * d->D, d->xs[2] = d->D;
    } else if (x->rank == 3 && p->num_heads > 0 && x->dims[2] % p->num_heads == 0) {
        d->H = p->num_heads, d->S = x->dims[1], d->D = x->dims[2] / d->H;
        d->xs[0] = d->S * x->dims[2], d->xs[1] = d->D, d->xs[2] = x->dims[2];
    } else {
        return pz_layer_fail(l, err, n, "X must be 4-D, or 3-D with num_heads dividing its "
                             "last dim");
    }
    d->rot = p->rotary_dim > 0 ? p->rotary_dim : d->D;
    if (d->rot > d->D || d->rot % 2)
        return pz_layer_fail(l, err, n, "rotary_dim %lld is odd or above the head size %lld",
                             (long long)d->rot, (long long)d->D);
    d->interleaved = p->interleaved;
    d->cw = co->dims[co->rank - 1];
    if (pos) {
        if (pos->dtype != PZ_I64 || pos->rank != 2 || pos->dims[0] != d->B ||
            pos->dims[1] != d->S || co->rank != 2)
            return pz_layer_fail(l, err, n, "position_ids must be int64 [B, S] and the caches "
                                 "2-D");
        d->crows = co->dims[0];
    } else {
        if (co->rank != 3 || co->dims[0] != d->B || co->dims[1] != d->S)
            return pz_layer_fail(l, err, n, "without position_ids the caches must be [B, S, w]");
        d->crows = d->B * d->S;
    }
    if (d->cw < d->rot / 2)
        return pz_layer_fail(l, err, n, "the caches' last dim %lld is below rotary_dim/2",
                             (long long)d->cw);
    return pos ? pz_index_run_prepare(l, pos, err, n) : 0;   /* run-time positions: checked */
}

static void rotary_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0], *pos = pz_in(l, 3);
    /* a position outside the caches fails the run, as ONNX Runtime 1.30 (the
     * kernel gives NaN for it) */
    if (ith == 0 && pos && l->run_err)
        pz_run_check_span(l, pos, "position_ids", 0, ((const pz_rotary_desc *)l->state)->crows - 1);
    pz_any_rotary__ref(l->state, x->dtype, x->data, l->in[1]->data, l->in[2]->data,
                       pos ? pos->data : NULL, l->out[0]->data, ith, nth);
}

static const pz_param_field rotary_fields[] = {
    PZ_FIELD(pz_rotary_params, interleaved, PZ_F_INT),
    PZ_FIELD(pz_rotary_params, num_heads, PZ_F_INT),
    PZ_FIELD(pz_rotary_params, rotary_dim, PZ_F_INT),
};

const pz_rt_op pz_rt_op_rotary = {
    .name = "ROTARY", PZ_OP_PARAMS(pz_rotary_params, rotary_fields),
    .min_in = 3, .max_in = 4, .min_out = 1, .max_out = 1,
    .prepare = rotary_prepare, .run = rotary_run,
};
