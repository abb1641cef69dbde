/* pow_series.h - the double series of the vector BINARY kernels' Pow
 * (binary_avx512.c, binary_avx2.c: one set of numbers, so both give
 * the same bits): ln m = 2 s (1 + s^2/3 + ... + s^18/19) for m in
 * [sqrt(1/2), sqrt 2), e^r by Taylor to r^13 for |r| <= ln2 / 2. */
#ifndef PZ_RT_KERNELS_ELTWISE_POW_SERIES_H
#define PZ_RT_KERNELS_ELTWISE_POW_SERIES_H

/* 1/19, 1/17, ..., 1/3, 1: Horner in s^2 */
static const double PZ_POW_LN_C[10] = {1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11,
                                       1.0 / 9,  1.0 / 7,  1.0 / 5,  1.0 / 3,  1.0};
/* 1/13!, 1/12!, ..., 1/0!: Horner in r */
static const double PZ_POW_EXP_F[14] = {
    1.0 / 6227020800.0, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880,
    1.0 / 40320,        1.0 / 5040,      1.0 / 720,      1.0 / 120,     1.0 / 24,
    1.0 / 6,            1.0 / 2,         1.0,            1.0};
#define PZ_POW_SQRT2 1.4142135623730951
#define PZ_POW_LN2 0.69314718055994531
#define PZ_POW_LOG2E 1.4426950408889634
/* ln2 = hi + lo (fdlibm's split: n hi exact for |n| < 2^20) */
#define PZ_POW_LN2_HI 6.93147180369123816490e-01
#define PZ_POW_LN2_LO 1.90821492927058770002e-10

#endif
