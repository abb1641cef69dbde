/* resize.c - the RESIZE layer: X -> Y (Y's shape from the compiler; scales
 * and roi in the params). The per-axis taps are computed at compile time.
 * With inputs roi, scales, sizes (1-3, any omitted or empty) the layer reads
 * them at run time: Y has no compile-time bound (op_desc.h dyn_alloc),
 * run_shape computes Y's dims and the scales as the compiler does
 * (ops/resize.c) and the taps again, in buffers grown as needed; values
 * that do not fit fail the run naming the layer, Y empty. */
#include <math.h>

#include "rt/elem.h"
#include "rt/kernels/twins_fast.h"
#include "rt/ops/ops.h"

typedef struct {
    pz_resize_tap *taps[PZ_MAX_RANK];
    int64_t *idx[PZ_MAX_RANK];    /* the taps' (index, weight) pools */
    double *w[PZ_MAX_RANK];
    size_t n_taps[PZ_MAX_RANK], n_pool[PZ_MAX_RANK];   /* what they hold */
    pz_resize_params cur;         /* run time: the run's scales and roi */
    pz_resize_lin lin[2];         /* the fast twin's tables of H and W */
    void *lin_mem[2];             /* their storage */
    size_t n_lin[2];              /* their bytes */
    bool fast;                    /* float32, H and W only, at most PZ_RESIZE_FAST_TAPS taps */
    pz_resize_row_fn row;         /* its rows' kernel (NULL: plain C) */
} resize_state;

/* The fast twin's tables for the taps of the last two axes, or st->fast
 * false (the reference): planned with the taps, at prepare (and at
 * run_shape when the scales come at run time). */
static void resize_plan_fast(const pz_layer *l, resize_state *st, int rank, const int64_t *xd,
                             const int64_t *yd)
{
    st->fast = false;
    if (l->isa == PZ_ISA_REF || l->in[0]->dtype != PZ_F32 || rank < 2) return;
    /* the leading axes copied: taps at o only, weights summing to 1 (an axis
     * of length 1 under pytorch_half_pixel has two taps of 0.5 at 0) */
    for (int a = 0; a < rank - 2; a++) {
        if (xd[a] != yd[a]) return;
        for (int64_t o = 0; o < yd[a]; o++) {
            const pz_resize_tap *t = &st->taps[a][o];
            double sum = 0;
            for (int j = 0; j < t->n; j++) {
                if (t->idx[j] != o) return;
                sum += t->w[j];
            }
            if (t->outside || t->n < 1 || sum != 1.0) return;
        }
    }
    for (int k = 0; k < 2; k++) {
        const int a = rank - 2 + k, kk = pz_resize_lin_taps(st->taps[a], xd[a], yd[a]);
        if (!kk) return;
        /* the doubles first, then the indices, then the counts: each array aligned */
        const size_t outs = (size_t)(yd[a] > 0 ? yd[a] : 1),
                     bytes = outs * ((size_t)kk * (sizeof(double) + sizeof(int32_t)) + 1);
        if (bytes > st->n_lin[k]) {
            free(st->lin_mem[k]);
            st->n_lin[k] = (st->lin_mem[k] = malloc(bytes)) ? bytes : 0;
            if (!st->n_lin[k]) return;
        }
        pz_resize_lin *t = &st->lin[k];
        double *w = st->lin_mem[k];
        int32_t *i = (int32_t *)(w + (size_t)kk * outs);
        for (int j = 0; j < kk; j++) {
            t->w[j] = w + (size_t)j * outs;
            t->i[j] = i + (size_t)j * outs;
        }
        t->n = (uint8_t *)(i + (size_t)kk * outs);
        if (!pz_resize_lin_table(st->taps[a], xd[a], yd[a], t)) return;
    }
    st->fast = true;
#ifndef PZ_SCALAR
    st->row = l->isa == PZ_ISA_AVX512 ? pz_f32_resize_row__avx512 : NULL;
#endif
}

/* Axis a's taps for in -> out under p, the buffers grown to fit; NULL, or why not. */
static const char *resize_axis(resize_state *st, const pz_resize_params *p, int a, int64_t in,
                               int64_t out)
{
    if (in < 1 && out > 0) return "resizing an empty axis";
    if (!(p->scale[a] > 0)) return "a scale is not positive";
    size_t outs = (size_t)(out > 0 ? out : 1);
    int width = pz_resize_width(p, a, in, out);
    if (width < 1 || (size_t)width > ((size_t)1 << 40) / outs) return "too many taps per output";
    size_t pool = outs * (size_t)width;
    if (outs > st->n_taps[a]) {
        free(st->taps[a]);
        st->n_taps[a] = (st->taps[a] = calloc(outs, sizeof(pz_resize_tap))) ? outs : 0;
    }
    if (pool > st->n_pool[a]) {
        free(st->idx[a]);
        free(st->w[a]);
        st->idx[a] = calloc(pool, sizeof(int64_t));
        st->w[a] = calloc(pool, sizeof(double));
        st->n_pool[a] = st->idx[a] && st->w[a] ? pool : 0;
    }
    if (!st->n_taps[a] || !st->n_pool[a]) return "out of memory";
    pz_resize_taps(p, a, in, out, st->taps[a], st->idx[a], st->w[a]);
    return NULL;
}

