/* qdwconv16c.h - the int8 depthwise convolution (QLinearConv with group ==
 * C == M, 2-D) on NCHW16c bytes, the layout of the other int8 layers
 * (qconv16c.h): x [N][ceil(C/16)][H][W][16], y likewise, uint8 or int8.
 *
 *     pz_qdwconv16c_plan *p = pz_qdwconv16c_plan_new(&d, isa, w, b, xs, ws, ys, err, n);
 *     pz_qdwconv16c_run(p, x, y, ith, nth);          // on every worker
 *     pz_qdwconv16c_plan_free(p);
 *
 * d as for qconv16c (c == m; w [c][1][kh][kw] int8, symmetric). Each
 * channel's sum b[c] + sum (x - x_zp) w over the taps inside the image is
 * computed in float32, where it is exact: every product is below 2^15 and
 * the plan refuses a bias or a window that could take a sum past 2^24
 * (interior pixels start from b - x_zp * sum w and add x * w unshifted). So
 * the sum is the integer acc and the requantization is qconv16c's,
 * pz_qconv16c_requant(acc, mult, ...), to the bit. The AVX-512 kernel (16
 * channels a vector; with VNNI, a 3x3 at stride 1 or 2 sums in int32 with
 * vpdpwssd, the same integer), the AVX2 one (8) and the scalar twin give the
 * same bytes. Lanes >= C
 * are written as y_zp. */
#ifndef PZ_RT_KERNELS_QUANT_QDWCONV16C_H
#define PZ_RT_KERNELS_QUANT_QDWCONV16C_H

#include "rt/kernels/quant/qconv16c.h"

typedef struct pz_qdwconv16c_plan pz_qdwconv16c_plan;

/* NULL with the reason in err for what it does not take (c != m, w_zp != 0,
 * sums that could leave float32's exact integers, sizes < 1). isa
 * PZ_ISA_AVX512: the AVX-512 kernel, PZ_ISA_AVX2 the AVX2 one, else the
 * scalar twin. */
pz_qdwconv16c_plan *pz_qdwconv16c_plan_new(const pz_qconv16c_desc *d, pz_isa isa,
                                           const int8_t *w, const int32_t *b, float x_scale,
                                           const float *w_scale, float y_scale, char *err,
                                           size_t errsize);
void pz_qdwconv16c_plan_free(pz_qdwconv16c_plan *p);
/* Worker ith of nth: its share of the (image, block, output row) rows. */
void pz_qdwconv16c_run(const pz_qdwconv16c_plan *p, const void *x, void *y, int ith, int nth);
/* The same for output rows [r0, r1) only (fused F-Blocks): their bits of run. */
void pz_qdwconv16c_run_rows(const pz_qdwconv16c_plan *p, const void *x, void *y, int64_t r0,
                            int64_t r1, int ith, int nth);

/* internal to qdwconv16c*.c: one output row of one 16-channel block. x: the
 * block's plane of the image, y: the output row, w [kh][kw][16] floats, b,
 * mult, flo, fhi 16 each. */
struct pz_qdwconv16c_plan {
    pz_qconv16c_desc d;
    int64_t cb;
    float *w, *b, *mult, *flo, *fhi;   /* [cb][kh][kw][16]; [cb][16] each */
    float *bz;                          /* [cb][16]: b - x_zp * (sum of w over every tap),
                                         * the bias of a pixel whose taps are all inside */
    int16_t *w16;                       /* the VNNI row's weights, or NULL: [cb][6][32],
                                         * for kw 0..2 the words (w[0][kw], w[1][kw]), then
                                         * (w[2][kw], 0), per channel */
    uint8_t *zrow;                      /* with w16: an input row of x_zp bytes */
    int64_t owlo, owhi;                 /* output columns whose taps are all inside */
    void (*row)(const struct pz_qdwconv16c_plan *p, const uint8_t *x, uint8_t *y, int64_t oh,
                const float *w, const float *b, const float *bz, const float *mult,
                const float *flo, const float *fhi);
};
void pz_qdwconv16c_row__scalar(const pz_qdwconv16c_plan *p, const uint8_t *x, uint8_t *y,
                               int64_t oh, const float *w, const float *b, const float *bz,
                               const float *mult, const float *flo, const float *fhi);
void pz_qdwconv16c_row__avx2(const pz_qdwconv16c_plan *p, const uint8_t *x, uint8_t *y,
                             int64_t oh, const float *w, const float *b, const float *bz,
                             const float *mult, const float *flo, const float *fhi);
void pz_qdwconv16c_row__avx512(const pz_qdwconv16c_plan *p, const uint8_t *x, uint8_t *y,
                               int64_t oh, const float *w, const float *b, const float *bz,
                               const float *mult, const float *flo, const float *fhi);
/* AVX512-VNNI, 3x3 undilated at stride 1 or 2 (w16 set): pairs of kernel
 * rows as 16-bit pairs, vpdpwssd; taps outside the image read zrow */
void pz_qdwconv16c_row__vnni(const pz_qdwconv16c_plan *p, const uint8_t *x, uint8_t *y,
                             int64_t oh, const float *w, const float *b, const float *bz,
                             const float *mult, const float *flo, const float *fhi);

#endif
