/* binary_ref.c - reference element-wise binary ops with numpy broadcasting
 * (Add, Sub, Mul, Div, Pow, Max, Min, PRelu, Mod, the bitwise ops and
 * shifts), for floats, exact integers and mixed types; the broadcast walk
 * that COMPARE and SUM share. */
#include <math.h>
#include <stdbool.h>

#include "rt/kernels/kernels.h"

int pz_bcast_init(pz_bcast *bc, int ra, const int64_t *da, int rb, const int64_t *db,
                  int ry, const int64_t *dy)
{
    if (ra > ry || rb > ry) return -1;
    /* right-align A and B to Y; strides of the broadcast axes are 0 */
    int64_t sa[PZ_MAX_RANK], sb[PZ_MAX_RANK], acc_a = 1, acc_b = 1;
    for (int i = ry - 1; i >= 0; i--) {
        int ia = i - (ry - ra), ib = i - (ry - rb);
        int64_t na = ia >= 0 ? da[ia] : 1, nb = ib >= 0 ? db[ib] : 1;
        if ((na != dy[i] && na != 1) || (nb != dy[i] && nb != 1)) return -1;
        sa[i] = na == 1 ? 0 : acc_a;
        sb[i] = nb == 1 ? 0 : acc_b;
        acc_a *= na;
        acc_b *= nb;
    }
    /* coalesce: drop size-1 axes, merge an axis into the next (inner) one
     * when both A and B are contiguous across them */
    bc->rank = 0;
    for (int i = 0; i < ry; i++) {
        if (dy[i] == 1) continue;
        int r = bc->rank;
        if (r > 0 && bc->sa[r - 1] == sa[i] * dy[i] && bc->sb[r - 1] == sb[i] * dy[i]) {
            bc->dims[r - 1] *= dy[i];
            bc->sa[r - 1] = sa[i];
            bc->sb[r - 1] = sb[i];
            continue;
        }
        bc->dims[r] = dy[i];
        bc->sa[r] = sa[i];
        bc->sb[r] = sb[i];
        bc->rank++;
    }
    if (bc->rank == 0) {   /* a scalar */
        bc->rank = 1;
        bc->dims[0] = 1;
        bc->sa[0] = bc->sb[0] = 0;
    }
    return 0;
}

void pz_bcast_walk(const pz_bcast *bc, int ith, int nth, pz_bcast_seg_fn seg, void *ctx)
{
    int r = bc->rank;
    int64_t inner = bc->dims[r - 1], total = pz_prod(bc->dims, r);
    int64_t lo, hi;
    pz_split(total, ith, nth, &lo, &hi);
    for (int64_t i = lo; i < hi;) {
        int64_t pos = i % inner, rest = i / inner, oa = pos * bc->sa[r - 1], ob = pos * bc->sb[r - 1];
        for (int a = r - 2; a >= 0; a--) {   /* row index -> coordinates -> offsets */
            int64_t c = rest % bc->dims[a];
            rest /= bc->dims[a];
            oa += c * bc->sa[a];
            ob += c * bc->sb[a];
        }
        int64_t n = inner - pos < hi - i ? inner - pos : hi - i;
        seg(ctx, oa, ob, i, n);
        i += n;
    }
}

/* ---- f32 ---- */

typedef struct {
    pz_f32_binary_row_fn row;
    const pz_binary_params *p;
    const float *a, *b;
    float *y;
    int64_t sa, sb;
} f32_ctx;

static void f32_seg(void *vctx, int64_t oa, int64_t ob, int64_t oy, int64_t n)
{
    const f32_ctx *c = vctx;
    float *y = c->y + oy;
    c->row(c->p->func, c->a + oa, c->sa, c->b + ob, c->sb, y, n);
    if (c->p->act.kind != PZ_ACT_NONE)
        for (int64_t i = 0; i < n; i++) y[i] = pz_act_f32(&c->p->act, y[i]);
}

void pz_f32_binary_walk(pz_f32_binary_row_fn row, const pz_binary_params *p, const pz_bcast *bc,
                        const float *a, const float *b, float *y, int ith, int nth)
{
    f32_ctx c = {row, p, a, b, y, bc->sa[bc->rank - 1], bc->sb[bc->rank - 1]};
    pz_bcast_walk(bc, ith, nth, f32_seg, &c);
}

