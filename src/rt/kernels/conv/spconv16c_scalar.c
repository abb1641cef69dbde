/* spconv16c_scalar.c - the scalar twin of the block-sparse conv's row
 * kernel (spconv16c.h): the same order, one fmaf per tap, so the AVX-512
 * kernel gives the same bits. */
#include <math.h>

#include "rt/kernels/conv/spconv16c.h"

void pz_f32_sprow16c__scalar(const pz_sprow_args *a)
{
    for (int64_t j = 0; j < a->npix; j++) {
        float acc[16];
        for (int l = 0; l < 16; l++) acc[l] = a->bias[l];
        for (int b = 0; b < a->nb; b++) {
            const float *xp = a->x[b] + j * a->ps, *wp = a->w[b];
            for (int ic = 0; ic < 16; ic++)
                for (int l = 0; l < 16; l++) acc[l] = fmaf(xp[ic], wp[ic * 16 + l], acc[l]);
        }
        int64_t o = j * 16;
        if (a->vw) {
            int64_t v = a->vp0 + j;
            if (v % a->vw >= a->ow) continue;
            o = (v / a->vw * a->ow + v % a->vw) * 16;
        }
        pz_f32_finish16(a->act, a->c0, a->m, acc, a->z ? a->z + o : NULL, a->y + o);
    }
}
