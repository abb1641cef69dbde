/* qmatmul_dyn_avx512.c - the column stage of MatMulInteger and
 * QLinearMatMul on the int8 GEMM (qmatmul_dyn.h) in AVX-512: a row's byte
 * sum by vpsadbw, the zero points' terms in int32 (wrapping, as the twin's
 * uint32), the float32 output stage and the 8-bit requantization 16 and 8
 * columns a step. The scalar twins are in qmatmul_dyn.c; the same bits. */
#include "rt/kernels/quant/qmatmul_dyn.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

static __mmask16 mask16(int64_t left)
{
    return (__mmask16)(left >= 16 ? 0xffff : (1u << left) - 1);
}

static int64_t rowsum__avx512(const void *a, int64_t k, int a_signed)
{
    /* int8: sum of (a ^ 0x80) = sum of (a + 128), each byte as uint8 */
    const __m512i flip = _mm512_set1_epi8(a_signed ? (char)0x80 : 0), z = _mm512_setzero_si512();
    const uint8_t *p = a;
    __m512i s = z;   /* eight int64 partial sums */
    int64_t j = 0;
    for (; j + 64 <= k; j += 64)
        s = _mm512_add_epi64(s, _mm512_sad_epu8(_mm512_xor_si512(_mm512_loadu_si512(p + j), flip), z));
    if (j < k) {
        const __mmask64 mk = (__mmask64)(~0ull >> (64 - (k - j)));
        /* the bytes past k zeroed after the flip */
        const __m512i v = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mk, p + j), flip);
        s = _mm512_add_epi64(s, _mm512_sad_epu8(_mm512_maskz_mov_epi8(mk, v), z));
    }
    return _mm512_reduce_add_epi64(s) - (a_signed ? 128 * k : 0);
}

static void zp__avx512(int32_t *g, const int32_t *s, const int32_t *zb, int32_t za, int32_t t,
                       int64_t n)
{
    const __m512i zav = _mm512_set1_epi32(za), tv = _mm512_set1_epi32(t);
    for (int64_t j = 0; j < n; j += 16) {
        const __mmask16 mk = mask16(n - j);
        __m512i v = _mm512_maskz_loadu_epi32(mk, g + j);
        v = _mm512_sub_epi32(v, _mm512_mullo_epi32(zav, _mm512_maskz_loadu_epi32(mk, s + j)));
        v = _mm512_sub_epi32(v, _mm512_mullo_epi32(tv, _mm512_maskz_loadu_epi32(mk, zb + j)));
        _mm512_mask_storeu_epi32(g + j, mk, v);
    }
}

static void fout__avx512(const pz_qdyn_out *o, int64_t c0, const int32_t *acc, float *y, int64_t n)
{
    const __m512 xs = _mm512_set1_ps(o->xs), w1 = _mm512_set1_ps(o->ws[0]);
    const __m512 b1 = _mm512_set1_ps(o->b ? o->b[0] : 0.0f);
    const int relu = o->act.kind == PZ_ACT_RELU;
    for (int64_t j = 0; j < n; j += 16) {
        const __mmask16 mk = mask16(n - j);
        /* xs * ws[c] first, one rounding, as the twin */
        const __m512 sc = o->ws_per ? _mm512_mul_ps(xs, _mm512_maskz_loadu_ps(mk, o->ws + c0 + j))
                                    : _mm512_mul_ps(xs, w1);
        __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(mk, acc + j)), sc);
        if (o->b) v = _mm512_add_ps(v, o->b_per ? _mm512_maskz_loadu_ps(mk, o->b + c0 + j) : b1);
        /* max returns its second operand on a NaN or two zeros: v, as the twin */
        if (relu) v = _mm512_max_ps(_mm512_setzero_ps(), v);
        _mm512_mask_storeu_ps(y + j, mk, v);
    }
}

static void q8out__avx512(const pz_qmm_requant *r, int64_t c0, const int32_t *acc, void *y,
                          int64_t n)
{
    const __m512d m1 = _mm512_set1_pd(r->mult[0]), zp = _mm512_set1_pd(r->yzp);
    const __m512d lo = _mm512_set1_pd(r->lo), hi = _mm512_set1_pd(r->hi);
    for (int64_t j = 0; j < n; j += 8) {
        const __mmask8 mk = (__mmask8)(n - j >= 8 ? 0xff : (1u << (n - j)) - 1);
        const __m512d m = r->mult_per ? _mm512_maskz_loadu_pd(mk, r->mult + c0 + j) : m1;
        const __m512d a = _mm512_cvtepi32_pd(_mm256_maskz_loadu_epi32(mk, acc + j));
        /* nearbyint under the default rounding: to nearest, ties to even */
        __m512d v = _mm512_roundscale_pd(_mm512_mul_pd(a, m), _MM_FROUND_TO_NEAREST_INT |
                                                                  _MM_FROUND_NO_EXC);
        v = _mm512_add_pd(v, zp);
        v = _mm512_mask_mov_pd(v, _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q), _mm512_setzero_pd());
        v = _mm512_min_pd(_mm512_max_pd(v, lo), hi);
        const __m256i w = _mm512_cvtpd_epi32(v);   /* exact: integers in the type's range */
        _mm_mask_storeu_epi8((char *)y + j, mk, _mm256_cvtepi32_epi8(w));
    }
}

const pz_qmm_cols pz_qmm_cols__avx512 = {rowsum__avx512, zp__avx512, fout__avx512, q8out__avx512};
#endif
