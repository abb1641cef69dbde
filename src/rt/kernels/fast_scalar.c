/* fast_scalar.c - the scalar twins of the fast kernels: the same layouts, the
 * same packed weights and the same signatures as the __avx512 / __avx2
 * versions, written as plain loops. They are what the SIMD kernels are tested
 * against, and the path a CPU without AVX2 (or a PZ_SCALAR=1 build) takes. */
#include "rt/kernels/fast.h"

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* acc[0..16) + z, activation, lanes of channels >= m set to zero; to y. */
static void finish16(const pz_act *act, int64_t c0, int64_t m, float *acc, const float *z,
                     float *y)
{
    for (int l = 0; l < 16; l++) {
        float v = acc[l] + (z ? z[l] : 0.0f);
        v = pz_act_f32(act, v);
        y[l] = c0 + l < m ? v : 0.0f;
    }
}

void pz_f32_conv2d_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                   const float *restrict w, const float *restrict b,
                                   const float *restrict z, float *restrict y, int ith, int nth)
{
    const int64_t mb = cdiv(d->m, 16), cb = cdiv(d->c, d->cblk), cbk = d->cblk;
    const int64_t H = d->h, W = d->w, OH = d->oh, OW = d->ow;

    /* one unit = one output row (n, output block, oh) of the window
     * [r0, r1) (d->r1 == 0: every row) */
    const int64_t r0 = d->r1 ? d->r0 : 0, nr = d->r1 ? d->r1 - d->r0 : OH;
    int64_t lo, hi;
    pz_split(d->n * mb * nr, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t oh = r0 + u % nr, ob = u / nr % mb, n = u / (nr * mb);
        for (int64_t ow = 0; ow < OW; ow++) {
            float acc[16];
            for (int l = 0; l < 16; l++) acc[l] = b ? b[ob * 16 + l] : 0.0f;
            for (int64_t ib = 0; ib < cb; ib++)
                for (int64_t kh = 0; kh < d->kh; kh++) {
                    int64_t ih = oh * d->sh - d->pt + kh * d->dh;
                    if (ih < 0 || ih >= H) continue;
                    for (int64_t kw = 0; kw < d->kw; kw++) {
                        int64_t iw = ow * d->sw - d->pl + kw * d->dw;
                        if (iw < 0 || iw >= W) continue;
                        const float *xp = x + (((n * cb + ib) * H + ih) * W + iw) * cbk;
                        const float *wp = w + (((ob * cb + ib) * d->kh + kh) * d->kw + kw) * cbk * 16;
                        for (int64_t ic = 0; ic < cbk; ic++)
                            for (int l = 0; l < 16; l++) acc[l] += xp[ic] * wp[ic * 16 + l];
                    }
                }
            int64_t off = (((n * mb + ob) * OH + oh) * OW + ow) * 16;
            finish16(&d->act, ob * 16, d->m, acc, z ? z + off : NULL, y + off);
        }
    }
}

void pz_f32_dwconv3x3_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                      const float *restrict w, const float *restrict b,
                                      const float *restrict z, float *restrict y, int ith,
                                      int nth)
{
    const int64_t cb = cdiv(d->c, 16), H = d->h, W = d->w, OH = d->oh, OW = d->ow;

    /* one unit = one output row (n, channel block, oh) */
    int64_t lo, hi;
    pz_split(d->n * cb * OH, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t oh = u % OH, bc = u / OH % cb, n = u / (OH * cb);
        const float *xb = x + (n * cb + bc) * H * W * 16;
        for (int64_t ow = 0; ow < OW; ow++) {
            float acc[16];
            for (int l = 0; l < 16; l++) acc[l] = b ? b[bc * 16 + l] : 0.0f;
            for (int64_t kh = 0; kh < 3; kh++) {
                int64_t ih = oh * d->sh - d->pt + kh;
                if (ih < 0 || ih >= H) continue;
                for (int64_t kw = 0; kw < 3; kw++) {
                    int64_t iw = ow * d->sw - d->pl + kw;
                    if (iw < 0 || iw >= W) continue;
                    const float *xp = xb + (ih * W + iw) * 16, *wp = w + (bc * 9 + kh * 3 + kw) * 16;
                    for (int l = 0; l < 16; l++) acc[l] += xp[l] * wp[l];
                }
            }
            int64_t off = (((n * cb + bc) * OH + oh) * OW + ow) * 16;
            finish16(&d->act, bc * 16, d->c, acc, z ? z + off : NULL, y + off);
        }
    }
}

/* Row m of panel p: y[m, p*NR + j] for j < NR and inside n. */
static void gemm_row_panel(const pz_gemm_desc *g, const float *a, const float *bp, float *y,
                           int64_t m, int64_t p)
{
    float acc[PZ_GEMM_NR] = {0};
    const float *ar = a + m * g->lda, *bq = bp + p * g->k * PZ_GEMM_NR;
    for (int64_t k = 0; k < g->k; k++)
        for (int j = 0; j < PZ_GEMM_NR; j++) acc[j] += ar[k] * bq[k * PZ_GEMM_NR + j];
    for (int64_t j = 0; j < PZ_GEMM_NR && p * PZ_GEMM_NR + j < g->n; j++) {
        int64_t col = p * PZ_GEMM_NR + j;
        float v = acc[j];
        if (g->c) v += g->beta * g->c[m * g->csm + col * g->csn];
        y[m * g->ldy + col] = pz_act_f32(&g->act, v);
    }
}

void pz_f32_gemm_packed__scalar(const pz_gemm_desc *g, const float *restrict a,
                                const float *restrict bp, float *restrict y, int ith, int nth)
{
    const int64_t np = cdiv(g->n, PZ_GEMM_NR);
    /* one unit = one panel of one row */
    int64_t lo, hi;
    pz_split(np * g->m, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) gemm_row_panel(g, a, bp, y, u % g->m, u / g->m);
}

void pz_f32_gemv_packed__scalar(const pz_gemm_desc *g, const float *restrict a,
                                const float *restrict bp, float *restrict y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(cdiv(g->n, PZ_GEMM_NR), ith, nth, &lo, &hi);
    for (int64_t p = lo; p < hi; p++) gemm_row_panel(g, a, bp, y, 0, p);
}

void pz_f32_interleave__scalar(const float *restrict x, int64_t plane, int nc, int64_t np,
                               float *restrict y)
{
    if (nc == 3) {   /* RGB: one pass, each output line written whole */
        const float *x0 = x, *x1 = x + plane, *x2 = x + 2 * plane;
        for (int64_t p = 0; p < np; p++) {
            y[3 * p] = x0[p];
            y[3 * p + 1] = x1[p];
            y[3 * p + 2] = x2[p];
        }
        return;
    }
    for (int l = 0; l < nc; l++)
        for (int64_t p = 0; p < np; p++) y[p * nc + l] = x[l * plane + p];
}
