/* reduce_mean.c - the REDUCE_MEAN layer: every ONNX reduction, by its func
 * (the mean is func 0, the kind's first). keepdims only changes Y's shape,
 * not its elements: Y has the kept axes' elements, in order.
 *
 * A float mean over H and W of a rank-4 tensor (x.mean([2, 3]) in PyTorch,
 * ShuffleNetV2's head) is a global average pool: it reads NCHW16c (a fast
 * conv's output as it is) and runs the pool's fast kernel one 16-channel
 * block at a time, each block's means copied to Y's plain [N, C]. The
 * reference (any axes, double sums) is far slower there (bench/RESULTS.md,
 * 'reduce_mean: global average'). With input 1 (axes, int32 or int64) the
 * axes are read at run time: Y was planned at a bound (X's dims, or with
 * keepdims 0 the largest each kept dim can be), the layer is in a dynamic
 * region (dyn_self), and an axis out of range or repeated fails the run
 * naming the layer (pz_layer_run_fail), Y empty. */
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

/* Axes read at run time: the run's params, and whether Y keeps X's rank. */
typedef struct {
    pz_reduce_params now;
    int keep;
} rt_axes_state;

typedef struct {
    pz_pool16c_desc d;       /* one block of one image: n = 1, c = 16, output 1x1 */
    pz_pool16c_fn fn;
    int64_t n, c, hw;
} mean_hw_state;

/* The fast path's state, or NULL where it does not apply. */
static mean_hw_state *mean_hw_plan(const pz_layer *l)
{
    const pz_reduce_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0);
    pz_isa isa = l->isa;
    if (isa == PZ_ISA_REF || p->func != PZ_RED_MEAN || x->dtype != PZ_F32 || x->rank != 4 ||
        p->axes_mask != 0xc ||
        x->dims[2] < 1 || x->dims[3] < 1)
        return NULL;
    pz_pool_params pp = {.kind = PZ_POOL_AVG, .nsp = 2, .kernel = {x->dims[2], x->dims[3]},
                         .stride = {1, 1}, .dilation = {1, 1}};
    const int64_t xd[4] = {1, 16, x->dims[2], x->dims[3]}, yd[4] = {1, 16, 1, 1};
    pz_pool16c_desc d;
    if (pz_pool16c_init(&d, &pp, xd, yd) != 0) return NULL;
    mean_hw_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->d = d;
    st->fn = pz_fast_kernels_for(isa)->pool2d;
    st->n = x->dims[0];
    st->c = x->dims[1];
    st->hw = x->dims[2] * x->dims[3];
    return st;
}

/* The blocked row path (reduce_rows.c): a float32 Sum, Max or Mean over a
 * run of innermost axes, X read as [rows, len]; 0 where it does not apply. */
static int rows_plan(const pz_layer *l, int64_t *rows, int64_t *len)
{
    const pz_reduce_params *p = l->params;
    const pz_tensor *x = l->in[0];
    if (l->isa == PZ_ISA_REF || x->dtype != PZ_F32 || !p->axes_mask ||
        (p->func != PZ_RED_SUM && p->func != PZ_RED_MAX && p->func != PZ_RED_MEAN))
        return 0;
    int k = x->rank;   /* the reduced axes must be [k, rank) */
    while (k > 0 && (p->axes_mask >> (k - 1) & 1)) k--;
    if (p->axes_mask != ((x->rank < 32 ? 1u << x->rank : 0u) - (1u << k))) return 0;
    *rows = pz_prod(x->dims, k);
    *len = pz_prod(x->dims + k, x->rank - k);
    return 1;
}

static int reduce_mean_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_reduce_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if ((unsigned)p->func >= PZ_RED_COUNT_)
        return pz_layer_fail(l, err, n, "func %d is not a reduction", (int)p->func);
    if (!pz_dtype_is_float(x->dtype) && !pz_dtype_is_int(x->dtype) &&
        !(x->dtype == PZ_BOOL && (p->func == PZ_RED_MAX || p->func == PZ_RED_MIN)))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (l->n_in > 1) {   /* the reference, at the run's axes and dims */
        rt_axes_state *st = calloc(1, sizeof *st);
        if (!st) return pz_layer_fail(l, err, n, "out of memory");
        l->state = st;
        st->now = *p;
        st->keep = y->rank == x->rank;
        return 0;
    }
    if (x->rank < 32 && (p->axes_mask >> x->rank) != 0)
        return pz_layer_fail(l, err, n, "axes mask 0x%x beyond rank %d", p->axes_mask, x->rank);
    int64_t kept = 1;
    for (int i = 0; i < x->rank; i++)
        if (!(p->axes_mask >> i & 1)) kept *= x->dims[i];
    if (pz_numel(y) != kept)
        return pz_layer_fail(l, err, n, "Y has %lld elements, expected %lld",
                             (long long)pz_numel(y), (long long)kept);
    if (l->dyn) return 0;   /* a dynamic region: the reference, at the run's dims */
    if ((l->state = mean_hw_plan(l))) {
        l->in_cblk[0] = 16;
        l->kernel = "global-avg16c";
    }
    int64_t rows, len;
    if (!l->state && rows_plan(l, &rows, &len)) l->kernel = "rows16";
    return 0;
}

