/* layernorm_scalar.c - the scalar twin of layernorm_avx512.c: the same float
 * operations in the same order, lane by lane, so the two agree bit for bit
 * (tests/unit/rt_fast.c) and the fast kernel's order can be read and tested
 * on any CPU. Rows shorter than 16 go to the reference, as there.
 *
 * The vector kernel's 16-lane accumulators are arrays here; a tail lane
 * beyond nn adds +0 as the masked load does; the horizontal sum pairs lanes
 * as _mm512_reduce_add_ps does (halves of 8, of 4, then lanes 0+2 and 1+3). */
#include <math.h>

#include "rt/kernels/kernels.h"

/* The sum of a0 + a1 lane by lane, then across lanes in reduce_add's order. */
static float reduce16(const float *a0, const float *a1)
{
    float v[16], t8[8], t4[4];
    for (int l = 0; l < 16; l++) v[l] = a0[l] + a1[l];
    for (int l = 0; l < 8; l++) t8[l] = v[8 + l] + v[l];
    for (int l = 0; l < 4; l++) t4[l] = t8[4 + l] + t8[l];
    return (t4[0] + t4[2]) + (t4[1] + t4[3]);
}

void pz_f32_layernorm__scalar(int64_t outer, int64_t nn, const float *x, const float *scale,
                              int64_t ns, const float *b, int64_t nb, float eps, float *y,
                              float *mean, float *inv, int ith, int nth)
{
    if (nn < 16) {
        pz_f32_layernorm__ref(outer, nn, x, scale, ns, b, nb, eps, y, mean, inv, ith, nth);
        return;
    }
    int64_t lo, hi;
    pz_split(outer, ith, nth, &lo, &hi);
    const int64_t nv = nn / 16, rem = nn % 16;
    for (int64_t r = lo; r < hi; r++) {
        const float *xr = x + r * nn;
        float *yr = y + r * nn;
        float a0[16] = {0}, a1[16] = {0};
        int64_t i = 0;
        for (; i + 1 < nv; i += 2)
            for (int l = 0; l < 16; l++) {
                a0[l] += xr[16 * i + l];
                a1[l] += xr[16 * i + 16 + l];
            }
        if (i < nv)
            for (int l = 0; l < 16; l++) a0[l] += xr[16 * i + l];
        if (rem)
            for (int l = 0; l < 16; l++) a1[l] += l < rem ? xr[16 * nv + l] : 0.0f;
        const float m = reduce16(a0, a1) / (float)nn;
        for (int l = 0; l < 16; l++) a0[l] = a1[l] = 0.0f;
        for (i = 0; i + 1 < nv; i += 2)
            for (int l = 0; l < 16; l++) {
                const float d0 = xr[16 * i + l] - m, d1 = xr[16 * i + 16 + l] - m;
                a0[l] = fmaf(d0, d0, a0[l]);
                a1[l] = fmaf(d1, d1, a1[l]);
            }
        if (i < nv)
            for (int l = 0; l < 16; l++) {
                const float d0 = xr[16 * i + l] - m;
                a0[l] = fmaf(d0, d0, a0[l]);
            }
        if (rem)
            for (int l = 0; l < 16; l++) {
                const float d1 = l < rem ? xr[16 * nv + l] - m : 0.0f;
                a1[l] = fmaf(d1, d1, a1[l]);
            }
        const double var = (double)reduce16(a0, a1) / (double)nn;
        const float is = (float)(1.0 / sqrt(var + (double)eps));
        for (int64_t k = 0; k < nn; k++) {
            const float t = (xr[k] - m) * is;
            const float sv = scale[ns == 1 ? 0 : k];
            const float bv = !b ? 0.0f : b[nb == 1 ? 0 : k];
            yr[k] = fmaf(t, sv, bv);
        }
        if (mean) mean[r] = m;
        if (inv) inv[r] = is;
    }
}
