/* pool.c - the POOL layer: X -> Y, Indices? (max or average, N-d). */
#include <string.h>

#include "rt/kernels/fast.h"
#include "rt/kernels/pool/pool_frames.h"
#include "rt/ops/ops.h"
#include "rt/rows.h"

/* A 2-D float pool without Indices runs the fast kernel on NCHW16c and
 * writes NCHW16c: a blocked input (from a fast conv) as it is, a plain one
 * converted by the runtime first (one pass, far cheaper than the reference:
 * bench/RESULTS.md, 'pool: fast kernel'); everything else (Indices,
 * other types, PZ_ISA=ref) runs the reference on plain NCHW. A 1-D or 3-D
 * float pool without Indices runs pool_frames.h (profile kernel "pool
 * frames"): plain in and out, the 2-D kernel on every frame, then a max or
 * average over the frames of each window in T.
 * A 2-D max pool of uint8/int8 (a quantized model's, after the qdq pass)
 * runs on NCHW16c bytes too (maxpool16c_u8.c). */
typedef struct {
    pz_pool16c_desc d;
    pz_pool16c_fn fn;
    int bytes;          /* 1: uint8, 2: int8 max pooling on NCHW16c bytes */
    pz_pool_frames *fr; /* 1-D, 3-D: per frame (no row ranges) */
    bool ref;           /* a dynamic region: the reference, at the run's dims */
    int64_t xplan[PZ_MAX_RANK];   /* X's dims at prepare (a dynamic region) */
} pool_state;

int pz_pool_query_row_step(const pz_pool_params *p, int rank, const int64_t *xd,
                           const int64_t *yd, pz_dtype dtype, int indices, pz_isa isa)
{
    pz_pool16c_desc d;
    return isa != PZ_ISA_REF && dtype == PZ_F32 && !indices && rank == 4 &&
           pz_pool16c_init(&d, p, xd, yd) == 0;
}

