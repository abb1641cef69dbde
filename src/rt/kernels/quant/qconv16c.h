/* qconv16c.h - the int8 direct convolution (QLinearConv, group 1, 2-D) on
 * the channel-blocked layout NCHW16c with one byte an element: x and y are
 * [N][ceil(C/16)][H][W][16] uint8 or int8. Three kernels over one plan and
 * one packed copy of the weights: VNNI (qconv16c_avx512vnni.c, vpdpbusd),
 * AVX-VNNI (qconv16c_avxvnni.c, vpdpbusd on YMM), AVX2 (qconv16c_avx2.c,
 * vpmaddwd on an int16 copy) and the scalar twin
 * (qconv16c_scalar.c), bit for bit the same; qisa.h picks one.
 *
 *     pz_qconv16c_desc d = {.n = 1, .c = 64, .m = 64, .ih = 56, .iw = 56, .oh = 56,
 *                           .ow = 56, .kh = 3, .kw = 3, .sh = 1, .sw = 1, .dh = 1,
 *                           .dw = 1, .pt = 1, .pl = 1, .x_zp = 128, .y_zp = 128,
 *                           .lo = 128, .hi = 255};              // a fused ReLU
 *     char err[200];
 *     pz_qconv16c_plan *p = pz_qconv16c_plan_new(&d, pz_cpu_isa(), w, b, xs, ws, ys,
 *                                                err, sizeof err);
 *     if (!p) ...;                        // not handled: the reference kernel (qconv.h)
 *     // at run, on every worker ith of nth:
 *     pz_qconv16c_run(p, x, NULL, y, ith, nth);   // z: a residual (zsum)
 *     pz_qconv16c_plan_free(p);
 *
 * Semantics: acc = b[m] + sum (x - x_zp) * w over the taps inside the image
 * (padding reads x_zp, so it adds nothing); y = clamp(round(acc * mult[m]) +
 * y_zp, lo, hi) with mult[m] = x_scale * w_scale[m] / y_scale. Weights are
 * symmetric (w_zp == 0: int8 weights, the layer checks its zero point).
 * An int8 x goes as uint8 x ^ 0x80 with zero point x_zp + 128 (vpdpbusd
 * multiplies unsigned by signed bytes).
 *
 * Requantization, in float32, the same operations in the same order in both
 * kernels: f = (float)acc * mult; f = max(f, lo - y_zp); f = min(f, hi - y_zp);
 * y = round_half_even(f) + y_zp. mult is rounded to float as the reference
 * rounds it (float(float(x_scale * w_scale) / y_scale)), but the reference
 * multiplies in double: where acc * mult lies within a float rounding of a
 * half-integer (or |acc| > 2^24), the two may round to neighbours, so the
 * kernels agree with pz_any_qconv__ref to within 1 (exactly, almost always).
 * Float, not double, because the epilogue then takes one op a step on 16
 * lanes, and the bit-exact twin is what the tests pin.
 *
 * Residual (zsum): the output is then QLinearAdd (qdq.h, pz_qadd8) of the
 * requantized y above, of scale y_scale and zero point y_zp, and z, a
 * tensor of y's shape, layout and type: the conv's y is the add's A, or
 * its B when z_b (ONNX Runtime's two fused multiply-adds are taken in its
 * order), z_relu its Relu; the bytes of the separate QADD layer, without
 * writing y and reading it back. Lanes >= m then hold the add of y_zp and
 * z's lane.
 */
#ifndef PZ_RT_KERNELS_QUANT_QCONV16C_H
#define PZ_RT_KERNELS_QUANT_QCONV16C_H

#include <stddef.h>
#include <stdint.h>

#include "rt/kernels/kernels.h"
#include "rt/kernels/quant/qisa.h"

