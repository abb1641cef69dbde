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
 * its channels). With a pz_qmm_requant (QLinearMatMul) they go to 8-bit y
 * as the reference requantizes (qmatmul_ref.c), through a worker's scratch:
 *
 *     on every worker: pz_qmm_dyn_run_q8(q, a, a_zp, &r, y, scratch, ith, nth);
 *
 * The column stage (row sums, the zero points' terms, the output stages)
 * has a scalar twin and an AVX-512 form, chosen by the plan's isa; the
 * same bits.
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

/* QLinearMatMul's requantization of an int32 sum acc of column n:
 * y = clamp(nearbyint(double(acc) * mult[n]) + yzp, lo, hi), NaN -> 0,
 * mult the scales' factor (a_scale * b_scale / y_scale, rounded as the
 * reference rounds it) one or one per column. */
typedef struct {
    const double *mult;
    int mult_per;
    double yzp, lo, hi;
    int y_signed;   /* int8 y, else uint8 */
} pz_qmm_requant;

/* Bytes of scratch one worker of pz_qmm_dyn_run_q8 needs (a block's sums). */
size_t pz_qmm_dyn_scratch(const pz_qmm_dyn *q);
/* As pz_qmm_dyn_run, y 8-bit through r; scratch: nth slices of
 * pz_qmm_dyn_scratch bytes (64-byte aligned), slice ith for worker ith. */
void pz_qmm_dyn_run_q8(const pz_qmm_dyn *q, const void *a, int32_t a_zp, const pz_qmm_requant *r,
                       void *y, void *scratch, int ith, int nth);

/* The column stage's kernels (scalar twins in qmatmul_dyn.c, AVX-512 in
 * qmatmul_dyn_avx512.c), for those files and the tests. */
typedef struct {
    /* sum of a row of k bytes (int8 when a_signed, else uint8) */
    int64_t (*rowsum)(const void *a, int64_t k, int a_signed);
    /* g[j] -= za s[j] + zb[j] t (int32, wrapping) for n columns */
    void (*zp)(int32_t *g, const int32_t *s, const int32_t *zb, int32_t za, int32_t t, int64_t n);
    /* n sums of the columns c0, c0 + 1, ... to float32 (pz_qdyn_out_cols) */
    void (*fout)(const pz_qdyn_out *o, int64_t c0, const int32_t *acc, float *y, int64_t n);
    /* n sums of the columns c0, ... to 8-bit y[0..n) */
    void (*q8out)(const pz_qmm_requant *r, int64_t c0, const int32_t *acc, void *y, int64_t n);
} pz_qmm_cols;
extern const pz_qmm_cols pz_qmm_cols__scalar, pz_qmm_cols__avx512;

#endif
