/* attention_f32_avx512.c - float32 attention with AVX-512, the plan of
 * attention_f32.h: per unit, Q's rows eight at a time against K^T in
 * 32-key tiles (16 accumulators), the scaled and masked scores kept in the
 * worker's scratch, their softmax with the vector e^x (vmath_avx512.h),
 * then the rows four at a time against V in 64-column tiles (16
 * accumulators), the 1/sum applied as Y is written. Both products walk the
 * keys in the outer loop (scores: one 32-key tile of K^T for every row
 * group; P V: TC keys of V for every row group, the partial sums kept in
 * the scratch): the tile of K^T or V then stays in L1 while the unit's
 * rows pass over it, where whole (T 197 or 384: 50-100 KB) it comes from
 * L2 once per row group. The sums run in the same order either way. Tails
 * of keys and columns use masked loads and stores. K^T is packed by 16 x 16
 * transposes in registers (gathers where Dk is not a multiple of 16); V is
 * copied into the scratch with its rows Dv apart: read in place from a
 * rows-first [S, H, D] tensor its rows lie H * D apart, which maps them
 * onto a few L1 sets, and each row tile would read them from L2 again
 * (bench/RESULTS.md, 'attention: packed K^T and V'). */
#ifndef PZ_SCALAR   /* a PZ_SCALAR build has no vector kernels */
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "rt/kernels/attention/attention_f32.h"
#include "rt/kernels/fast.h"
#include "rt/kernels/vmath_avx512.h"

#define QR 4    /* query rows per tile of P V */
#define QS 8    /* query rows per tile of scores */
#define TC 128  /* keys of V per pass of the rows: TC x Dv floats stay in L1 */

/* Lanes [0, n) of a 16-float vector, n in [0, 16]. */
static inline __mmask16 lanes(int64_t n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
}

static inline float hmax(__m512 x)
{
    return _mm512_reduce_max_ps(x);
}

/* Scores of nr <= QR rows (q rows qs2 apart) against the keys [t0, t0 +
 * 16 * nv) of K^T (rows Tp apart), nv 1 or 2: scaled, the mask added (past
 * T: -inf), into sc rows (Tp apart). */
static inline __attribute__((always_inline)) void
scores_tile(int nr, int nv, const pz_attention_desc *d, const float *q, int64_t qs2,
            const float *kt, int64_t Tp, const float *mask, int64_t ms2, float *sc, int64_t t0)
{
    __m512 acc[QS][2];
    _Pragma("GCC unroll 8")
    for (int i = 0; i < nr; i++)
        _Pragma("GCC unroll 4")
        for (int j = 0; j < nv; j++) acc[i][j] = _mm512_setzero_ps();
    for (int64_t c = 0; c < d->Dk; c++) {
        const float *kr = kt + c * Tp + t0;
        __m512 k0 = _mm512_loadu_ps(kr), k1 = nv > 1 ? _mm512_loadu_ps(kr + 16) : k0;
        _Pragma("GCC unroll 8")
        for (int i = 0; i < nr; i++) {
            __m512 qb = _mm512_set1_ps(q[i * qs2 + c]);
            acc[i][0] = _mm512_fmadd_ps(qb, k0, acc[i][0]);
            if (nv > 1) acc[i][1] = _mm512_fmadd_ps(qb, k1, acc[i][1]);
        }
    }
    const __m512 scale = _mm512_set1_ps((float)d->scale), ninf = _mm512_set1_ps(-INFINITY);
    _Pragma("GCC unroll 4")
    for (int j = 0; j < nv; j++) {
        const int64_t t = t0 + 16 * j;
        const __mmask16 m = lanes(d->T - t);
        _Pragma("GCC unroll 8")
        for (int i = 0; i < nr; i++) {
            __m512 x = _mm512_mul_ps(acc[i][j], scale);
            if (mask) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, mask + i * ms2 + t));
            _mm512_storeu_ps(sc + i * Tp + t, _mm512_mask_blend_ps(m, ninf, x));
        }
    }
}

