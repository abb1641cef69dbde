/* pool16c.c - 2-D max/average pooling on NCHW16c: the descriptor and the
 * ISA-independent driver (the row micro-kernels are pool16c_avx512.c,
 * pool16c_avx2.c and the scalar twin pool16c_scalar.c). */
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

/* The workers share out the output rows (n, block, oh); row computes one. */
void pz_pool16c_drive(const pz_pool16c_desc *d, pz_pool16c_row_fn row, const float *restrict x,
                      float *restrict y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(d->n * ((d->c + 15) / 16) * d->oh, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        pz_pool16c_row r;
        pz_pool16c_row_init(d, x, y, u, &r);
        row(d, &r);
    }
}
