/* conv8x2.c - the ISA-independent part of the 1x1 convolution in lanes of
 * 8 output x 2 input channels (see conv8x2.h): which shapes it takes, the
 * packing, the driver that splits the work and walks the tiles, and the
 * scalar twin of the AVX-512 tile (conv8x2_avx512.c).
 */
#include <math.h>

#include "rt/kernels/conv/conv8x2.h"
#include "rt/kernels/kernels.h"

int pz_conv8x2_ok(const pz_conv16c_desc *d)
{
    return d->kh == 1 && d->kw == 1 && d->sh == 1 && d->sw == 1 && d->pt == 0 && d->pl == 0 &&
           d->oh == d->h && d->ow == d->w && d->cblk == 16 && d->c % 2 == 0 &&
           (d->m % 16 == 8 || d->m == 16);
}

/* The groups of 8 channels of call number `call`: [*g0, *g0 + *gc). Calls
 * of 2 groups (one output block), the last of 3 when the groups are odd
 * (or 1 when M = 8). */
static int64_t ncalls(int64_t m)
{
    const int64_t ng = m / 8;
    return ng == 1 ? 1 : ng / 2;   /* an odd count's last call takes 3 */
}

static void call_groups(int64_t m, int64_t call, int64_t *g0, int *gc)
{
    const int64_t ng = m / 8;
    *g0 = 2 * call;
    *gc = ng == 1 ? 1 : ng % 2 == 1 && call == ncalls(m) - 1 ? 3 : 2;
}

int64_t pz_conv8x2_weights_size(const pz_conv16c_desc *d)
{
    /* each group of 8 channels: ceil(C/16) blocks x 8 pairs x 16 floats */
    return d->m / 8 * pz_ceil_div(d->c, 16) * 8 * 16;
}

void pz_conv8x2_pack_weights(const pz_conv16c_desc *d, const float *restrict w,
                             float *restrict wp)
{
    const int64_t C = d->c, ncb = pz_ceil_div(C, 16);
    for (int64_t call = 0; call < ncalls(d->m); call++) {
        int64_t g0;
        int gc;
        call_groups(d->m, call, &g0, &gc);
        float *o = wp + g0 * ncb * 128;
        for (int64_t cb = 0; cb < ncb; cb++)
            for (int p = 0; p < 8; p++)
                for (int g = 0; g < gc; g++)
                    for (int k = 0; k < 8; k++)
                        for (int s = 0; s < 2; s++) {
                            int64_t c = cb * 16 + 2 * p + s, m = (g0 + g) * 8 + k;
                            *o++ = c < C ? w[m * C + c] : 0.0f;
                        }
    }
}

void pz_conv8x2_drive(const pz_conv16c_desc *d, const pz_c8x2_isa *isa,
                      const float *restrict x, const float *restrict w,
                      const float *restrict b, const float *restrict z, float *restrict y,
                      int ith, int nth)
{
    const int64_t W = d->w, ncb = pz_ceil_div(d->c, 16), mb = pz_ceil_div(d->m, 16);
    /* the pixels of the window, and the input pixel of output pixel 0 */
    const int64_t F0 = d->r1 ? d->r0 * W : 0, F1 = d->r1 ? d->r1 * W : d->oh * W;
    const int64_t PP = F1 - F0, xshift = -(int64_t)d->pt * W;
    pz_c8x2_args a = {0};
    a.xs_cb = d->h * W * 16;
    a.ys_mb = d->oh * W * 16;
    a.ncb = (int)ncb;
    a.np_last = (int)(d->c - (ncb - 1) * 16) / 2;
    a.act = d->act.kind != PZ_ACT_NONE;
    a.lo = d->act.kind == PZ_ACT_CLIP ? d->act.lo : 0.0f;
    a.hi = d->act.kind == PZ_ACT_CLIP ? d->act.hi : INFINITY;
    float bpair[3 * 16];
    a.bias = bpair;
    int64_t lo, hi;
    if (PP <= 0) return;
    pz_split(d->n * PP, ith, nth, &lo, &hi);
    for (int64_t q = lo; q < hi;) {
        const int64_t n = q / PP, p0 = q % PP, p1 = (PP < p0 + (hi - q) ? PP : p0 + (hi - q));
        const int64_t nc = pz_ceil_div(p1 - p0, PZ_C8X2_CHUNK);
        for (int64_t c = 0; c < nc; c++) {
            const int64_t f0 = F0 + p0 + (p1 - p0) * c / nc;
            const int64_t f1 = F0 + p0 + (p1 - p0) * (c + 1) / nc;
            for (int64_t call = 0; call < ncalls(d->m); call++) {
                int64_t g0;
                int gc;
                call_groups(d->m, call, &g0, &gc);
                /* the bias of channel k of each group in lane 2k */
                for (int g = 0; g < gc; g++)
                    for (int l = 0; l < 16; l++)
                        bpair[g * 16 + l] = b && l % 2 == 0 ? b[(g0 + g) * 8 + l / 2] : 0.0f;
                const int64_t yoff = ((n * mb + g0 / 2) * d->oh * W + f0) * 16;
                a.w = w + g0 * ncb * 128;
                a.x = x + (n * ncb * d->h * W + f0 + xshift) * 16;
                a.y = y + yoff;
                a.z = z ? z + yoff : NULL;
                /* balanced tiles: ext of base + 1 pixels, then the rest of base */
                const int64_t np = f1 - f0, nt = pz_ceil_div(np, isa->rwmax[gc]);
                const int64_t base = np / nt, ext = np % nt;
                for (int part = 0; part < 2; part++) {
                    const int64_t tw = base + (part == 0), cnt = part == 0 ? ext : nt - ext;
                    if (cnt == 0) continue;
                    a.ntile = (int)cnt;
                    isa->tile(&a, gc, (int)tw);
                    a.x += cnt * tw * 16;
                    a.y += cnt * tw * 16;
                    if (a.z) a.z += cnt * tw * 16;
                }
            }
        }
        q += p1 - p0;
    }
}

