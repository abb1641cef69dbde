/* layout_avx512.c - a plain RGB image into NHWC with whole-vector permutes
 * (see pz_interleave_fn in fast.h; the scalar twin is in layout_scalar.c).
 *
 * 16 pixels of nc channels (nc = 2..4) are nc input vectors in and nc output
 * vectors out. Element p of output vector k is g = 16k + p of the group:
 * pixel g / nc of channel g % nc. Channels 0 and 1 come from one two-source
 * permute (vpermt2ps) of their input vectors, channels 2 and 3 from another,
 * and a mask blend merges the two: at most two permutes and a blend per
 * output vector, each index vector worked out once per call. The pixels
 * past the last group of 16 go through the scalar twin. Only data moves,
 * so the output is bitwise the twin's.
 */
#include <string.h>

#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

void pz_f32_interleave__avx512(const float *restrict x, int64_t plane, int nc, int64_t np,
                               float *restrict y)
{
    if (nc == 1) {
        if (np > 0) memcpy(y, x, (size_t)np * sizeof *y);
        return;
    }
    if (nc < 1 || nc > 4) {
        pz_f32_interleave__scalar(x, plane, nc, np, y);
        return;
    }
    __m512i i01[4], i23[4];
    __mmask16 m23[4];
    for (int k = 0; k < nc; k++) {
        int32_t a[16], b[16];
        unsigned m = 0;
        for (int p = 0; p < 16; p++) {
            int g = 16 * k + p, px = g / nc, ch = g % nc;
            a[p] = px + (ch == 1 ? 16 : 0);   /* channel 0: v0[px], 1: v1[px] */
            b[p] = px + (ch == 3 ? 16 : 0);   /* channel 2: v2[px], 3: v3[px] */
            if (ch >= 2) m |= 1u << p;
        }
        i01[k] = _mm512_loadu_si512(a);
        i23[k] = _mm512_loadu_si512(b);
        m23[k] = (__mmask16)m;
    }
    /* with 3 channels, "channel 3" is channel 2 again: never selected */
    const float *x1 = x + plane, *x2 = x + (nc > 2 ? 2 : 0) * plane,
                *x3 = x + (nc > 3 ? 3 : nc > 2 ? 2 : 0) * plane;
    int64_t p = 0;
    for (; p + 16 <= np; p += 16) {
        __m512 v0 = _mm512_loadu_ps(x + p), v1 = _mm512_loadu_ps(x1 + p);
        __m512 v2 = _mm512_loadu_ps(x2 + p), v3 = _mm512_loadu_ps(x3 + p);
        float *yp = y + p * nc;
        for (int k = 0; k < nc; k++) {
            __m512 o = _mm512_permutex2var_ps(v0, i01[k], v1);
            if (nc > 2) o = _mm512_mask_blend_ps(m23[k], o, _mm512_permutex2var_ps(v2, i23[k], v3));
            _mm512_storeu_ps(yp + 16 * k, o);
        }
    }
    pz_f32_interleave__scalar(x + p, plane, nc, np - p, y + p * nc);
}

#endif
