/* quant.c - the QUANT layer: QuantizeLinear (X, scale, zero_point? -> Y of
 * the zero point's or the requested type), DequantizeLinear (X, scale,
 * zero_point? -> Y of the scale's or the requested type), per tensor, per
 * axis or blocked; DynamicQuantizeLinear (X float32 -> Y uint8, scale,
 * zero_point). Reference kernels (quant_ref.c). */
#include "rt/ops/ops.h"

/* The scale map of scale tensor s for X (quant_ref.c); NULL: fine. */
static const char *quant_plan(const pz_quant_params *p, const pz_tensor *x, const pz_tensor *s,
                              pz_quant_desc *d)
{
    const int r = x->rank > 0 ? x->rank : 1, ax = x->rank > 0 ? p->axis : 0;
    if (ax < 0 || ax >= r) return "axis out of range";
    d->outer = pz_prod(x->dims, ax);
    d->D = x->rank > 0 ? x->dims[ax] : 1;
    d->inner = x->rank > 0 ? pz_prod(x->dims + ax + 1, x->rank - ax - 1) : 1;
    d->block = 1;
    d->so = d->sd = d->si = 0;
    if (pz_numel(s) == 1 && p->block_size <= 0) return NULL;   /* per tensor */
    if (p->block_size <= 0) {                                  /* per axis */
        if (s->rank != 1 || s->dims[0] != d->D) return "a per-axis scale must be 1-D of X's axis length";
        d->sd = 1;
        return NULL;
    }
    if (s->rank != x->rank) return "a blocked scale must have X's rank";
    for (int i = 0; i < x->rank; i++) {
        int64_t want = i == ax ? (x->dims[i] + p->block_size - 1) / p->block_size : x->dims[i];
        if (s->dims[i] != want) return "a blocked scale must be X's shape with ceil(D / block_size) along the axis";
    }
    d->block = p->block_size;
    d->si = 1;
    d->sd = d->inner;
    d->so = s->dims[ax] * d->inner;
    return NULL;
}

static int quant_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_quant_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *s = pz_in(l, 1), *z = pz_in(l, 2), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (p->func == PZ_QUANT_DYNAMIC) {
        const pz_tensor *ys = pz_out(l, 1), *yz = pz_out(l, 2);
        if (x->dtype != PZ_F32 || y->dtype != PZ_U8 || !ys || !yz || ys->dtype != PZ_F32 ||
            yz->dtype != PZ_U8 || pz_numel(ys) != 1 || pz_numel(yz) != 1 ||
            pz_numel(y) != pz_numel(x))
            return pz_layer_fail(l, err, n, "needs X float32 -> Y uint8, scale float32 and "
                                 "zero point uint8 scalars");
        return 0;
    }
    if (!s) return pz_layer_fail(l, err, n, "needs a scale");
    if (p->func != PZ_QUANT_Q && p->func != PZ_QUANT_DQ)
        return pz_layer_fail(l, err, n, "unknown function %d", (int)p->func);
    const int tq = p->func == PZ_QUANT_Q ? y->dtype : x->dtype;   /* the quantised side */
    const int tf = p->func == PZ_QUANT_Q ? x->dtype : y->dtype;   /* the float side */
    if (!pz_dtype_is_float(s->dtype) || !pz_dtype_is_float(tf))
        return pz_layer_fail(l, err, n, "scale and the float side must be float types");
    if (pz_dtype_size(tq) != 1 && pz_dtype_size(tq) != 2 && tq != PZ_I32)
        return pz_layer_fail(l, err, n, "quantised type %s is not supported", pz_dtype_name(tq));
    if (z && (z->dtype != tq || pz_numel(z) != pz_numel(s)))
        return pz_layer_fail(l, err, n, "zero point must be %s with the scale's size",
                             pz_dtype_name(tq));
    if (pz_numel(y) != pz_numel(x)) return pz_layer_fail(l, err, n, "X and Y differ in size");
    pz_quant_desc *d = calloc(1, sizeof *d);
    if (!d) return pz_layer_fail(l, err, n, "out of memory");
    l->state = d;
    const char *why = quant_plan(p, x, s, d);
    return why ? pz_layer_fail(l, err, n, "%s", why) : 0;
}

static void quant_run(const pz_layer *l, int ith, int nth)
{
    const pz_quant_params *p = l->params;
    const pz_tensor *x = l->in[0], *s = pz_in(l, 1), *z = pz_in(l, 2), *y = l->out[0];
    if (p->func == PZ_QUANT_DYNAMIC)
        pz_f32_dynamic_quantize__ref(pz_numel(x), x->data, y->data, l->out[1]->data,
                                     l->out[2]->data, ith, nth);
    else if (p->func == PZ_QUANT_Q)
        pz_any_quantize__ref(l->state, p->saturate, x->dtype, x->data, s->dtype, s->data,
                             z ? z->data : NULL, y->dtype, y->data, ith, nth);
    else
        pz_any_dequantize__ref(l->state, x->dtype, x->data, s->dtype, s->data,
                               z ? z->data : NULL, y->dtype, y->data, ith, nth);
}

static const pz_param_field quant_fields[] = {
    PZ_FIELD(pz_quant_params, func, PZ_F_INT),
    PZ_FIELD(pz_quant_params, axis, PZ_F_INT),
    PZ_FIELD(pz_quant_params, block_size, PZ_F_I64),
    PZ_FIELD(pz_quant_params, saturate, PZ_F_INT),
};

const pz_rt_op pz_rt_op_quant = {
    .name = "QUANT", PZ_OP_PARAMS(pz_quant_params, quant_fields),
    .min_in = 1, .max_in = 3, .min_out = 1, .max_out = 3,
    .prepare = quant_prepare, .run = quant_run,
};