static void f32_row(pz_binary_func f, const float *a, int64_t sa, const float *b, int64_t sb,
                    float *y, int64_t n)
{
    /* the common cases in their own loops: both operands contiguous, or
     * one of them one value along the segment (a LayerNorm's x - mean,
     * x / std, x * gamma); Pow(x, 2) (a variance) as x * x, pz_binary_f32's
     * rule for an exponent of 2. gcc 12 at -O2 leaves these scalar:
     * the vectorized ones are the twin's (binary_fast.c) */
    const bool arith = f == PZ_BIN_ADD || f == PZ_BIN_SUB || f == PZ_BIN_MUL || f == PZ_BIN_DIV;
    if (arith && sa == 1 && sb == 1) {
        switch (f) {
        case PZ_BIN_ADD: for (int64_t i = 0; i < n; i++) y[i] = a[i] + b[i]; break;
        case PZ_BIN_SUB: for (int64_t i = 0; i < n; i++) y[i] = a[i] - b[i]; break;
        case PZ_BIN_MUL: for (int64_t i = 0; i < n; i++) y[i] = a[i] * b[i]; break;
        default: for (int64_t i = 0; i < n; i++) y[i] = a[i] / b[i]; break;
        }
    } else if (arith && sa == 1 && sb == 0) {
        const float v = b[0];
        switch (f) {
        case PZ_BIN_ADD: for (int64_t i = 0; i < n; i++) y[i] = a[i] + v; break;
        case PZ_BIN_SUB: for (int64_t i = 0; i < n; i++) y[i] = a[i] - v; break;
        case PZ_BIN_MUL: for (int64_t i = 0; i < n; i++) y[i] = a[i] * v; break;
        default: for (int64_t i = 0; i < n; i++) y[i] = a[i] / v; break;
        }
    } else if (arith && sa == 0 && sb == 1) {
        const float v = a[0];
        switch (f) {
        case PZ_BIN_ADD: for (int64_t i = 0; i < n; i++) y[i] = v + b[i]; break;
        case PZ_BIN_SUB: for (int64_t i = 0; i < n; i++) y[i] = v - b[i]; break;
        case PZ_BIN_MUL: for (int64_t i = 0; i < n; i++) y[i] = v * b[i]; break;
        default: for (int64_t i = 0; i < n; i++) y[i] = v / b[i]; break;
        }
    } else if (f == PZ_BIN_POW && sa == 1 && sb == 0 && b[0] == 2.0f) {
        for (int64_t i = 0; i < n; i++) y[i] = a[i] * a[i];
    } else {
        for (int64_t i = 0; i < n; i++) y[i] = pz_binary_f32(f, a[i * sa], b[i * sb]);
    }
}

void pz_f32_binary__ref(const pz_binary_params *p, const pz_bcast *bc, const float *a,
                        const float *b, float *y, int ith, int nth)
{
    pz_f32_binary_walk(f32_row, p, bc, a, b, y, ith, nth);
}

/* ---- integers, exact, no undefined behaviour ---- */

/* Arithmetic on the two's complement bits in uint64_t wraps like the type
 * does; the caller stores the low bits. */
