/* chgather16c_avx512.c - the channel gather on NCHW16c (fast.h) in AVX-512:
 * per output block, in chunks of pixels that stay in L1, the first source
 * stores its lanes (vpermps, the others zeroed), each further source blends
 * its lanes in with a masked store. The same bits as the scalar twin
 * (chgather16c.c). */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define CHUNK 128   /* pixels: 8 KiB of output */

void pz_f32_chgather16c__avx512(const pz_chgather_desc *d, const float *const *x,
                                float *restrict y, int ith, int nth)
{
    const int64_t hw = d->hw;
    int64_t lo, hi;
    pz_split(d->n * d->ob, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t im = u / d->ob, b = u % d->ob, s0 = d->first[b], s1 = d->first[b + 1];
        float *yb = y + u * hw * 16;
        for (int64_t p0 = 0; p0 < hw; p0 += CHUNK) {
            const int64_t p1 = hw - p0 < CHUNK ? hw : p0 + CHUNK;
            if (s0 == s1)
                for (int64_t p = p0; p < p1; p++) _mm512_storeu_ps(yb + p * 16, _mm512_setzero_ps());
            for (int64_t s = s0; s < s1; s++) {
                const pz_chg_src *e = &d->src[s];
                const float *xb = x[e->in] + (im * d->in_cb[e->in] + e->blk) * hw * 16;
                const __m512i idx = _mm512_loadu_si512(e->idx);
                const __mmask16 m = (__mmask16)e->mask;
                if (s == s0)
                    for (int64_t p = p0; p < p1; p++)
                        _mm512_storeu_ps(yb + p * 16,
                                         _mm512_maskz_permutexvar_ps(m, idx,
                                                                     _mm512_loadu_ps(xb + p * 16)));
                else
                    for (int64_t p = p0; p < p1; p++)
                        _mm512_mask_storeu_ps(yb + p * 16, m,
                                              _mm512_permutexvar_ps(idx,
                                                                    _mm512_loadu_ps(xb + p * 16)));
            }
        }
    }
}

#endif
