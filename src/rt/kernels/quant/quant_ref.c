/* quant_ref.c - reference QuantizeLinear, DequantizeLinear and
 * DynamicQuantizeLinear, any types through double. */
#include "rt/kernels/kernels.h"

void pz_quant_range(int dt, double *lo, double *hi)
{
    switch (dt) {
    case PZ_U8: *lo = 0, *hi = 255; break;
    case PZ_I8: *lo = -128, *hi = 127; break;
    case PZ_U16: *lo = 0, *hi = 65535; break;
    case PZ_I16: *lo = -32768, *hi = 32767; break;
    case PZ_I32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case PZ_U4: *lo = 0, *hi = 15; break;
    case PZ_I4: *lo = -8, *hi = 7; break;
    case PZ_U2: *lo = 0, *hi = 3; break;
    case PZ_I2: *lo = -2, *hi = 1; break;
    default: *lo = -INFINITY, *hi = INFINITY; break;
    }
}

/* Element (o, a, i) of X reads scale element o*so + (a/block)*sd + i*si. */
static int64_t scale_at(const pz_quant_desc *d, int64_t e)
{
    int64_t i = e % d->inner, a = e / d->inner % d->D, o = e / d->inner / d->D;
    return o * d->so + a / d->block * d->sd + i * d->si;
}

void pz_any_quantize__ref(const pz_quant_desc *d, int saturate, int tx, const void *x, int ts,
                          const void *s, const void *zp, int ty, void *y, int ith, int nth)
{
    int64_t lo, hi;
    double qlo, qhi;
    pz_split(d->outer * d->D * d->inner, ith, nth, &lo, &hi);
    pz_quant_range(ty, &qlo, &qhi);
    const bool small_float = pz_dtype_is_small_float(ty);
    for (int64_t e = lo; e < hi; e++) {
        int64_t k = scale_at(d, e);
        double q = pz_round_to(tx, pz_ld(x, tx, e) / pz_ld(s, ts, k));
        double z = zp ? pz_load_f64(zp, ty, k) : 0;
        if (small_float) {   /* float8/float4: round to nearest even, saturate or not */
            /* float8 adds only a non-zero zero point, so -0 stays -0 as in
             * the ONNX reference (which casts x / scale); float4e2m1 adds it
             * (-0 + 0 = +0, as the reference) */
            const double v = ty == PZ_F4E2M1 || z != 0 ? q + z : q;
            /* one code per byte; not pz_store_bits, which stores integer types only */
            ((uint8_t *)y)[e] = (uint8_t)pz_f64_to_small(ty, v, !saturate, PZ_ROUND_NEAREST);
        } else if (pz_dtype_is_float(ty)) {
            pz_st(y, ty, e, q + z);
        } else {
            double v = nearbyint(q) + z;   /* half to even (the default rounding mode) */
            v = v < qlo ? qlo : v > qhi ? qhi : v;
            pz_store_bits(y, ty, e, (uint64_t)(int64_t)(isnan(v) ? 0 : v));
        }
    }
}

void pz_any_dequantize__ref(const pz_quant_desc *d, int tx, const void *x, int ts, const void *s,
                            const void *zp, int ty, void *y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(d->outer * d->D * d->inner, ith, nth, &lo, &hi);
    for (int64_t e = lo; e < hi; e++) {
        int64_t k = scale_at(d, e);
        double v = pz_load_f64(x, tx, e) - (zp ? pz_load_f64(zp, tx, k) : 0);
        /* (x - zp) in the scale's type, then the product rounds once */
        pz_st(y, ty, e, pz_round_to(ts, pz_round_to(ts, v) * pz_ld(s, ts, k)));
    }
}

void pz_f32_dynamic_quantize__ref(int64_t n, const float *x, uint8_t *y, float *scale,
                                  uint8_t *zp, int ith, int nth)
{
    /* every worker finds the range (all of X), then quantises its share */
    float mn = 0, mx = 0;
    for (int64_t i = 0; i < n; i++) {
        mn = x[i] < mn ? x[i] : mn;
        mx = x[i] > mx ? x[i] : mx;
    }
    const float s = (mx - mn) / 255.0f;
    const double z = s == 0 ? 0 : fmin(255, fmax(0, nearbyint(0 - (double)(mn / s))));
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
        double v = (s == 0 ? 0 : nearbyint((double)(x[i] / s))) + z;
        y[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    if (ith == 0) {
        *scale = s;
        *zp = (uint8_t)z;
    }
}
