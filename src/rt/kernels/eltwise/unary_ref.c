/* unary_ref.c - reference element-wise activation and math functions. */
#include <math.h>

#include "rt/kernels/kernels.h"

/* One function of the family, in double (the f32 entry point uses floats). */
static double unary_f64(const pz_unary_params *p, double v)
{
    switch (p->func) {
    case PZ_UN_RELU: return v < 0 ? 0 : v;
    case PZ_UN_LEAKY_RELU: return v < 0 ? p->alpha * v : v;
    case PZ_UN_CLIP: v = v < p->alpha ? p->alpha : v; return v > p->beta ? p->beta : v;
    case PZ_UN_SIGMOID: return 1 / (1 + exp(-v));
    case PZ_UN_TANH: return tanh(v);
    case PZ_UN_HARD_SIGMOID: v = p->alpha * v + p->beta; return v < 0 ? 0 : v > 1 ? 1 : v;
    case PZ_UN_HARD_SWISH: {
        double h = v / 6 + 0.5;
        return v * (h < 0 ? 0 : h > 1 ? 1 : h);
    }
    case PZ_UN_ELU: return v < 0 ? p->alpha * expm1(v) : v;
    case PZ_UN_SELU: return v <= 0 ? p->gamma * (p->alpha * exp(v) - p->alpha) : p->gamma * v;
    case PZ_UN_SOFTPLUS: return v > 0 ? v + log1p(exp(-v)) : log1p(exp(v));
    case PZ_UN_SWISH: return v * (1 / (1 + exp(-p->alpha * v)));
    case PZ_UN_SQRT: return sqrt(v);
    case PZ_UN_ERF: return erf(v);
    case PZ_UN_GELU:
        return p->alpha != 0 ? 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))
                             : 0.5 * v * (1 + erf(v * 0.7071067811865476));
    case PZ_UN_NEG: return -v;
    case PZ_UN_ABS: return fabs(v);
    case PZ_UN_EXP: return exp(v);
    case PZ_UN_LOG: return log(v);
    case PZ_UN_RECIPROCAL: return 1 / v;
    case PZ_UN_FLOOR: return floor(v);
    case PZ_UN_CEIL: return ceil(v);
    case PZ_UN_ROUND: return nearbyint(v);   /* halves to even (the default rounding mode) */
    case PZ_UN_SIGN: return v > 0 ? 1 : v < 0 ? -1 : v;   /* 0 and NaN stay */
    case PZ_UN_SIN: return sin(v);
    case PZ_UN_COS: return cos(v);
    case PZ_UN_TAN: return tan(v);
    case PZ_UN_ASIN: return asin(v);
    case PZ_UN_ACOS: return acos(v);
    case PZ_UN_ATAN: return atan(v);
    case PZ_UN_SINH: return sinh(v);
    case PZ_UN_COSH: return cosh(v);
    case PZ_UN_ASINH: return asinh(v);
    case PZ_UN_ACOSH: return acosh(v);
    case PZ_UN_ATANH: return atanh(v);
    case PZ_UN_CELU:   /* max(0, v) + min(0, alpha (exp(v / alpha) - 1)) */
        return v > 0 ? v : p->alpha * expm1(v / p->alpha);
    case PZ_UN_MISH:   /* v tanh(softplus(v)) */
        return v * tanh(v > 0 ? v + log1p(exp(-v)) : log1p(exp(v)));
    case PZ_UN_SOFTSIGN: return v / (1 + fabs(v));
    case PZ_UN_THRESHOLDED_RELU: return v > p->alpha ? v : 0;
    case PZ_UN_SHRINK: return v < -p->alpha ? v + p->beta : v > p->alpha ? v - p->beta : 0;
    case PZ_UN_BINARIZER: return v > p->alpha ? 1 : 0;   /* NaN: 0, as ONNX Runtime */
    default: return v;
    }
}

