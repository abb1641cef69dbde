/* norm.c - the NORM layer (RMSNormalization, InstanceNormalization,
 * GroupNormalization): X, scale?, bias? -> Y [X's shape], any float type,
 * rows of contiguous elements normalised by the reference (norm_ref.c). */
#include "rt/ops/ops.h"

/* The row split and the scale map of p's function for X; NULL message: ok. */
static const char *norm_plan(const pz_norm_params *p, const pz_tensor *x, int64_t ns,
                             pz_norm_desc *d)
{
    const int64_t C = x->rank > 1 ? x->dims[1] : 1, sp = x->rank > 2 ? pz_prod(x->dims + 2, x->rank - 2) : 1;
    d->sg = 1, d->sn = 0, d->sdiv = 1, d->smod = ns > 0 ? ns : 1;
    d->center = p->func != PZ_NORM_RMS;
    switch (p->func) {
    case PZ_NORM_RMS:
        if (p->axis < 0 || p->axis > x->rank) return "axis out of range";
        d->outer = pz_prod(x->dims, p->axis);
        d->nn = pz_prod(x->dims + p->axis, x->rank - p->axis);
        if (ns != 1 && (ns == 0 || d->nn % ns)) return "scale does not broadcast to the normalised dims";
        return NULL;   /* idx = i % ns: scale is a suffix of the normalised dims */
    case PZ_NORM_INSTANCE:
        if (x->rank < 2 || ns != C) return "needs X [N, C, ...] and scale, bias [C]";
        d->outer = x->dims[0] * C;
        d->nn = sp;
        d->sg = C, d->sn = 1, d->sdiv = sp > 0 ? sp : 1;
        return NULL;
    case PZ_NORM_GROUP: {
        const int64_t G = p->groups;
        if (x->rank < 2 || G <= 0 || C % G) return "needs X [N, C, ...] with C a multiple of groups";
        d->outer = x->dims[0] * G;
        d->nn = C / G * sp;
        d->sdiv = sp > 0 ? sp : 1;
        if (ns == C) d->sg = G, d->sn = C / G;      /* per channel: (r % G) * C/G + i / sp */
        else if (ns == G) d->sg = G, d->sn = 1, d->sdiv = d->nn > 0 ? d->nn : 1;   /* per group */
        else return "scale and bias must have C or groups elements";
        return NULL;
    }
    }
    return "unknown function";
}

static int norm_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_norm_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *s = pz_in(l, 1), *b = pz_in(l, 2), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s, expected a float type",
                             pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x) ||
        (s && pz_layer_want_dtype(l, err, n, "scale", s, x->dtype)) ||
        (b && pz_layer_want_dtype(l, err, n, "bias", b, x->dtype)))
        return 1;
    if (s && b && pz_numel(s) != pz_numel(b))
        return pz_layer_fail(l, err, n, "scale and bias differ in size");
    pz_norm_desc *d = calloc(1, sizeof *d);
    if (!d) return pz_layer_fail(l, err, n, "out of memory");
    l->state = d;
    const char *why = norm_plan(p, x, s ? pz_numel(s) : b ? pz_numel(b) : 1, d);
    if (why) return pz_layer_fail(l, err, n, "%s", why);
    d->eps = p->epsilon;
    return 0;
}

static void norm_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *s = pz_in(l, 1), *b = pz_in(l, 2);
    pz_any_norm__ref(l->state, l->in[0]->dtype, l->in[0]->data, s ? s->data : NULL,
                     b ? b->data : NULL, l->out[0]->data, ith, nth);
}

static const pz_param_field norm_fields[] = {
    PZ_FIELD(pz_norm_params, func, PZ_F_INT),
    PZ_FIELD(pz_norm_params, axis, PZ_F_INT),
    PZ_FIELD(pz_norm_params, groups, PZ_F_I64),
    PZ_FIELD(pz_norm_params, epsilon, PZ_F_F32),
};

const pz_rt_op pz_rt_op_norm = {
    .name = "NORM", PZ_OP_PARAMS(pz_norm_params, norm_fields),
    .min_in = 1, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = norm_prepare, .run = norm_run,
};
