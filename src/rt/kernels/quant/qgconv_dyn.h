/* qgconv_dyn.h - grouped and depthwise ConvInteger (2-D, group > 1,
 * constant W and w_zero_point) with X's zero point known only at run time
 * (DynamicQuantizeLinear's): the exact int32 sums of qconv.h's reference,
 * computed directly on NCHW planes. An output row of channel m is
 *
 *   y[m][oh][ow] = sum_{ci < C/group} sum_{kh, kw} (x[c][ih][iw] - zx) w'[m][ci][kh][kw],
 *   c = (m / (M/group)) C/group + ci, ih = oh sh - pt + kh dh, iw = ow sw - pl + kw dw,
 *
 * w' = w - zw[m] (plan time), taps outside the image adding nothing (the
 * reference pads with X's zero point), int32 wrapping as the reference's.
 * An input channel's kh rows are copied into rows padded with X's zero
 * point, then one call adds all its taps over the row's columns, 32
 * (16) columns at a time in registers: the scalar twin, AVX-512 or AVX2
 * (stride 1 or 2; others the twin's loop), the same bits.
 *
 *     pz_qgconv_dyn *q = pz_qgconv_dyn_new(&d, group, isa, w, wzp, wzp_per_m, err, n);
 *     scratch of pz_qgconv_dyn_scratch(q, nth) bytes; on every worker:
 *     pz_qgconv_dyn_run(q, x, x_zp, NULL, y, scratch, ith, nth);
 *
 * With a pz_qdyn_out (the qdyn pass's fold) each row's sums go to float32
 * (qdyn_out.h's row kernel, channel m).
 */
#ifndef PZ_RT_KERNELS_QUANT_QGCONV_DYN_H
#define PZ_RT_KERNELS_QUANT_QGCONV_DYN_H

#include "rt/kernels/quant/qconv_dyn.h"

typedef struct pz_qgconv_dyn pz_qgconv_dyn;

/* d as for qconv_dyn.h (novnni unused); w: [m][c/group][kh][kw] of
 * w_signed's type, wzp one (wzp_per_m 0) or one per m, or NULL (0). NULL
 * with the reason in err for sizes < 1, pads < 0, a group that does not divide c and
 * m, or no memory. isa PZ_ISA_AVX512: the AVX-512 tap, PZ_ISA_AVX2 (on a
 * CPU with AVX2) the AVX2 one, else the twin. */
pz_qgconv_dyn *pz_qgconv_dyn_new(const pz_qconv_dyn_desc *d, int64_t group, pz_isa isa,
                                 const void *w, const void *wzp, int wzp_per_m, char *err,
                                 size_t errsize);
void pz_qgconv_dyn_free(pz_qgconv_dyn *q);
/* The tap it runs: PZ_ISA_AVX512, PZ_ISA_AVX2 or PZ_ISA_SCALAR (the twin). */
pz_isa pz_qgconv_dyn_isa(const pz_qgconv_dyn *q);
/* Scratch bytes of nth workers (each a row of int32 sums). */
size_t pz_qgconv_dyn_scratch(const pz_qgconv_dyn *q, int nth);
/* x: [n][c][ih][iw], x_zp in x's domain; y: [n][m][oh][ow], int32 (o
 * NULL) or float32 through o. Worker ith of nth: its output rows; the same
 * bits whatever nth. */
void pz_qgconv_dyn_run(const pz_qgconv_dyn *q, const void *x, int32_t x_zp, const pz_qdyn_out *o,
                       void *y, void *scratch, int ith, int nth);

/* nt taps over n columns (the vector ones: a multiple of 16): acc[ow] +=
 * sum_t (xs[t][ow sw] - zx) wv[t], x int8 (x_signed) or uint8, wv[t] and
 * x - zx in [-255, 255]; the rows hold every byte up to xs[t][(n - 1) sw +
 * 1] (the caller's padding). For qgconv_dyn*.c and the tests. */
typedef void pz_qgconv_taps_fn(int32_t *acc, int64_t n, const uint8_t *const *xs,
                               const int32_t *wv, int nt, int sw, int32_t zx, int x_signed);
pz_qgconv_taps_fn pz_qgconv_taps__scalar, pz_qgconv_taps__avx2, pz_qgconv_taps__avx512;

/* A vector taps function's body: BLOCK(acc, n, xs, wv, nt, sw, zv, signed)
 * inlined with the stride (1 or 2) and x's signedness constant, other
 * strides the twin. */
#define PZ_QGCONV_TAPS_BODY(BLOCK, zv)                                             \
    do {                                                                           \
        if (sw == 1 && !x_signed) BLOCK(acc, n, xs, wv, nt, 1, zv, 0);             \
        else if (sw == 1) BLOCK(acc, n, xs, wv, nt, 1, zv, 1);                     \
        else if (sw == 2 && !x_signed) BLOCK(acc, n, xs, wv, nt, 2, zv, 0);        \
        else if (sw == 2) BLOCK(acc, n, xs, wv, nt, 2, zv, 1);                     \
        else pz_qgconv_taps__scalar(acc, n, xs, wv, nt, sw, zx, x_signed);         \
    } while (0)

#endif