static int pool_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_pool_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0), *ix = pz_out(l, 1);
    char bx[96], by[96];
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (p->kind != PZ_POOL_MAX && p->kind != PZ_POOL_AVG)
        return pz_layer_fail(l, err, n, "unknown pool kind %d", (int)p->kind);
    if (!pz_dtype_is_float(x->dtype) && !(p->kind == PZ_POOL_MAX && pz_dtype_is_int(x->dtype)))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (p->nsp < 1 || p->nsp > PZ_MAX_SPATIAL || x->rank != 2 + p->nsp || y->rank != x->rank ||
        y->dims[0] != x->dims[0] || y->dims[1] != x->dims[1])
        return pz_layer_fail(l, err, n, "X %s, Y %s with %d spatial dims",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(y, by, sizeof by),
                             p->nsp);
    for (int j = 0; j < p->nsp; j++) {
        int64_t k = p->kernel[j], s = p->stride[j], d = p->dilation[j];
        int64_t span = x->dims[2 + j] + p->pad_begin[j] + p->pad_end[j] - d * (k - 1) - 1;
        if (k < 1 || s < 1 || d < 1 || p->pad_begin[j] < 0 || p->pad_end[j] < 0 || span < 0)
            return pz_layer_fail(l, err, n, "spatial dim %d: kernel %lld, stride %lld, "
                                 "dilation %lld, pads %lld/%lld on %lld", j, (long long)k,
                                 (long long)s, (long long)d, (long long)p->pad_begin[j],
                                 (long long)p->pad_end[j], (long long)x->dims[2 + j]);
        /* floor mode, or ceil mode (at most one more window) */
        int64_t lo = span / s + 1, hi = (span + s - 1) / s + 1;
        if (y->dims[2 + j] < lo || y->dims[2 + j] > hi)
            return pz_layer_fail(l, err, n, "spatial dim %d: Y has %lld, expected %lld..%lld",
                                 j, (long long)y->dims[2 + j], (long long)lo, (long long)hi);
    }
    if (ix) {
        if (p->kind != PZ_POOL_MAX)
            return pz_layer_fail(l, err, n, "Indices is for max pooling only");
        if (pz_layer_want_dtype(l, err, n, "Indices", ix, PZ_I64) ||
            pz_layer_want_same_shape(l, err, n, "Indices", ix, y))
            return 1;
    }
    pz_isa isa = l->isa;
    pz_pool16c_desc d;
    if (l->dyn) {   /* the reference reads the run's N and C from the tensors */
        pool_state *st = calloc(1, sizeof *st);
        if (!st) return pz_layer_fail(l, err, n, "out of memory");
        st->ref = true;
        memcpy(st->xplan, x->dims, sizeof st->xplan);
        l->state = st;
    } else if (pz_pool_query_row_step(p, x->rank, x->dims, y->dims, x->dtype, ix != NULL, isa) &&
        pz_pool16c_init(&d, p, x->dims, y->dims) == 0) {
        pool_state *st = calloc(1, sizeof *st);
        if (!st) return pz_layer_fail(l, err, n, "out of memory");
        st->d = d;
        st->fn = pz_fast_kernels_for(isa)->pool2d;
        l->state = st;
        l->in_cblk[0] = l->out_cblk[0] = 16;
    } else if (isa != PZ_ISA_REF && !ix && x->rank == 4 && p->kind == PZ_POOL_MAX &&
               (x->dtype == PZ_U8 || x->dtype == PZ_I8) &&
               pz_pool16c_init(&d, p, x->dims, y->dims) == 0) {
        pool_state *st = calloc(1, sizeof *st);
        if (!st) return pz_layer_fail(l, err, n, "out of memory");
        st->d = d;
        st->bytes = x->dtype == PZ_I8 ? 2 : 1;
        l->state = st;
        l->in_cblk[0] = l->out_cblk[0] = 16;
        l->kernel = "max16c_8bit";
    } else if (isa != PZ_ISA_REF && !ix && x->dtype == PZ_F32 &&
               pz_pool_frames_takes(p, x->rank)) {
        pool_state *st = calloc(1, sizeof *st);
        if (!st) return pz_layer_fail(l, err, n, "out of memory");
        l->state = st;
        if (pz_pool_frames_make(&st->fr, p, x->rank, x->dims, y->dims, isa))
            return pz_layer_fail(l, err, n, "out of memory");
        l->scratch_bytes = pz_pool_frames_scratch_bytes(st->fr);
        l->scratch_run_only = 1;
        l->kernel = "pool frames";
    }
    return 0;
}

static void pool_release(pz_layer *l)
{
    pool_state *st = l->state;
    if (st) pz_pool_frames_free(st->fr);
}

static void pool_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0], *y = l->out[0], *ix = pz_out(l, 1);
    int64_t *idx = ix ? ix->data : NULL;
    const pool_state *st = l->state;
    if (st && st->ref && pz_numel(y) == 0) return;   /* nothing, or run_shape failed */
    if (st && st->ref) st = NULL;
    if (st && st->fr)
        pz_pool_frames_run(st->fr, x->data, y->data, l->scratch, ith, nth);
    else if (st && st->bytes)
        pz_8_maxpool2d_nchw16c(&st->d, st->bytes == 2, x->data, y->data, ith, nth);
    else if (st)
        st->fn(&st->d, x->data, y->data, ith, nth);
    else if (x->dtype == PZ_F32)
        pz_f32_pool__ref(l->params, x->dims, y->dims, x->data, y->data, idx, ith, nth);
    else
        pz_any_pool__ref(l->params, x->dtype, x->dims, y->dims, x->data, y->data, idx, ith, nth);
}

/* Row ranges (fused F-Blocks): the fast kernel on one 16-channel block of
 * one image at a time, as a pooling of r1 - r0 output rows over the input
 * rows from the first one they read (the same windows and divisors). */
static int pool_rows(const pz_layer *l)
{
    const pool_state *st = l->state;
    return st && !st->fr && !st->ref && pz_out(l, 1) == NULL ? 1 : 0;
}

