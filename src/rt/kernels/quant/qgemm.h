/* qgemm.h - the int8 GEMM for fully connected layers (QLinearMatMul,
 * QGemm with a constant B): Y = requant(A B + bias), A uint8 or int8 [M x K]
 * row-major, B int8 [K x N] packed once at plan time. Four kernels over one
 * plan: VNNI (qgemm_avx512vnni.c, vpdpbusd), AVX-VNNI (qgemm_avxvnni.c,
 * vpdpbusd on YMM), AVX2 (qgemm_avx2.c, vpmaddwd
 * on an int16 copy of B) and the scalar twin (qgemm_scalar.c), bit for bit
 * the same; qisa.h picks one.
 *
 *     pz_qgemm_desc d = {.m = 1, .n = 1000, .k = 2048, .a_zp = 128, .y_zp = 128,
 *                        .lo = 0, .hi = 255};
 *     pz_qgemm_plan *p = pz_qgemm_plan_new(&d, pz_cpu_isa(), b, 0, bias, a_scale,
 *                                          b_scale, y_scale, err, sizeof err);
 *     if (!p) ...;                      // not handled: the reference kernel
 *     pz_qgemm_run(p, a, lda, y, ldy, ith, nth);   // on every worker
 *     pz_qgemm_plan_free(p);
 *
 * acc[i][n] = bias[n] + sum_k (a[i][k] - a_zp) * b[k][n] (exact, int32); B is
 * symmetric (b_zp == 0). Bytes out (out_f32 == 0): y = clamp(round(acc *
 * mult[n]) + y_zp, lo, hi), mult[n] = float(float(a_scale * b_scale[n]) /
 * y_scale), computed in float as qconv16c.h says (same operations, same
 * order; within 1 of a double requantization). Floats out (out_f32 == 1):
 * y = (float)acc * float(a_scale * b_scale[n]), a dequantized product (a
 * logits layer); y_scale, y_zp, lo, hi unused. Int32 out (out_i32 == 1,
 * out_f32 0): y = acc itself, exact (the scales unused; a ConvInteger's
 * product, rt/kernels/quant/qconv_dyn.h). An int8 A goes as uint8
 * a ^ 0x80 with a_zp + 128.
 */
#ifndef PZ_RT_KERNELS_QUANT_QGEMM_H
#define PZ_RT_KERNELS_QUANT_QGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "rt/kernels/kernels.h"
#include "rt/kernels/quant/qisa.h"

typedef struct {
    int64_t m, n, k;
    int a_signed, y_signed;   /* int8 instead of uint8 */
    int32_t a_zp, b_zp;       /* b_zp must be 0 */
    int out_f32;              /* float32 out (dequantized), else requantized bytes */
    int out_i32;              /* int32 out: the sums themselves (out_f32 0) */
    int32_t y_zp, lo, hi;     /* bytes out: zero point and clamp in y's domain */
    int novnni;               /* 1: not the vpdpbusd kernels (qisa.h) */
} pz_qgemm_desc;

typedef struct pz_qgemm_plan pz_qgemm_plan;

/* b: int8, [k][n] row-major (trans_b: [n][k]); bias: int32 [n] or NULL;
 * b_scale: float [n]. isa: the kernel set of pz_q8_kernel_for(isa,
 * d->novnni) (qisa.h). NULL, with the reason in err, for
 * what it does not handle. The plan owns its copies. */
pz_qgemm_plan *pz_qgemm_plan_new(const pz_qgemm_desc *d, pz_isa isa, const int8_t *b,
                                 int trans_b, const int32_t *bias, float a_scale,
                                 const float *b_scale, float y_scale, char *err, size_t errsize);
void pz_qgemm_plan_free(pz_qgemm_plan *p);
int pz_qgemm_plan_vnni(const pz_qgemm_plan *p);
pz_q8_kernel pz_qgemm_plan_kernel(const pz_qgemm_plan *p);

/* a: m rows of k bytes, lda bytes apart; y: m rows of n outputs (bytes or
 * floats), ldy elements apart. Worker ith of nth computes its share (tiles
 * of rows x 64 columns); no allocation, no scratch. */
void pz_qgemm_run(const pz_qgemm_plan *p, const void *a, int64_t lda, void *y, int64_t ldy,
                  int ith, int nth);

/* A block of the product, on one worker: rows [0, m) of a and y (m <= the
 * plan's m; offset a and y for other rows) and the columns of panel groups
 * [pg0, pg1) (a group is PZ_QGEMM_RM * 16 columns; pz_qgemm_panel_groups
 * of them in all). The same bits as pz_qgemm_run gives those outputs. */
int64_t pz_qgemm_panel_groups(const pz_qgemm_plan *p);
void pz_qgemm_run_block(const pz_qgemm_plan *p, const void *a, int64_t lda, void *y, int64_t ldy,
                        int64_t m, int64_t pg0, int64_t pg1);

#endif