/* Y rows = P rows (sc, Tp apart) times V [T, Dv] (rows vs2 apart), columns
 * [j0, j0 + 16 * nv), nv 1 to 4, over the keys [ta, tb): the sums start
 * from the partial ones in ps (rows Dv apart; zero when ta is 0) and go
 * back there, or at tb = T to Y, each row times its inv. */
static inline __attribute__((always_inline)) void
out_tile(int nr, int nv, const pz_attention_desc *d, const float *sc, int64_t Tp,
         const float *v, int64_t vs2, int64_t ta, int64_t tb, float *ps, const float *inv,
         float *y, int64_t ys2, int64_t j0)
{
    __m512 acc[QR][4];
    __mmask16 m[4];
    _Pragma("GCC unroll 4")
    for (int j = 0; j < nv; j++) m[j] = lanes(d->Dv - (j0 + 16 * j));
    _Pragma("GCC unroll 4")
    for (int i = 0; i < nr; i++)
        _Pragma("GCC unroll 4")
        for (int j = 0; j < nv; j++)
            acc[i][j] = ta ? _mm512_maskz_loadu_ps(m[j], ps + i * d->Dv + j0 + 16 * j)
                           : _mm512_setzero_ps();
    for (int64_t t = ta; t < tb; t++) {
        const float *vr = v + t * vs2 + j0;
        __m512 vv[4];
        _Pragma("GCC unroll 4")
        for (int j = 0; j < nv; j++) vv[j] = _mm512_maskz_loadu_ps(m[j], vr + 16 * j);
        _Pragma("GCC unroll 4")
        for (int i = 0; i < nr; i++) {
            __m512 p = _mm512_set1_ps(sc[i * Tp + t]);
            _Pragma("GCC unroll 4")
            for (int j = 0; j < nv; j++) acc[i][j] = _mm512_fmadd_ps(p, vv[j], acc[i][j]);
        }
    }
    if (tb < d->T) {
        _Pragma("GCC unroll 4")
        for (int i = 0; i < nr; i++)
            _Pragma("GCC unroll 4")
            for (int j = 0; j < nv; j++)
                _mm512_mask_storeu_ps(ps + i * d->Dv + j0 + 16 * j, m[j], acc[i][j]);
        return;
    }
    _Pragma("GCC unroll 4")
    for (int i = 0; i < nr; i++) {
        const __m512 s = _mm512_set1_ps(inv[i]);
        _Pragma("GCC unroll 4")
        for (int j = 0; j < nv; j++)
            _mm512_mask_storeu_ps(y + i * ys2 + j0 + 16 * j, m[j], _mm512_mul_ps(acc[i][j], s));
    }
}

/* Softmax of one score row in place (Tp floats, -inf past T): the
 * exponentials (0 below e^-87: exp_neg_ps), and 1/sum returned (NaN for a
 * row masked everywhere). */
static float softmax_row(float *sr, int64_t Tp)
{
    __m512 mx = _mm512_set1_ps(-INFINITY);
    for (int64_t t = 0; t < Tp; t += 16) mx = _mm512_max_ps(mx, _mm512_loadu_ps(sr + t));
    const float m = hmax(mx);
    if (m == -INFINITY) return NAN;
    const __m512 mv = _mm512_set1_ps(m);
    __m512 sum = _mm512_setzero_ps();
    for (int64_t t = 0; t < Tp; t += 16) {
        __m512 e = exp_neg_ps(_mm512_sub_ps(_mm512_loadu_ps(sr + t), mv));
        _mm512_storeu_ps(sr + t, e);
        sum = _mm512_add_ps(sum, e);
    }
    return 1.0f / _mm512_reduce_add_ps(sum);
}