static void pool_run_rows(const pz_layer *l, const void *const *in, void *out, int64_t r0,
                          int64_t r1, int ith, int nth)
{
    const pool_state *st = l->state;
    const pz_pool16c_desc *d = &st->d;
    const char *x = in[0];
    char *y = out;
    const int64_t es = st->bytes ? 1 : (int64_t)sizeof(float);   /* 8-bit max: bytes */
    if (r1 <= r0) return;
    int64_t cb = (d->c + 15) / 16, ish = r0 * d->sh - d->pt;
    if (ish < 0) ish = 0;
    pz_pool16c_desc s = *d;
    s.n = 1;
    s.oh = r1 - r0;
    s.h = d->h - ish;
    s.pt = d->pt - r0 * d->sh + ish;
    for (int64_t i = 0; i < d->n; i++)
        for (int64_t bc = 0; bc < cb; bc++) {
            s.c = d->c - bc * 16 < 16 ? d->c - bc * 16 : 16;
            const char *xs = x + ((i * cb + bc) * d->h + ish) * d->w * 16 * es;
            char *ys = y + ((i * cb + bc) * d->oh + r0) * d->ow * 16 * es;
            if (st->bytes) pz_8_maxpool2d_nchw16c(&s, st->bytes == 2, xs, ys, ith, nth);
            else st->fn(&s, (const float *)xs, (float *)ys, ith, nth);
        }
}

static const char *const POOL_KIND[] = {"PZ_POOL_MAX", "PZ_POOL_AVG"};
static const pz_param_field pool_fields[] = {
    PZ_FIELD_ENUM(pz_pool_params, kind, POOL_KIND), PZ_FIELD(pz_pool_params, nsp, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_pool_params, kernel, PZ_F_I64), PZ_FIELD_ARRAY(pz_pool_params, stride, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_pool_params, dilation, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_pool_params, pad_begin, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_pool_params, pad_end, PZ_F_I64),
    PZ_FIELD(pz_pool_params, count_include_pad, PZ_F_INT),
    PZ_FIELD(pz_pool_params, storage_order, PZ_F_INT),
};

/* Row-local through the window, unless one window covers every row. */
static int pool_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    const pz_pool_params *p = l->params;
    int64_t in_rows = l->in[0].rank >= 3 ? l->in[0].dims[2] : -1;
    if (l->out[0].dims[2] == 1 && p->kernel[0] >= in_rows + p->pad_begin[0] + p->pad_end[0] &&
        in_rows > 1) {
        m->why = "pools over all rows (global pooling)";
        return 0;
    }
    m->in[0] = (pz_row_input){.kind = PZ_ROWS_WINDOW, .kernel = p->kernel[0],
                              .stride = p->stride[0] > 0 ? p->stride[0] : 1, .pad = p->pad_begin[0],
                              .dilation = p->dilation[0] > 0 ? p->dilation[0] : 1};
    return 1;
}

/* A dynamic region: N and C the run's, Y's spatial dims as planned (the
 * window, ceil mode and global pooling were decided from them); X's
 * spatial dims must be the planned ones, else the run fails naming the
 * layer (Y empty). */
static void pool_run_shape(const pz_layer *l)
{
    const pool_state *st = l->state;
    const pz_tensor *x = l->in[0];
    int same = x->rank == l->out[0]->rank;
    for (int d = 2; same && d < x->rank; d++) same = x->dims[d] == st->xplan[d];
    for (int j = 0; j < l->n_out; j++) {
        pz_tensor *y = l->out[j];
        if (!y) continue;
        y->dims[0] = same ? x->dims[0] : 0;
        y->dims[1] = x->dims[1];
    }
    if (!same) {
        pz_tensor plan = *x;
        memcpy(plan.dims + 2, st->xplan + 2, (size_t)(x->rank - 2) * sizeof plan.dims[0]);
        char sx[96], sp[96];
        pz_layer_run_fail(l, "X is %s, expected %s (the spatial dims are planned; N and C "
                          "may vary at run time)", pz_shape_str(x, sx, sizeof sx),
                          pz_shape_str(&plan, sp, sizeof sp));
    }
}

const pz_rt_op pz_rt_op_pool = {
    .rows = pool_rows, .run_rows = pool_run_rows,
    .name = "POOL", PZ_OP_PARAMS(pz_pool_params, pool_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 2,
    .prepare = pool_prepare, .run = pool_run, .release = pool_release,
    .row_rule = pool_row_rule, .run_shape = pool_run_shape,
};
