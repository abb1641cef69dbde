/* qgemm_dyn.h - a float GEMM through int8 with the activations quantized
 * as the layer runs ("dynamic" quantization: the MatMul and Gemm layers
 * with constant weights in a block of precision int8). Y = act(A B + beta
 * C), the product as pz_gemm_desc says (fast.h), computed as:
 *
 *   B, once:       sb[n] = max_k |alpha B[k][n]| / 127,
 *                  Bq[k][n] = nearbyint(alpha B[k][n] / sb[n])   (int8, symmetric)
 *   A, each run:   sa[i] = max_k |A[i][k]| / 127,
 *                  Aq[i][k] = nearbyint(A[i][k] / sa[i])          (qdq.h's quantize)
 *   Y:             acc = sum_k Aq Bq (int32, exact: qgemm.h),
 *                  y = act((float(acc) * sb[n]) * sa[i] + beta C)  (float32, in that order)
 *
 * A row or column of zeros has scale 1 (all its q are 0); a row of A with
 * an inf or NaN gives NaN outputs. Per-row scales follow each token's own
 * range (a per-tensor scale lets one outlier token flatten the others).
 * The VNNI kernel and the scalar twin give the same bits (qgemm.h), and so
 * do the AVX-512 quantization and epilogue and theirs (qgemm_dyn_avx512.c),
 * but for the activations with a vector formula there (GELU, SIGMOID, ...),
 * libm in the twin.
 *
 *   pz_qdyn *q = pz_qdyn_new(m, n, k, b, trans_b, alpha, isa, 0, err, sizeof err);
 *   scratch of pz_qdyn_scratch(q, nth) bytes, then on every worker:
 *   pz_qdyn_run(q, &g, a, y, scratch, ith, nth);
 */
#ifndef PZ_RT_KERNELS_QUANT_QGEMM_DYN_H
#define PZ_RT_KERNELS_QUANT_QGEMM_DYN_H

#include <stddef.h>
#include <stdint.h>

#include "rt/kernels/fast.h"

typedef struct pz_qdyn pz_qdyn;

/* m rows of A at most (the layer's); b: [k][n] row-major (trans_b: [n][k]);
 * isa and novnni choose the product's kernel (qisa.h).
 * NULL with the reason in err when the int8 sums could overflow (k above
 * about 65000) or memory runs out. */
pz_qdyn *pz_qdyn_new(int64_t m, int64_t n, int64_t k, const float *b, int trans_b, float alpha,
                     pz_isa isa, int novnni, char *err, size_t errsize);
void pz_qdyn_free(pz_qdyn *q);
/* The kernel's name for profiles: "int8-dyn" on VNNI, "int8-dyn-avxvnni",
 * "int8-dyn-avx2", "int8-dyn-scalar". */
const char *pz_qdyn_kernel(const pz_qdyn *q);
/* Bytes of scratch nth workers need (each quantizes the rows it reads). */
size_t pz_qdyn_scratch(const pz_qdyn *q, int nth);
/* Worker ith of nth: its rows (or, with few rows, its columns) of Y. g
 * gives m <= the plan's, lda, ldy, c, csm, csn, beta and act (ldb unused). */
void pz_qdyn_run(const pz_qdyn *q, const pz_gemm_desc *g, const float *a, float *y,
                 void *scratch, int ith, int nth);

/* The per-ISA parts (qgemm_dyn_avx512.c) and their scalar twins
 * (qgemm_dyn.c), for those two files and the tests. */
/* The largest |a[k]| of n floats, as its bits (an inf or NaN: >= 0x7f800000). */
uint32_t pz_qdyn_absmax__scalar(const float *a, int64_t n);
uint32_t pz_qdyn_absmax__avx512(const float *a, int64_t n);
/* Row i of Y, columns [n0, n1): y = act(y * s + beta C) (C and act from g). */
void pz_qdyn_epilogue__scalar(const pz_gemm_desc *g, float *yr, int64_t i, float s, int64_t n0,
                              int64_t n1);
void pz_qdyn_epilogue__avx512(const pz_gemm_desc *g, float *yr, int64_t i, float s, int64_t n0,
                              int64_t n1);

#endif
