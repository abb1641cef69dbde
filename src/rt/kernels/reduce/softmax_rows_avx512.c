/* softmax_rows_avx512.c - softmax (or log-softmax) of contiguous rows with
 * AVX-512: the row's maximum, then e^(x - max) with the vector exp
 * (exp_neg_ps, vmath_avx512.h: 0 below e^-87) stored and summed, then a
 * scale by 1/sum (log: x - max - log(sum)). Tails by masked loads. */
#ifndef PZ_SCALAR   /* a PZ_SCALAR build has no vector kernels */
#include <immintrin.h>
#include <math.h>

#include "rt/kernels/fast.h"
#include "rt/kernels/vmath_avx512.h"

static inline __mmask16 lanes(int64_t n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
}

void pz_f32_softmax_rows__avx512(int is_log, int64_t rows, int64_t n, const float *x, float *y,
                                 int ith, int nth)
{
    int64_t lo, hi;
    pz_split(rows, ith, nth, &lo, &hi);
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    for (int64_t r = lo; r < hi; r++) {
        const float *xr = x + r * n;
        float *yr = y + r * n;
        __m512 mv = ninf;
        int nan = 0;
        for (int64_t j = 0; j < n; j += 16) {
            __m512 v = _mm512_mask_loadu_ps(ninf, lanes(n - j), xr + j);
            nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) != 0;
            mv = _mm512_max_ps(mv, v);
        }
        const float mx = _mm512_reduce_max_ps(mv);
        if (nan || isinf(mx)) {   /* NaN, +inf, or all -inf: NaN out, as the reference */
            for (int64_t j = 0; j < n; j++) yr[j] = NAN;
            continue;
        }
        mv = _mm512_set1_ps(mx);
        __m512 sum = _mm512_setzero_ps();
        for (int64_t j = 0; j < n; j += 16) {
            const __mmask16 m = lanes(n - j);
            __m512 e = exp_neg_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, xr + j), mv));
            e = _mm512_maskz_mov_ps(m, e);
            if (!is_log) _mm512_mask_storeu_ps(yr + j, m, e);
            sum = _mm512_add_ps(sum, e);
        }
        const float s = _mm512_reduce_add_ps(sum);
        if (is_log) {
            const __m512 off = _mm512_set1_ps(mx + logf(s));
            for (int64_t j = 0; j < n; j += 16) {
                const __mmask16 m = lanes(n - j);
                _mm512_mask_storeu_ps(yr + j, m, _mm512_sub_ps(_mm512_maskz_loadu_ps(m, xr + j), off));
            }
        } else {
            const __m512 inv = _mm512_set1_ps(1.0f / s);
            for (int64_t j = 0; j < n; j += 16) {
                const __mmask16 m = lanes(n - j);
                _mm512_mask_storeu_ps(yr + j, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, yr + j), inv));
            }
        }
    }
}
#endif
