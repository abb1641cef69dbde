/* pack.c - layouts of the fast kernels: descriptors from the runtime's conv
 * params, NCHW <-> NCHWxc conversion, and weight packing (done once, at
 * compile). Scalar C; see fast.h for the layouts. */
#include "rt/kernels/fast.h"
#include "rt/kernels/dwconv/dwconvk16c.h"

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* ---- descriptors ---------------------------------------------------------- */

static int desc_fill(pz_conv16c_desc *d, const pz_conv_params *p, const int64_t *xd,
                     const int64_t *yd)
{
    if (p->nsp != 2) return -1;
    for (int j = 0; j < 2; j++)
        if (p->kernel[j] < 1 || p->stride[j] < 1 || p->dilation[j] < 1 || p->pad_begin[j] < 0 ||
            p->pad_end[j] < 0 || p->kernel[j] > 64 || p->stride[j] > 64 || p->dilation[j] > 64 ||
            p->pad_begin[j] > 1024)
            return -1;
    *d = (pz_conv16c_desc){
        .n = xd[0], .c = xd[1], .h = xd[2], .w = xd[3],
        .m = yd[1], .oh = yd[2], .ow = yd[3],
        .kh = (int)p->kernel[0], .kw = (int)p->kernel[1],
        .sh = (int)p->stride[0], .sw = (int)p->stride[1],
        .dh = (int)p->dilation[0], .dw = (int)p->dilation[1],
        .pt = (int)p->pad_begin[0], .pl = (int)p->pad_begin[1],
        .cblk = 16, .act = p->act,
    };
    return 0;
}

int pz_conv16c_init(pz_conv16c_desc *d, const pz_conv_params *p, const int64_t *xd,
                    const int64_t *yd)
{
    if (p->group != 1 || desc_fill(d, p, xd, yd)) return -1;
    if (d->c <= 4) d->cblk = (int)d->c;   /* NHWC: no padding of 3 channels to 16 */
    return 0;
}

int pz_dwconv16c_init(pz_conv16c_desc *d, const pz_conv_params *p, const int64_t *xd,
                      const int64_t *yd)
{
    if (desc_fill(d, p, xd, yd)) return -1;
    if (p->group != d->c || d->m != d->c || d->kh != 3 || d->kw != 3 || d->dh != 1 ||
        d->dw != 1)
        return -1;
    return 0;
}

int pz_dwconvk16c_init(pz_conv16c_desc *d, const pz_conv_params *p, const int64_t *xd,
                       const int64_t *yd)
{
    if (desc_fill(d, p, xd, yd)) return -1;
    if (p->group != d->c || d->m != d->c || d->kh * d->kw > 64) return -1;
    return 0;
}

int64_t pz_dwk16c_weights_size(const pz_conv16c_desc *d)
{
    return cdiv(d->c, 16) * d->kh * d->kw * 16;
}

void pz_dwk16c_pack_weights(const pz_conv16c_desc *d, const float *restrict w,
                            float *restrict wp)
{
    const int64_t kk = (int64_t)d->kh * d->kw;
    for (int64_t b = 0; b < cdiv(d->c, 16); b++)
        for (int64_t k = 0; k < kk; k++)
            for (int64_t lane = 0; lane < 16; lane++) {
                int64_t ch = b * 16 + lane;
                wp[(b * kk + k) * 16 + lane] = ch < d->c ? w[ch * kk + k] : 0.0f;
            }
}

/* ---- layouts ---------------------------------------------------------------- */

int64_t pz_nchwxc_size(int64_t n, int64_t c, int64_t h, int64_t w, int cblk)
{
    return n * cdiv(c, cblk) * h * w * cblk;
}

void pz_f32_nchw_to_nchwxc(int64_t n, int64_t c, int64_t h, int64_t w, int cblk,
                           const float *restrict x, float *restrict y, int ith, int nth)
{
    const int64_t cb = cdiv(c, cblk), hw = h * w;
    /* one unit = one row (n, block, h) of w pixels of cblk channels */
    int64_t lo, hi;
    pz_split(n * cb * h, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t ih = u % h, b = u / h % cb, in = u / (h * cb);
        float *yr = y + u * w * cblk;
        int64_t c0 = b * cblk, nc = c - c0 < cblk ? c - c0 : cblk;
        for (int64_t lane = 0; lane < cblk; lane++) {
            if (lane >= nc) {
                for (int64_t iw = 0; iw < w; iw++) yr[iw * cblk + lane] = 0.0f;
                continue;
            }
            const float *xr = x + (in * c + c0 + lane) * hw + ih * w;
            for (int64_t iw = 0; iw < w; iw++) yr[iw * cblk + lane] = xr[iw];
        }
    }
}

