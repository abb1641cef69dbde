/* act.h - the fused epilogue activations (pz_act) on one value, as the
 * unary reference computes them (unary_ref.c): the scalar twins of
 * vmath_avx512.h's pz_act16_ps and vmath_avx2.h's pz_act8_ps, and the
 * kernels' scalar epilogues. Included by kernels.h. */
#ifndef PZ_ACT_H
#define PZ_ACT_H

#include <math.h>
#include <stdint.h>

#include "rt/pz_rt.h"

/* erf(u) = u P(u^2) / Q(u^2) for |u| <= 4 (Eigen's and XLA's float erf),
 * the coefficients from the highest degree: the vector erfs' (vmath_avx512.h
 * erf_ps, vmath_avx2.h erf8_ps), as initializers. */
#define PZ_ERF_P {-2.72614225801306e-10f, 2.77068142495902e-08f, -2.10102402082508e-06f, \
                  -5.69250639462346e-05f, -7.34990630326855e-04f, -2.95459980854025e-03f, \
                  -1.60960333262415e-02f}
#define PZ_ERF_Q {-1.45660718464996e-05f, -2.13374055278905e-04f, -1.68282697438203e-03f, \
                  -7.37332916720468e-03f, -1.42647390514189e-02f}

/* SELECT's comparison (pz_act.cmp) of v with t, as COMPARE's (NaN false). */
static inline int pz_act_cmp(int cmp, double v, double t)
{
    return cmp == PZ_CMP_LT ? v < t : cmp == PZ_CMP_LE ? v <= t : cmp == PZ_CMP_GT ? v > t
         : cmp == PZ_CMP_GE ? v >= t : v == t;
}

/* The epilogue activations, as the unary reference computes them (unary_ref.c). */
static inline float pz_act_f32(const pz_act *a, float v)
{
    float h;
    switch (a->kind) {
    case PZ_ACT_RELU: return v < 0 ? 0 : v;
    case PZ_ACT_CLIP: v = v < a->lo ? a->lo : v; return v > a->hi ? a->hi : v;
    case PZ_ACT_GELU:   /* lo 1: the tanh form; the unary reference's expressions */
        if (a->lo != 0) return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        return 0.5f * v * (1.0f + erff(v * 0.70710678f));
    case PZ_ACT_LEAKY_RELU: return v < 0 ? a->lo * v : v;
    case PZ_ACT_SIGMOID: return 1.0f / (1.0f + expf(-v));
    case PZ_ACT_SWISH: return v * (1.0f / (1.0f + expf(-a->lo * v)));
    case PZ_ACT_HARD_SIGMOID: v = a->lo * v + a->hi; return v < 0 ? 0 : v > 1 ? 1 : v;
    case PZ_ACT_HARD_SWISH: h = v / 6.0f + 0.5f; return v * (h < 0 ? 0 : h > 1 ? 1 : h);
    case PZ_ACT_TANH: return tanhf(v);
    case PZ_ACT_SELECT:   /* Where(v cmp t, A, B): Mul's and Where's bits */
        if (pz_act_cmp(a->cmp, v, a->t)) return a->sel & 1 ? a->lo : a->lo * v;
        return a->sel & 2 ? a->hi : a->hi * v;
    case PZ_ACT_ELU: return v < 0 ? a->lo * expm1f(v) : v;
    case PZ_ACT_SELU: return v <= 0 ? a->hi * (a->lo * expf(v) - a->lo) : a->hi * v;
    case PZ_ACT_SOFTPLUS: return v > 0 ? v + log1pf(expf(-v)) : log1pf(expf(v));
    case PZ_ACT_MISH: {   /* the unary reference's: in double, rounded once */
        const double d = v;
        return (float)(d * tanh(d > 0 ? d + log1p(exp(-d)) : log1p(exp(d))));
    }
    default: return v;
    }
}

static inline double pz_act_f64(const pz_act *a, double v)
{
    double h;
    switch (a->kind) {
    case PZ_ACT_RELU: return v < 0 ? 0 : v;
    case PZ_ACT_CLIP: v = v < a->lo ? a->lo : v; return v > a->hi ? a->hi : v;
    case PZ_ACT_GELU:
        if (a->lo != 0) return 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
        return 0.5 * v * (1.0 + erf(v * 0.70710678118654752));
    case PZ_ACT_LEAKY_RELU: return v < 0 ? a->lo * v : v;
    case PZ_ACT_SIGMOID: return 1.0 / (1.0 + exp(-v));
    case PZ_ACT_SWISH: return v / (1.0 + exp(-(double)a->lo * v));
    case PZ_ACT_HARD_SIGMOID: v = a->lo * v + a->hi; return v < 0 ? 0 : v > 1 ? 1 : v;
    case PZ_ACT_HARD_SWISH: h = v / 6.0 + 0.5; return v * (h < 0 ? 0 : h > 1 ? 1 : h);
    case PZ_ACT_TANH: return tanh(v);
    case PZ_ACT_SELECT:
        return pz_act_cmp(a->cmp, v, a->t) ? (a->sel & 1 ? a->lo : a->lo * v) : (a->sel & 2 ? a->hi : a->hi * v);
    case PZ_ACT_ELU: return v < 0 ? a->lo * expm1(v) : v;
    case PZ_ACT_SELU: return v <= 0 ? a->hi * (a->lo * exp(v) - a->lo) : a->hi * v;
    case PZ_ACT_SOFTPLUS: return v > 0 ? v + log1p(exp(-v)) : log1p(exp(v));
    case PZ_ACT_MISH: return v * tanh(v > 0 ? v + log1p(exp(-v)) : log1p(exp(v)));
    default: return v;
    }
}

/* pz_act_f32 for output channel c: PRELU's slope is per channel (c < the
 * layer's channels, slope set); the other kinds do not look at c. */
static inline float pz_act_c_f32(const pz_act *a, float v, int64_t c)
{
    if (a->kind == PZ_ACT_PRELU) return v < 0 ? a->slope[c] * v : v;
    return pz_act_f32(a, v);
}

/* RELU and CLIP: a clamp, which every kernel with an epilogue applies itself. */
static inline int pz_act_is_clamp(pz_act_kind k)
{
    return k == PZ_ACT_NONE || k == PZ_ACT_RELU || k == PZ_ACT_CLIP;
}

#endif
