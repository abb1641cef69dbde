/* rnn_avx512.c - the recurrent step in ZMM registers: per 16-unit block,
 * the recurrent product of up to four gates for two batch rows at a time
 * (one row: a pair of blocks a pass, as R is packed, with two sets of
 * accumulators over even and odd k, to hide the FMA latency), then the
 * default gates (sigmoid and tanh through e^x) on the accumulators in the
 * same pass; other activations or a clip go through the shared scalar
 * gates (pz_rnn_gates16). */
#ifndef PZ_SCALAR   /* a PZ_SCALAR build has no vector kernels */
#include <immintrin.h>

#include "rt/kernels/rnn/rnn.h"
#include "rt/kernels/vmath_avx512.h"

/* 1 / (1 + e^t), the sigmoid of -t: t held in [-87, 87], so that e^t and
 * 1 + e^t stay normal and finite (past the bounds the result's bits do not
 * change: 1 + e^-87 is 1); one clamp, not exp_flush_ps's own as well: the
 * gates are ~8% of the step, and their uops count */
static inline __m512 sigmoid_neg_ps(__m512 t)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    t = _mm512_min_ps(_mm512_set1_ps(87.0f), _mm512_max_ps(_mm512_set1_ps(-87.0f), t));
    const __m512 d = _mm512_add_ps(one, exp_ps(t));
    /* 1/d by rcp14 and one Newton step (within 2 ulp): a ZMM division is
     * one per 16 cycles, five of them per block and step */
    __m512 r = _mm512_rcp14_ps(d);
    return _mm512_fmadd_ps(r, _mm512_fnmadd_ps(d, r, one), r);
}

static inline __m512 sigmoid_ps(__m512 x)
{
    return sigmoid_neg_ps(_mm512_sub_ps(_mm512_setzero_ps(), x));
}

/* tanh x = 2 sigmoid(2x) - 1 (-2x in one product, exact) */
static inline __m512 tanh_ps(__m512 x)
{
    const __m512 s = sigmoid_neg_ps(_mm512_mul_ps(_mm512_set1_ps(-2.0f), x));
    return _mm512_fmsub_ps(_mm512_set1_ps(2.0f), s, _mm512_set1_ps(1.0f));
}

/* The loops over gates and rows below are unrolled by pragma: the
 * accumulator arrays must live in registers; left as loops (GCC -O2), each
 * FMA went through the stack and the step ran at two thirds of the speed. */

/* acc[r][g] = sum_k hv_r[k] rq[g gs + k ks][16], rows r < nb, gates g < ng */
static inline __attribute__((always_inline)) void matvec(const float *rq, int64_t gs, int64_t ks,
                                                         const float *h0, const float *h1,
                                                         int64_t H, int ng, int nb,
                                                         __m512 acc[2][4])
{
    __m512 a[2][4], e[4];
#pragma GCC unroll 2
    for (int r = 0; r < 2; r++)
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++) a[r][g] = _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) e[g] = _mm512_setzero_ps();
    int64_t k = 0;
    if (nb == 1) {
        for (; k + 1 < H; k += 2) {
            const __m512 x0 = _mm512_set1_ps(h0[k]), x1 = _mm512_set1_ps(h0[k + 1]);
#pragma GCC unroll 4
            for (int g = 0; g < ng; g++) {
                a[0][g] = _mm512_fmadd_ps(_mm512_loadu_ps(rq + g * gs + k * ks), x0, a[0][g]);
                e[g] = _mm512_fmadd_ps(_mm512_loadu_ps(rq + g * gs + (k + 1) * ks), x1, e[g]);
            }
        }
    }
    for (; k < H; k++) {
        const __m512 x0 = _mm512_set1_ps(h0[k]);
        const __m512 x1 = nb > 1 ? _mm512_set1_ps(h1[k]) : x0;
#pragma GCC unroll 4
        for (int g = 0; g < ng; g++) {
            const __m512 w = _mm512_loadu_ps(rq + g * gs + k * ks);
            a[0][g] = _mm512_fmadd_ps(w, x0, a[0][g]);
            if (nb > 1) a[1][g] = _mm512_fmadd_ps(w, x1, a[1][g]);
        }
    }
#pragma GCC unroll 4
    for (int g = 0; g < ng; g++) {
        acc[0][g] = _mm512_add_ps(a[0][g], e[g]);
        acc[1][g] = a[1][g];
    }
}

/* acc[q][g] = sum_k h[k] rq[g gs + k ks + 16 q][16] for the two blocks
 * q = 0, 1 of a pair, one row: 4 ng accumulators (even and odd k), so that
 * an LSTM step reads the pair's R as one stream with 16 FMAs in flight and
 * one broadcast of h per 8 loads */
