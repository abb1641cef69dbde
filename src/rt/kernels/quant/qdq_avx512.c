/* qdq_avx512.c - per-tensor quantize and dequantize, 16 elements a step
 * (qdq.h); the tail under a mask. */
#include <immintrin.h>

#include "rt/kernels/quant/qdq.h"

void pz_f32_quantize8__avx512(int64_t n, const float *x, float s, int32_t zp, int y_signed,
                              void *y)
{
    const __m512 vs = _mm512_set1_ps(s), vz = _mm512_set1_ps((float)zp);
    const __m512 lo = _mm512_set1_ps(y_signed ? -128.0f : 0.0f);
    const __m512 hi = _mm512_set1_ps(y_signed ? 127.0f : 255.0f);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 v = _mm512_div_ps(_mm512_maskz_loadu_ps(m, x + i), vs);
        v = _mm512_add_ps(_mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), vz);
        const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
        const __m512i q = _mm512_maskz_cvtps_epi32((__mmask16)~nan, v);
        _mm_mask_storeu_epi8((char *)y + i, m, _mm512_cvtepi32_epi8(q));
    }
}

void pz_f32_dequantize8__avx512(int64_t n, const void *x, int x_signed, float s, int32_t zp,
                                float *y)
{
    const __m512 vs = _mm512_set1_ps(s);
    const __m512i vz = _mm512_set1_epi32(zp);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        const __m128i b = _mm_maskz_loadu_epi8(m, (const char *)x + i);
        const __m512i q = x_signed ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
        const __m512 v = _mm512_cvtepi32_ps(_mm512_sub_epi32(q, vz));
        _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(v, vs));
    }
}

static inline __m512 load8(__mmask16 m, const void *p, int sgn, __m512i z)
{
    const __m128i b = _mm_maskz_loadu_epi8(m, p);
    const __m512i q = sgn ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
    return _mm512_cvtepi32_ps(_mm512_sub_epi32(q, z));
}

void pz_qadd8__avx512(int64_t n, const pz_qadd_args *q, const void *a, const void *b, void *c)
{
    const pz_qadd_ratios r = pz_qadd_ratios_of(q);
    const __m512 ac = _mm512_set1_ps(r.ac), bc = _mm512_set1_ps(r.bc);
    const __m512 fixed = _mm512_set1_ps(r.fixed);
    const __m512i none = _mm512_setzero_si512();
    float lo0 = q->sgn ? -128.0f : 0.0f;
    if (q->relu && (float)q->zc > lo0) lo0 = (float)q->zc;   /* Relu: C's zero point */
    const __m512 lo = _mm512_set1_ps(lo0), hi = _mm512_set1_ps(q->sgn ? 127.0f : 255.0f);
    int64_t i = 0;
    /* whole vectors: the clamp before the rounding conversion (integer
     * bounds: the same as rounding first), unmasked loads; u8 (lo >= 0,
     * clamp(0) == lo) lets vmaxps, which takes its second operand on a NaN,
     * do the twin's NaN -> 0 */
    if (!q->sgn)
        for (; i + 16 <= n; i += 16) {
            const __m512 va = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(
                _mm_loadu_si128((const __m128i *)((const char *)a + i))));
            const __m512 vb = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(
                _mm_loadu_si128((const __m128i *)((const char *)b + i))));
            __m512 v = _mm512_fmadd_ps(va, ac, _mm512_fmadd_ps(vb, bc, fixed));
            v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
            _mm_storeu_si128((__m128i *)((char *)c + i), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v)));
        }
    for (; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        /* the twin's two fused multiply-adds, B's first */
        __m512 v = _mm512_fmadd_ps(load8(m, (const char *)b + i, q->sgn, none), bc, fixed);
        v = _mm512_fmadd_ps(load8(m, (const char *)a + i, q->sgn, none), ac, v);
        v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v);   /* NaN: 0 */
        v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
        _mm_mask_storeu_epi8((char *)c + i, m, _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v)));
    }
}
