/* col2im_ref.c - reference Col2Im: the columns of X [N, C*prod(block), L]
 * summed back into the image, each of the L block positions adding its
 * prod(block) values at their spatial places (out of the padded image:
 * dropped). Worker ith of nth takes whole (n, c) planes, so no two add
 * into one element. Any type through double. */
#include "rt/kernels/kernels.h"

void pz_any_col2im__ref(const pz_col2im_params *p, int dt, int64_t N, int64_t C,
                        const void *x, void *y, int ith, int nth)
{
    int r = p->nsp;
    int64_t nb[PZ_MAX_SPATIAL], plane = 1, kn = 1, L = 1;
    for (int i = 0; i < r; i++) {   /* blocks along axis i */
        int64_t span = p->dilation[i] * (p->block[i] - 1) + 1;
        nb[i] = (p->image[i] + p->pad_begin[i] + p->pad_end[i] - span) / p->stride[i] + 1;
        plane *= p->image[i];
        kn *= p->block[i];
        L *= nb[i];
    }
    int64_t lo, hi;
    pz_split(N * C, ith, nth, &lo, &hi);
    for (int64_t nc = lo; nc < hi; nc++) {
        int64_t n = nc / C, c = nc % C, yo = nc * plane;
        for (int64_t e = 0; e < plane; e++) pz_st(y, dt, yo + e, 0);
        for (int64_t k = 0; k < kn; k++) {
            int64_t xo = ((n * C + c) * kn + k) * L;
            for (int64_t l = 0; l < L; l++) {
                /* spatial place of offset k of block l, both row-major over the axes */
                int64_t kr = k, lr = l, flat = 0, mul = 1;
                bool inside = true;
                for (int i = r - 1; i >= 0 && inside; i--) {
                    int64_t q = (lr % nb[i]) * p->stride[i] - p->pad_begin[i] +
                                (kr % p->block[i]) * p->dilation[i];
                    kr /= p->block[i];
                    lr /= nb[i];
                    inside = q >= 0 && q < p->image[i];
                    flat += q * mul;
                    mul *= p->image[i];
                }
                if (!inside) continue;
                pz_st(y, dt, yo + flat, pz_ld(y, dt, yo + flat) + pz_ld(x, dt, xo + l));
            }
        }
    }
}
