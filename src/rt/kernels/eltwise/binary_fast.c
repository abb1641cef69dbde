/* binary_fast.c - the float32 BINARY's fast twin (bcast_fast.h): the
 * reference's broadcast walk, each segment's Add, Sub, Mul or Div in its
 * own loop per operand pattern, which gcc vectorizes (no restrict: its
 * run-time overlap check keeps a loop right whatever the buffers); and
 * what the vector kernels (fast.h: binary16c, f32_binary) take. */
#include "rt/kernels/bcast_fast.h"
#include "rt/kernels/fast.h"

typedef struct {
    const pz_binary_params *p;
    const float *a, *b;
    float *y;
    int64_t sa, sb;
} f32_ctx;

/* y = a f b, both contiguous. */
static void vv(pz_binary_func f, const float *a, const float *b, float *y, int64_t n)
{
    switch (f) {
    case PZ_BIN_ADD: for (int64_t i = 0; i < n; i++) y[i] = a[i] + b[i]; break;
    case PZ_BIN_SUB: for (int64_t i = 0; i < n; i++) y[i] = a[i] - b[i]; break;
    case PZ_BIN_MUL: for (int64_t i = 0; i < n; i++) y[i] = a[i] * b[i]; break;
    default: for (int64_t i = 0; i < n; i++) y[i] = a[i] / b[i]; break;
    }
}

/* y = a f v (swap 0) or v f a (swap 1), a contiguous, v one value. */
static void vs(pz_binary_func f, int swap, const float *a, float v, float *y, int64_t n)
{
    switch (f) {
    case PZ_BIN_ADD: for (int64_t i = 0; i < n; i++) y[i] = a[i] + v; break;
    case PZ_BIN_MUL: for (int64_t i = 0; i < n; i++) y[i] = a[i] * v; break;
    case PZ_BIN_SUB:
        if (swap) for (int64_t i = 0; i < n; i++) y[i] = v - a[i];
        else for (int64_t i = 0; i < n; i++) y[i] = a[i] - v;
        break;
    default:
        if (swap) for (int64_t i = 0; i < n; i++) y[i] = v / a[i];
        else for (int64_t i = 0; i < n; i++) y[i] = a[i] / v;
        break;
    }
}

/* The activation after the function (a fused Relu or Clip), as
 * pz_act_f32 computes it, in loops that vectorize (selects, no branch). */
static void act_row(const pz_act *act, float *y, int64_t n)
{
    if (act->kind == PZ_ACT_RELU) {
        for (int64_t i = 0; i < n; i++) y[i] = y[i] < 0 ? 0 : y[i];
    } else if (act->kind == PZ_ACT_CLIP) {
        const float lo = act->lo, hi = act->hi;
        for (int64_t i = 0; i < n; i++) {
            const float v = y[i] < lo ? lo : y[i];
            y[i] = v > hi ? hi : v;
        }
    } else {
        for (int64_t i = 0; i < n; i++) y[i] = pz_act_f32(act, y[i]);
    }
}

/* Elements per step when an activation follows: the function and the
 * activation each over a piece that stays in L1 (one pass over Y). */
#define ACT_STEP 1024

static void f32_seg(void *vctx, int64_t oa, int64_t ob, int64_t oy, int64_t n)
{
    const f32_ctx *c = vctx;
    const pz_binary_func f = c->p->func;
    const bool act = c->p->act.kind != PZ_ACT_NONE;
    for (int64_t i0 = 0; i0 < n; i0 += ACT_STEP) {
        const int64_t m = act && n - i0 > ACT_STEP ? ACT_STEP : act ? n - i0 : n;
        const float *a = c->a + oa + i0 * c->sa, *b = c->b + ob + i0 * c->sb;
        float *y = c->y + oy + i0;
        if (c->sa == 1 && c->sb == 1) vv(f, a, b, y, m);
        else if (c->sa == 1 && c->sb == 0) vs(f, 0, a, b[0], y, m);
        else if (c->sa == 0 && c->sb == 1) vs(f, 1, b, a[0], y, m);
        else {   /* both one value along the segment (a scalar Y row) */
            const float v = pz_binary_f32(f, a[0], b[0]);
            for (int64_t i = 0; i < m; i++) y[i] = v;
        }
        if (act) act_row(&c->p->act, y, m);
        if (!act) break;   /* the whole segment in one step */
    }
}

bool pz_f32_binary_fast_takes(const pz_binary_params *p, const pz_bcast *bc)
{
    const pz_binary_func f = p->func;
    const int64_t sa = bc->sa[bc->rank - 1], sb = bc->sb[bc->rank - 1];
    return (f == PZ_BIN_ADD || f == PZ_BIN_SUB || f == PZ_BIN_MUL || f == PZ_BIN_DIV) &&
           (sa == 0 || sa == 1) && (sb == 0 || sb == 1);
}

void pz_f32_binary__fast(const pz_binary_params *p, const pz_bcast *bc, const float *a,
                         const float *b, float *y, int ith, int nth)
{
    f32_ctx c = {p, a, b, y, bc->sa[bc->rank - 1], bc->sb[bc->rank - 1]};
    pz_bcast_walk(bc, ith, nth, f32_seg, &c);
}

/* The vector kernels' functions (binary_avx512.c, binary_avx2.c), here in
 * plain C: the dispatch asks on any CPU, and a file built for AVX-512 may
 * hold its instructions in any function. */
bool pz_f32_binary16c_vec_takes(pz_binary_func f)
{
    switch (f) {
    case PZ_BIN_ADD: case PZ_BIN_SUB: case PZ_BIN_MUL: case PZ_BIN_DIV: case PZ_BIN_POW:
    case PZ_BIN_MAX: case PZ_BIN_MIN: case PZ_BIN_PRELU: case PZ_BIN_MOD: case PZ_BIN_FMOD:
        return true;
    default: return false;   /* the integer-only functions */
    }
}

bool pz_f32_binary_vec_takes(const pz_binary_params *p, const pz_bcast *bc)
{
    const pz_binary_func f = p->func;
    const int64_t sa = bc->sa[bc->rank - 1], sb = bc->sb[bc->rank - 1];
    return (f == PZ_BIN_POW || f == PZ_BIN_MAX || f == PZ_BIN_MIN || f == PZ_BIN_PRELU ||
            f == PZ_BIN_MOD || f == PZ_BIN_FMOD) &&
           (sa == 0 || sa == 1) && (sb == 0 || sb == 1);
}
