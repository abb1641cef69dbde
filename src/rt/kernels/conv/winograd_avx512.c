/* winograd_avx512.c - the AVX-512 steps of Winograd F(4x4, 3x3) (see
 * winograd.h for the algorithm, winograd.c for the driver). One ZMM holds
 * the 16 channels of a block at one point.
 *
 * GEMM micro-kernel: nt tiles (1..14) x rm output blocks (1..2) in up to 28
 * accumulators; per input channel q it loads rm weight vectors
 * U[group][xi][c][r][16] and broadcasts nt values V[xi][c][tile], nt * rm FMAs for
 * nt + rm loads (14 x 2: 28 FMAs for 16 loads, under the 2 loads a cycle that
 * feed 2 FMAs a cycle). The loops have constant bounds in each instance, so
 * the accumulators live in registers.
 */
#include "rt/kernels/conv/winograd.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx512.h"

#define UNROLL _Pragma("GCC unroll 16")

PZ_ALWAYS_INLINE void in_1d(const __m512 d[6], __m512 r[6])
{
    const __m512 c4 = _mm512_set1_ps(4.0f), c5 = _mm512_set1_ps(5.0f), c2 = _mm512_set1_ps(2.0f);
    /* the formulas of winograd_scalar.c, in the same order of operations */
    r[0] = _mm512_add_ps(_mm512_sub_ps(_mm512_mul_ps(c4, d[0]), _mm512_mul_ps(c5, d[2])), d[4]);
    r[1] = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(-4.0f), d[1]),
                                                     _mm512_mul_ps(c4, d[2])), d[3]), d[4]);
    r[2] = _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(_mm512_mul_ps(c4, d[1]), _mm512_mul_ps(c4, d[2])),
                                       d[3]), d[4]);
    r[3] = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(-2.0f), d[1]), d[2]),
                                       _mm512_mul_ps(c2, d[3])), d[4]);
    r[4] = _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(_mm512_mul_ps(c2, d[1]), d[2]),
                                       _mm512_mul_ps(c2, d[3])), d[4]);
    r[5] = _mm512_add_ps(_mm512_sub_ps(_mm512_mul_ps(c4, d[1]), _mm512_mul_ps(c5, d[3])), d[5]);
}

PZ_ALWAYS_INLINE void out_1d(const __m512 m[6], __m512 o[4])
{
    const __m512 c2 = _mm512_set1_ps(2.0f), c4 = _mm512_set1_ps(4.0f), c8 = _mm512_set1_ps(8.0f);
    o[0] = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(m[0], m[1]), m[2]), m[3]), m[4]);
    o[1] = _mm512_sub_ps(_mm512_add_ps(_mm512_sub_ps(m[1], m[2]), _mm512_mul_ps(c2, m[3])),
                         _mm512_mul_ps(c2, m[4]));
    o[2] = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(m[1], m[2]), _mm512_mul_ps(c4, m[3])),
                         _mm512_mul_ps(c4, m[4]));
    o[3] = _mm512_add_ps(_mm512_sub_ps(_mm512_add_ps(_mm512_sub_ps(m[1], m[2]), _mm512_mul_ps(c8, m[3])),
                                       _mm512_mul_ps(c8, m[4])), m[5]);
}

static void wino_in(const float *x, int64_t rs, float *v, int64_t vs)
{
    __m512 t[6][6];   /* t[i][s] = (B' d)[i][s] */
    UNROLL for (int s = 0; s < 6; s++) {
        __m512 col[6], r[6];
        UNROLL for (int h = 0; h < 6; h++) col[h] = _mm512_loadu_ps(x + h * rs + s * 16);
        in_1d(col, r);
        UNROLL for (int i = 0; i < 6; i++) t[i][s] = r[i];
    }
    UNROLL for (int i = 0; i < 6; i++) {
        __m512 r[6];
        in_1d(t[i], r);
        UNROLL for (int j = 0; j < 6; j++) _mm512_storeu_ps(v + (i * 6 + j) * vs, r[j]);
    }
}

/* One input block's 16 q steps into the accumulators of output blocks
 * [R0, R1) of the register tile, U at u: [16 q][R1 - R0][16]; v: V of the
 * block. */
#define QSTEPS(R0, R1)                                                                       \
    for (int q = 0; q < 16; q++) {                                                           \
        __m512 wv[2];                                                                        \
        UNROLL for (int r = R0; r < R1; r++)                                                 \
            wv[r] = _mm512_loadu_ps(u + (q * (R1 - R0) + r - R0) * 16);                      \
        if (PF)                                                                              \
            for (int k = 0; k < pfq && pfn > 0; k++, pfn--, pf += 16)                        \
                _mm_prefetch((const char *)pf, _MM_HINT_T1);                                 \
        UNROLL for (int j = 0; j < NT; j++) {                                                \
            __m512 xv = _mm512_set1_ps(v[j * 16 + q]);                                       \
            UNROLL for (int r = R0; r < R1; r++) acc[j][r] = _mm512_fmadd_ps(xv, wv[r], acc[j][r]); \
        }                                                                                    \
    }

