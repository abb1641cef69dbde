/* causal_conv.c - the CAUSAL_CONV layer (ONNX CausalConvWithState): inputs
 * X [B, C, L], W [C, 1, K], optional B [C] and past_state [B, C, K-1];
 * outputs Y [B, C, L] and optional present_state [B, C, K-1]. */
#include "rt/ops/ops.h"

/* dims of a 3-D tensor must be {a, b, c} */
static int cc_want3(const pz_layer *l, char *err, size_t n, const char *what,
                    const pz_tensor *t, int64_t a, int64_t b, int64_t c)
{
    char buf[96];
    if (t->rank == 3 && t->dims[0] == a && t->dims[1] == b && t->dims[2] == c) return 0;
    return pz_layer_fail(l, err, n, "%s has shape %s, expected [%lld,%lld,%lld]", what,
                         pz_shape_str(t, buf, sizeof buf), (long long)a, (long long)b,
                         (long long)c);
}

static int causal_conv_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_causal_conv_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *b = pz_in(l, 2), *past = pz_in(l, 3);
    const pz_tensor *y = pz_out(l, 0), *pres = pz_out(l, 1);
    if (!x || !w || !y) return pz_layer_fail(l, err, n, "needs X, W and Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (x->rank != 3) return pz_layer_fail(l, err, n, "X has rank %d, expected 3", x->rank);
    if (w->rank != 3) return pz_layer_fail(l, err, n, "W has rank %d, expected 3", w->rank);
    pz_causal_conv_desc *d = calloc(1, sizeof *d);
    if (!d) return pz_layer_fail(l, err, n, "out of memory");
    l->state = d;
    d->B = x->dims[0], d->C = x->dims[1], d->L = x->dims[2], d->K = w->dims[2];
    d->silu = p->silu;
    if (d->K < 1) return pz_layer_fail(l, err, n, "W's kernel size is 0");
    if (pz_layer_want_dtype(l, err, n, "W", w, x->dtype) ||
        cc_want3(l, err, n, "W", w, d->C, 1, d->K) ||
        pz_layer_want_dtype(l, err, n, "Y", y, x->dtype) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x) ||
        (past && (pz_layer_want_dtype(l, err, n, "past_state", past, x->dtype) ||
                  cc_want3(l, err, n, "past_state", past, d->B, d->C, d->K - 1))) ||
        (pres && (pz_layer_want_dtype(l, err, n, "present_state", pres, x->dtype) ||
                  cc_want3(l, err, n, "present_state", pres, d->B, d->C, d->K - 1))))
        return 1;
    if (b && pz_layer_want_dtype(l, err, n, "B", b, x->dtype)) return 1;
    if (b && (b->rank != 1 || b->dims[0] != d->C))
        return pz_layer_fail(l, err, n, "B must be [%lld]", (long long)d->C);
    return 0;
}

static void causal_conv_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0], *b = pz_in(l, 2), *past = pz_in(l, 3);
    const pz_tensor *pres = pz_out(l, 1);
    pz_any_causal_conv__ref(l->state, x->dtype, x->data, l->in[1]->data, b ? b->data : NULL,
                            past ? past->data : NULL, l->out[0]->data,
                            pres ? pres->data : NULL, ith, nth);
}

static const pz_param_field causal_conv_fields[] = {
    PZ_FIELD(pz_causal_conv_params, silu, PZ_F_INT),
};

const pz_rt_op pz_rt_op_causal_conv = {
    .name = "CAUSAL_CONV", PZ_OP_PARAMS(pz_causal_conv_params, causal_conv_fields),
    .min_in = 2, .max_in = 4, .min_out = 1, .max_out = 2,
    .prepare = causal_conv_prepare, .run = causal_conv_run,
};
