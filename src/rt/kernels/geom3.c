/* geom3.c - window geometry normalised to 3 spatial dims (see kernels.h). */
#include "rt/kernels/kernels.h"

void pz_geom3_init(pz_geom3 *g, int nsp, const int64_t *kernel, const int64_t *stride,
                   const int64_t *dilation, const int64_t *pad_begin, const int64_t *pad_end,
                   const int64_t *xd, const int64_t *yd)
{
    for (int a = 0; a < 3; a++) {
        int j = a - (3 - nsp);   /* the params' axis, < 0 for a padding axis */
        g->in[a] = j < 0 ? 1 : xd[2 + j];
        g->out[a] = j < 0 ? 1 : yd[2 + j];
        g->k[a] = j < 0 ? 1 : kernel[j];
        g->s[a] = j < 0 ? 1 : stride[j];
        g->d[a] = j < 0 ? 1 : dilation[j];
        g->pb[a] = j < 0 ? 0 : pad_begin[j];
        g->pe[a] = j < 0 ? 0 : pad_end[j];
    }
}
