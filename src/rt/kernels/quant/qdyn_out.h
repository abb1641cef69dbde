/* qdyn_out.h - the float32 output stage of a dynamically quantized layer
 * (ConvInteger or MatMulInteger folded with its Cast, scale Mul, bias Add
 * and Relu by the qdyn pass, passes/qdyn.c): for the int32 sum acc of
 * output channel m,
 *
 *   y = act(float(acc) * (xs * ws[m]) + b[m])
 *
 * rounded as the unfused graph rounds it (Cast, Mul(xs, ws), Mul, Add,
 * Relu: one rounding each, in that order), so that the folded layer gives
 * the chain's bits. xs is X's scale read as the layer runs
 * (DynamicQuantizeLinear's); ws and b one element or one per channel. */
#ifndef PZ_RT_KERNELS_QUANT_QDYN_OUT_H
#define PZ_RT_KERNELS_QUANT_QDYN_OUT_H

#include <stdint.h>

#include "rt/kernels/kernels.h"

typedef struct pz_qdyn_out pz_qdyn_out;
/* Channel m's n sums acc into y: the scalar twin, AVX2 and AVX-512 (the
 * same bits: one rounding a step, max(0, v) keeping -0 and NaN as v < 0 ?
 * 0 : v does). */
void pz_qdyn_out_row__scalar(const pz_qdyn_out *o, int64_t m, const int32_t *acc, float *y,
                             int64_t n);
void pz_qdyn_out_row__avx2(const pz_qdyn_out *o, int64_t m, const int32_t *acc, float *y,
                           int64_t n);
void pz_qdyn_out_row__avx512(const pz_qdyn_out *o, int64_t m, const int32_t *acc, float *y,
                             int64_t n);

struct pz_qdyn_out {
    float xs;           /* X's scale */
    const float *ws;    /* W's scale: ws[0], or ws[m] when ws_per */
    const float *b;     /* the bias: NULL, b[0], or b[m] when b_per */
    int ws_per, b_per;
    pz_act act;         /* none or Relu */
    /* the row kernel (one of the above; NULL: the scalar twin) */
    void (*row)(const pz_qdyn_out *o, int64_t m, const int32_t *acc, float *y, int64_t n);
};

static inline void pz_qdyn_out_row(const pz_qdyn_out *o, int64_t m, const int32_t *acc,
                                   float *y, int64_t n)
{
    (o->row ? o->row : pz_qdyn_out_row__scalar)(o, m, acc, y, n);
}

/* n sums acc of the channels c0, c0 + 1, ... (a MatMul's columns) into y. */
static inline void pz_qdyn_out_cols(const pz_qdyn_out *o, int64_t c0, const int32_t *acc,
                                    float *y, int64_t n)
{
    const int relu = o->act.kind == PZ_ACT_RELU;
    for (int64_t i = 0; i < n; i++) {
        const int64_t c = c0 + i;
        float v = (float)acc[i] * (o->xs * o->ws[o->ws_per ? c : 0]);
        if (o->b) v += o->b[o->b_per ? c : 0];
        y[i] = relu && v < 0 ? 0.0f : v;
    }
}

#endif
