/* int_binary_fast.c - the integer BINARY's plain-C twin (fast.h,
 * int_binary): int32 and int64 Add, Sub, Mul, Div, Max, Min, Mod (both
 * signs), each function and operand pattern its own typed loop, which gcc
 * vectorizes where the function allows (no divide). The values are
 * pz_int_binary__ref's: wrapping Add/Sub/Mul, Div truncating with x/0 = 0
 * and MIN/-1 = MIN, x mod 0 = 0, MIN mod -1 = 0. No restrict: Y may be A. */
#include "rt/kernels/fast.h"

/* y[i] = EXPR of x (A's element) and z (B's) over n; one loop per pattern
 * of strides (both contiguous, one a single value, any). */
#define INT_ROW(T, EXPR)                                                           \
    do {                                                                           \
        const T *A = a, *B = b;                                                    \
        T *Y = y;                                                                  \
        if (sa == 1 && sb == 1) {                                                  \
            for (int64_t i = 0; i < n; i++) { const T x = A[i], z = B[i]; Y[i] = (EXPR); } \
        } else if (sa == 1 && sb == 0) {                                           \
            const T z = B[0];                                                      \
            for (int64_t i = 0; i < n; i++) { const T x = A[i]; Y[i] = (EXPR); }   \
        } else if (sa == 0 && sb == 1) {                                           \
            const T x = A[0];                                                      \
            for (int64_t i = 0; i < n; i++) { const T z = B[i]; Y[i] = (EXPR); }   \
        } else {                                                                   \
            for (int64_t i = 0; i < n; i++) {                                      \
                const T x = A[i * sa], z = B[i * sb];                              \
                Y[i] = (EXPR);                                                     \
            }                                                                      \
        }                                                                          \
    } while (0)

/* Truncating x / z as the reference: 0 for z = 0; z = -1 negates, wrapping
 * (MIN / -1 = MIN, which C's / would trap on). */
#define INT_DIV(T, U) (z == 0 ? (T)0 : z == -1 ? (T)(0 - (U)x) : (T)(x / z))
/* C's % (the dividend's sign); the divisor's sign for MOD (Python's %). */
#define INT_FMOD(T) (z == 0 || z == -1 ? (T)0 : (T)(x % z))
#define INT_MOD(T) (z == 0 || z == -1 ? (T)0 : pz_mod_fix_##T((T)(x % z), z))

static inline int32_t pz_mod_fix_int32_t(int32_t r, int32_t z)
{
    return r != 0 && (r < 0) != (z < 0) ? r + z : r;
}
static inline int64_t pz_mod_fix_int64_t(int64_t r, int64_t z)
{
    return r != 0 && (r < 0) != (z < 0) ? r + z : r;
}

#define INT_FUNCS(T, U)                                                            \
    switch (f) {                                                                   \
    case PZ_BIN_ADD: INT_ROW(T, (T)((U)x + (U)z)); break;                          \
    case PZ_BIN_SUB: INT_ROW(T, (T)((U)x - (U)z)); break;                          \
    case PZ_BIN_MUL: INT_ROW(T, (T)((U)x * (U)z)); break;                          \
    case PZ_BIN_MAX: INT_ROW(T, x > z ? x : z); break;                             \
    case PZ_BIN_MIN: INT_ROW(T, x < z ? x : z); break;                             \
    case PZ_BIN_DIV: INT_ROW(T, INT_DIV(T, U)); break;                             \
    case PZ_BIN_FMOD: INT_ROW(T, INT_FMOD(T)); break;                              \
    default: INT_ROW(T, INT_MOD(T)); break;                                        \
    }

void pz_int_binary_row__fast(pz_binary_func f, int dtype, const void *a, int64_t sa,
                             const void *b, int64_t sb, void *y, int64_t n)
{
    if (dtype == PZ_I32) INT_FUNCS(int32_t, uint32_t)
    else INT_FUNCS(int64_t, uint64_t)
}

bool pz_int_binary_fast_takes(const pz_binary_params *p, int dtype)
{
    const pz_binary_func f = p->func;
    return (dtype == PZ_I32 || dtype == PZ_I64) && p->act.kind == PZ_ACT_NONE &&
           (f == PZ_BIN_ADD || f == PZ_BIN_SUB || f == PZ_BIN_MUL || f == PZ_BIN_DIV ||
            f == PZ_BIN_MAX || f == PZ_BIN_MIN || f == PZ_BIN_MOD || f == PZ_BIN_FMOD);
}

typedef struct {
    pz_int_binary_row_fn row;
    pz_binary_func f;
    int dt;
    size_t es;
    const char *a, *b;
    char *y;
    int64_t sa, sb;
} int_ctx;

static void int_seg(void *vctx, int64_t oa, int64_t ob, int64_t oy, int64_t n)
{
    const int_ctx *c = vctx;
    c->row(c->f, c->dt, c->a + (size_t)oa * c->es, c->sa, c->b + (size_t)ob * c->es, c->sb,
           c->y + (size_t)oy * c->es, n);
}

void pz_int_binary_walk(pz_int_binary_row_fn row, const pz_binary_params *p, int dtype,
                        const pz_bcast *bc, const void *a, const void *b, void *y, int ith,
                        int nth)
{
    int_ctx c = {row, p->func, dtype, dtype == PZ_I32 ? 4 : 8, a, b, y,
                 bc->sa[bc->rank - 1], bc->sb[bc->rank - 1]};
    pz_bcast_walk(bc, ith, nth, int_seg, &c);
}

void pz_int_binary__fast(const pz_binary_params *p, int dtype, const pz_bcast *bc,
                         const void *a, const void *b, void *y, int ith, int nth)
{
    pz_int_binary_walk(pz_int_binary_row__fast, p, dtype, bc, a, b, y, ith, nth);
}
