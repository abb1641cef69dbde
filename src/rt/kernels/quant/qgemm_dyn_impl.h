/* qgemm_dyn_impl.h - internal to qgemm_dyn*.c: the per-ISA parts of the
 * dynamic int8 GEMM (qgemm_dyn.h) and their scalar twins. */
#ifndef PZ_RT_KERNELS_QUANT_QGEMM_DYN_IMPL_H
#define PZ_RT_KERNELS_QUANT_QGEMM_DYN_IMPL_H

#include "rt/kernels/quant/qgemm_dyn.h"

/* The largest |a[k]| of n floats, as its bits (an inf or NaN: >= 0x7f800000). */
uint32_t pz_qdyn_absmax__scalar(const float *a, int64_t n);
uint32_t pz_qdyn_absmax__avx512(const float *a, int64_t n);
/* Row i of Y, columns [n0, n1): y = act(y * s + beta C) (C and act from g). */
void pz_qdyn_epilogue__scalar(const pz_gemm_desc *g, float *yr, int64_t i, float s, int64_t n0,
                              int64_t n1);
void pz_qdyn_epilogue__avx512(const pz_gemm_desc *g, float *yr, int64_t i, float s, int64_t n0,
                              int64_t n1);

#endif
