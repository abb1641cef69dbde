/* quant.c - the QUANT layer: QuantizeLinear (X, scale, zero_point? -> Y of
 * the zero point's or the requested type), DequantizeLinear (X, scale,
 * zero_point? -> Y of the scale's or the requested type), per tensor, per
 * axis or blocked; DynamicQuantizeLinear (X float32 -> Y uint8, scale,
 * zero_point). Reference kernels (quant_ref.c); per tensor between float32
 * and uint8/int8, the fast kernels of qdq.h, which keep an int8 layer's
 * NCHW16c (element-wise, any layout); DynamicQuantizeLinear, its range
 * in 16 lanes and qdq.h's quantize (the reference's bits), each worker
 * finding the range of its share, then (after a barrier) all of them
 * combining the parts in the same order. */
#include "rt/kernels/quant/qdq.h"
#include "rt/ops/ops.h"

typedef struct {
    pz_quant_desc d;                 /* the reference's map (first: run passes &d) */
    const pz_qdq_kernels *fast;      /* per tensor, float32 <-> 8 bits; else NULL */
    int64_t n;                       /* fast: elements in the layout chosen */
    pz_barrier bar;                  /* DynamicQuantizeLinear: the ranges' parts, then the rest */
} quant_state;

/* The fast path: per tensor, float32 on one side and uint8/int8 on the
 * other, a float32 scale. A rank-4 tensor stays in the layout its producer
 * wrote when that is NCHW16c, except a dequantization to float32 with
 * channels past C (float32 blocks want those lanes zero). */
static void quant_fast(pz_layer *l, quant_state *st, const pz_tensor *x, const pz_tensor *s,
                       const pz_tensor *y)
{
    const pz_quant_params *p = l->params;
    const int tq = p->func == PZ_QUANT_Q ? y->dtype : x->dtype;
    const int tf = p->func == PZ_QUANT_Q ? x->dtype : y->dtype;
    if (l->isa == PZ_ISA_REF || p->block_size > 0 || pz_numel(s) != 1 || s->dtype != PZ_F32 ||
        tf != PZ_F32 || (tq != PZ_U8 && tq != PZ_I8) || (p->func == PZ_QUANT_Q && !p->saturate))
        return;
    st->fast = pz_qdq_for(l->isa);
    int cb = 0;
    if (x->rank == 4 && l->in_have[0] == 16 &&
        (p->func == PZ_QUANT_Q || x->dims[1] % 16 == 0))
        cb = 16;
    l->in_cblk[0] = l->out_cblk[0] = cb;
    st->n = (int64_t)(pz_layout_bytes(x, cb) / pz_dtype_size(x->dtype));
    l->kernel = cb ? "fast16c" : "fast";
}

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

/* DynamicQuantizeLinear's range in 16 lanes (vectorizable), each lane and
 * then the lanes combined by the reference's rule (NaNs skipped; min(x, 0)
 * and max(x, 0), so the order of a -0 and a 0 does not matter). */
static void dyn_range(int64_t n, const float *x, float *mn, float *mx)
{
    float lo[16] = {0}, hi[16] = {0};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int j = 0; j < 16; j++) {
            lo[j] = x[i + j] < lo[j] ? x[i + j] : lo[j];
            hi[j] = x[i + j] > hi[j] ? x[i + j] : hi[j];
        }
    for (; i < n; i++) {
        lo[0] = x[i] < lo[0] ? x[i] : lo[0];
        hi[0] = x[i] > hi[0] ? x[i] : hi[0];
    }
    *mn = 0, *mx = 0;
    for (int j = 0; j < 16; j++) {
        *mn = lo[j] < *mn ? lo[j] : *mn;
        *mx = hi[j] > *mx ? hi[j] : *mx;
    }
}

