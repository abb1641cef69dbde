/* int_binary_fast.c - the integer BINARY's plain-C twin (fast.h,
 * int_binary): int32 and int64 Add, Sub, Mul, Div, Max, Min, Mod (both
 * signs), Pow; BitwiseAnd/Or/Xor on every integer type of 8 to 64 bits;
 * Shl/Shr on the unsigned ones. Each function and operand pattern its own
 * typed loop, which gcc vectorizes where the function allows (no divide).
 * The values are pz_int_binary__ref's: wrapping Add/Sub/Mul/Pow, Div
 * truncating with x/0 = 0 and MIN/-1 = MIN, x mod 0 = 0, MIN mod -1 = 0,
 * a shift by the width or more 0. No restrict: Y may be A. */
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

/* x to the power z, wrapping as the reference: square and multiply in the
 * unsigned type (the low bits of its uint64_t product); a negative z gives
 * 1 for x = 1, +-1 for x = -1 (z odd: -1), 0 otherwise (the truncated
 * reciprocal). */
#define INT_POW_FN(T, U)                                                           \
    static inline T pz_pow_##T(T x, T z)                                           \
    {                                                                              \
        if (z < 0) return x == 1 ? 1 : x == -1 ? ((z & 1) ? -1 : 1) : 0;          \
        U r = 1, b = (U)x, e = (U)z;                                               \
        for (; e; e >>= 1) {                                                       \
            if (e & 1) r *= b;                                                     \
            b *= b;                                                                \
        }                                                                          \
        return (T)r;                                                               \
    }
INT_POW_FN(int32_t, uint32_t)
INT_POW_FN(int64_t, uint64_t)

#define INT_FUNCS(T, U)                                                            \
    switch (f) {                                                                   \
    case PZ_BIN_POW: INT_ROW(T, pz_pow_##T(x, z)); break;                          \
    case PZ_BIN_ADD: INT_ROW(T, (T)((U)x + (U)z)); break;                          \
    case PZ_BIN_SUB: INT_ROW(T, (T)((U)x - (U)z)); break;                          \
    case PZ_BIN_MUL: INT_ROW(T, (T)((U)x * (U)z)); break;                          \
    case PZ_BIN_MAX: INT_ROW(T, x > z ? x : z); break;                             \
    case PZ_BIN_MIN: INT_ROW(T, x < z ? x : z); break;                             \
    case PZ_BIN_DIV: INT_ROW(T, INT_DIV(T, U)); break;                             \
    case PZ_BIN_FMOD: INT_ROW(T, INT_FMOD(T)); break;                              \
    default: INT_ROW(T, INT_MOD(T)); break;                                        \
    }

/* The bitwise functions on the bits of the type's size (the sign does not
 * matter), the shifts on the unsigned type: a count of the width or more
 * gives 0 (the reference's, and C's << would be undefined). */
#define BIT_FUNCS(T)                                                               \
    switch (f) {                                                                   \
    case PZ_BIN_BITAND: INT_ROW(T, (T)(x & z)); break;                             \
    case PZ_BIN_BITOR: INT_ROW(T, (T)(x | z)); break;                              \
    case PZ_BIN_BITXOR: INT_ROW(T, (T)(x ^ z)); break;                             \
    case PZ_BIN_SHL: INT_ROW(T, z >= 8 * sizeof(T) ? (T)0 : (T)(x << z)); break;   \
    default: INT_ROW(T, z >= 8 * sizeof(T) ? (T)0 : (T)(x >> z)); break;           \
    }

static bool is_bits(pz_binary_func f)
{
    return f >= PZ_BIN_BITAND && f <= PZ_BIN_SHR;
}

void pz_int_binary_row__fast(pz_binary_func f, int dtype, const void *a, int64_t sa,
                             const void *b, int64_t sb, void *y, int64_t n)
{
    if (is_bits(f)) {
        switch (pz_dtype_size(dtype)) {
        case 1: BIT_FUNCS(uint8_t) break;
        case 2: BIT_FUNCS(uint16_t) break;
        case 4: BIT_FUNCS(uint32_t) break;
        default: BIT_FUNCS(uint64_t) break;
        }
    } else if (dtype == PZ_I32) INT_FUNCS(int32_t, uint32_t)
    else INT_FUNCS(int64_t, uint64_t)
}

bool pz_int_binary_fast_takes(const pz_binary_params *p, int dtype)
{
    const pz_binary_func f = p->func;
    if (p->act.kind != PZ_ACT_NONE) return false;
    const bool uns = dtype == PZ_U8 || dtype == PZ_U16 || dtype == PZ_U32 || dtype == PZ_U64;
    if (f == PZ_BIN_SHL || f == PZ_BIN_SHR) return uns;
    if (is_bits(f))
        return uns || dtype == PZ_I8 || dtype == PZ_I16 || dtype == PZ_I32 || dtype == PZ_I64;
    return (dtype == PZ_I32 || dtype == PZ_I64) &&
           (f == PZ_BIN_ADD || f == PZ_BIN_SUB || f == PZ_BIN_MUL || f == PZ_BIN_DIV ||
            f == PZ_BIN_MAX || f == PZ_BIN_MIN || f == PZ_BIN_MOD || f == PZ_BIN_FMOD ||
            f == PZ_BIN_POW);
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
    int_ctx c = {row, p->func, dtype, pz_dtype_size(dtype), a, b, y,
                 bc->sa[bc->rank - 1], bc->sb[bc->rank - 1]};
    pz_bcast_walk(bc, ith, nth, int_seg, &c);
}

void pz_int_binary__fast(const pz_binary_params *p, int dtype, const pz_bcast *bc,
                         const void *a, const void *b, void *y, int ith, int nth)
{
    pz_int_binary_walk(pz_int_binary_row__fast, p, dtype, bc, a, b, y, ith, nth);
}
