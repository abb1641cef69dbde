/* compare_ref.c - reference COMPARE: y = a func b as bool, numpy broadcast
 * (pz_bcast_walk). Each type class compares in a type that holds it exactly:
 * signed integers as int64, unsigned ones and bool as uint64, floats as
 * double (float16, bfloat16 and float32 widen exactly). */
#include "rt/kernels/kernels.h"

#include <string.h>

#include "rt/pz_strings.h"

PZ_ALWAYS_INLINE uint8_t cmp_i64(pz_compare_func f, int64_t a, int64_t b)
{
    return PZ_COMPARE(f, a, b);
}
PZ_ALWAYS_INLINE uint8_t cmp_u64(pz_compare_func f, uint64_t a, uint64_t b)
{
    return PZ_COMPARE(f, a, b);
}
PZ_ALWAYS_INLINE uint8_t cmp_f64(pz_compare_func f, double a, double b)
{
    return PZ_COMPARE(f, a, b);
}

typedef enum { CLS_SIGNED, CLS_UNSIGNED, CLS_FLOAT, CLS_STRING } cmp_class;

typedef struct {
    pz_compare_func f;
    int dt;
    cmp_class cls;
    const void *a, *b;
    uint8_t *y;
    int64_t sa, sb;
} cmp_ctx;

static void any_seg(void *vctx, int64_t oa, int64_t ob, int64_t oy, int64_t n)
{
    const cmp_ctx *c = vctx;
    for (int64_t i = 0; i < n; i++) {
        int64_t ia = oa + i * c->sa, ib = ob + i * c->sb;
        uint8_t r;
        if (c->cls == CLS_STRING)   /* byte order, as strcmp */
            r = cmp_i64(c->f, strcmp(pz_str_at(c->a, ia), pz_str_at(c->b, ib)), 0);
        else if (c->cls == CLS_FLOAT)
            r = cmp_f64(c->f, pz_load_f64(c->a, c->dt, ia), pz_load_f64(c->b, c->dt, ib));
        else if (c->cls == CLS_SIGNED)   /* bits sign-extended to 64 */
            r = cmp_i64(c->f, (int64_t)pz_load_bits(c->a, c->dt, ia),
                        (int64_t)pz_load_bits(c->b, c->dt, ib));
        else
            r = cmp_u64(c->f, pz_load_bits(c->a, c->dt, ia), pz_load_bits(c->b, c->dt, ib));
        c->y[oy + i] = r;
    }
}

void pz_any_compare__ref(pz_compare_func f, int dtype, const pz_bcast *bc, const void *a,
                         const void *b, uint8_t *y, int ith, int nth)
{
    cmp_ctx c = {f, dtype,
                 dtype == PZ_STRING ? CLS_STRING
                 : pz_dtype_is_float(dtype) ? CLS_FLOAT
                 : pz_dtype_is_signed(dtype) ? CLS_SIGNED : CLS_UNSIGNED,
                 a, b, y, bc->sa[bc->rank - 1], bc->sb[bc->rank - 1]};
    pz_bcast_walk(bc, ith, nth, any_seg, &c);
}
