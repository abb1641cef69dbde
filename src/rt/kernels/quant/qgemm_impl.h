/* qgemm_impl.h - internal to qgemm*.c: the plan of the int8 GEMM (qgemm.h).
 *
 * Packed B: [ceil(N/16)][ceil(K/4)][16][4] int8, panels of 16 columns: for
 * each 4 consecutive k, 16 columns x 4 k (one ZMM, what vpdpbusd multiplies
 * with a dword of A broadcast); zero past K and N. The AVX2 kernel's copy
 * (b16, only in its plans): [ceil(N/16)][ceil(K/4)][2][16][2] int16, for
 * each 4 k the pairs (k0, k2) then (k1, k3) of the 16 columns (as w16 in
 * qconv16c_impl.h). */
#ifndef PZ_RT_KERNELS_QUANT_QGEMM_IMPL_H
#define PZ_RT_KERNELS_QUANT_QGEMM_IMPL_H

#include "rt/kernels/quant/qgemm.h"

struct pz_qgemm_plan {
    pz_qgemm_desc d;
    pz_q8_kernel kern;       /* the kernel set that runs (qisa.h) */
    int64_t np, k4;          /* panels of 16 columns, dwords of 4 k (ceil) */
    uint32_t aflip;          /* 0x80808080 for an int8 A */
    int8_t *b;               /* packed */
    int16_t *b16;            /* the AVX2 copy; NULL in other plans */
    int32_t *bias;           /* [np*16]: bias - a_zp * column sums, 0 past N */
    float *mult, *flo, *fhi; /* [np*16]; 0 past N */
};

/* The VNNI, AVX-VNNI and AVX2 kernels and the scalar twin: units [lo, hi) of (panel group,
 * row block), panel group by panel group (qgemm.c's pz_qgemm_run and
 * pz_qgemm_run_block choose them). */
void pz_qgemm_units__avx512vnni(const pz_qgemm_plan *p, const uint8_t *a, int64_t lda, void *y,
                                int64_t ldy, int64_t m, int64_t lo, int64_t hi);
void pz_qgemm_units__avxvnni(const pz_qgemm_plan *p, const uint8_t *a, int64_t lda, void *y,
                             int64_t ldy, int64_t m, int64_t lo, int64_t hi);
void pz_qgemm_units__avx2(const pz_qgemm_plan *p, const uint8_t *a, int64_t lda, void *y,
                          int64_t ldy, int64_t m, int64_t lo, int64_t hi);
void pz_qgemm_units__scalar(const pz_qgemm_plan *p, const uint8_t *a, int64_t lda, void *y,
                            int64_t ldy, int64_t m, int64_t lo, int64_t hi);

/* Rows a tile takes, and panels: the work units of both kernels. */
#define PZ_QGEMM_RW 6
#define PZ_QGEMM_RM 4

#endif