static inline __attribute__((always_inline)) void matvec2(const float *rq0, int64_t gs, int64_t ks,
                                                          const float *h, int64_t H, int ng,
                                                          __m512 acc[2][4])
{
    __m512 a[2][4], e[2][4];
#pragma GCC unroll 2
    for (int q = 0; q < 2; q++)
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++) a[q][g] = e[q][g] = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k + 1 < H; k += 2) {
        const __m512 x0 = _mm512_set1_ps(h[k]), x1 = _mm512_set1_ps(h[k + 1]);
#pragma GCC unroll 4
        for (int g = 0; g < ng; g++) {
            const float *w0 = rq0 + g * gs + k * ks, *w1 = w0 + ks;
            a[0][g] = _mm512_fmadd_ps(_mm512_loadu_ps(w0), x0, a[0][g]);
            a[1][g] = _mm512_fmadd_ps(_mm512_loadu_ps(w0 + 16), x0, a[1][g]);
            e[0][g] = _mm512_fmadd_ps(_mm512_loadu_ps(w1), x1, e[0][g]);
            e[1][g] = _mm512_fmadd_ps(_mm512_loadu_ps(w1 + 16), x1, e[1][g]);
        }
    }
    if (k < H) {
        const __m512 x0 = _mm512_set1_ps(h[k]);
#pragma GCC unroll 4
        for (int g = 0; g < ng; g++) {
            a[0][g] = _mm512_fmadd_ps(_mm512_loadu_ps(rq0 + g * gs + k * ks), x0, a[0][g]);
            a[1][g] = _mm512_fmadd_ps(_mm512_loadu_ps(rq0 + 16 + g * gs + k * ks), x0, a[1][g]);
        }
    }
#pragma GCC unroll 2
    for (int q = 0; q < 2; q++)
#pragma GCC unroll 4
        for (int g = 0; g < ng; g++) acc[q][g] = _mm512_add_ps(a[q][g], e[q][g]);
}

/* The default gates of one row: acc holds the gates [g0, g1) of the step. */
static inline __attribute__((always_inline)) void gates(const pz_rnn_step_desc *d, int64_t blk,
                                                        int64_t b, const __m512 *acc,
                                                        const float *x, const float *h,
                                                        const float *c, float *hn, float *cn,
                                                        float *zt, float *rh)
{
    const int64_t H = d->hidden, j = blk * 16, o = b * d->hpad + j, hp = d->hpad;
    const int64_t nv = H - j < 16 ? H - j : 16;
    const __mmask16 m = (__mmask16)((1u << nv) - 1);
#define XW(g) _mm512_maskz_loadu_ps(m, x + (g) * H + j)
    if (d->cell == PZ_RNN_CELL_RNN) {
        _mm512_storeu_ps(hn + o, tanh_ps(_mm512_add_ps(XW(0), acc[0])));
    } else if (d->cell == PZ_RNN_CELL_LSTM) {
        const __m512 cp = _mm512_loadu_ps(c + o);
        __m512 pi = XW(0), po = XW(1), pf = XW(2);
        pi = _mm512_add_ps(pi, acc[0]);
        pf = _mm512_add_ps(pf, acc[2]);
        po = _mm512_add_ps(po, acc[1]);
        if (d->pp) {
            pi = _mm512_fmadd_ps(_mm512_loadu_ps(d->pp + j), cp, pi);
            pf = _mm512_fmadd_ps(_mm512_loadu_ps(d->pp + 2 * hp + j), cp, pf);
        }
        const __m512 i = sigmoid_ps(pi);
        const __m512 f = d->input_forget ? _mm512_sub_ps(_mm512_set1_ps(1.0f), i) : sigmoid_ps(pf);
        const __m512 g = tanh_ps(_mm512_add_ps(XW(3), acc[3]));
        const __m512 cc = _mm512_fmadd_ps(f, cp, _mm512_mul_ps(i, g));
        if (d->pp) po = _mm512_fmadd_ps(_mm512_loadu_ps(d->pp + hp + j), cc, po);
        _mm512_storeu_ps(cn + o, cc);
        _mm512_storeu_ps(hn + o, _mm512_mul_ps(sigmoid_ps(po), tanh_ps(cc)));
    } else if (d->lbr) {
        const __m512 hp0 = _mm512_loadu_ps(h + o);
        const __m512 z = sigmoid_ps(_mm512_add_ps(XW(0), acc[0]));
        const __m512 r = sigmoid_ps(_mm512_add_ps(XW(1), acc[1]));
        const __m512 rb = _mm512_maskz_loadu_ps(m, d->rbh + j);
        const __m512 n = tanh_ps(_mm512_fmadd_ps(r, _mm512_add_ps(acc[2], rb), XW(2)));
        _mm512_storeu_ps(hn + o, _mm512_fmadd_ps(z, _mm512_sub_ps(hp0, n), n));
    } else if (d->phase == 0) {
        _mm512_storeu_ps(zt + o, sigmoid_ps(_mm512_add_ps(XW(0), acc[0])));
        const __m512 r = sigmoid_ps(_mm512_add_ps(XW(1), acc[1]));
        _mm512_storeu_ps(rh + o, _mm512_mul_ps(r, _mm512_loadu_ps(h + o)));
    } else {
        const __m512 hp0 = _mm512_loadu_ps(h + o), z = _mm512_loadu_ps(zt + o);
        const __m512 n = tanh_ps(_mm512_add_ps(XW(2), acc[2]));
        _mm512_storeu_ps(hn + o, _mm512_fmadd_ps(z, _mm512_sub_ps(hp0, n), n));
    }
#undef XW
}