typedef struct {
    int64_t n, c, m, ih, iw, oh, ow;
    int kh, kw, sh, sw, dh, dw, pt, pl;      /* pads top, left (bottom/right implied by oh/ow) */
    int x_signed, y_signed;                  /* int8 instead of uint8 */
    int32_t x_zp, y_zp;                      /* in x's and y's own domain */
    int32_t lo, hi;                          /* output clamp in y's domain */
    int32_t w_zp;                            /* weights' zero point (per channel: any
                                              * nonzero one): not 0 is refused */
    int rm;                                  /* register tile's output blocks, 1..4
                                              * (AVX2: 1..2); 0: the plan's choice (a
                                              * bench's knob) */
    int novnni;                              /* 1: not the vpdpbusd kernels (qisa.h) */
    int zsum, z_b, z_relu;                   /* a residual (above), the conv's y the
                                              * add's B, its Relu */
    float z_scale, s_scale;                  /* z's and the sum's scales */
    int32_t z_zp, s_zp;                      /* z's and the sum's zero points */
} pz_qconv16c_desc;

/* Opaque: the descriptor, packed weights, per-pixel-class biases (x_zp
 * folded in), mult and clamp per channel, register tile. */
typedef struct pz_qconv16c_plan pz_qconv16c_plan;

/* w: [m][c][kh][kw] int8; b: int32 [m] or NULL; w_scale: float [m] (per
 * output channel); x_scale, y_scale: floats. isa: the kernel set of
 * pz_q8_kernel_for(isa, d->novnni) (qisa.h). Returns NULL, with the reason in err,
 * for a shape or value it does not handle (sizes < 1, w_zp != 0, zero
 * points or clamp outside their types, a multiplier that is not finite,
 * int32 sums that could overflow). The plan owns copies of
 * everything; the caller keeps its arrays. */
pz_qconv16c_plan *pz_qconv16c_plan_new(const pz_qconv16c_desc *d, pz_isa isa, const int8_t *w,
                                       const int32_t *b, float x_scale, const float *w_scale,
                                       float y_scale, char *err, size_t errsize);
void pz_qconv16c_plan_free(pz_qconv16c_plan *p);

/* Whether the plan runs the VNNI kernel; which kernel set it runs. */
int pz_qconv16c_plan_vnni(const pz_qconv16c_plan *p);
pz_q8_kernel pz_qconv16c_plan_kernel(const pz_qconv16c_plan *p);

/* x: [n][ceil(c/16)][ih][iw][16] bytes (lanes >= c: any value); y:
 * [n][ceil(m/16)][oh][ow][16] bytes, lanes >= m written as y_zp; z: the
 * residual, y's shape (zsum), else NULL. Worker ith
 * of nth computes its share of the units (image x group of output blocks x
 * output row or border column; a flat 1x1 conv: x span of pixels); each
 * output byte is written by one worker, the same bits whatever nth. No
 * allocation, no scratch; y must not alias x or z. */
void pz_qconv16c_run(const pz_qconv16c_plan *p, const void *x, const void *z, void *y, int ith,
                     int nth);
/* Output rows [r0, r1) (axis 2) of every image and block, the bits run
 * gives them (fused F-Blocks, rt/fuse.c): x and y whole tensors. */
void pz_qconv16c_run_rows(const pz_qconv16c_plan *p, const void *x, const void *z, void *y,
                          int64_t r0, int64_t r1, int ith, int nth);

/* Layout conversion of bytes (uint8 or int8 alike) at the edges of a run of
 * int8 blocked layers: NCHW [n][c][h][w] <-> NCHW16c [n][ceil(c/16)][h][w][16].
 * to_nchw16c writes the padding lanes as pad (x's zero point, say: any value
 * does for the kernel). Worker ith of nth converts its share of the (n,
 * block, h) rows; no allocation. */
void pz_u8_nchw_to_nchw16c(int64_t n, int64_t c, int64_t h, int64_t w, uint8_t pad,
                           const uint8_t *restrict x, uint8_t *restrict y, int ith, int nth);
void pz_u8_nchw16c_to_nchw(int64_t n, int64_t c, int64_t h, int64_t w,
                           const uint8_t *restrict x, uint8_t *restrict y, int ith, int nth);

/* Scratch bytes run needs per worker: none. */
static inline size_t pz_qconv16c_scratch_size(const pz_qconv16c_plan *p)
{
    (void)p;
    return 0;
}

#endif
