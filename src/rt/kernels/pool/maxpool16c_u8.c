/* maxpool16c_u8.c - 2-D max pooling of 8-bit values (uint8 or int8) on
 * NCHW16c, the int8 layers' layout (POOL's path for a quantized model's
 * MaxPool, which the qdq pass hands the quantized tensor: max commutes with
 * quantization). One plain C loop over the 16 lanes of a pixel; compilers
 * vectorize it into one byte max a tap, so it has no ISA twins. Padding
 * contributes nothing (a window always holds one pixel of the image). */
#include "rt/kernels/fast.h"

void pz_8_maxpool2d_nchw16c(const pz_pool16c_desc *d, int sgn, const void *x, void *y, int ith,
                            int nth)
{
    const int64_t cb = (d->c + 15) / 16;
    int64_t lo, hi;
    pz_split(d->n * cb * d->oh, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t oh = u % d->oh, plane = u / d->oh;
        const uint8_t *xp = (const uint8_t *)x + plane * d->h * d->w * 16;
        uint8_t *yp = (uint8_t *)y + (plane * d->oh + oh) * d->ow * 16;
        for (int64_t ow = 0; ow < d->ow; ow++) {
            /* the max of biased values: int8 v ^ 0x80 orders as uint8 */
            uint8_t m[16] = {0};
            for (int64_t kh = 0; kh < d->kh; kh++) {
                const int64_t ih = oh * d->sh - d->pt + kh * d->dh;
                if (ih < 0 || ih >= d->h) continue;
                for (int64_t kw = 0; kw < d->kw; kw++) {
                    const int64_t iw = ow * d->sw - d->pl + kw * d->dw;
                    if (iw < 0 || iw >= d->w) continue;
                    const uint8_t *px = xp + (ih * d->w + iw) * 16;
                    for (int l = 0; l < 16; l++) {
                        const uint8_t v = (uint8_t)(px[l] ^ (sgn ? 0x80 : 0));
                        m[l] = v > m[l] ? v : m[l];
                    }
                }
            }
            for (int l = 0; l < 16; l++) yp[ow * 16 + l] = (uint8_t)(m[l] ^ (sgn ? 0x80 : 0));
        }
    }
}
