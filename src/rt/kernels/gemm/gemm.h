/* gemm.h - internal to the packed GEMM family: the micro-kernel interface
 * that gemm_avx512.c and gemm_avx2.c implement and the ISA-independent
 * driver (gemm.c) that shares the work out and walks K, the panels and the
 * row tiles with them. The scalar twin (gemm_scalar.c) is written apart, as
 * plain loops. */
#ifndef PZ_GEMM_H
#define PZ_GEMM_H

#include "rt/kernels/fast.h"

/* One ISA's micro-kernels. tile: rows [m0, m0 + mr) (1 <= mr <= max_mr) of
 * A (a: row m0, column k0) times one K slice of panel p (bq: [kc][32], or
 * with g->ldb kc rows of B ldb apart, of which the panel's valid columns) into
 * the panel's valid columns of Y; init: the first slice (start from zero,
 * else from Y), fin: the last (add beta C, activation); pf, npf: npf cache
 * lines from pf to fetch into L2 while the tile runs (packed B of a later
 * block; a hint: a kernel may issue them as it likes). gemv_panels: the
 * whole of panels [p0, p1) (bp: all panels, [K][32] each) for the one row of
 * A (M == 1). kc, nb: the driver's blocking of B for these kernels. */
typedef struct {
    int max_mr;
    int kc, nb;   /* the driver's K slice and panels per block (B: nb * kc * 32 floats) */
    void (*tile)(const pz_gemm_desc *g, const float *a, const float *bq, int64_t kc, int64_t m0,
                 int64_t p, int64_t mr, int init, int fin, float *y, const char *pf,
                 int64_t npf);
    void (*gemv_panels)(const pz_gemm_desc *g, const float *a, const float *bp, int64_t p0,
                        int64_t p1, float *y);
} pz_gemm_ukset;

/* Y = act(A Bp + beta C) on worker ith of nth with the set ks; M == 1 goes
 * to pz_gemv_drive. */
void pz_gemm_drive(const pz_gemm_ukset *ks, const pz_gemm_desc *g, const float *restrict a,
                   const float *restrict bp, float *restrict y, int ith, int nth);
/* GEMV (M == 1): the workers share out the panels, B is streamed once. */
void pz_gemv_drive(const pz_gemm_ukset *ks, const pz_gemm_desc *g, const float *restrict a,
                   const float *restrict bp, float *restrict y, int ith, int nth);

#endif
