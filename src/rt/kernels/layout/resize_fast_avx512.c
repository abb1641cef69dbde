/* resize_fast_avx512.c - the row of Resize's fast twin (resize_fast.c) in
 * ZMM registers: 8 outputs a step, each input gathered as a float and
 * widened to double, the products and sums the plain row's double
 * operations in its order, separate multiplies and adds (no FMA): the
 * same bits. The tail goes through a masked step. */
#include "rt/kernels/twins_fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

/* x[idx] widened to double, lanes of m (others 0). */
static inline __m512d gather_pd(const float *x, __m256i idx, __mmask8 m)
{
    return _mm512_cvtps_pd(_mm256_mmask_i32gather_ps(_mm256_setzero_ps(), m, idx, x, 4));
}

void pz_f32_resize_row__avx512(const pz_resize_lin *w, int64_t ow, const float *const *rows,
                               const double *a, int nh, float *y)
{
    const int k = w->k;
    for (int64_t o = 0; o < ow; o += 8) {
        const __mmask8 m = (__mmask8)(ow - o >= 8 ? 0xff : (1u << (ow - o)) - 1);
        __m256i ib[PZ_RESIZE_FAST_TAPS];
        __m512d wb[PZ_RESIZE_FAST_TAPS];
        for (int b = 0; b < k; b++) {
            ib[b] = _mm256_maskz_loadu_epi32(m, w->i[b] + o);
            wb[b] = _mm512_maskz_loadu_pd(m, w->w[b] + o);
        }
        /* (((0 + (a0 w0) x00) + (a0 w1) x01) ...) + (a1 w0) x10 ...: a-major */
        __m512d s = _mm512_setzero_pd();
        for (int j = 0; j < nh; j++) {
            const __m512d va = _mm512_set1_pd(a[j]);
            for (int b = 0; b < k; b++)
                s = _mm512_add_pd(s, _mm512_mul_pd(_mm512_mul_pd(va, wb[b]),
                                                   gather_pd(rows[j], ib[b], m)));
        }
        _mm256_mask_storeu_ps(y + o, m, _mm512_cvtpd_ps(s));
    }
}
#endif
