/* maxpool16c_u8.c - 2-D max pooling of 8-bit values (uint8 or int8) on
 * NCHW16c, the int8 layers' layout (POOL's path for a quantized model's
 * MaxPool, which the qdq pass hands the quantized tensor: max commutes with
 * quantization). Plain C loops that compilers vectorize into byte maxes, so
 * it has no ISA twins. Padding contributes nothing (a window always holds
 * one pixel of the image).
 *
 * Separable: for a span of output columns, the max over the window's rows
 * inside the image of each input column they read (one contiguous run of
 * bytes a row, whole vectors), then for each output pixel the max over its
 * columns of that. A pixel at a time over all its taps (kept for a window
 * too wide for the span buffer) cost a layer of ResNet 1.5x ONNX Runtime's. */
#include <string.h>

#include "rt/kernels/fast.h"

#define SPAN_COLS 512   /* input columns a span reads at most: 8 KiB on the stack */

/* the max of biased values: int8 v ^ 0x80 orders as uint8 */
static void pixel(const pz_pool16c_desc *d, uint8_t flip, const uint8_t *xp, int64_t oh,
                  int64_t ow, uint8_t *out)
{
    uint8_t m[16] = {0};
    for (int64_t kh = 0; kh < d->kh; kh++) {
        const int64_t ih = oh * d->sh - d->pt + kh * d->dh;
        if (ih < 0 || ih >= d->h) continue;
        for (int64_t kw = 0; kw < d->kw; kw++) {
            const int64_t iw = ow * d->sw - d->pl + kw * d->dw;
            if (iw < 0 || iw >= d->w) continue;
            const uint8_t *px = xp + (ih * d->w + iw) * 16;
            for (int l = 0; l < 16; l++) {
                const uint8_t v = (uint8_t)(px[l] ^ flip);
                m[l] = v > m[l] ? v : m[l];
            }
        }
    }
    for (int l = 0; l < 16; l++) out[l] = (uint8_t)(m[l] ^ flip);
}

void pz_8_maxpool2d_nchw16c(const pz_pool16c_desc *d, int sgn, const void *x, void *y, int ith,
                            int nth)
{
    const int64_t cb = (d->c + 15) / 16, ext = (d->kw - 1) * d->dw + 1;
    const uint8_t flip = sgn ? 0x80 : 0;
    /* output columns a span: its input columns fit SPAN_COLS */
    const int64_t span = ext > SPAN_COLS ? 0 : (SPAN_COLS - ext) / d->sw + 1;
    int64_t lo, hi;
    pz_split(d->n * cb * d->oh, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t oh = u % d->oh, plane = u / d->oh;
        const uint8_t *xp = (const uint8_t *)x + plane * d->h * d->w * 16;
        uint8_t *yp = (uint8_t *)y + (plane * d->oh + oh) * d->ow * 16;
        if (!span) {
            for (int64_t ow = 0; ow < d->ow; ow++) pixel(d, flip, xp, oh, ow, yp + ow * 16);
            continue;
        }
        for (int64_t o0 = 0; o0 < d->ow; o0 += span) {
            const int64_t o1 = o0 + span < d->ow ? o0 + span : d->ow;
            int64_t c0 = o0 * d->sw - d->pl, c1 = (o1 - 1) * d->sw - d->pl + ext;
            c0 = c0 < 0 ? 0 : c0;
            c1 = c1 > d->w ? d->w : c1;
            uint8_t col[SPAN_COLS * 16];
            const size_t nb = (size_t)((c1 > c0 ? c1 - c0 : 0) * 16);
            memset(col, 0, nb);
            for (int64_t kh = 0; kh < d->kh; kh++) {
                const int64_t ih = oh * d->sh - d->pt + kh * d->dh;
                if (ih < 0 || ih >= d->h) continue;
                const uint8_t *r = xp + (ih * d->w + c0) * 16;
                for (size_t i = 0; i < nb; i++) {
                    const uint8_t v = (uint8_t)(r[i] ^ flip);
                    col[i] = v > col[i] ? v : col[i];
                }
            }
            for (int64_t ow = o0; ow < o1; ow++) {
                uint8_t m[16] = {0};
                for (int64_t kw = 0; kw < d->kw; kw++) {
                    const int64_t iw = ow * d->sw - d->pl + kw * d->dw;
                    if (iw < 0 || iw >= d->w) continue;
                    const uint8_t *c = col + (iw - c0) * 16;
                    for (int l = 0; l < 16; l++) m[l] = c[l] > m[l] ? c[l] : m[l];
                }
                for (int l = 0; l < 16; l++) yp[ow * 16 + l] = (uint8_t)(m[l] ^ flip);
            }
        }
    }
}