/* The gates of block blk, row b, from the accumulators of gates [g0, g0+ng). */
static inline __attribute__((always_inline)) void finish(const pz_rnn_step_desc *d, int64_t blk,
                                                         int64_t b, const __m512 *acc, int g0,
                                                         int ng, const float *x, const float *h,
                                                         const float *c, float *hn, float *cn,
                                                         float *zt, float *rh)
{
    /* gate slots as the step numbers them: acc of gate g at g */
    __m512 ag[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                    _mm512_setzero_ps()};
    for (int g = 0; g < ng; g++) ag[g0 + g] = acc[g];
    if (d->plain) {
        gates(d, blk, b, ag, x, h, c, hn, cn, zt, rh);
    } else {
        float as[4][16];
        for (int g = g0; g < g0 + ng; g++) _mm512_storeu_ps(as[g], ag[g]);
        pz_rnn_gates16(d, blk, b, as, x, h, c, hn, cn, zt, rh);
    }
}

static inline __attribute__((always_inline)) void step_ng(const pz_rnn_step_desc *d,
                                                          const float *const *xw, const float *h,
                                                          const float *c, float *hn, float *cn,
                                                          float *zt, float *rh, const float *hv,
                                                          int64_t blk0, int64_t blk1, int g0,
                                                          int ng, int G)
{
    const int64_t H = d->hidden, B = d->batch;
    for (int64_t blk = blk0; blk < blk1;) {
        int64_t ks;
        const float *rq = pz_rnn_panel(d->rp, H, G, blk, g0, &ks);
        const int64_t gs = ks / G;
        if (B == 1 && blk % 2 == 0 && blk + 1 < blk1) {   /* one row: a pair a pass */
            __m512 acc[2][4];
            matvec2(rq, gs, ks, hv, H, ng, acc);
            finish(d, blk, 0, acc[0], g0, ng, xw[0], h, c, hn, cn, zt, rh);
            finish(d, blk + 1, 0, acc[1], g0, ng, xw[0], h, c, hn, cn, zt, rh);
            blk += 2;
            continue;
        }
        for (int64_t b = 0; b < B; b += 2) {
            __m512 acc[2][4];
            const int nb = B - b >= 2 ? 2 : 1;
            if (nb == 2)
                matvec(rq, gs, ks, hv + b * d->hpad, hv + (b + 1) * d->hpad, H, ng, 2, acc);
            else
                matvec(rq, gs, ks, hv + b * d->hpad, NULL, H, ng, 1, acc);
            for (int r = 0; r < nb; r++)
                finish(d, blk, b + r, acc[r], g0, ng, xw[b + r], h, c, hn, cn, zt, rh);
        }
        blk++;
    }
}

void pz_f32_rnn_step__avx512(const pz_rnn_step_desc *d, const float *const *xw, const float *h,
                             const float *c, float *hn, float *cn, float *zt, float *rh,
                             int64_t blk0, int64_t blk1)
{
    int g0, g1, use_rh;
    pz_rnn_step_gates(d, &g0, &g1, &use_rh);
    const int G = d->cell == PZ_RNN_CELL_RNN ? 1 : d->cell == PZ_RNN_CELL_GRU ? 3 : 4;
    const float *hv = use_rh ? rh : h;
    /* the state's lines, half of them written by the other workers in the
     * step before: fetched all at once, not one miss at a time as the
     * matvec's broadcasts reach them */
    for (int64_t i = 0; i < d->batch * d->hpad; i += 16)
        _mm_prefetch((const char *)(hv + i), _MM_HINT_T0);
    switch (g1 - g0) {
    case 1: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 1, G); break;
    case 2: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 2, G); break;
    case 3: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 3, G); break;
    default: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 4, G); break;
    }
}
#endif
