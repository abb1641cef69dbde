/* pool16c.c - 2-D max/average pooling on NCHW16c: the descriptor and the
 * scalar twin (16-lane loops) of pool16c_avx512.c and pool16c_avx2.c. */
#include <math.h>

#include "rt/kernels/pool/pool16c.h"

int pz_pool16c_init(pz_pool16c_desc *d, const pz_pool_params *p, const int64_t *xd,
                    const int64_t *yd)
{
    if (p->nsp != 2 || (p->kind != PZ_POOL_MAX && p->kind != PZ_POOL_AVG)) return -1;
    *d = (pz_pool16c_desc){
        .n = xd[0], .c = xd[1], .h = xd[2], .w = xd[3], .oh = yd[2], .ow = yd[3],
        .kh = p->kernel[0], .kw = p->kernel[1], .sh = p->stride[0], .sw = p->stride[1],
        .dh = p->dilation[0], .dw = p->dilation[1],
        .pt = p->pad_begin[0], .pl = p->pad_begin[1], .pb = p->pad_end[0], .pr = p->pad_end[1],
        .max = p->kind == PZ_POOL_MAX, .count_include_pad = p->count_include_pad,
    };
    return 0;
}

void pz_f32_pool2d_nchw16c__scalar(const pz_pool16c_desc *d, const float *restrict x,
                                   float *restrict y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(d->n * ((d->c + 15) / 16) * d->oh, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        pz_pool16c_row r;
        pz_pool16c_row_init(d, x, y, u, &r);
        for (int64_t ow = 0; ow < d->ow; ow++) {
            int64_t ix0, kx0, kx1;
            float cnt = pz_pool16c_col(d, &r, ow, &ix0, &kx0, &kx1);
            float acc[16];
            bool first = true;
            for (int j = 0; j < 16; j++) acc[j] = d->max ? -INFINITY : 0.0f;
            for (int64_t ky = r.ky0; ky < r.ky1; ky++)
                for (int64_t kx = kx0; kx < kx1; kx++) {
                    const float *t = r.x + ((r.iy0 + ky * d->dh) * d->w + ix0 + kx * d->dw) * 16;
                    for (int j = 0; j < 16; j++) {
                        if (!d->max) acc[j] += t[j];
                        else acc[j] = first ? t[j] : t[j] > acc[j] ? t[j] : acc[j];
                    }
                    first = false;
                }
            float *o = r.y + ow * 16;
            for (int j = 0; j < 16; j++) {
                float v = d->max ? acc[j] : cnt > 0 ? acc[j] / cnt : 0.0f;
                o[j] = j < r.tail ? v : 0.0f;
            }
        }
    }
}
