/* rnn_avx2.c - the recurrent step in YMM registers (with FMA): a 16-unit
 * block as two halves, one batch row at a time, the recurrent product of
 * up to four gates (eight accumulators), then the default gates (sigmoid
 * and tanh through e^x) in the same pass; other activations or a clip go
 * through the shared scalar gates (pz_rnn_gates16). */
#ifndef PZ_SCALAR   /* a PZ_SCALAR build has no vector kernels */
#include <immintrin.h>

#include "rt/kernels/rnn/rnn.h"
#include "rt/kernels/vmath_avx2.h"

static inline __m256 tanh8_ps(__m256 x)
{
    const __m256 two = _mm256_set1_ps(2.0f);
    return _mm256_fmsub_ps(two, sigmoid8_ps(_mm256_mul_ps(two, x)), _mm256_set1_ps(1.0f));
}

/* lanes [0, nv) of x, zeros beyond */
static inline __m256 load_part(const float *x, int64_t nv)
{
    if (nv >= 8) return _mm256_loadu_ps(x);
    if (nv <= 0) return _mm256_setzero_ps();
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_maskload_ps(x, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)nv), lane));
}

/* The default gates of one half (8 units from j, nv of them real). */
static inline void gates8(const pz_rnn_step_desc *d, int64_t j, int64_t nv, int64_t o,
                          const __m256 *acc, const float *x, const float *h, const float *c,
                          float *hn, float *cn, float *zt, float *rh)
{
    const int64_t H = d->hidden, hp = d->hpad;
#define XW(g) load_part(x + (g) * H + j, nv)
    if (d->cell == PZ_RNN_CELL_RNN) {
        _mm256_storeu_ps(hn + o, tanh8_ps(_mm256_add_ps(XW(0), acc[0])));
    } else if (d->cell == PZ_RNN_CELL_LSTM) {
        const __m256 cp = _mm256_loadu_ps(c + o);
        __m256 pi = _mm256_add_ps(XW(0), acc[0]), po = _mm256_add_ps(XW(1), acc[1]);
        __m256 pf = _mm256_add_ps(XW(2), acc[2]);
        if (d->pp) {
            pi = _mm256_fmadd_ps(_mm256_loadu_ps(d->pp + j), cp, pi);
            pf = _mm256_fmadd_ps(_mm256_loadu_ps(d->pp + 2 * hp + j), cp, pf);
        }
        const __m256 i = sigmoid8_ps(pi);
        const __m256 f = d->input_forget ? _mm256_sub_ps(_mm256_set1_ps(1.0f), i) : sigmoid8_ps(pf);
        const __m256 g = tanh8_ps(_mm256_add_ps(XW(3), acc[3]));
        const __m256 cc = _mm256_fmadd_ps(f, cp, _mm256_mul_ps(i, g));
        if (d->pp) po = _mm256_fmadd_ps(_mm256_loadu_ps(d->pp + hp + j), cc, po);
        _mm256_storeu_ps(cn + o, cc);
        _mm256_storeu_ps(hn + o, _mm256_mul_ps(sigmoid8_ps(po), tanh8_ps(cc)));
    } else if (d->lbr) {
        const __m256 hp0 = _mm256_loadu_ps(h + o);
        const __m256 z = sigmoid8_ps(_mm256_add_ps(XW(0), acc[0]));
        const __m256 r = sigmoid8_ps(_mm256_add_ps(XW(1), acc[1]));
        const __m256 rb = _mm256_loadu_ps(d->rbh + j);
        const __m256 n = tanh8_ps(_mm256_fmadd_ps(r, _mm256_add_ps(acc[2], rb), XW(2)));
        _mm256_storeu_ps(hn + o, _mm256_fmadd_ps(z, _mm256_sub_ps(hp0, n), n));
    } else if (d->phase == 0) {
        _mm256_storeu_ps(zt + o, sigmoid8_ps(_mm256_add_ps(XW(0), acc[0])));
        const __m256 r = sigmoid8_ps(_mm256_add_ps(XW(1), acc[1]));
        _mm256_storeu_ps(rh + o, _mm256_mul_ps(r, _mm256_loadu_ps(h + o)));
    } else {
        const __m256 hp0 = _mm256_loadu_ps(h + o), z = _mm256_loadu_ps(zt + o);
        const __m256 n = tanh8_ps(_mm256_add_ps(XW(2), acc[2]));
        _mm256_storeu_ps(hn + o, _mm256_fmadd_ps(z, _mm256_sub_ps(hp0, n), n));
    }
#undef XW
}

static inline __attribute__((always_inline)) void step_ng(const pz_rnn_step_desc *d,
                                                          const float *const *xw, const float *h,
                                                          const float *c, float *hn, float *cn,
                                                          float *zt, float *rh, const float *hv,
                                                          int64_t blk0, int64_t blk1, int g0,
                                                          int ng, int G)
{
    const int64_t H = d->hidden, B = d->batch;
    for (int64_t blk = blk0; blk < blk1; blk++) {
        int64_t ks;
        const float *rq = pz_rnn_panel(d->rp, H, G, blk, g0, &ks);
        const int64_t gs = ks / G;
        for (int64_t b = 0; b < B; b++) {
            const float *hr = hv + b * d->hpad;
            /* the gate loops unrolled, lo and hi in registers (rnn_avx512.c) */
            __m256 lo[4], hi[4];
#pragma GCC unroll 4
            for (int g = 0; g < 4; g++) lo[g] = hi[g] = _mm256_setzero_ps();
            for (int64_t k = 0; k < H; k++) {
                const __m256 x = _mm256_set1_ps(hr[k]);
#pragma GCC unroll 4
                for (int g = 0; g < ng; g++) {
                    lo[g] = _mm256_fmadd_ps(_mm256_loadu_ps(rq + g * gs + k * ks), x, lo[g]);
                    hi[g] = _mm256_fmadd_ps(_mm256_loadu_ps(rq + g * gs + k * ks + 8), x, hi[g]);
                }
            }
            const int64_t j = blk * 16, o = b * d->hpad + j;
            if (d->plain) {
                __m256 al[4], ah[4];
#pragma GCC unroll 4
                for (int g = 0; g < ng; g++) al[g0 + g] = lo[g], ah[g0 + g] = hi[g];
                gates8(d, j, H - j, o, al, xw[b], h, c, hn, cn, zt, rh);
                gates8(d, j + 8, H - j - 8, o + 8, ah, xw[b], h, c, hn, cn, zt, rh);
            } else {
                float as[4][16];
#pragma GCC unroll 4
                for (int g = 0; g < ng; g++) {
                    _mm256_storeu_ps(as[g0 + g], lo[g]);
                    _mm256_storeu_ps(as[g0 + g] + 8, hi[g]);
                }
                pz_rnn_gates16(d, blk, b, as, xw[b], h, c, hn, cn, zt, rh);
            }
        }
    }
}

void pz_f32_rnn_step__avx2(const pz_rnn_step_desc *d, const float *const *xw, const float *h,
                           const float *c, float *hn, float *cn, float *zt, float *rh,
                           int64_t blk0, int64_t blk1)
{
    int g0, g1, use_rh;
    pz_rnn_step_gates(d, &g0, &g1, &use_rh);
    const int G = d->cell == PZ_RNN_CELL_RNN ? 1 : d->cell == PZ_RNN_CELL_GRU ? 3 : 4;
    const float *hv = use_rh ? rh : h;
    switch (g1 - g0) {
    case 1: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 1, G); break;
    case 2: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 2, G); break;
    case 3: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 3, G); break;
    default: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 4, G); break;
    }
}
#endif