/* Input i when given (present, not empty). */
static const pz_tensor *rt_given(const pz_layer *l, int i)
{
    const pz_tensor *t = i < l->n_in ? l->in[i] : NULL;
    return t && pz_numel(t) > 0 ? t : NULL;
}

/* Y's dims and cur's scales and roi from the run's inputs; NULL, or why not. */
static const char *resize_rt_plan(const pz_layer *l, pz_resize_params *cur, int64_t *dims,
                                  char *why, size_t n)
{
    const pz_tensor *x = l->in[0], *roi = rt_given(l, 1), *sc = rt_given(l, 2),
                    *sz = rt_given(l, 3);
    const int na = cur->n_rt_axes, *ax = cur->rt_axes;
    for (int k = 0; k < x->rank; k++) {
        dims[k] = x->dims[k];
        cur->scale[k] = 1;
    }
    if (!sc == !sz) return sc ? "scales and sizes are both given" : "neither scales nor sizes is given";
    if (sc) {
        if (pz_numel(sc) != na) return "scales is not one value per resized axis";
        for (int i = 0; i < na; i++) {
            double s = (double)(float)pz_load_f64(sc->data, sc->dtype, i);
            double v = floor((double)x->dims[ax[i]] * s);
            if (!(s > 0) || isinf(s) || !(v < 0x1p62)) {
                snprintf(why, n, "scales[%d] is %g: not a positive scale within range", i, s);
                return why;
            }
            dims[ax[i]] = (int64_t)v;
            cur->scale[ax[i]] = (float)s;
        }
    } else {
        int64_t v[PZ_MAX_RANK];
        if (pz_run_ints(sz, v, PZ_MAX_RANK) != na) return "sizes is not one value per resized axis";
        double common = 0;
        for (int i = 0; i < na; i++) {
            if (v[i] < 0) {
                snprintf(why, n, "sizes[%d] is %lld, negative", i, (long long)v[i]);
                return why;
            }
            int64_t in = x->dims[ax[i]];
            if (cur->rt_policy && !in) return "an empty axis has no aspect ratio to keep";
            double s = in ? (double)v[i] / (double)in : 1;
            if (i == 0 || (cur->rt_policy == 1 ? s < common : s > common)) common = s;
            dims[ax[i]] = v[i];
            cur->scale[ax[i]] = (float)s;
        }
        for (int i = 0; cur->rt_policy && i < na; i++) {
            double d = floor((double)x->dims[ax[i]] * common + 0.5);   /* round half up */
            if (!(d < 0x1p62)) return "sizes make a dim too large";
            dims[ax[i]] = (int64_t)d;
            cur->scale[ax[i]] = (float)common;
        }
    }
    if (cur->coord == PZ_CT_TF_CROP_AND_RESIZE && roi) {
        if (pz_numel(roi) != 2 * na) return "roi is not a start and an end per resized axis";
        for (int i = 0; i < na; i++) {
            cur->roi_start[ax[i]] = (float)pz_load_f64(roi->data, roi->dtype, i);
            cur->roi_end[ax[i]] = (float)pz_load_f64(roi->data, roi->dtype, na + i);
        }
    }
    return NULL;
}

static void resize_run_shape(const pz_layer *l)
{
    resize_state *st = l->state;
    pz_tensor *y = l->out[0];
    char buf[160];
    st->cur = *(const pz_resize_params *)l->params;
    int64_t dims[PZ_MAX_RANK];
    const char *why = resize_rt_plan(l, &st->cur, dims, buf, sizeof buf);
    for (int a = 0; !why && a < y->rank; a++) {
        y->dims[a] = dims[a];
        why = resize_axis(st, &st->cur, a, l->in[0]->dims[a], dims[a]);
    }
    if (why) {
        pz_layer_run_fail(l, "%s", why);
        if (y->rank) y->dims[0] = 0;
        return;
    }
    resize_plan_fast(l, st, y->rank, l->in[0]->dims, y->dims);
}

static int resize_dyn_alloc(const pz_layer *l)
{
    return l->n_in > 1;
}

static void resize_release(pz_layer *l)
{
    resize_state *st = l->state;
    if (!st) return;
    for (int a = 0; a < PZ_MAX_RANK; a++) {
        free(st->taps[a]);
        free(st->idx[a]);
        free(st->w[a]);
    }
    free(st->lin_mem[0]);
    free(st->lin_mem[1]);
}

