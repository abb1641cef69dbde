/* cast_ref.c - reference Cast between all supported element types. */
#include "rt/kernels/kernels.h"

/* Integers of any width and bool: converted by their bits. */
static bool int_like(int dt)
{
    return pz_dtype_is_int(dt) || dt == PZ_BOOL || pz_dtype_is_small_int(dt);
}

void pz_any_cast__ref(const pz_cast_params *p, int tx, const void *x, int ty, void *y, int64_t n,
                      int ith, int nth)
{
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    bool xi = int_like(tx), yi = int_like(ty);

    if (xi && yi) {
        /* integer -> integer: the low bits, like a C cast (numpy's astype) */
        for (int64_t i = lo; i < hi; i++) pz_store_bits(y, ty, i, pz_load_bits(x, tx, i));
    } else if (tx == PZ_I32 && ty == PZ_F32) {
        /* one rounding, as through double; a plain loop (ConvInteger's Cast) */
        const int32_t *xv = x;
        for (int64_t i = lo; i < hi; i++) ((float *)y)[i] = (float)xv[i];
    } else if (tx == PZ_F32 && ty == PZ_F32) {
        memcpy((float *)y + lo, (const float *)x + lo, (size_t)(hi - lo) * sizeof(float));
    } else if (xi && ty == PZ_F32 && (tx == PZ_I64 || tx == PZ_U64)) {
        /* 64-bit integers straight to float: one rounding, not two */
        for (int64_t i = lo; i < hi; i++) {
            uint64_t v = pz_load_bits(x, tx, i);
            ((float *)y)[i] = tx == PZ_I64 ? (float)(int64_t)v : (float)v;
        }
    } else if (tx == PZ_F32 && (ty == PZ_F16 || ty == PZ_BF16)) {
        /* float -> half straight: no double rounding through double */
        for (int64_t i = lo; i < hi; i++) {
            float v = ((const float *)x)[i];
            ((uint16_t *)y)[i] = ty == PZ_F16 ? pz_f32_to_f16(v) : pz_f32_to_bf16(v);
        }
    } else if (pz_dtype_is_small_float(ty)) {
        /* into float8 / float4: one rounding from the exact source value */
        int nosat = p ? p->nosat : 0;
        pz_round_mode round = p ? p->round : PZ_ROUND_UP;
        for (int64_t i = lo; i < hi; i++)
            ((uint8_t *)y)[i] = (uint8_t)pz_f64_to_small(ty, pz_load_f64(x, tx, i), nosat, round);
    } else {
        /* through double: exact for every source but 64-bit integers beyond
         * 2^53; floats -> integers truncate and saturate, NaN -> 0 (the 4-
         * and 2-bit integers wrap instead, as numpy does) */
        for (int64_t i = lo; i < hi; i++) pz_store_f64(y, ty, i, pz_load_f64(x, tx, i));
    }
}
