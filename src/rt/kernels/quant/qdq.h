/* qdq.h - per-tensor QuantizeLinear and DequantizeLinear between float32
 * and the 8-bit types, the QUANT layer's fast path (rt/ops/quant.c). They
 * are element-wise, so they read and write any layout (the int8 layers'
 * NCHW16c too).
 *
 *   quantize:   y = saturate(nearbyint(x / s) + zp), NaN -> 0, as the
 *               reference (quant_ref.c): x / s rounded to float32, half to
 *               even;
 *   dequantize: y = (x - zp) * s in float32 (exact difference, one rounding).
 *
 *   add:        c = saturate(nearbyint(fixed + b * sb/sc + a * sa/sc)),
 *               held >= zc when relu (QLinearAdd, the QADD layer): ONNX
 *               Runtime's arithmetic (pz_qadd_ratios below), within one
 *               step of the float graph's and equal to it off ties.
 *
 * y_signed / x_signed / sgn: int8 instead of uint8. The AVX-512 and AVX2
 * kernels and the scalar twins give the same bits (quantize and dequantize the
 * reference's). */
#ifndef PZ_QDQ_H
#define PZ_QDQ_H

#include <math.h>
#include <stdint.h>

#include "rt/kernels/kernels.h"

typedef void (*pz_quantize_fn)(int64_t n, const float *x, float s, int32_t zp, int y_signed,
                               void *y);
typedef void (*pz_dequantize_fn)(int64_t n, const void *x, int x_signed, float s, int32_t zp,
                                 float *y);
typedef struct {
    float sa, sb, sc;
    int32_t za, zb, zc;
    int sgn;                          /* int8 (else uint8) A, B and C */
    int relu;
} pz_qadd_args;
/* QLinearAdd as ONNX Runtime's x86 kernel computes it, so that a sum on a
 * rounding boundary rounds as there (a deep net carries a one-step
 * difference on): round(fixed + B*bc + A*ac), raw A and B, two fused
 * multiply-adds, bc = sb/sc, ac = sa/sc, fixed = zc - (za*ac + zb*bc). */
typedef struct {
    float ac, bc, fixed;
} pz_qadd_ratios;
static inline pz_qadd_ratios pz_qadd_ratios_of(const pz_qadd_args *q)
{
    const float ac = q->sa / q->sc, bc = q->sb / q->sc;
    return (pz_qadd_ratios){ac, bc, (float)q->zc - fmaf(bc, (float)q->zb, ac * (float)q->za)};
}
typedef void (*pz_qadd_fn)(int64_t n, const pz_qadd_args *q, const void *a, const void *b,
                           void *c);
typedef struct {
    pz_quantize_fn quantize;
    pz_dequantize_fn dequantize;
    pz_qadd_fn add;
} pz_qdq_kernels;

/* The AVX-512 kernels for PZ_ISA_AVX512, the AVX2 ones for PZ_ISA_AVX2,
 * else the scalar twins. */
const pz_qdq_kernels *pz_qdq_for(pz_isa isa);

void pz_f32_quantize8__scalar(int64_t n, const float *x, float s, int32_t zp, int y_signed,
                              void *y);
void pz_f32_dequantize8__scalar(int64_t n, const void *x, int x_signed, float s, int32_t zp,
                                float *y);
void pz_f32_quantize8__avx512(int64_t n, const float *x, float s, int32_t zp, int y_signed,
                              void *y);
void pz_f32_dequantize8__avx512(int64_t n, const void *x, int x_signed, float s, int32_t zp,
                                float *y);
void pz_f32_quantize8__avx2(int64_t n, const float *x, float s, int32_t zp, int y_signed,
                            void *y);
void pz_f32_dequantize8__avx2(int64_t n, const void *x, int x_signed, float s, int32_t zp,
                              float *y);

/* The value of a constant 8-bit zero point (uint8 or int8); 0 when absent. */
static inline int32_t pz_zp8(const pz_tensor *t)
{
    if (!t) return 0;
    return t->dtype == PZ_I8 ? *(const int8_t *)t->data : *(const uint8_t *)t->data;
}

/* The clamp [*lo, *hi] that act (none, Relu, Clip) puts on an 8-bit output
 * of scale ys and zero point yz (int8 when y_signed), in its integer domain:
 * the bounds quantized as the output is (nearbyint(float(bound / ys)) + yz,
 * as qconv_ref.c does), within the type's range; an empty range collapses
 * to hi. The int8 layers fold a Relu/Clip into their requantization so. */
void pz_q8_act_bounds(const pz_act *act, int y_signed, float ys, int32_t yz, int32_t *lo,
                      int32_t *hi);

void pz_qadd8__scalar(int64_t n, const pz_qadd_args *q, const void *a, const void *b, void *c);
void pz_qadd8__avx512(int64_t n, const pz_qadd_args *q, const void *a, const void *b, void *c);
void pz_qadd8__avx2(int64_t n, const pz_qadd_args *q, const void *a, const void *b, void *c);

#endif
