/* linear_attention.c - the LINEAR_ATTENTION layer (ONNX LinearAttention):
 * inputs Q, K, V, optional past_state, decay, beta; outputs Y and optional
 * present_state. Q, K, V, decay, beta are 3-D [B, T, heads * size]. */
#include <string.h>

#include "rt/ops/ops.h"

/* t must be [B, T, a or b] of type dt; *w gets its last dim */
static int la_want3(const pz_layer *l, char *err, size_t n, const char *what,
                    const pz_tensor *t, int dt, int64_t B, int64_t T, int64_t a, int64_t b,
                    int64_t *w)
{
    char buf[96];
    if (pz_layer_want_dtype(l, err, n, what, t, dt)) return 1;
    if (t->rank == 3 && t->dims[0] == B && t->dims[1] == T &&
        (t->dims[2] == a || t->dims[2] == b)) {
        *w = t->dims[2];
        return 0;
    }
    return pz_layer_fail(l, err, n, "%s has shape %s, expected [%lld,%lld,%lld or %lld]", what,
                         pz_shape_str(t, buf, sizeof buf), (long long)B, (long long)T,
                         (long long)a, (long long)b);
}

static int la_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_linear_attention_params *p = l->params;
    const pz_tensor *q = pz_in(l, 0), *k = pz_in(l, 1), *v = pz_in(l, 2), *past = pz_in(l, 3);
    const pz_tensor *decay = pz_in(l, 4), *beta = pz_in(l, 5);
    const pz_tensor *y = pz_out(l, 0), *pres = pz_out(l, 1);
    if (!q || !k || !v || !y) return pz_layer_fail(l, err, n, "needs Q, K, V and Y");
    if (!pz_dtype_is_float(q->dtype))
        return pz_layer_fail(l, err, n, "Q has type %s", pz_dtype_name(q->dtype));
    if (q->rank != 3 || p->q_num_heads <= 0 || p->kv_num_heads <= 0 ||
        p->q_num_heads % p->kv_num_heads || q->dims[2] % p->q_num_heads)
        return pz_layer_fail(l, err, n, "Q must be 3-D with q_num_heads, a multiple of "
                             "kv_num_heads, dividing its last dim");
    pz_linear_attention_desc *d = calloc(1, sizeof *d);
    if (!d) return pz_layer_fail(l, err, n, "out of memory");
    l->state = d;
    d->dtype = q->dtype;
    d->rule = p->rule;
    d->scale = p->scale;
    d->B = q->dims[0], d->T = q->dims[1];
    d->Hq = p->q_num_heads, d->Hkv = p->kv_num_heads;
    d->Dk = q->dims[2] / d->Hq;
    if (v->rank != 3 || v->dims[2] % d->Hkv)
        return pz_layer_fail(l, err, n, "V must be 3-D with kv_num_heads dividing its last dim");
    d->Dv = v->dims[2] / d->Hkv;
    int64_t w;
    if (la_want3(l, err, n, "K", k, q->dtype, d->B, d->T, d->Hkv * d->Dk, d->Hkv * d->Dk, &w) ||
        la_want3(l, err, n, "V", v, q->dtype, d->B, d->T, d->Hkv * d->Dv, d->Hkv * d->Dv, &w) ||
        la_want3(l, err, n, "Y", y, q->dtype, d->B, d->T, d->Hq * d->Dv, d->Hq * d->Dv, &w))
        return 1;
    int gating = p->rule == PZ_LA_GATED || p->rule == PZ_LA_GATED_DELTA;
    int delta = p->rule == PZ_LA_DELTA || p->rule == PZ_LA_GATED_DELTA;
    if (gating != (decay != NULL) || delta != (beta != NULL))
        return pz_layer_fail(l, err, n, "the update rule's decay and beta inputs are not as given");
    if (decay) {
        if (la_want3(l, err, n, "decay", decay, q->dtype, d->B, d->T, d->Hkv, d->Hkv * d->Dk, &w))
            return 1;
        d->decay_width = w / d->Hkv;
    }
    if (beta) {
        if (la_want3(l, err, n, "beta", beta, q->dtype, d->B, d->T, d->Hkv, 1, &w)) return 1;
        d->beta_heads = w;
    }
    d->sdtype = past ? past->dtype : q->dtype;
    if (!pz_dtype_is_float(d->sdtype))
        return pz_layer_fail(l, err, n, "past_state has type %s", pz_dtype_name(d->sdtype));
    const int64_t sdims[4] = {d->B, d->Hkv, d->Dk, d->Dv};
    for (int s = 0; s < 2; s++) {
        const pz_tensor *t = s ? pres : past;
        if (!t) continue;
        if (pz_layer_want_dtype(l, err, n, s ? "present_state" : "past_state", t, d->sdtype))
            return 1;
        if (t->rank != 4 || memcmp(t->dims, sdims, sizeof sdims))
            return pz_layer_fail(l, err, n, "%s must be [%lld,%lld,%lld,%lld]",
                                 s ? "present_state" : "past_state", (long long)d->B,
                                 (long long)d->Hkv, (long long)d->Dk, (long long)d->Dv);
    }
    l->scratch_bytes = (size_t)(l->nth > 0 ? l->nth : 1) * (size_t)(d->Dk * d->Dv + d->Dv) *
                       sizeof(double);
    l->scratch_run_only = 1;
    return 0;
}

static void la_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *past = pz_in(l, 3), *decay = pz_in(l, 4), *beta = pz_in(l, 5);
    const pz_tensor *pres = pz_out(l, 1);
    pz_any_linear_attention__ref(l->state, l->in[0]->data, l->in[1]->data, l->in[2]->data,
                                 past ? past->data : NULL, decay ? decay->data : NULL,
                                 beta ? beta->data : NULL, l->out[0]->data,
                                 pres ? pres->data : NULL, l->scratch, ith, nth);
}

static const char *const la_rule_names[] = {"PZ_LA_LINEAR", "PZ_LA_GATED", "PZ_LA_DELTA",
                                            "PZ_LA_GATED_DELTA"};
_Static_assert(PZ_RT_LEN(la_rule_names) == PZ_LA_COUNT_, "a name for each pz_la_rule");

static const pz_param_field la_fields[] = {
    PZ_FIELD(pz_linear_attention_params, q_num_heads, PZ_F_INT),
    PZ_FIELD(pz_linear_attention_params, kv_num_heads, PZ_F_INT),
    PZ_FIELD_ENUM(pz_linear_attention_params, rule, la_rule_names),
    PZ_FIELD(pz_linear_attention_params, scale, PZ_F_F32),
};

const pz_rt_op pz_rt_op_linear_attention = {
    .name = "LINEAR_ATTENTION", PZ_OP_PARAMS(pz_linear_attention_params, la_fields),
    .min_in = 3, .max_in = 6, .min_out = 1, .max_out = 2,
    .prepare = la_prepare, .run = la_run,
};
