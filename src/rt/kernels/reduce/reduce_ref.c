/* reduce_ref.c - reference reductions over a set of axes (ReduceMean, Sum,
 * Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare), any element type.
 * Floats accumulate in double. Integers and bool accumulate in 64-bit
 * integers, so Sum/Prod/Max/Min/L1/SumSquare are exact (a sum wraps as the
 * type's own arithmetic does); Mean, L2, LogSum, LogSumExp of integers go
 * through double and truncate, as ONNX's reference (numpy astype) does. */
#include <math.h>

#include "rt/kernels/kernels.h"

/* x's axes split into kept (k*) and reduced (r*) ones, innermost first, with
 * x's strides; neighbours of one kind that are contiguous are merged. */
typedef struct {
    int nk, nr;
    int64_t kd[PZ_MAX_RANK], ks[PZ_MAX_RANK], rd[PZ_MAX_RANK], rs[PZ_MAX_RANK];
    int64_t nout, nred;
} red_geom;

static void red_geom_init(red_geom *g, unsigned mask, int rank, const int64_t *xd)
{
    int64_t stride = 1;
    int last = -1;   /* the kind of the previous (inner) axis: 1 reduced, 0 kept */
    g->nk = g->nr = 0;
    for (int i = rank - 1; i >= 0; i--) {
        int red = mask >> i & 1;
        int64_t *d = red ? g->rd : g->kd, *s = red ? g->rs : g->ks;
        int *cnt = red ? &g->nr : &g->nk;
        if (last == red && *cnt > 0) d[*cnt - 1] *= xd[i];   /* merge: same stride run */
        else { d[*cnt] = xd[i]; s[*cnt] = stride; (*cnt)++; }
        last = red;
        stride *= xd[i];
    }
    g->nout = pz_prod(g->kd, g->nk);
    g->nred = pz_prod(g->rd, g->nr);
}

/* x's offset of the first element reduced into output o. */
static inline int64_t red_base(const red_geom *g, int64_t o)
{
    int64_t base = 0;
    for (int i = 0; i < g->nk; i++) { base += o % g->kd[i] * g->ks[i]; o /= g->kd[i]; }
    return base;
}

/* Walks the reduced elements of one output: an odometer over the reduced
 * axes, innermost first. BODY sees the element's offset as `off`. */
#define RED_FOR_EACH(g, base, BODY)                                            \
    do {                                                                       \
        int64_t idx_[PZ_MAX_RANK] = {0}, off = (base);                         \
        for (int64_t r_ = 0; r_ < (g)->nred; r_++) {                           \
            BODY;                                                              \
            for (int i_ = 0; i_ < (g)->nr; i_++) {                             \
                off += (g)->rs[i_];                                            \
                if (++idx_[i_] < (g)->rd[i_]) break;                           \
                off -= (g)->rs[i_] * (g)->rd[i_];                              \
                idx_[i_] = 0;                                                  \
            }                                                                  \
        }                                                                      \
    } while (0)

/* One output of a float reduction (or of Mean/L2/LogSum/LogSumExp of an
 * integer type). NaN propagates through Max and Min, as in numpy. */
PZ_ALWAYS_INLINE double red_float(pz_reduce_func f, int dt, const red_geom *g, const void *x,
                                  int64_t base)
{
    double acc = f == PZ_RED_PROD ? 1 : f == PZ_RED_MAX ? -INFINITY : f == PZ_RED_MIN ? INFINITY : 0;
    double m = -INFINITY;
    if (f == PZ_RED_LOG_SUM_EXP) {
        /* log(sum(exp(x))) = m + log(sum(exp(x - m))), m the largest: no overflow */
        RED_FOR_EACH(g, base, { double v = pz_ld(x, dt, off); if (v > m || v != v) m = v; });
        if (m != m || isinf(m)) return m;   /* NaN, +inf, or every x -inf (or none) */
    }
    switch (f) {
    case PZ_RED_MEAN: case PZ_RED_SUM: case PZ_RED_LOG_SUM:
        RED_FOR_EACH(g, base, acc += pz_ld(x, dt, off));
        break;
    case PZ_RED_MAX:
        RED_FOR_EACH(g, base, { double v = pz_ld(x, dt, off); if (v > acc || v != v) acc = v; });
        break;
    case PZ_RED_MIN:
        RED_FOR_EACH(g, base, { double v = pz_ld(x, dt, off); if (v < acc || v != v) acc = v; });
        break;
    case PZ_RED_PROD: RED_FOR_EACH(g, base, acc *= pz_ld(x, dt, off)); break;
    case PZ_RED_L1: RED_FOR_EACH(g, base, acc += fabs(pz_ld(x, dt, off))); break;
    case PZ_RED_L2: case PZ_RED_SUM_SQUARE:
        RED_FOR_EACH(g, base, { double v = pz_ld(x, dt, off); acc += v * v; });
        break;
    case PZ_RED_LOG_SUM_EXP: RED_FOR_EACH(g, base, acc += exp(pz_ld(x, dt, off) - m)); break;
    default: break;
    }
    switch (f) {
    case PZ_RED_MEAN: return g->nred > 0 ? acc / (double)g->nred : NAN;
    case PZ_RED_L2: return sqrt(acc);
    case PZ_RED_LOG_SUM: return log(acc);
    case PZ_RED_LOG_SUM_EXP: return m + log(acc);
    default: return acc;
    }
}

