/* logic_unary_fast.c - LOGIC_UNARY's plain-C twin for BitwiseNot (fast.h,
 * pz_bitnot__fast): ~x on the bits of the element's size, the sign no
 * matter, one typed loop per size, which gcc vectorizes; the bits of
 * pz_any_logic_unary__ref's PZ_LU_BITNOT. No restrict: Y may be X. */
#include "rt/kernels/fast.h"

#define NOT_ROW(T)                                                                 \
    do {                                                                           \
        const T *X = x;                                                            \
        T *Y = y;                                                                  \
        for (int64_t i = lo; i < hi; i++) Y[i] = (T)~X[i];                         \
    } while (0)

void pz_bitnot__fast(int tx, const void *x, void *y, int64_t n, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    switch (pz_dtype_size(tx)) {
    case 1: NOT_ROW(uint8_t); break;
    case 2: NOT_ROW(uint16_t); break;
    case 4: NOT_ROW(uint32_t); break;
    default: NOT_ROW(uint64_t); break;
    }
}

bool pz_bitnot_fast_takes(int tx)
{
    return tx == PZ_I8 || tx == PZ_U8 || tx == PZ_I16 || tx == PZ_U16 || tx == PZ_I32 ||
           tx == PZ_U32 || tx == PZ_I64 || tx == PZ_U64;
}
