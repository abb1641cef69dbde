/* qconv_dyn.h - ConvInteger (2-D, group 1, constant W) with X's zero point
 * known only at run time, as DynamicQuantizeLinear gives it: the exact int32
 * sums of qconv.h's reference, through im2col and the int8 GEMM (qgemm.h,
 * int32 out). With x, w in uint8 terms xu = x (^ 0x80 for int8) and
 * signed w' = w (- 128 for uint8), zero points zxu, zw' likewise:
 *
 *   y[m][p] = sum_k (xu[p][k] - zxu) (w'[m][k] - zw'[m])
 *           = G[p][m] - zxu S[m] - zw'[m] (R[p] - K zxu),
 *   G = sum_k xu w' (the GEMM, A = the im2col rows, B = W'),
 *   S[m] = sum_k w'[m][k] (plan time), R[p] = sum_k xu[p][k] (im2col time),
 *
 * the padding taps reading zxu (they add nothing, as in the reference). The
 * sums wrap to int32 as the reference's do. The kernel set is qgemm's
 * (qisa.h): VNNI, AVX-VNNI, AVX2 or the scalar twin, the same bits.
 *
 *     pz_qconv_dyn *q = pz_qconv_dyn_new(&d, isa, w, wzp, wzp_per_m, err, sizeof err);
 *     scratch of pz_qconv_dyn_scratch(q, nth) bytes; on every worker:
 *     pz_qconv_dyn_run(q, x, x_zp, NULL, y, scratch, ith, nth);
 *
 * With a pz_qdyn_out (the qdyn pass's fold) the sums go to float32 y in
 * the same loop that adds the zero points' terms (qdyn_out.h): no int32
 * tensor, no pass of its own.
 */
#ifndef PZ_RT_KERNELS_QUANT_QCONV_DYN_H
#define PZ_RT_KERNELS_QUANT_QCONV_DYN_H

#include <stddef.h>
#include <stdint.h>

#include "rt/kernels/kernels.h"
#include "rt/kernels/quant/qdyn_out.h"
#include "rt/kernels/quant/qisa.h"

typedef struct {
    int64_t n, c, m, ih, iw, oh, ow;
    int kh, kw, sh, sw, dh, dw, pt, pl;   /* pads top, left (bottom/right implied by oh/ow) */
    int x_signed, w_signed;               /* int8 instead of uint8 */
    int novnni;                           /* 1: not the vpdpbusd kernels (qisa.h) */
} pz_qconv_dyn_desc;

typedef struct pz_qconv_dyn pz_qconv_dyn;

/* w: [m][c][kh][kw] of w_signed's type; wzp: W's zero point of that type,
 * one (wzp_per_m 0) or one per m, or NULL (0). NULL with the reason in err
 * for sizes < 1, sums that could overflow int32, or no memory. The plan
 * owns its copies. */
pz_qconv_dyn *pz_qconv_dyn_new(const pz_qconv_dyn_desc *d, pz_isa isa, const void *w,
                               const void *wzp, int wzp_per_m, char *err, size_t errsize);
void pz_qconv_dyn_free(pz_qconv_dyn *q);
pz_q8_kernel pz_qconv_dyn_kernel(const pz_qconv_dyn *q);
/* Scratch bytes of nth workers (each its im2col block and its sums). */
size_t pz_qconv_dyn_scratch(const pz_qconv_dyn *q, int nth);
/* x: [n][c][ih][iw] (x_signed's type), x_zp in x's domain; y: [n][m]
 * [oh][ow], int32 (o NULL) or float32 through o's output stage. Worker ith
 * of nth: its blocks of output pixels; each output written by one worker,
 * the same bits whatever nth. */
void pz_qconv_dyn_run(const pz_qconv_dyn *q, const void *x, int32_t x_zp, const pz_qdyn_out *o,
                      void *y, void *scratch, int ith, int nth);

#endif
