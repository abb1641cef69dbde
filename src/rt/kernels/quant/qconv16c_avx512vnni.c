/* qconv16c_avx512vnni.c - the int8 NCHW16c convolution's AVX512-VNNI
 * micro-kernels (qconv16c_impl.h, driven by qconv16c_plan.c).
 *
 * A tile: RW output pixels x RM blocks of 16 output channels in RW*RM ZMM
 * accumulators of int32 (at most 16x1, 14x2, 9x3, 6x4, leaving registers
 * for the RM weight vectors and one broadcast). Each step takes a dword of
 * 4 input channels of each pixel, broadcast, against RM weight vectors of
 * [16 output][4 input] bytes: vpdpbusd adds the 4 products of u8 x s8 to
 * each int32 lane. An int8 input is flipped to uint8 (x ^ 0x80) after the
 * broadcast (XS); its zero point is x_zp + 128 in the biases.
 * The epilogue requantizes each accumulator in float (qconv16c.h): convert,
 * times mult, clamp to [lo - y_zp, hi - y_zp], round to nearest even, plus
 * y_zp, and stores its 16 low bytes; with a residual, QADD's add of z
 * first (epilogue). */
#include "rt/kernels/quant/qconv16c_impl.h"

#ifndef PZ_SCALAR
#include <immintrin.h>
#include <string.h>

#define UNROLL _Pragma("GCC unroll 32")

const int pz_qconv16c_rwmax__avx512vnni[5] = {0, 16, 14, 9, 6};

PZ_ALWAYS_INLINE __m512i bcast(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

/* acc += the 4-byte dot products of u8 x and s8 w, in place: through the
 * intrinsic gcc copied accumulators between registers and spilled some
 * (vpdpbusd has only the one form, accumulator = destination;
 * bench/RESULTS.md, 'qconv16c: spills') */
PZ_ALWAYS_INLINE void dpbusd(__m512i *acc, __m512i x, __m512i w)
{
#if defined(__GNUC__) && defined(__OPTIMIZE__)
    __asm__("vpdpbusd %2, %1, %0" : "+v"(*acc) : "v"(x), "v"(w));
#else
    *acc = _mm512_dpbusd_epi32(*acc, x, w);
#endif
}

#define STEP(Q) STEP_AT(xw, ww, Q)
#define STEP_AT(XP, WP, Q)                                                                 \
    do {                                                                                   \
        __m512i wv[4];                                                                     \
        UNROLL for (int r = 0; r < RM; r++)                                                \
            wv[r] = _mm512_loadu_si512((const void *)((WP) + r * ws_mb + (Q) * 64));         \
        UNROLL for (int j = 0; j < RW; j++) {                                              \
            __m512i xb = bcast((XP) + j * xps + (Q) * 4);                                    \
            if (XS) xb = _mm512_xor_si512(xb, flip);                                       \
            UNROLL for (int r = 0; r < RM; r++)                                            \
                dpbusd(&acc[j][r], xb, wv[r]);                     \
        }                                                                                  \
    } while (0)

/* The epilogue: each accumulator requantized (qconv16c.h) and stored as
 * 16 bytes. With a residual (Z), y is kept as the float y_zp + round(f)
 * (the integer the plain epilogue stores, exactly), then QADD's arithmetic
 * with z's 16 bytes (qdq_avx512.c, pz_qadd8__avx512's whole vectors: two
 * fused multiply-adds in its order, clamp, one rounding conversion): the
 * bits of the plain epilogue followed by the QADD layer. */
PZ_ALWAYS_INLINE void epilogue(const pz_qconv16c_uk_args *a, __m512i acc[16][4], const int RW,
                               const int RM, const int Z)
{
    const pz_qconv16c_sum *s = a->sum;
    const __m512i yzp = _mm512_set1_epi32(a->yzp);
    const __m512 yzpf = _mm512_set1_ps((float)a->yzp);
    const __m512 ac = _mm512_set1_ps(Z ? s->r.ac : 0), bc = _mm512_set1_ps(Z ? s->r.bc : 0);
    const __m512 fixed = _mm512_set1_ps(Z ? s->r.fixed : 0);
    const __m512 slo = _mm512_set1_ps(Z ? s->lo : 0), shi = _mm512_set1_ps(Z ? s->hi : 0);
    const int zb = Z ? s->z_b : 0, sgn = Z ? s->q.sgn : 0;
    const int64_t yps = a->yps, ys = a->ys_mb;
    UNROLL for (int r = 0; r < RM; r++) {
        const __m512 mv = _mm512_loadu_ps(a->mult + 16 * r);
        const __m512 lo = _mm512_loadu_ps(a->flo + 16 * r);
        const __m512 hi = _mm512_loadu_ps(a->fhi + 16 * r);
        UNROLL for (int j = 0; j < RW; j++) {
            __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[j][r]), mv);
            f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
            __m512i q;
            if (Z) {
                const __m512 yv = _mm512_add_ps(
                    _mm512_roundscale_ps(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), yzpf);
                const __m128i zr = _mm_loadu_si128((const __m128i *)(a->z + r * ys + j * yps));
                const __m512 zv = _mm512_cvtepi32_ps(sgn ? _mm512_cvtepi8_epi32(zr)
                                                         : _mm512_cvtepu8_epi32(zr));
                __m512 v = zb ? _mm512_fmadd_ps(zv, ac, _mm512_fmadd_ps(yv, bc, fixed))
                              : _mm512_fmadd_ps(yv, ac, _mm512_fmadd_ps(zv, bc, fixed));
                q = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v, slo), shi));
            } else {
                q = _mm512_add_epi32(_mm512_cvtps_epi32(f), yzp);
            }
            _mm_storeu_si128((__m128i *)(a->y + r * ys + j * yps), _mm512_cvtepi32_epi8(q));
        }
    }
}