static int resize_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_resize_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_dtype_is_float(x->dtype) && !pz_dtype_is_int(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (y->rank != x->rank || x->rank < 1)
        return pz_layer_fail(l, err, n, "X has rank %d, Y %d", x->rank, y->rank);
    if (p->mode < PZ_RESIZE_NEAREST || p->mode > PZ_RESIZE_CUBIC ||
        p->coord < PZ_CT_HALF_PIXEL || p->coord > PZ_CT_HALF_PIXEL_SYMMETRIC ||
        p->nearest < PZ_NEAREST_ROUND_PREFER_FLOOR || p->nearest > PZ_NEAREST_CEIL)
        return pz_layer_fail(l, err, n, "mode %d, coordinate mode %d, nearest mode %d",
                             (int)p->mode, (int)p->coord, (int)p->nearest);
    if (p->n_rt_axes < 0 || p->n_rt_axes > x->rank || p->rt_policy < 0 || p->rt_policy > 2)
        return pz_layer_fail(l, err, n, "%d run-time axes, policy %d", p->n_rt_axes, p->rt_policy);
    for (int i = 0; i < p->n_rt_axes; i++)
        if (p->rt_axes[i] < 0 || p->rt_axes[i] >= x->rank)
            return pz_layer_fail(l, err, n, "run-time axis %d out of range", p->rt_axes[i]);
    resize_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    st->cur = *p;
    for (int a = 0; a < x->rank; a++) {
        const char *why = resize_axis(st, p, a, x->dims[a], y->dims[a]);
        if (why) return pz_layer_fail(l, err, n, "axis %d: %s (scale %g)", a, why, (double)p->scale[a]);
    }
    resize_plan_fast(l, st, x->rank, x->dims, y->dims);
    return 0;
}

static void resize_run(const pz_layer *l, int ith, int nth)
{
    const resize_state *st = l->state;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    if (pz_numel(y) == 0) return;
    if (st->fast) {
        const int r = x->rank;
        pz_f32_resize2d__fast(&st->lin[0], &st->lin[1], pz_prod(y->dims, r - 2), x->dims[r - 2],
                              x->dims[r - 1], y->dims[r - 2], y->dims[r - 1], x->data, y->data,
                              st->row, ith, nth);
        return;
    }
    pz_any_resize__ref(&st->cur, x->dtype, x->rank, x->dims, y->dims,
                       (const pz_resize_tap *const *)st->taps, x->data, y->data, ith, nth);
}

static const char *const RESIZE_MODE[] = {"PZ_RESIZE_NEAREST", "PZ_RESIZE_LINEAR",
                                          "PZ_RESIZE_CUBIC"};
static const char *const RESIZE_COORD[] = {"PZ_CT_HALF_PIXEL", "PZ_CT_ASYMMETRIC",
                                           "PZ_CT_PYTORCH_HALF_PIXEL", "PZ_CT_ALIGN_CORNERS",
                                           "PZ_CT_TF_CROP_AND_RESIZE", "PZ_CT_HALF_PIXEL_SYMMETRIC"};
static const char *const RESIZE_NEAREST[] = {"PZ_NEAREST_ROUND_PREFER_FLOOR",
                                             "PZ_NEAREST_ROUND_PREFER_CEIL", "PZ_NEAREST_FLOOR",
                                             "PZ_NEAREST_CEIL"};
static const pz_param_field resize_fields[] = {
    PZ_FIELD_ENUM(pz_resize_params, mode, RESIZE_MODE),
    PZ_FIELD_ENUM(pz_resize_params, coord, RESIZE_COORD),
    PZ_FIELD_ENUM(pz_resize_params, nearest, RESIZE_NEAREST),
    PZ_FIELD(pz_resize_params, cubic_coeff_a, PZ_F_F32),
    PZ_FIELD(pz_resize_params, exclude_outside, PZ_F_INT),
    PZ_FIELD(pz_resize_params, extrapolation_value, PZ_F_F32),
    PZ_FIELD_ARRAY(pz_resize_params, scale, PZ_F_F32),
    PZ_FIELD_ARRAY(pz_resize_params, roi_start, PZ_F_F32),
    PZ_FIELD_ARRAY(pz_resize_params, roi_end, PZ_F_F32),
    PZ_FIELD(pz_resize_params, antialias, PZ_F_INT),
    PZ_FIELD(pz_resize_params, n_rt_axes, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_resize_params, rt_axes, PZ_F_INT),
    PZ_FIELD(pz_resize_params, rt_policy, PZ_F_INT),
};

/* Row-local when it keeps the rows' scale. */
static int resize_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    if (l->n_in > 1) {
        m->why = "reads its scales at run time";
        return 0;
    }
    if (((const pz_resize_params *)l->params)->scale[2] != 1.0f) {
        m->why = "rescales the rows";
        return 0;
    }
    return 1;
}

const pz_rt_op pz_rt_op_resize = {
    .name = "RESIZE", PZ_OP_PARAMS(pz_resize_params, resize_fields),
    .min_in = 1, .max_in = 4, .min_out = 1, .max_out = 1,
    .prepare = resize_prepare, .run = resize_run, .release = resize_release,
    .row_rule = resize_row_rule, .run_shape = resize_run_shape, .dyn_alloc = resize_dyn_alloc,
};
