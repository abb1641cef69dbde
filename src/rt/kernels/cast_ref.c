/* cast_ref.c - reference Cast between all supported element types. */
#include "rt/kernels/kernels.h"

void pz_any_cast__ref(int tx, const void *x, int ty, void *y, int64_t n, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    bool xi = !pz_dtype_is_float(tx), yi = !pz_dtype_is_float(ty);   /* integer or bool */

    if (xi && yi) {
        /* integer -> integer: the low bits, like a C cast (numpy's astype) */
        for (int64_t i = lo; i < hi; i++) pz_store_bits(y, ty, i, pz_load_bits(x, tx, i));
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
    } else {
        /* through double: exact for every source but 64-bit integers beyond
         * 2^53; floats -> integers truncate and saturate, NaN -> 0 */
        for (int64_t i = lo; i < hi; i++) pz_store_f64(y, ty, i, pz_load_f64(x, tx, i));
    }
}
