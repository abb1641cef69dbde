/* layernorm_avx512.c - LayerNormalization over rows of nn contiguous floats
 * in ZMM registers, beside the reference (layernorm_ref.c, sums in double),
 * which the tests hold it to, and its scalar twin (layernorm_scalar.c, the
 * same bits), which runs where there is no AVX-512.
 *
 * Per row, three passes over the row (in L1 for nn up to a few thousand):
 * the sum (two accumulators of 16 lanes), the sum of squared deviations from
 * the mean (two-pass, so no cancellation), then y = (x - mean) * inv *
 * scale + b with one FMA. Sums are in float: for ConvNeXt's rows (96 to 768
 * values) their relative error is about 1e-7, against the reference's
 * double. inv = 1 / sqrt(var + eps) is taken in double, as there. A tail of
 * nn % 16 values goes under a mask (lanes beyond it add zeros). It exists
 * because ConvNeXt's LayerNorms took milliseconds on the reference
 * (bench/RESULTS.md, 'layernorm'). */
#include <math.h>

#include "rt/kernels/kernels.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

void pz_f32_layernorm__avx512(int64_t outer, int64_t nn, const float *x, const float *scale,
                              int64_t ns, const float *b, int64_t nb, float eps, float *y,
                              float *mean, float *inv, int ith, int nth)
{
    if (nn < 16) {   /* short rows: the reference */
        pz_f32_layernorm__ref(outer, nn, x, scale, ns, b, nb, eps, y, mean, inv, ith, nth);
        return;
    }
    int64_t lo, hi;
    pz_split(outer, ith, nth, &lo, &hi);
    const int64_t nv = nn / 16;
    const __mmask16 tm = (__mmask16)((1u << (nn % 16)) - 1);
    const __m512 s1 = _mm512_set1_ps(scale[0]), b1 = _mm512_set1_ps(b ? b[0] : 0.0f);
    for (int64_t r = lo; r < hi; r++) {
        const float *xr = x + r * nn;
        float *yr = y + r * nn;
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
        int64_t i = 0;
        for (; i + 1 < nv; i += 2) {
            a0 = _mm512_add_ps(a0, _mm512_loadu_ps(xr + 16 * i));
            a1 = _mm512_add_ps(a1, _mm512_loadu_ps(xr + 16 * i + 16));
        }
        if (i < nv) a0 = _mm512_add_ps(a0, _mm512_loadu_ps(xr + 16 * i));
        if (tm) a1 = _mm512_add_ps(a1, _mm512_maskz_loadu_ps(tm, xr + 16 * nv));
        const float m = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1)) / (float)nn;
        const __m512 mv = _mm512_set1_ps(m);
        a0 = a1 = _mm512_setzero_ps();
        for (i = 0; i + 1 < nv; i += 2) {
            const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(xr + 16 * i), mv);
            const __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(xr + 16 * i + 16), mv);
            a0 = _mm512_fmadd_ps(d0, d0, a0);
            a1 = _mm512_fmadd_ps(d1, d1, a1);
        }
        if (i < nv) {
            const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(xr + 16 * i), mv);
            a0 = _mm512_fmadd_ps(d0, d0, a0);
        }
        if (tm) {
            const __m512 d1 = _mm512_maskz_sub_ps(tm, _mm512_maskz_loadu_ps(tm, xr + 16 * nv), mv);
            a1 = _mm512_fmadd_ps(d1, d1, a1);
        }
        const double var = (double)_mm512_reduce_add_ps(_mm512_add_ps(a0, a1)) / (double)nn;
        const float is = (float)(1.0 / sqrt(var + (double)eps));
        const __m512 iv = _mm512_set1_ps(is);
        for (i = 0; i <= nv; i++) {
            const __mmask16 k = i < nv ? (__mmask16)0xffff : tm;
            if (!k) break;
            const __m512 t = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, xr + 16 * i), mv), iv);
            const __m512 sv = ns == 1 ? s1 : _mm512_maskz_loadu_ps(k, scale + 16 * i);
            const __m512 bv = !b ? _mm512_setzero_ps() : nb == 1 ? b1 : _mm512_maskz_loadu_ps(k, b + 16 * i);
            _mm512_mask_storeu_ps(yr + 16 * i, k, _mm512_fmadd_ps(t, sv, bv));
        }
        if (mean) mean[r] = m;
        if (inv) inv[r] = is;
    }
}

#endif