void pz_f32_unary__ref(const pz_unary_params *p, const float *x, float *y, int64_t n,
                       int ith, int nth)
{
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    const float a = p->alpha, b = p->beta, g = p->gamma;
    switch (p->func) {
    case PZ_UN_RELU:
        for (int64_t i = lo; i < hi; i++) y[i] = x[i] < 0 ? 0 : x[i];
        break;
    case PZ_UN_LEAKY_RELU:
        for (int64_t i = lo; i < hi; i++) y[i] = x[i] < 0 ? a * x[i] : x[i];
        break;
    case PZ_UN_CLIP:   /* min(max(x, lo), hi): lo > hi gives hi, like numpy */
        for (int64_t i = lo; i < hi; i++) {
            float v = x[i] < a ? a : x[i];
            y[i] = v > b ? b : v;
        }
        break;
    case PZ_UN_SIGMOID:
        for (int64_t i = lo; i < hi; i++) y[i] = 1.0f / (1.0f + expf(-x[i]));
        break;
    case PZ_UN_TANH:
        for (int64_t i = lo; i < hi; i++) y[i] = tanhf(x[i]);
        break;
    case PZ_UN_HARD_SIGMOID:
        for (int64_t i = lo; i < hi; i++) {
            float v = a * x[i] + b;
            y[i] = v < 0 ? 0 : v > 1 ? 1 : v;
        }
        break;
    case PZ_UN_HARD_SWISH:
        for (int64_t i = lo; i < hi; i++) {
            float h = x[i] / 6.0f + 0.5f;
            y[i] = x[i] * (h < 0 ? 0 : h > 1 ? 1 : h);
        }
        break;
    case PZ_UN_ELU:
        for (int64_t i = lo; i < hi; i++) y[i] = x[i] < 0 ? a * expm1f(x[i]) : x[i];
        break;
    case PZ_UN_SELU:
        for (int64_t i = lo; i < hi; i++)
            y[i] = x[i] <= 0 ? g * (a * expf(x[i]) - a) : g * x[i];
        break;
    case PZ_UN_SOFTPLUS:
        for (int64_t i = lo; i < hi; i++)
            y[i] = x[i] > 0 ? x[i] + log1pf(expf(-x[i])) : log1pf(expf(x[i]));
        break;
    case PZ_UN_SWISH:   /* x * Sigmoid(alpha x), as Mul(X, Sigmoid(X)) computes it */
        for (int64_t i = lo; i < hi; i++) y[i] = x[i] * (1.0f / (1.0f + expf(-a * x[i])));
        break;
    case PZ_UN_SQRT:   /* NaN below 0 */
        for (int64_t i = lo; i < hi; i++) y[i] = sqrtf(x[i]);
        break;
    case PZ_UN_ERF:   /* GELU's, as PyTorch exports it: x/2 (1 + erf(x/sqrt 2)) */
        for (int64_t i = lo; i < hi; i++) y[i] = erff(x[i]);
        break;
    case PZ_UN_GELU:   /* x/2 (1 + erf(x/sqrt 2)); alpha 1: tanh's approximation */
        if (a != 0) {
            for (int64_t i = lo; i < hi; i++) {
                float v = x[i];
                y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
            }
        } else {
            for (int64_t i = lo; i < hi; i++) y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678f));
        }
        break;
    case PZ_UN_NEG:
        for (int64_t i = lo; i < hi; i++) y[i] = -x[i];
        break;
    case PZ_UN_ABS:
        for (int64_t i = lo; i < hi; i++) y[i] = fabsf(x[i]);
        break;
    case PZ_UN_EXP:
        for (int64_t i = lo; i < hi; i++) y[i] = expf(x[i]);
        break;
    case PZ_UN_LOG:   /* -inf at 0, NaN below */
        for (int64_t i = lo; i < hi; i++) y[i] = logf(x[i]);
        break;
    case PZ_UN_RECIPROCAL:
        for (int64_t i = lo; i < hi; i++) y[i] = 1.0f / x[i];
        break;
    case PZ_UN_FLOOR:
        for (int64_t i = lo; i < hi; i++) y[i] = floorf(x[i]);
        break;
    case PZ_UN_CEIL:
        for (int64_t i = lo; i < hi; i++) y[i] = ceilf(x[i]);
        break;
    case PZ_UN_ROUND:   /* halves to even, as numpy and ONNX round */
        for (int64_t i = lo; i < hi; i++) y[i] = nearbyintf(x[i]);
        break;
    default:   /* the rest in double, rounded once to float */
        for (int64_t i = lo; i < hi; i++) y[i] = (float)unary_f64(p, x[i]);
        break;
    }
}

bool pz_unary_supports(pz_unary_func f, int dtype)
{
    if (f < 0 || f >= PZ_UN_COUNT_) return false;
    if (pz_dtype_is_float(dtype)) return true;
    return pz_dtype_is_int(dtype) && (f == PZ_UN_RELU || f == PZ_UN_CLIP || f == PZ_UN_NEG ||
                                      f == PZ_UN_ABS || f == PZ_UN_SIGN || f == PZ_UN_SHRINK);
}

