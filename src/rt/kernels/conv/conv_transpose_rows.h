/* conv_transpose_rows.h - the loop of ConvTranspose's fast twin (kernel =
 * stride), shared by conv_transpose_fast.c (plain C) and
 * conv_transpose_fast_avx512.c: each passes its row update t += x * w
 * (one multiply and one add per element, no FMA: the reference's bits),
 * which the compiler inlines; the params' act applied as the rows are
 * stored. See conv_transpose_fast.c for the rule. */
#ifndef PZ_RT_CONV_TRANSPOSE_ROWS_H
#define PZ_RT_CONV_TRANSPOSE_ROWS_H

#include "rt/kernels/act.h"
#include "rt/kernels/twins_fast.h"

enum { CT_COLS = 128, CT_PHASES = 16 };   /* a stack tile of 8 KiB */

/* t[i] += x[i] * w for i < n */
typedef void (*pz_ct_axpy_fn)(float *restrict t, const float *restrict x, float w, int64_t n);

static inline void pz_ct_rows(pz_ct_axpy_fn axpy, const pz_conv_params *p, const int64_t *xd,
                              const int64_t *yd, const float *x, const float *w, const float *b,
                              float *y, int ith, int nth)
{
    pz_geom3 g;
    pz_geom3_init(&g, p->nsp, p->kernel, p->stride, p->dilation, p->pad_begin, p->pad_end, xd, yd);
    const int64_t N = xd[0], C = xd[1], M = yd[1], G = p->group, Cg = C / G, Mg = M / G;
    const int64_t rows = g.in[0] * g.in[1], iw = g.in[2], isz = rows * iw;
    const int64_t kh = g.k[1], kw = g.k[2], ow = g.out[2], osz = g.out[0] * g.out[1] * ow;
    const int K = (int)(kh * kw);
    float t[CT_PHASES][CT_COLS];

    /* one unit = one input row of one (n, m) plane: output rows r*kh .. + kh */
    int64_t lo, hi;
    pz_split(N * M * rows, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t nm = u / rows, r = u % rows, n = nm / M, m = nm % M;
        const int64_t grp = m / Mg, mg = m % Mg;
        const float bias = b ? b[m] : 0.0f;
        float *yp = y + nm * osz + r * kh * ow;
        for (int64_t c0 = 0; c0 < iw; c0 += CT_COLS) {
            const int64_t len = iw - c0 < CT_COLS ? iw - c0 : CT_COLS;
            for (int k = 0; k < K; k++)
                for (int64_t i = 0; i < len; i++) t[k][i] = bias;
            for (int64_t c = 0; c < Cg; c++) {
                const int64_t ci = grp * Cg + c;
                const float *xr = x + (n * C + ci) * isz + r * iw + c0;
                const float *wc = w + (ci * Mg + mg) * K;   /* W is {C, M/G, kh, kw} */
                for (int k = 0; k < K; k++) axpy(t[k], xr, wc[k], len);
            }
            for (int64_t a = 0; a < kh; a++)
                for (int64_t e = 0; e < kw; e++) {
                    const float *tk = t[a * kw + e];
                    float *yr = yp + a * ow + c0 * kw + e;
                    if (p->act.kind == PZ_ACT_NONE)
                        for (int64_t i = 0; i < len; i++) yr[i * kw] = tk[i];
                    else
                        for (int64_t i = 0; i < len; i++) yr[i * kw] = pz_act_f32(&p->act, tk[i]);
                }
        }
    }
}

#endif
