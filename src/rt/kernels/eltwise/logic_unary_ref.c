/* logic_unary_ref.c - reference LOGIC_UNARY: Not, BitwiseNot, IsNaN, IsInf,
 * element by element over worker ith's share of n. */
#include "rt/kernels/kernels.h"

void pz_any_logic_unary__ref(const pz_logic_unary_params *p, int tx, const void *x, void *y,
                             int64_t n, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    uint8_t *yb = y;
    switch (p->func) {
    case PZ_LU_NOT:
        for (int64_t i = lo; i < hi; i++) yb[i] = ((const uint8_t *)x)[i] == 0;
        break;
    case PZ_LU_BITNOT:   /* the store keeps the type's low bits */
        for (int64_t i = lo; i < hi; i++) pz_store_bits(y, tx, i, ~pz_load_bits(x, tx, i));
        break;
    case PZ_LU_ISNAN:   /* widening keeps NaN a NaN */
        for (int64_t i = lo; i < hi; i++) yb[i] = isnan(pz_load_f64(x, tx, i)) != 0;
        break;
    case PZ_LU_ISINF:
        for (int64_t i = lo; i < hi; i++) {
            double v = pz_load_f64(x, tx, i);
            yb[i] = (p->detect_pos && v == INFINITY) || (p->detect_neg && v == -INFINITY);
        }
        break;
    default:
        break;
    }
}