/* The 16 x 16 block r (rows) transposed in place: pairs of floats, of
 * doubles, then of 128- and 256-bit lanes interleaved. */
static inline void transpose16(__m512 r[16])
{
    __m512 t[16], u[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int g = 0; g < 16; g += 4) {   /* u[g + c] lane L: column 4L + c of rows g..g+3 */
        const __m512d a = _mm512_castps_pd(t[g]), b_ = _mm512_castps_pd(t[g + 2]);
        const __m512d c = _mm512_castps_pd(t[g + 1]), e = _mm512_castps_pd(t[g + 3]);
        u[g] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b_));
        u[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b_));
        u[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, e));
        u[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, e));
    }
    for (int c = 0; c < 4; c++) {
        const __m512 v = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);
        const __m512 w = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xdd);
        const __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
        const __m512 w2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xdd);
        r[c] = _mm512_shuffle_f32x4(v, v2, 0x88);
        r[8 + c] = _mm512_shuffle_f32x4(v, v2, 0xdd);
        r[4 + c] = _mm512_shuffle_f32x4(w, w2, 0x88);
        r[12 + c] = _mm512_shuffle_f32x4(w, w2, 0xdd);
    }
}

/* K^T of kv head (b, hk) into kt [Dk][Tp], zero past T: 16 keys at a time;
 * with Dk a multiple of 16, 16 x 16 blocks loaded as rows and transposed in
 * registers (a gather of 16 costs more than its 4 shuffles' share), else
 * each of the Dk columns one gather (rows ks[2] apart) and one store. */
static void pack_kt(const pz_attention_desc *d, const float *k, int64_t b, int64_t hk,
                    float *kt, int64_t Tp)
{
    const float *kb = k + b * d->ks[0] + hk * d->ks[1];
    const int64_t ks2 = d->ks[2];
    if (d->Dk % 16 == 0) {
        for (int64_t t = 0; t < Tp; t += 16)
            for (int64_t c = 0; c < d->Dk; c += 16) {
                __m512 r[16];
                for (int i = 0; i < 16; i++)
                    r[i] = t + i < d->T ? _mm512_loadu_ps(kb + (t + i) * ks2 + c)
                                        : _mm512_setzero_ps();
                transpose16(r);
                for (int i = 0; i < 16; i++) _mm512_storeu_ps(kt + (c + i) * Tp + t, r[i]);
            }
        return;
    }
    if (ks2 > INT32_MAX / 16) {   /* the gather's 32-bit offsets would not hold */
        for (int64_t t = 0; t < Tp; t++)
            for (int64_t i = 0; i < d->Dk; i++) kt[i * Tp + t] = t < d->T ? kb[t * ks2 + i] : 0;
        return;
    }
    const __m512i off = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32((int)ks2));
    for (int64_t t = 0; t < Tp; t += 16) {
        const __mmask16 m = lanes(d->T - t);
        const float *kr = kb + t * ks2;
        for (int64_t i = 0; i < d->Dk; i++)
            _mm512_storeu_ps(kt + i * Tp + t, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m,
                                                                        off, kr + i, 4));
    }
}

#define DISPATCH_NR(nr, call)                                                                \
    do {                                                                                     \
        switch (nr) {                                                                        \
        case 4: call(4); break;                                                              \
        case 3: call(3); break;                                                              \
        case 2: call(2); break;                                                              \
        default: call(1); break;                                                             \
        }                                                                                    \
    } while (0)

/* up to QS rows: 5 to 8 here, fewer as DISPATCH_NR */
#define DISPATCH_NS(nr, call)                                                                \
    do {                                                                                     \
        switch (nr) {                                                                        \
        case 8: call(8); break;                                                              \
        case 7: call(7); break;                                                              \
        case 6: call(6); break;                                                              \
        case 5: call(5); break;                                                              \
        default: DISPATCH_NR(nr, call); break;                                               \
        }                                                                                    \
    } while (0)