PZ_ALWAYS_INLINE void tile(const pz_qconv16c_uk_args *a, const int RW, const int RM,
                           const int PS, const int XS)
{
    const int64_t xps = PS ? PS : a->xps;
    const int64_t ws_mb = a->ws_mb, ws_cb = a->ws_cb, ws_h = a->ws_h;
    const int64_t xs_cb = a->xs_cb, xs_h = a->xs_h, xs_w = a->xs_w;
    const int ncb = a->ncb, nkh = a->nkh, nkw = a->nkw;
    const __m512i flip = _mm512_set1_epi32((int)a->xflip);
    __m512i acc[16][4];
    UNROLL for (int r = 0; r < RM; r++) {
        const __m512i bv = _mm512_loadu_si512((const void *)(a->bias + 16 * r));
        UNROLL for (int j = 0; j < RW; j++) acc[j][r] = bv;
    }
    QC_TILE_RUNS(QC_TAP)

    if (a->z) epilogue(a, acc, RW, RM, 1);
    else epilogue(a, acc, RW, RM, 0);
}

/* uk_<xs>_<psk>_<rm>_<rw>; psk 0..2 for xps = 16, 32, any */
#define UK(XS, K, PSV, RM, RW) \
    static void uk_##XS##_##K##_##RM##_##RW(const pz_qconv16c_uk_args *a) { tile(a, RW, RM, PSV, XS); }
#define UK_1TO6(XS, K, PSV, RM) UK(XS, K, PSV, RM, 1) UK(XS, K, PSV, RM, 2) UK(XS, K, PSV, RM, 3) \
    UK(XS, K, PSV, RM, 4) UK(XS, K, PSV, RM, 5) UK(XS, K, PSV, RM, 6)
#define UK_1TO9(XS, K, PSV, RM) UK_1TO6(XS, K, PSV, RM) UK(XS, K, PSV, RM, 7) \
    UK(XS, K, PSV, RM, 8) UK(XS, K, PSV, RM, 9)
#define UK_1TO14(XS, K, PSV, RM) UK_1TO9(XS, K, PSV, RM) UK(XS, K, PSV, RM, 10) \
    UK(XS, K, PSV, RM, 11) UK(XS, K, PSV, RM, 12) UK(XS, K, PSV, RM, 13) UK(XS, K, PSV, RM, 14)
#define UK_1TO16(XS, K, PSV, RM) UK_1TO14(XS, K, PSV, RM) UK(XS, K, PSV, RM, 15) \
    UK(XS, K, PSV, RM, 16)
#define UK_ALL(XS, K, PSV) UK_1TO16(XS, K, PSV, 1) UK_1TO14(XS, K, PSV, 2) \
    UK_1TO9(XS, K, PSV, 3) UK_1TO6(XS, K, PSV, 4)

UK_ALL(0, 0, 16)
UK_ALL(0, 1, 32)
UK_ALL(0, 2, 0)
UK_ALL(1, 0, 16)
UK_ALL(1, 1, 32)
UK_ALL(1, 2, 0)

#define ROW6(XS, K, RM) NULL, uk_##XS##_##K##_##RM##_1, uk_##XS##_##K##_##RM##_2, \
    uk_##XS##_##K##_##RM##_3, uk_##XS##_##K##_##RM##_4, uk_##XS##_##K##_##RM##_5, \
    uk_##XS##_##K##_##RM##_6
#define ROW9(XS, K, RM) ROW6(XS, K, RM), uk_##XS##_##K##_##RM##_7, uk_##XS##_##K##_##RM##_8, \
    uk_##XS##_##K##_##RM##_9
#define ROW14(XS, K, RM) ROW9(XS, K, RM), uk_##XS##_##K##_##RM##_10, \
    uk_##XS##_##K##_##RM##_11, uk_##XS##_##K##_##RM##_12, uk_##XS##_##K##_##RM##_13, \
    uk_##XS##_##K##_##RM##_14
#define ROW16(XS, K, RM) ROW14(XS, K, RM), uk_##XS##_##K##_##RM##_15, uk_##XS##_##K##_##RM##_16
#define TAB(XS, K) {{NULL}, {ROW16(XS, K, 1)}, {ROW14(XS, K, 2)}, {ROW9(XS, K, 3)}, \
    {ROW6(XS, K, 4)}}

static const pz_qconv16c_uk TABLE[2][3][5][17] = {
    {TAB(0, 0), TAB(0, 1), TAB(0, 2)},
    {TAB(1, 0), TAB(1, 1), TAB(1, 2)},
};

pz_qconv16c_uk pz_qconv16c_pick__avx512vnni(int rm, int rw, int psk, int xs)
{
    return TABLE[xs][psk][rm][rw];
}
#endif