/* One output of an exact integer reduction (Sum, Prod, Max, Min, L1,
 * SumSquare) as two's complement bits; bool is the integer 0/1. */
static uint64_t red_int(pz_reduce_func f, int dt, const red_geom *g, const void *x, int64_t base)
{
    const int sgn = pz_dtype_is_signed(dt), bits = dt == PZ_BOOL ? 1 : 8 * (int)pz_dtype_size(dt);
    /* the type's lowest and highest values, as sign-extended bits */
    const uint64_t hi = sgn ? (UINT64_MAX >> (65 - bits)) : (UINT64_MAX >> (64 - bits));
    const uint64_t lo = sgn ? ~hi : 0;
    uint64_t acc = f == PZ_RED_PROD ? 1 : f == PZ_RED_MAX ? lo : f == PZ_RED_MIN ? hi : 0;
    RED_FOR_EACH(g, base, {
        uint64_t v = pz_load_bits(x, dt, off);
        int gt = sgn ? (int64_t)v > (int64_t)acc : v > acc;
        int lt = sgn ? (int64_t)v < (int64_t)acc : v < acc;
        switch (f) {
        case PZ_RED_SUM: acc += v; break;
        case PZ_RED_PROD: acc *= v; break;
        case PZ_RED_MAX: if (gt) acc = v; break;
        case PZ_RED_MIN: if (lt) acc = v; break;
        case PZ_RED_L1: acc += sgn && (int64_t)v < 0 ? 0 - v : v; break;
        case PZ_RED_SUM_SQUARE: acc += v * v; break;
        default: break;
        }
    });
    return acc;
}

PZ_ALWAYS_INLINE void reduce_body(const pz_reduce_params *p, int dt, int rank, const int64_t *xd,
                                  const void *x, void *y, int ith, int nth)
{
    red_geom g;
    red_geom_init(&g, p->axes_mask, rank, xd);
    const pz_reduce_func f = p->func;
    const int exact = (pz_dtype_is_int(dt) || dt == PZ_BOOL) &&
                      (f == PZ_RED_SUM || f == PZ_RED_PROD || f == PZ_RED_MAX || f == PZ_RED_MIN ||
                       f == PZ_RED_L1 || f == PZ_RED_SUM_SQUARE);
    /* one unit of work = one output element */
    int64_t lo, hi;
    pz_split(g.nout, ith, nth, &lo, &hi);
    for (int64_t o = lo; o < hi; o++) {
        const int64_t base = red_base(&g, o);
        if (exact) pz_store_bits(y, dt, o, red_int(f, dt, &g, x, base));
        else pz_st(y, dt, o, red_float(f, dt, &g, x, base));
    }
}

void pz_f32_reduce__ref(const pz_reduce_params *p, int rank, const int64_t *xd, const float *x,
                        float *y, int ith, int nth)
{
    reduce_body(p, PZ_F32, rank, xd, x, y, ith, nth);
}

void pz_any_reduce__ref(const pz_reduce_params *p, int dtype, int rank, const int64_t *xd,
                        const void *x, void *y, int ith, int nth)
{
    reduce_body(p, dtype, rank, xd, x, y, ith, nth);
}