void pz_f32_nchwxc_to_nchw(int64_t n, int64_t c, int64_t h, int64_t w, int cblk,
                           const float *restrict x, float *restrict y, int ith, int nth)
{
    const int64_t cb = cdiv(c, cblk), hw = h * w;
    int64_t lo, hi;
    pz_split(n * cb * h, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t ih = u % h, b = u / h % cb, in = u / (h * cb);
        const float *xr = x + u * w * cblk;
        int64_t c0 = b * cblk, nc = c - c0 < cblk ? c - c0 : cblk;
        for (int64_t lane = 0; lane < nc; lane++) {
            float *yr = y + (in * c + c0 + lane) * hw + ih * w;
            for (int64_t iw = 0; iw < w; iw++) yr[iw] = xr[iw * cblk + lane];
        }
    }
}

/* ---- weights ---------------------------------------------------------------- */

int64_t pz_conv16c_weights_size(const pz_conv16c_desc *d)
{
    return cdiv(d->m, 16) * cdiv(d->c, d->cblk) * d->kh * d->kw * d->cblk * 16;
}

void pz_conv16c_pack_weights(const pz_conv16c_desc *d, const float *restrict w,
                             float *restrict wp)
{
    const int64_t mb = cdiv(d->m, 16), cb = cdiv(d->c, d->cblk), cbk = d->cblk;
    const int64_t kk = (int64_t)d->kh * d->kw;
    /* wp[ob][ib][k][ic][oc] = w[ob*16 + oc][ib*cblk + ic][k] */
    for (int64_t ob = 0; ob < mb; ob++)
        for (int64_t ib = 0; ib < cb; ib++)
            for (int64_t k = 0; k < kk; k++)
                for (int64_t ic = 0; ic < cbk; ic++)
                    for (int64_t oc = 0; oc < 16; oc++) {
                        int64_t m = ob * 16 + oc, c = ib * cbk + ic;
                        float v = m < d->m && c < d->c ? w[(m * d->c + c) * kk + k] : 0.0f;
                        wp[(((ob * cb + ib) * kk + k) * cbk + ic) * 16 + oc] = v;
                    }
}

int64_t pz_dw16c_weights_size(int64_t c)
{
    return cdiv(c, 16) * 9 * 16;
}

void pz_dw16c_pack_weights(int64_t c, const float *restrict w, float *restrict wp)
{
    for (int64_t b = 0; b < cdiv(c, 16); b++)
        for (int64_t k = 0; k < 9; k++)
            for (int64_t lane = 0; lane < 16; lane++) {
                int64_t ch = b * 16 + lane;
                wp[(b * 9 + k) * 16 + lane] = ch < c ? w[ch * 9 + k] : 0.0f;
            }
}

int64_t pz_pack_bias16_size(int64_t m)
{
    return cdiv(m, 16) * 16;
}

void pz_pack_bias16(int64_t m, const float *restrict b, float *restrict bp)
{
    for (int64_t i = 0; i < cdiv(m, 16) * 16; i++) bp[i] = b && i < m ? b[i] : 0.0f;
}

int64_t pz_gemm_packed_b_size(int64_t k, int64_t n)
{
    return cdiv(n, PZ_GEMM_NR) * k * PZ_GEMM_NR;
}

void pz_gemm_pack_b(int64_t k, int64_t n, const float *restrict b, int trans_b, float alpha,
                    float *restrict bp)
{
    /* bp[p][kk][j] = alpha * B'[kk][p*NR + j] */
    for (int64_t p = 0; p < cdiv(n, PZ_GEMM_NR); p++)
        for (int64_t kk = 0; kk < k; kk++)
            for (int64_t j = 0; j < PZ_GEMM_NR; j++) {
                int64_t col = p * PZ_GEMM_NR + j;
                float v = 0.0f;
                if (col < n) v = alpha * (trans_b ? b[col * k + kk] : b[kk * n + col]);
                bp[(p * k + kk) * PZ_GEMM_NR + j] = v;
            }
}
