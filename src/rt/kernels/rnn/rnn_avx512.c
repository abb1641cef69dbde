/* rnn_avx512.c - the recurrent step in ZMM registers: per 16-unit block,
 * the recurrent product of up to four gates for two batch rows at a time
 * (one row: two sets of accumulators over even and odd k, to hide the FMA
 * latency), then the default gates (sigmoid and tanh through e^x) on the
 * accumulators in the same pass; other activations or a clip go through
 * the shared scalar gates (pz_rnn_gates16). */
#include <immintrin.h>

#include "rt/kernels/rnn/rnn.h"
#include "rt/kernels/vmath_avx512.h"

static inline __m512 sigmoid_ps(__m512 x)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    /* e^-x held below 2^100: inf would be fine but for inf / inf in tanh */
    __m512 t = _mm512_min_ps(_mm512_set1_ps(100.0f), _mm512_sub_ps(_mm512_setzero_ps(), x));
    return _mm512_div_ps(one, _mm512_add_ps(one, exp_ps(t)));
}

/* tanh x = 2 sigmoid(2x) - 1 */
static inline __m512 tanh_ps(__m512 x)
{
    const __m512 two = _mm512_set1_ps(2.0f);
    return _mm512_fmsub_ps(two, sigmoid_ps(_mm512_mul_ps(two, x)), _mm512_set1_ps(1.0f));
}

/* acc[r][g] = sum_k hv_r[k] rq[g][k][16], rows r < nb, gates g < ng */
static inline __attribute__((always_inline)) void matvec(const float *rq, int64_t gs,
                                                         const float *h0, const float *h1,
                                                         int64_t H, int ng, int nb,
                                                         __m512 acc[2][4])
{
    __m512 a[2][4], e[4];
    for (int r = 0; r < 2; r++)
        for (int g = 0; g < 4; g++) a[r][g] = _mm512_setzero_ps();
    for (int g = 0; g < 4; g++) e[g] = _mm512_setzero_ps();
    int64_t k = 0;
    if (nb == 1) {
        for (; k + 1 < H; k += 2) {
            const __m512 x0 = _mm512_set1_ps(h0[k]), x1 = _mm512_set1_ps(h0[k + 1]);
            for (int g = 0; g < ng; g++) {
                a[0][g] = _mm512_fmadd_ps(_mm512_loadu_ps(rq + g * gs + k * 16), x0, a[0][g]);
                e[g] = _mm512_fmadd_ps(_mm512_loadu_ps(rq + g * gs + k * 16 + 16), x1, e[g]);
            }
        }
    }
    for (; k < H; k++) {
        const __m512 x0 = _mm512_set1_ps(h0[k]);
        const __m512 x1 = nb > 1 ? _mm512_set1_ps(h1[k]) : x0;
        for (int g = 0; g < ng; g++) {
            const __m512 w = _mm512_loadu_ps(rq + g * gs + k * 16);
            a[0][g] = _mm512_fmadd_ps(w, x0, a[0][g]);
            if (nb > 1) a[1][g] = _mm512_fmadd_ps(w, x1, a[1][g]);
        }
    }
    for (int g = 0; g < ng; g++) {
        acc[0][g] = _mm512_add_ps(a[0][g], e[g]);
        acc[1][g] = a[1][g];
    }
}

/* The default gates of one row: acc holds the gates [g0, g1) of the step. */
static inline void gates(const pz_rnn_step_desc *d, int64_t blk, int64_t b, const __m512 *acc,
                         const float *x, const float *h, const float *c, float *hn, float *cn,
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

static inline __attribute__((always_inline)) void step_ng(const pz_rnn_step_desc *d,
                                                          const float *const *xw, const float *h,
                                                          const float *c, float *hn, float *cn,
                                                          float *zt, float *rh, const float *hv,
                                                          int64_t blk0, int64_t blk1, int g0,
                                                          int ng, int G)
{
    const int64_t H = d->hidden, B = d->batch;
    for (int64_t blk = blk0; blk < blk1; blk++) {
        const float *rq = d->rp + (blk * G + g0) * H * 16;
        for (int64_t b = 0; b < B; b += 2) {
            __m512 acc[2][4];
            const int nb = B - b >= 2 ? 2 : 1;
            if (nb == 2)
                matvec(rq, H * 16, hv + b * d->hpad, hv + (b + 1) * d->hpad, H, ng, 2, acc);
            else
                matvec(rq, H * 16, hv + b * d->hpad, NULL, H, ng, 1, acc);
            for (int r = 0; r < nb; r++) {
                /* gate slots as the step numbers them: acc of gate g at g */
                __m512 ag[4];
                for (int g = 0; g < ng; g++) ag[g0 + g] = acc[r][g];
                if (d->plain) {
                    gates(d, blk, b + r, ag, xw[b + r], h, c, hn, cn, zt, rh);
                } else {
                    float as[4][16];
                    for (int g = g0; g < g0 + ng; g++) _mm512_storeu_ps(as[g], ag[g]);
                    pz_rnn_gates16(d, blk, b + r, as, xw[b + r], h, c, hn, cn, zt, rh);
                }
            }
        }
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
    switch (g1 - g0) {
    case 1: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 1, G); break;
    case 2: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 2, G); break;
    case 3: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 3, G); break;
    default: step_ng(d, xw, h, c, hn, cn, zt, rh, hv, blk0, blk1, g0, 4, G); break;
    }
}