/* DynamicQuantizeLinear on the fast quantize: worker ith finds the range of
 * its share into part[ith] (a cache line each), then after the barrier
 * every worker combines the nth parts (min and max: the same values in any
 * split, as the whole scan's) and quantizes its share, as
 * pz_f32_dynamic_quantize__ref. */
static void dyn_quantize(const pz_qdq_kernels *k, pz_barrier *bar, float *part, int64_t n,
                         const float *x, uint8_t *y, float *scale, uint8_t *zp, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    dyn_range(hi - lo, x + lo, &part[16 * ith], &part[16 * ith + 1]);
    if (nth > 1) pz_barrier_wait(bar, nth);
    float mn = 0, mx = 0;
    for (int t = 0; t < nth; t++) {
        mn = part[16 * t] < mn ? part[16 * t] : mn;
        mx = part[16 * t + 1] > mx ? part[16 * t + 1] : mx;
    }
    const float s = (mx - mn) / 255.0f;
    if (s == 0) {   /* all of X 0: the reference's zeros */
        pz_f32_dynamic_quantize__ref(n, x, y, scale, zp, ith, nth);
        return;
    }
    const double z = fmin(255, fmax(0, nearbyint(0 - (double)(mn / s))));
    if (hi > lo) k->quantize(hi - lo, x + lo, s, (int32_t)z, 0, y + lo);
    if (ith == 0) {
        *scale = s;
        *zp = (uint8_t)z;
    }
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
        if (l->isa == PZ_ISA_REF) return 0;
        /* aligned as the barrier wants (a cache line) */
        const size_t sz = (sizeof(quant_state) + 63) / 64 * 64;
        quant_state *st = aligned_alloc(64, sz);
        if (!st) return pz_layer_fail(l, err, n, "out of memory");
        memset(st, 0, sz);
        l->state = st;
        st->fast = pz_qdq_for(l->isa);
        l->scratch_bytes = (size_t)(l->nth > 0 ? l->nth : 1) * 64;   /* the ranges' parts */
        l->kernel = "fast";
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
    quant_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    const char *why = quant_plan(p, x, s, &st->d);
    if (why) return pz_layer_fail(l, err, n, "%s", why);
    quant_fast(l, st, x, s, y);
    return 0;
}

static void quant_run(const pz_layer *l, int ith, int nth)
{
    const pz_quant_params *p = l->params;
    const pz_tensor *x = l->in[0], *s = pz_in(l, 1), *z = pz_in(l, 2), *y = l->out[0];
    quant_state *st = l->state;
    if (st && st->fast && p->func == PZ_QUANT_DYNAMIC) {
        dyn_quantize(st->fast, &st->bar, l->scratch, pz_numel(x), x->data, y->data,
                     l->out[1]->data, l->out[2]->data, ith, nth);
    } else if (st && st->fast) {
        const int tq = p->func == PZ_QUANT_Q ? y->dtype : x->dtype;
        const int32_t zp = pz_zp8(z);
        const float sc = *(const float *)s->data;
        int64_t lo, hi;
        pz_split(st->n, ith, nth, &lo, &hi);
        if (p->func == PZ_QUANT_Q)
            st->fast->quantize(hi - lo, (const float *)x->data + lo, sc, zp, tq == PZ_I8,
                               (char *)y->data + lo);
        else
            st->fast->dequantize(hi - lo, (const char *)x->data + lo, tq == PZ_I8, sc, zp,
                                 (float *)y->data + lo);
    } else if (p->func == PZ_QUANT_DYNAMIC)
        pz_f32_dynamic_quantize__ref(pz_numel(x), x->data, y->data, l->out[1]->data,
                                     l->out[2]->data, ith, nth);
    else if (p->func == PZ_QUANT_Q)
        pz_any_quantize__ref(&st->d, p->saturate, x->dtype, x->data, s->dtype, s->data,
                             z ? z->data : NULL, y->dtype, y->data, ith, nth);
    else
        pz_any_dequantize__ref(&st->d, x->dtype, x->data, s->dtype, s->data,
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