static uint64_t int_op(pz_binary_func f, bool sgn, uint64_t a, uint64_t b)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;   /* sign-extended when sgn */
    switch (f) {
    case PZ_BIN_ADD: return a + b;
    case PZ_BIN_SUB: return a - b;
    case PZ_BIN_MUL: return a * b;
    case PZ_BIN_DIV:
        if (b == 0) return 0;
        if (!sgn) return a / b;
        if (sb == -1) return 0 - a;   /* MIN / -1 wraps to MIN */
        return (uint64_t)(sa / sb);   /* C truncates toward zero */
    case PZ_BIN_POW: {
        if (sgn && sb < 0) {
            if (sa == 1) return 1;
            if (sa == -1) return (sb & 1) ? (uint64_t)-1 : 1;
            return 0;
        }
        uint64_t r = 1, base = a, e = b;
        while (e) {   /* square and multiply, wrapping */
            if (e & 1) r *= base;
            base *= base;
            e >>= 1;
        }
        return r;
    }
    case PZ_BIN_MAX: return sgn ? (sa > sb ? a : b) : (a > b ? a : b);
    case PZ_BIN_MIN: return sgn ? (sa < sb ? a : b) : (a < b ? a : b);
    case PZ_BIN_PRELU: return (sgn && sa < 0) ? a * b : a;
    case PZ_BIN_BITAND: return a & b;
    case PZ_BIN_BITOR: return a | b;
    case PZ_BIN_BITXOR: return a ^ b;
    /* unsigned a zero-extended: the store keeps the type's low bits */
    case PZ_BIN_SHL: return b >= 64 ? 0 : a << b;
    case PZ_BIN_SHR: return b >= 64 ? 0 : a >> b;
    case PZ_BIN_MOD:
    case PZ_BIN_FMOD: {
        if (b == 0) return 0;
        if (!sgn) return a % b;
        if (sb == -1) return 0;   /* MIN % -1 would trap */
        int64_t r = sa % sb;      /* C: the dividend's sign */
        if (f == PZ_BIN_MOD && r != 0 && (r < 0) != (sb < 0)) r += sb;
        return (uint64_t)r;
    }
    default: return 0;
    }
}

typedef struct {
    const pz_binary_params *p;
    int dt;
    bool sgn;
    const void *a, *b;
    void *y;
    int64_t sa, sb;
} int_ctx;

static void int_seg(void *vctx, int64_t oa, int64_t ob, int64_t oy, int64_t n)
{
    int_ctx *c = vctx;
    for (int64_t i = 0; i < n; i++) {
        uint64_t a = pz_load_bits(c->a, c->dt, oa + i * c->sa);
        uint64_t b = pz_load_bits(c->b, c->dt, ob + i * c->sb);
        pz_store_bits(c->y, c->dt, oy + i, int_op(c->p->func, c->sgn, a, b));
    }
}

void pz_int_binary__ref(const pz_binary_params *p, int dtype, const pz_bcast *bc, const void *a,
                        const void *b, void *y, int ith, int nth)
{
    int_ctx c = {p, dtype, pz_dtype_is_signed(dtype), a, b, y,
                 bc->sa[bc->rank - 1], bc->sb[bc->rank - 1]};
    pz_bcast_walk(bc, ith, nth, int_seg, &c);
}

/* ---- any types through double ---- */

static double f64_op(pz_binary_func f, double a, double b)
{
    switch (f) {
    case PZ_BIN_ADD: return a + b;
    case PZ_BIN_SUB: return a - b;
    case PZ_BIN_MUL: return a * b;
    case PZ_BIN_DIV: return a / b;
    case PZ_BIN_POW: return pow(a, b);
    case PZ_BIN_MAX: return (a > b || a != a) ? a : b;
    case PZ_BIN_MIN: return (a < b || a != a) ? a : b;
    case PZ_BIN_PRELU: return a < 0 ? a * b : a;
    case PZ_BIN_FMOD: return fmod(a, b);
    case PZ_BIN_MOD: {
        double r = fmod(a, b);
        return r != 0 && (r < 0) != (b < 0) ? r + b : r;
    }
    default: return 0;   /* the integer-only functions */
    }
}

typedef struct {
    const pz_binary_params *p;
    int ta, tb, ty;
    const void *a, *b;
    void *y;
    int64_t sa, sb;
} any_ctx;

static void any_seg(void *vctx, int64_t oa, int64_t ob, int64_t oy, int64_t n)
{
    any_ctx *c = vctx;
    for (int64_t i = 0; i < n; i++) {
        double a = pz_load_f64(c->a, c->ta, oa + i * c->sa);
        double b = pz_load_f64(c->b, c->tb, ob + i * c->sb);
        pz_store_f64(c->y, c->ty, oy + i, pz_act_f64(&c->p->act, f64_op(c->p->func, a, b)));
    }
}

void pz_any_binary__ref(const pz_binary_params *p, const pz_bcast *bc, int ta, const void *a,
                        int tb, const void *b, int ty, void *y, int ith, int nth)
{
    any_ctx c = {p, ta, tb, ty, a, b, y, bc->sa[bc->rank - 1], bc->sb[bc->rank - 1]};
    pz_bcast_walk(bc, ith, nth, any_seg, &c);
}
