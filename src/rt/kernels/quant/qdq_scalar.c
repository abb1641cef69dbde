/* qdq_scalar.c - the scalar twins of qdq_avx512.c and qdq_avx2.c (qdq.h),
 * and the choice between them. */
#include <math.h>

#include "rt/kernels/quant/qdq.h"

void pz_f32_quantize8__scalar(int64_t n, const float *x, float s, int32_t zp, int y_signed,
                              void *y)
{
    const float lo = y_signed ? -128.0f : 0.0f, hi = y_signed ? 127.0f : 255.0f;
    for (int64_t i = 0; i < n; i++) {
        float v = nearbyintf(x[i] / s) + (float)zp;
        v = isnan(v) ? 0.0f : v < lo ? lo : v > hi ? hi : v;
        if (y_signed) ((int8_t *)y)[i] = (int8_t)v;
        else ((uint8_t *)y)[i] = (uint8_t)v;
    }
}

void pz_f32_dequantize8__scalar(int64_t n, const void *x, int x_signed, float s, int32_t zp,
                                float *y)
{
    for (int64_t i = 0; i < n; i++) {
        const int32_t q = x_signed ? ((const int8_t *)x)[i] : ((const uint8_t *)x)[i];
        y[i] = (float)(q - zp) * s;
    }
}

void pz_qadd8__scalar(int64_t n, const pz_qadd_args *q, const void *a, const void *b, void *c)
{
    float lo = q->sgn ? -128.0f : 0.0f;
    const float hi = q->sgn ? 127.0f : 255.0f;
    if (q->relu && (float)q->zc > lo) lo = (float)q->zc;   /* Relu: C's zero point */
    const pz_qadd_ratios r = pz_qadd_ratios_of(q);
    for (int64_t i = 0; i < n; i++) {
        const int32_t qa = q->sgn ? ((const int8_t *)a)[i] : ((const uint8_t *)a)[i];
        const int32_t qb = q->sgn ? ((const int8_t *)b)[i] : ((const uint8_t *)b)[i];
        float v = nearbyintf(fmaf((float)qa, r.ac, fmaf((float)qb, r.bc, r.fixed)));
        v = isnan(v) ? 0.0f : v;
        v = v < lo ? lo : v > hi ? hi : v;
        if (q->sgn) ((int8_t *)c)[i] = (int8_t)v;
        else ((uint8_t *)c)[i] = (uint8_t)v;
    }
}

void pz_q8_act_bounds(const pz_act *act, int y_signed, float ys, int32_t yz, int32_t *lo,
                      int32_t *hi)
{
    double a = y_signed ? -128 : 0, b = y_signed ? 127 : 255;
    if (act->kind == PZ_ACT_RELU || act->kind == PZ_ACT_CLIP) {
        const double qa = nearbyint((double)(float)((act->kind == PZ_ACT_RELU ? 0 : act->lo) / ys)) + yz;
        const double qb = act->kind == PZ_ACT_RELU ? INFINITY
                                                   : nearbyint((double)(float)(act->hi / ys)) + yz;
        a = qa > a ? qa : a;
        b = qb < b ? qb : b;
    }
    if (!(a <= b)) a = b;
    *lo = (int32_t)a;
    *hi = (int32_t)b;
}

const pz_qdq_kernels *pz_qdq_for(pz_isa isa)
{
    static const pz_qdq_kernels scalar = {pz_f32_quantize8__scalar, pz_f32_dequantize8__scalar,
                                          pz_qadd8__scalar};
    static const pz_qdq_kernels avx512 = {pz_f32_quantize8__avx512, pz_f32_dequantize8__avx512,
                                          pz_qadd8__avx512};
#ifndef PZ_SCALAR
    static const pz_qdq_kernels avx2 = {pz_f32_quantize8__avx2, pz_f32_dequantize8__avx2,
                                        pz_qadd8__avx2};
    if (isa == PZ_ISA_AVX2) return &avx2;
#endif
    return isa == PZ_ISA_AVX512 ? &avx512 : &scalar;
}