void pz_f32_attention__avx512(const pz_attention_desc *d, const float *q, const float *k,
                              const float *v, const float *mask, float *y, float *scratch,
                              int ith, int nth)
{
    const int64_t Tp = pz_attn_tpad(d->T);
    float *kt = scratch + (int64_t)ith * pz_attn_scratch_floats(d), *sc = kt + d->Dk * Tp;
    float *vp = sc + PZ_ATTN_QB * Tp;   /* V of the head, rows Dv apart */
    float *ps = vp + d->T * d->Dv;       /* partial sums of P V, rows Dv apart */
    float inv[PZ_ATTN_QB];
    int64_t lo, hi, packed = -1;
    pz_split(pz_attn_units(d), ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const pz_attn_unit w = pz_attn_unit_of(d, u);
        const int64_t b = w.b, h = w.h, hk = w.hk, s0 = w.s0, rows = w.rows;
        const int64_t kvu = b * d->Hkv + hk;
        if (packed != kvu) {
            pack_kt(d, k, b, hk, kt, Tp);
            for (int64_t t = 0; t < d->T; t++)
                memcpy(vp + t * d->Dv, v + b * d->vs[0] + hk * d->vs[1] + t * d->vs[2],
                       (size_t)d->Dv * sizeof(float));
            packed = kvu;
        }
        const float *qb0 = q + b * d->qs[0] + h * d->qs[1] + s0 * d->qs[2];
        const float *mb0 = d->has_mask ? mask + b * d->ms[0] + h * d->ms[1] + s0 * d->ms[2] : NULL;
        for (int64_t t = 0; t < Tp; t += 32) {   /* a tile of K^T, every row group */
            for (int64_t r = 0; r < rows; r += QS) {
                const int nr = rows - r < QS ? (int)(rows - r) : QS;
                const float *qr = qb0 + r * d->qs[2], *mr = mb0 ? mb0 + r * d->ms[2] : NULL;
                float *sr = sc + r * Tp;
#define SC2(n) scores_tile(n, 2, d, qr, d->qs[2], kt, Tp, mr, d->ms[2], sr, t)
#define SC1(n) scores_tile(n, 1, d, qr, d->qs[2], kt, Tp, mr, d->ms[2], sr, t)
                if (t + 32 <= Tp) DISPATCH_NS(nr, SC2);
                else DISPATCH_NS(nr, SC1);
            }
        }
        for (int64_t r = 0; r < rows; r++) inv[r] = softmax_row(sc + r * Tp, Tp);
        const float *vb = vp;
        float *yb = y + b * d->ys[0] + h * d->ys[1] + s0 * d->ys[2];
        /* TC keys of V, every row group (T = 0: one empty pass, Y = 0 * inv) */
        for (int64_t ta = 0; ta == 0 || ta < d->T; ta += TC) {
            const int64_t tb = d->T - ta < TC ? d->T : ta + TC;
            for (int64_t r = 0; r < rows; r += QR) {
                const int nr = rows - r < QR ? (int)(rows - r) : QR;
                for (int64_t j = 0; j < d->Dv; j += 64) {
                    const int64_t left = (d->Dv - j + 15) / 16;
                    const int nv = left >= 4 ? 4 : (int)left;
#define OUT_NV(n, v_)                                                                        \
    out_tile(n, v_, d, sc + r * Tp, Tp, vb, d->Dv, ta, tb, ps + r * d->Dv, inv + r,          \
             yb + r * d->ys[2], d->ys[2], j)
#define OUT(n)                                                                               \
    switch (nv) {                                                                            \
    case 4: OUT_NV(n, 4); break;                                                             \
    case 3: OUT_NV(n, 3); break;                                                             \
    case 2: OUT_NV(n, 2); break;                                                             \
    default: OUT_NV(n, 1); break;                                                            \
    }
                    DISPATCH_NR(nr, OUT);
                }
            }
        }
    }
}
#endif