/* -1, 0 or 1 as integer v (signed: its two's complement bits) is below,
 * equal to or above the real t, exactly for any v (a compare in double
 * would round |v| > 2^53). */
static int int_cmp(bool sgn, uint64_t v, double t)
{
    if (isnan(t)) return 0;   /* no compare with NaN holds */
    double c = floor(t);
    if (sgn) {
        if (t >= 9223372036854775808.0) return -1;
        if (t < -9223372036854775808.0) return 1;
        if ((int64_t)v != (int64_t)c) return (int64_t)v < (int64_t)c ? -1 : 1;
    } else {
        if (t >= 18446744073709551616.0) return -1;
        if (t < 0) return 1;
        if (v != (uint64_t)c) return v < (uint64_t)c ? -1 : 1;
    }
    return t > c ? -1 : 0;   /* v = floor(t) */
}

/* SHRINK's bias on integers: the compiler takes only whole ones; as int64
 * bits, clamped so that the conversion is defined. */
static uint64_t int_bias(float b)
{
    if (!(b > -9.2e18f)) return (uint64_t)INT64_MIN;
    if (b > 9.2e18f) return (uint64_t)INT64_MAX;
    return (uint64_t)(int64_t)b;
}

/* NEG, ABS, SIGN, SHRINK on integers, in unsigned arithmetic: they wrap like
 * two's complement (-INT_MIN is INT_MIN) with no undefined overflow. */
static uint64_t int_math(const pz_unary_params *p, bool sgn, uint64_t v)
{
    bool neg = sgn && (int64_t)v < 0;
    switch (p->func) {
    case PZ_UN_NEG: return 0 - v;
    case PZ_UN_ABS: return neg ? 0 - v : v;
    case PZ_UN_SIGN: return neg ? (uint64_t)-1 : v != 0;
    case PZ_UN_SHRINK:
        if (int_cmp(sgn, v, -(double)p->alpha) < 0) return v + int_bias(p->beta);
        if (int_cmp(sgn, v, p->alpha) > 0) return v - int_bias(p->beta);
        return 0;
    default: return v;
    }
}

/* Integers: exact compares; CLIP bounds saturate into the type; the math
 * functions as int_math. */
static void unary_int(const pz_unary_params *p, int dt, const void *x, void *y,
                      int64_t lo, int64_t hi)
{
    bool sgn = pz_dtype_is_signed(dt);
    /* bounds as the type's values: pz_store_f64 saturates, pz_load_bits reads back */
    uint64_t lo_b = 0, hi_b = 0;
    if (p->func == PZ_UN_CLIP) {
        uint64_t tmp[2];   /* room for one element of any type */
        pz_store_f64(tmp, dt, 0, ceil(p->alpha));
        lo_b = pz_load_bits(tmp, dt, 0);
        pz_store_f64(tmp, dt, 0, floor(p->beta));
        hi_b = pz_load_bits(tmp, dt, 0);
    }
    for (int64_t i = lo; i < hi; i++) {
        uint64_t v = pz_load_bits(x, dt, i);
        if (p->func != PZ_UN_RELU && p->func != PZ_UN_CLIP) {
            pz_store_bits(y, dt, i, int_math(p, sgn, v));
            continue;
        }
        if (sgn) {
            int64_t s = (int64_t)v;
            if (p->func == PZ_UN_RELU) s = s < 0 ? 0 : s;
            else {
                s = s < (int64_t)lo_b ? (int64_t)lo_b : s;
                s = s > (int64_t)hi_b ? (int64_t)hi_b : s;
            }
            v = (uint64_t)s;
        } else if (p->func == PZ_UN_CLIP) {
            v = v < lo_b ? lo_b : v;
            v = v > hi_b ? hi_b : v;
        }
        pz_store_bits(y, dt, i, v);
    }
}

void pz_any_unary__ref(const pz_unary_params *p, int dtype, const void *x, void *y, int64_t n,
                       int ith, int nth)
{
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    if (pz_dtype_is_int(dtype)) {
        unary_int(p, dtype, x, y, lo, hi);
        return;
    }
    for (int64_t i = lo; i < hi; i++) pz_st(y, dtype, i, unary_f64(p, pz_ld(x, dtype, i)));
}