/* The worker's share of (image, block): the block's 16 means (a global
 * average pool) into its channels of Y. */
static void mean_hw_run(const mean_hw_state *st, const float *x, float *y, int ith, int nth)
{
    const int64_t cb = (st->c + 15) / 16;
    int64_t lo, hi;
    pz_split(st->n * cb, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t i = u / cb, b = u % cb, nc = st->c - b * 16 < 16 ? st->c - b * 16 : 16;
        float m[16];
        st->fn(&st->d, x + u * st->hw * 16, m, 0, 1);
        for (int64_t k = 0; k < nc; k++) y[i * st->c + b * 16 + k] = m[k];
    }
}

static void reduce_mean_run(const pz_layer *l, int ith, int nth)
{
    const pz_reduce_params *p = l->params;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    int64_t rows, len;
    if (l->n_in > 1 && !pz_numel(y)) return;   /* nothing, or the run failed (run_shape) */
    if (l->n_in > 1) p = &((const rt_axes_state *)l->state)->now;
    if (l->state && l->n_in == 1)
        mean_hw_run(l->state, x->data, y->data, ith, nth);
    else if (!l->dyn && rows_plan(l, &rows, &len))
        pz_f32_reduce_rows__blocked(p->func, rows, len, x->data, y->data, ith, nth);
    else if (x->dtype == PZ_F32)
        pz_f32_reduce__ref(p, x->rank, x->dims, x->data, y->data, ith, nth);
    else
        pz_any_reduce__ref(p, x->dtype, x->rank, x->dims, x->data, y->data, ith, nth);
}

static const char *const REDUCE_FUNC[] = {
    "PZ_RED_MEAN", "PZ_RED_SUM", "PZ_RED_MAX", "PZ_RED_MIN", "PZ_RED_PROD", "PZ_RED_L1",
    "PZ_RED_L2", "PZ_RED_LOG_SUM", "PZ_RED_LOG_SUM_EXP", "PZ_RED_SUM_SQUARE"};
_Static_assert(PZ_RT_LEN(REDUCE_FUNC) == PZ_RED_COUNT_, "a name for each pz_reduce_func");
static const pz_param_field reduce_fields[] = {
    PZ_FIELD(pz_reduce_params, axes_mask, PZ_F_UNS),
    PZ_FIELD_ENUM(pz_reduce_params, func, REDUCE_FUNC),
};

/* Row-local when it keeps the rows and every axis. */
static int reduce_mean_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    if ((((const pz_reduce_params *)l->params)->axes_mask & 4u) || l->in[0].rank != l->out[0].rank) {
        m->why = "reduces over the rows or drops axes";
        return 0;
    }
    return 1;
}

/* A dynamic region: Y has X's kept axes, each reduced one 1 where Y was
 * planned with X's rank (keepdims), else dropped. */
static const char *read_axes(const pz_layer *l, rt_axes_state *st)
{
    const pz_tensor *x = l->in[0];
    int64_t axes[PZ_MAX_RANK];
    int cnt = pz_run_ints(l->in[1], axes, PZ_MAX_RANK);
    if (cnt < 0) return "axes must be an int32 or int64 vector of at most the rank";
    st->now.axes_mask = 0;
    for (int i = 0; i < cnt; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + x->rank : axes[i];
        if (a < 0 || a >= x->rank) return "an axis is out of range";
        if (st->now.axes_mask >> a & 1) return "an axis is repeated";
        st->now.axes_mask |= 1u << a;
    }
    return NULL;
}

static void reduce_mean_run_shape(const pz_layer *l)
{
    const pz_reduce_params *p = l->params;
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    int keep = y->rank == x->rank;
    if (l->n_in > 1) {
        rt_axes_state *st = l->state;
        const char *why = read_axes(l, st);
        if (why) {
            pz_layer_run_fail(l, "%s", why);
            for (int i = 0; i < y->rank; i++) y->dims[i] = 0;
            st->now.axes_mask = 0;
            return;
        }
        p = &st->now;
        keep = st->keep;
    }
    int r = 0;
    for (int i = 0; i < x->rank; i++)
        if (!(p->axes_mask >> i & 1)) y->dims[r++] = x->dims[i];
        else if (keep) y->dims[r++] = 1;
    y->rank = r;
}

static int reduce_mean_dyn_self(const pz_layer *l)
{
    return l->n_in > 1;
}

const pz_rt_op pz_rt_op_reduce_mean = {
    .name = "REDUCE_MEAN", PZ_OP_PARAMS(pz_reduce_params, reduce_fields),
    .dyn_self = reduce_mean_dyn_self,
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = reduce_mean_prepare, .run = reduce_mean_run,
    .row_rule = reduce_mean_row_rule, .run_shape = reduce_mean_run_shape,
};