/* ---- the scalar twin ------------------------------------------------------------ */

/* The AVX-512 tile's arithmetic lane by lane: fused multiply-adds over the
 * pairs in the same order, then even lane + odd lane, residual, max then
 * min (as _mm512_max_ps / _mm512_min_ps: a NaN becomes lo), and zeros past
 * channel 8 of a lone group. */
static void tile_scalar(const pz_c8x2_args *a, int gc, int rw)
{
    const float *x = a->x, *z = a->z;
    float *y = a->y;
    for (int t = 0; t < a->ntile; t++) {
        for (int j = 0; j < rw; j++) {
            float acc[3][16];
            for (int g = 0; g < gc; g++)
                for (int l = 0; l < 16; l++) acc[g][l] = a->bias[g * 16 + l];
            const float *xr = x + j * 16, *wr = a->w;
            for (int cb = 0; cb < a->ncb; cb++) {
                int np = cb == a->ncb - 1 ? a->np_last : 8;
                for (int p = 0; p < np; p++)
                    for (int g = 0; g < gc; g++)
                        for (int l = 0; l < 16; l++)
                            acc[g][l] = fmaf(xr[2 * p + l % 2], wr[(p * gc + g) * 16 + l],
                                             acc[g][l]);
                xr += a->xs_cb;
                wr += 8 * gc * 16;
            }
            for (int blk = 0; blk < (gc + 1) / 2; blk++)
                for (int l = 0; l < 16; l++) {
                    int g = 2 * blk + l / 8, k = l % 8;
                    float v = g < gc ? acc[g][2 * k] + acc[g][2 * k + 1] : 0.0f;
                    int64_t i = blk * a->ys_mb + j * 16 + l;
                    if (z) v += z[i];
                    if (a->act) {
                        v = v > a->lo ? v : a->lo;
                        v = v < a->hi ? v : a->hi;
                    }
                    y[i] = g < gc ? v : 0.0f;
                }
        }
        x += rw * 16;
        y += rw * 16;
        if (z) z += rw * 16;
    }
}

static const pz_c8x2_isa SCALAR = {.tile = tile_scalar, .rwmax = {0, 14, 14, 9}};

void pz_f32_conv1x1_8x2_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                        const float *restrict w, const float *restrict b,
                                        const float *restrict z, float *restrict y, int ith,
                                        int nth)
{
    pz_conv8x2_drive(d, &SCALAR, x, w, b, z, y, ith, nth);
}

pz_conv16c_fn pz_conv8x2_kernel_for(pz_isa isa)
{
    return pz_fast_kernels_for(isa)->conv1x1_8x2;
}

pz_conv16c_fn pz_conv8x2_pick(const pz_conv16c_desc *d, pz_isa isa)
{
    if (!pz_conv8x2_ok(d)) return NULL;
    return pz_conv8x2_kernel_for(isa);
}
