/* compare_fast.c - COMPARE's plain-C twin (fast.h, compare): float32,
 * int32 and int64 Equal, Less, LessOrEqual, Greater, GreaterOrEqual, and
 * every function on bool (Equal, And, Or, Xor), each type, function and
 * operand pattern its own loop, which gcc vectorizes. C's operators in the
 * operands' own type: pz_any_compare__ref's bits (it widens exactly; NaN
 * compares false). */
#include "rt/kernels/fast.h"

/* y[i] = FN(a[i], b[i]) over n, one loop per pattern of strides; OP the
 * same for an operator. */
#define CMP_ROW_FN(T, FN)                                                              \
    do {                                                                               \
        const T *A = a, *B = b;                                                        \
        if (sa == 1 && sb == 1) {                                                      \
            for (int64_t i = 0; i < n; i++) y[i] = FN(A[i], B[i]);                     \
        } else if (sa == 1 && sb == 0) {                                               \
            const T z = B[0];                                                          \
            for (int64_t i = 0; i < n; i++) y[i] = FN(A[i], z);                        \
        } else if (sa == 0 && sb == 1) {                                               \
            const T x = A[0];                                                          \
            for (int64_t i = 0; i < n; i++) y[i] = FN(x, B[i]);                        \
        } else {                                                                       \
            for (int64_t i = 0; i < n; i++) y[i] = FN(A[i * sa], B[i * sb]);           \
        }                                                                              \
    } while (0)
#define CMP_EQ(x, z) ((x) == (z))
#define CMP_LT(x, z) ((x) < (z))
#define CMP_LE(x, z) ((x) <= (z))
#define CMP_GT(x, z) ((x) > (z))
#define CMP_GE(x, z) ((x) >= (z))

/* And, Or, Xor: each operand as true when not 0 (bool's bytes are 0 or 1). */
#define LOGIC_AND(x, z) (((x) != 0) & ((z) != 0))
#define LOGIC_OR(x, z) (((x) != 0) | ((z) != 0))
#define LOGIC_XOR(x, z) (((x) != 0) ^ ((z) != 0))
#define LOGIC_FUNCS(T)                                                                 \
    do {                                                                               \
        if (f == PZ_CMP_AND) CMP_ROW_FN(T, LOGIC_AND);                                 \
        else if (f == PZ_CMP_OR) CMP_ROW_FN(T, LOGIC_OR);                              \
        else CMP_ROW_FN(T, LOGIC_XOR);                                                 \
    } while (0)

#define CMP_FUNCS(T)                                                                   \
    switch (f) {                                                                       \
    case PZ_CMP_EQ: CMP_ROW_FN(T, CMP_EQ); break;                                      \
    case PZ_CMP_LT: CMP_ROW_FN(T, CMP_LT); break;                                      \
    case PZ_CMP_LE: CMP_ROW_FN(T, CMP_LE); break;                                      \
    case PZ_CMP_GT: CMP_ROW_FN(T, CMP_GT); break;                                      \
    case PZ_CMP_GE: CMP_ROW_FN(T, CMP_GE); break;                                      \
    default: LOGIC_FUNCS(T); break;                                                    \
    }

void pz_num_compare_row__fast(pz_compare_func f, int dtype, const void *a, int64_t sa,
                              const void *b, int64_t sb, uint8_t *y, int64_t n)
{
    if (dtype == PZ_F32) CMP_FUNCS(float)
    else if (dtype == PZ_I32) CMP_FUNCS(int32_t)
    else if (dtype == PZ_I64) CMP_FUNCS(int64_t)
    else CMP_FUNCS(uint8_t)
}

bool pz_num_compare_fast_takes(pz_compare_func f, int dtype)
{
    return (f <= PZ_CMP_GE && (dtype == PZ_F32 || dtype == PZ_I32 || dtype == PZ_I64)) ||
           dtype == PZ_BOOL;
}

typedef struct {
    pz_compare_row_fn row;
    pz_compare_func f;
    int dt;
    size_t es;
    const char *a, *b;
    uint8_t *y;
    int64_t sa, sb;
} cmp_ctx;

static void seg(void *vctx, int64_t oa, int64_t ob, int64_t oy, int64_t n)
{
    const cmp_ctx *c = vctx;
    c->row(c->f, c->dt, c->a + (size_t)oa * c->es, c->sa, c->b + (size_t)ob * c->es, c->sb,
           c->y + oy, n);
}

void pz_num_compare_walk(pz_compare_row_fn row, pz_compare_func f, int dtype, const pz_bcast *bc,
                         const void *a, const void *b, uint8_t *y, int ith, int nth)
{
    cmp_ctx c = {row, f, dtype, pz_dtype_size(dtype), a, b, y,
                 bc->sa[bc->rank - 1], bc->sb[bc->rank - 1]};
    pz_bcast_walk(bc, ith, nth, seg, &c);
}

void pz_num_compare__fast(pz_compare_func f, int dtype, const pz_bcast *bc, const void *a,
                          const void *b, uint8_t *y, int ith, int nth)
{
    pz_num_compare_walk(pz_num_compare_row__fast, f, dtype, bc, a, b, y, ith, nth);
}
