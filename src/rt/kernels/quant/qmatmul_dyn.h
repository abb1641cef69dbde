/* qmatmul_dyn.h - MatMulInteger with a constant 2-D B, A's zero point known
 * only at run time (DynamicQuantizeLinear's): the exact int32 sums of
 * qmatmul_ref.c through the int8 GEMM (qgemm.h, int32 out). A's rows (any
 * batch dims, flattened) in A's own type, b' = b (- 128 for uint8 B), zero
 * points za, zb'[n] likewise:
 *
 *   y[i][n] = sum_k (a[i][k] - za) (b'[k][n] - zb'[n])
 *           = G[i][n] - za S[n] - zb'[n] (R[i] - K za),
 *   G = sum_k a b' (the GEMM), S[n] = sum_k b'[k][n] (plan time),
 *   R[i] = sum_k a[i][k] (as the rows run),
 *
 * wrapping to int32 as the reference does. The kernel set is qgemm's
 * (qisa.h): VNNI, AVX-VNNI, AVX2 or the scalar twin, the same bits.
 *
 *     pz_qmm_dyn *q = pz_qmm_dyn_new(&d, isa, b, bzp, bzp_per_n, err, sizeof err);
 *     on every worker: pz_qmm_dyn_run(q, a, a_zp, NULL, y, ith, nth);
 *
 * With a pz_qdyn_out (the qdyn pass's fold) each block's sums go to float32
 * in place as the zero points' terms go in (qdyn_out.h; the columns are
 * its channels).
 */
#ifndef PZ_RT_KERNELS_QUANT_QMATMUL_DYN_H
#define PZ_RT_KERNELS_QUANT_QMATMUL_DYN_H

#include <stddef.h>
#include <stdint.h>

#include "rt/kernels/kernels.h"
#include "rt/kernels/quant/qdyn_out.h"
#include "rt/kernels/quant/qisa.h"

typedef struct {
    int64_t rows, n, k;       /* A [rows][k], B [k][n], Y int32 [rows][n] */
    int a_signed, b_signed;   /* int8 instead of uint8 */
    int novnni;               /* 1: not the vpdpbusd kernels (qisa.h) */
} pz_qmm_dyn_desc;

typedef struct pz_qmm_dyn pz_qmm_dyn;

/* b: [k][n] of b_signed's type; bzp: B's zero point of that type, one
 * (bzp_per_n 0) or one per column, or NULL (0). NULL with the reason in err
 * for sizes < 1, sums that could overflow int32 (qgemm.h), or no memory.
 * The plan owns its copies. */
pz_qmm_dyn *pz_qmm_dyn_new(const pz_qmm_dyn_desc *d, pz_isa isa, const void *b, const void *bzp,
                           int bzp_per_n, char *err, size_t errsize);
void pz_qmm_dyn_free(pz_qmm_dyn *q);
pz_q8_kernel pz_qmm_dyn_kernel(const pz_qmm_dyn *q);
/* a: [rows][k] (a_signed's type), a_zp in a's domain; y: [rows][n], int32
 * (o NULL) or float32 through o's output stage. Worker ith of nth: its
 * blocks of rows and columns; each output written by one worker, the same
 * bits whatever nth. No scratch. */
void pz_qmm_dyn_run(const pz_qmm_dyn *q, const void *a, int32_t a_zp, const pz_qdyn_out *o,
                    void *y, int ith, int nth);

#endif