PZ_ALWAYS_INLINE void gemm_body(const pz_wino_gemm_args *a, const int NT, const int RM,
                               const int PF)
{
    __m512 acc[14][2];
    UNROLL for (int j = 0; j < NT; j++)
        UNROLL for (int r = 0; r < 2; r++) acc[j][r] = _mm512_setzero_ps();
    const int64_t vs = a->vs_cb;
    const float *pf = a->pf;
    int64_t pfn = a->pf_n;
    const int pfq = a->pf_q;
    if (!a->ent) {
        /* U of this group: [cb][16 q][RM][16], one sequential stream */
        for (int cb = 0; cb < a->ncb; cb++) {
            const float *v = a->v + cb * vs, *u = a->u + cb * (16 * RM * 16);
            QSTEPS(0, RM)
        }
    } else {
        /* the listed blocks (winograd.h, pz_spwino_plan): both output
         * blocks, or the one that has a weight there */
        const float *u = a->u;
        for (int e = 0; e < a->nent; e++) {
            const float *v = a->v + (a->ent[e] >> 2) * vs;
            const int mask = a->ent[e] & 3;
            if (RM == 1 || mask == 3) {
                QSTEPS(0, RM)
                u += 16 * RM * 16;
            } else if (mask == 1) {
                QSTEPS(0, 1)
                u += 16 * 16;
            } else {
                QSTEPS(1, 2)
                u += 16 * 16;
            }
        }
    }
    UNROLL for (int r = 0; r < RM; r++)
        UNROLL for (int j = 0; j < NT; j++) _mm512_storeu_ps(a->m + r * a->ms_mb + j * 16, acc[j][r]);
}

#define GK(NT, RM)                                                           \
    static void gemm_##NT##_##RM(const pz_wino_gemm_args *a)                 \
    {                                                                        \
        if (a->pf_n > 0) gemm_body(a, NT, RM, 1);                            \
        else gemm_body(a, NT, RM, 0);                                        \
    }
#define GK2(NT) GK(NT, 1) GK(NT, 2)
GK2(1) GK2(2) GK2(3) GK2(4) GK2(5) GK2(6) GK2(7)
GK2(8) GK2(9) GK2(10) GK2(11) GK2(12) GK2(13) GK2(14)

#define GROW(NT) {gemm_##NT##_1, gemm_##NT##_2}
static void (*const GEMMS[15][2])(const pz_wino_gemm_args *) = {
    {NULL, NULL}, GROW(1), GROW(2), GROW(3), GROW(4), GROW(5), GROW(6), GROW(7),
    GROW(8), GROW(9), GROW(10), GROW(11), GROW(12), GROW(13), GROW(14),
};

static void wino_gemm(const pz_wino_gemm_args *a)
{
    GEMMS[a->nt][a->rm - 1](a);
}

static void wino_out(const float *m, int64_t ms, const float *b, const float *z, float *y,
                     int64_t ys, int nh, int nw, const pz_act *act, int tail)
{
    __m512 t[4][6];   /* t[p][j] = (A' M)[p][j] */
    UNROLL for (int j = 0; j < 6; j++) {
        __m512 col[6], o[4];
        UNROLL for (int i = 0; i < 6; i++) col[i] = _mm512_loadu_ps(m + (i * 6 + j) * ms);
        out_1d(col, o);
        UNROLL for (int p = 0; p < 4; p++) t[p][j] = o[p];
    }
    const __m512 bv = b ? _mm512_loadu_ps(b) : _mm512_setzero_ps();
    const int clamp = act->kind != PZ_ACT_NONE, other = !pz_act_is_clamp(act->kind);
    const __m512 lo = _mm512_set1_ps(act->kind == PZ_ACT_CLIP ? act->lo : 0.0f);
    const __m512 hi = _mm512_set1_ps(act->kind == PZ_ACT_CLIP ? act->hi : __builtin_inff());
    const __mmask16 keep = (__mmask16)((1u << tail) - 1);
    for (int p = 0; p < nh; p++) {
        __m512 o[4];
        out_1d(t[p], o);
        for (int q = 0; q < nw; q++) {
            __m512 v = _mm512_add_ps(o[q], bv);
            if (z) v = _mm512_add_ps(v, _mm512_loadu_ps(z + p * ys + q * 16));
            if (other) v = pz_act16_ps(act, v);
            else if (clamp) v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
            _mm512_storeu_ps(y + p * ys + q * 16, _mm512_maskz_mov_ps(keep, v));
        }
    }
}

const pz_wino_isa pz_wino_isa__avx512 = {.in = wino_in, .gemm = wino_gemm, .out = wino_out};

void pz_f32_conv3x3_winograd_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                             const float *restrict u, const float *restrict b,
                                             const float *restrict z, float *restrict y,
                                             float *restrict scratch, int ith, int nth)
{
    pz_winograd_drive(d, &pz_wino_isa__avx512, x, u, b, z, y, scratch, ith, nth);
}

#endif
