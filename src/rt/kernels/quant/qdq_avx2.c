/* qdq_avx2.c - per-tensor quantize, dequantize and QLinearAdd, 8 elements
 * a step (qdq.h), for CPUs without AVX-512; the tail of n % 8 by the scalar
 * twins. The same operations in the same order as the twins (IEEE
 * division, round to nearest even, fused multiply-adds), so the same bits. */
#include "rt/kernels/quant/qdq.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

/* 8 int32 in [-128, 255] as their 8 low bytes at y */
static inline void store8(void *y, __m256i q)
{
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    w = _mm_and_si128(w, _mm_set1_epi16(0xff));
    _mm_storel_epi64((__m128i *)y, _mm_packus_epi16(w, w));
}

/* 8 bytes at p, less z, as floats */
static inline __m256 load8(const void *p, int sgn, __m256i z)
{
    const __m128i b = _mm_loadl_epi64((const __m128i *)p);
    const __m256i q = sgn ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
    return _mm256_cvtepi32_ps(_mm256_sub_epi32(q, z));
}

/* NaN lanes to +0 */
static inline __m256 nan_to_zero(__m256 v)
{
    return _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
}

void pz_f32_quantize8__avx2(int64_t n, const float *x, float s, int32_t zp, int y_signed,
                            void *y)
{
    const __m256 vs = _mm256_set1_ps(s), vz = _mm256_set1_ps((float)zp);
    const __m256 lo = _mm256_set1_ps(y_signed ? -128.0f : 0.0f);
    const __m256 hi = _mm256_set1_ps(y_signed ? 127.0f : 255.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_div_ps(_mm256_loadu_ps(x + i), vs);
        v = _mm256_add_ps(_mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), vz);
        v = _mm256_min_ps(_mm256_max_ps(nan_to_zero(v), lo), hi);
        store8((char *)y + i, _mm256_cvtps_epi32(v));
    }
    if (i < n) pz_f32_quantize8__scalar(n - i, x + i, s, zp, y_signed, (char *)y + i);
}

void pz_f32_dequantize8__avx2(int64_t n, const void *x, int x_signed, float s, int32_t zp,
                              float *y)
{
    const __m256 vs = _mm256_set1_ps(s);
    const __m256i vz = _mm256_set1_epi32(zp);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_mul_ps(load8((const char *)x + i, x_signed, vz), vs));
    if (i < n) pz_f32_dequantize8__scalar(n - i, (const char *)x + i, x_signed, s, zp, y + i);
}

void pz_qadd8__avx2(int64_t n, const pz_qadd_args *q, const void *a, const void *b, void *c)
{
    const pz_qadd_ratios r = pz_qadd_ratios_of(q);
    const __m256 ac = _mm256_set1_ps(r.ac), bc = _mm256_set1_ps(r.bc);
    const __m256 fixed = _mm256_set1_ps(r.fixed);
    const __m256i none = _mm256_setzero_si256();
    float lo0 = q->sgn ? -128.0f : 0.0f;
    if (q->relu && (float)q->zc > lo0) lo0 = (float)q->zc;   /* Relu: C's zero point */
    const __m256 lo = _mm256_set1_ps(lo0), hi = _mm256_set1_ps(q->sgn ? 127.0f : 255.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        /* the twin's two fused multiply-adds, B's first */
        __m256 v = _mm256_fmadd_ps(load8((const char *)b + i, q->sgn, none), bc, fixed);
        v = _mm256_fmadd_ps(load8((const char *)a + i, q->sgn, none), ac, v);
        v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm256_min_ps(_mm256_max_ps(nan_to_zero(v), lo), hi);
        store8((char *)c + i, _mm256_cvtps_epi32(v));
    }
    if (i < n)
        pz_qadd8__scalar(n - i, q, (const char *)a + i, (const char *)b + i, (char *)c + i);
}
#endif
