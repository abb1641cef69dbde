/* dwconvk16c.h - depthwise convolution of any kernel size on NCHW16c
 * (EfficientNet's and MobileNetV3's 5x5, dilated or 3x3 shapes the
 * specialised dwconv16c kernels do not take): group == C == M, 2-D.
 *
 * The 16 channels of a block are the 16 lanes: an output vector is the bias
 * plus, over the kernel's taps inside the input, input vector times weight
 * vector, in (kh, kw) order; then the residual, the clamp, zeros in the
 * lanes past C. Work: (image, block, output row) units split over the
 * workers. A row's pixels whose taps all lie inside the input go in tiles
 * of 8 accumulators without a test; the others one by one, tap by tap.
 *
 *   pz_dwconvk16c_init(&d, params, xd, yd) == 0, then wp of
 *   pz_dwk16c_weights_size(&d) floats from pz_dwk16c_pack_weights(&d, W, wp)
 *   (W: ONNX [C][1][kh][kw]), bp from pz_pack_bias16;
 *   fn = pz_dwconvk16c_kernel_for(isa); fn(&d, x, wp, bp, z, y, ith, nth).
 *
 * The scalar twin (plain C, the same sums in the same order, fused
 * multiply-adds by fmaf) serves every other ISA; the AVX-512 kernel gives
 * the same bits for finite values.
 */
#ifndef PZ_DWCONVK16C_H
#define PZ_DWCONVK16C_H

#include "rt/kernels/fast.h"

int pz_dwconvk16c_init(pz_conv16c_desc *d, const pz_conv_params *p, const int64_t *xd,
                       const int64_t *yd);
int64_t pz_dwk16c_weights_size(const pz_conv16c_desc *d);
void pz_dwk16c_pack_weights(const pz_conv16c_desc *d, const float *restrict w,
                            float *restrict wp);
pz_conv16c_fn pz_dwconvk16c_kernel_for(pz_isa isa);

void pz_f32_dwconvk_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                    const float *restrict w, const float *restrict b,
                                    const float *restrict z, float *restrict y, int ith, int nth);
void pz_f32_dwconvk_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                    const float *restrict w, const float *restrict b,
                                    const float *restrict z, float *restrict y, int ith, int nth);

/* The pixels [*ol, *orr) of an output row whose every tap column is inside
 * the input (empty when none is). */
static inline void pz_dwk16c_interior(const pz_conv16c_desc *d, int64_t *ol, int64_t *orr)
{
    int64_t l = (d->pl + d->sw - 1) / d->sw;
    int64_t span = d->w - 1 + d->pl - (int64_t)(d->kw - 1) * d->dw;
    int64_t r = span < 0 ? 0 : span / d->sw + 1;
    if (r > d->ow) r = d->ow;
    if (l > r) l = r;
    *ol = l;
    *orr = r;
}

#endif
