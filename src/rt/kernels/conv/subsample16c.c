/* subsample16c.c - a 1x1 convolution with a stride as a subsample of its
 * input plus a flat 1x1 conv (see fast.h).
 *
 * Why: conv16c runs a strided 1x1 conv row by row, its tiles reading every
 * sw-th pixel (a line of each input block in two, the other fetched for
 * nothing), and an output 7 wide in pairs of rows plus a lone row. Copied
 * into a compact image first, the same conv is a flat one: tiles of 14
 * pixels over the whole image, every line read used; in cache it runs
 * faster than the strided conv (bench/RESULTS.md, 'subsample16c'). Each
 * worker copies the whole input into its own arena scratch (no barrier
 * inside a layer), so the rule takes inputs of at most SUB_MAX_BYTES: the
 * copy of a large input from beyond L2 eats the gain (ResNet-50's 3.2 MB
 * layer2.0 input). And it takes at least SUB_MIN_M output channels: the
 * copy's cost per input value is fixed, the conv's grows with M, so at few
 * output channels the copy loses.
 * Every output pixel sums the same products in the same order as the
 * strided conv (cb, then the 16 channels of each block), so the bits are
 * the same.
 */
#include <string.h>

#include "rt/kernels/fast.h"

/* the subsampled input of one worker, at most */
#define SUB_MAX_BYTES (512 * 1024)
/* output channels, at least */
#define SUB_MIN_M 256

int64_t pz_subsample16c_size(const pz_conv16c_desc *d)
{
    return d->n * pz_ceil_div(d->c, 16) * d->oh * d->ow * 16;
}

int pz_conv16c_subsample_plan(const pz_conv16c_desc *d, pz_conv16c_desc *flat)
{
    if (d->kh != 1 || d->kw != 1 || (d->sh == 1 && d->sw == 1) || d->pt != 0 || d->pl != 0 ||
        d->cblk != 16 || d->r1 != 0 || d->m < SUB_MIN_M)
        return 0;
    /* every output pixel reads a pixel of the image (no padding at the end) */
    if (d->oh < 1 || d->ow < 1 || (d->oh - 1) * d->sh >= d->h || (d->ow - 1) * d->sw >= d->w)
        return 0;
    if (pz_subsample16c_size(d) * (int64_t)sizeof(float) > SUB_MAX_BYTES) return 0;
    *flat = *d;
    flat->h = d->oh;
    flat->w = d->ow;
    flat->sh = flat->sw = 1;
    return 1;
}

void pz_subsample16c(const pz_conv16c_desc *d, const float *restrict x, float *restrict xs)
{
    const int64_t planes = d->n * pz_ceil_div(d->c, 16);
    for (int64_t i = 0; i < planes; i++)
        for (int64_t r = 0; r < d->oh; r++) {
            const float *src = x + (i * d->h + r * d->sh) * d->w * 16;
            float *dst = xs + (i * d->oh + r) * d->ow * 16;
            for (int64_t c = 0; c < d->ow; c++) memcpy(dst + c * 16, src + c * d->sw * 16, 64);
        }
}
