/* reshape.c - the RESHAPE layer: ONNX Reshape whose shape (input 1, int32 or
 * int64, its length Y's rank) is read at run time; a constant shape is a
 * view or a COPY instead.
 *
 * Design (issue 39, run-time shaping inputs): the compiler plans Y at a
 * bound on every dim, the largest a dim can be: X's element count (or X's
 * largest dim, which a 0 may copy), so the arena and every layer after it
 * are sized for any shape the run may give, and the layer is in a dynamic
 * region (dyn_self): run_shape sets Y's dims from the values, and the
 * layers after it take the run's shape (op_desc.h run_shape). A shape that
 * does not fit (a product other than X's count, two -1, a value below -1,
 * a 0 past X's rank, a dim above the bound) fails the run naming the layer
 * (pz_layer_run_fail), Y empty. The bound is per dim: a rank-r Y is planned
 * at count^r elements, which the compiler refuses when it overflows; a
 * bound on the element count alone would need one the layers after it keep
 * too, which they do not have. Unsqueeze and Squeeze with axes read at run
 * time run here too (params.axes): Y's rank is fixed by the axes' count,
 * each dim planned at X's largest. */
#include <string.h>

#include "rt/ops/ops.h"

typedef struct {
    int64_t bound[PZ_MAX_RANK];   /* Y's planned dims */
} reshape_state;

static int reshape_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *s = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !s || !y) return pz_layer_fail(l, err, n, "needs X, shape and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    const pz_reshape_params *p = l->params;
    const int want = p->axes ? (y->rank - x->rank) * p->axes : y->rank;
    if (p->axes < -1 || p->axes > 1)
        return pz_layer_fail(l, err, n, "axes mode %d is not -1, 0 or 1", p->axes);
    if (s->rank > 1 || (s->dtype != PZ_I64 && s->dtype != PZ_I32) || pz_numel(s) != want)
        return pz_layer_fail(l, err, n, "%s must be %d int32 or int64 values",
                             p->axes ? "axes" : "shape (Y's rank)", want);
    reshape_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    /* allocated at run time (a region after an unbounded tensor): no bound */
    for (int k = 0; k < y->rank; k++) st->bound[k] = l->rt_alloc ? INT64_MAX : y->dims[k];
    return 0;
}

/* Y's dims from Unsqueeze's (axes 1) or Squeeze's (-1) axes; NULL, or why
 * they do not fit. */
static const char *axes_dims(const pz_layer *l, int64_t *dims, char *why, size_t n)
{
    const pz_reshape_params *p = l->params;
    const reshape_state *st = l->state;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    const int r = p->axes > 0 ? y->rank : x->rank;   /* the rank the axes count in */
    int64_t ax[PZ_MAX_RANK];
    const int cnt = pz_run_ints(l->in[1], ax, PZ_MAX_RANK);
    if (cnt != (y->rank - x->rank) * p->axes) return "axes is not the planned count";
    unsigned mark = 0;
    for (int i = 0; i < cnt; i++) {
        const int64_t a = ax[i] < 0 ? ax[i] + r : ax[i];
        if (a < 0 || a >= r) {
            snprintf(why, n, "axes[%d] is %lld, out of range for rank %d", i, (long long)ax[i], r);
            return why;
        }
        if (mark & (1u << a)) {
            snprintf(why, n, "axes names dim %lld twice", (long long)a);
            return why;
        }
        mark |= 1u << a;
    }
    for (int k = 0, j = 0; k < r; k++) {
        if (p->axes > 0) {
            dims[k] = mark & (1u << k) ? 1 : x->dims[j++];
        } else if (!(mark & (1u << k))) {
            dims[j++] = x->dims[k];
        } else if (x->dims[k] != 1) {
            snprintf(why, n, "axes: dim %d is %lld, only a dim of size 1 can be squeezed", k,
                     (long long)x->dims[k]);
            return why;
        }
    }
    for (int k = 0; k < y->rank; k++)
        if (dims[k] > st->bound[k]) {
            snprintf(why, n, "dim %d is %lld, above the planned bound %lld", k,
                     (long long)dims[k], (long long)st->bound[k]);
            return why;
        }
    return NULL;
}

/* Y's dims from the shape; NULL, or why they do not fit. */
static const char *reshape_dims(const pz_layer *l, int64_t *dims, char *why, size_t n)
{
    const pz_reshape_params *p = l->params;
    const reshape_state *st = l->state;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    int64_t shape[PZ_MAX_RANK];
    if (p->axes) return axes_dims(l, dims, why, n);
    if (pz_run_ints(l->in[1], shape, PZ_MAX_RANK) != y->rank) return "shape is not Y's rank";
    int at = -1;
    int64_t known = 1;
    for (int k = 0; k < y->rank; k++) {
        dims[k] = shape[k];
        if (shape[k] == 0 && !p->allowzero) {
            if (k >= x->rank) return "shape has a 0 (copy X's dim) past X's rank";
            dims[k] = x->dims[k];
        } else if (shape[k] == -1) {
            if (at >= 0) return "shape has two -1";
            at = k;
            dims[k] = 1;
        } else if (shape[k] < 0) {
            snprintf(why, n, "shape[%d] is %lld", k, (long long)shape[k]);
            return why;
        }
        if (k != at && dims[k] > st->bound[k]) {
            snprintf(why, n, "dim %d is %lld, above the planned bound %lld", k,
                     (long long)dims[k], (long long)st->bound[k]);
            return why;
        }
        if (dims[k] && known > INT64_MAX / dims[k]) return "the shape has too many elements";
        known *= dims[k];
    }
    const int64_t count = pz_numel(x);
    if (at >= 0) {
        if (known == 0 || count % known) return "the -1 dim cannot be inferred";
        dims[at] = count / known;
        known = count;
    }
    if (at >= 0 && dims[at] > st->bound[at]) return "the -1 dim is above its planned bound";
    if (at >= 0 && p->minus_dim > 0 && dims[at] != p->minus_dim) {
        snprintf(why, n, "the -1 dim is %lld, the compile took it as %lld at every run "
                 "(X's other dims against the shape's)", (long long)dims[at],
                 (long long)p->minus_dim);
        return why;
    }
    if (known != count) {
        snprintf(why, n, "the shape has %lld elements, X %lld", (long long)known,
                 (long long)count);
        return why;
    }
    return NULL;
}

static void reshape_run_shape(const pz_layer *l)
{
    pz_tensor *y = l->out[0];
    int64_t dims[PZ_MAX_RANK];
    char buf[160];
    const char *why = reshape_dims(l, dims, buf, sizeof buf);
    if (why) {
        pz_layer_run_fail(l, "%s", why);
        for (int k = 0; k < y->rank; k++) y->dims[k] = 0;
        return;
    }
    for (int k = 0; k < y->rank; k++) y->dims[k] = dims[k];
}

static void reshape_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *y = l->out[0];
    pz_any_copy__ref((size_t)pz_numel(y) * pz_dtype_size(y->dtype), l->in[0]->data, y->data,
                     ith, nth);
}

static int reshape_dyn_self(const pz_layer *l)
{
    return 1;
}

static const pz_param_field reshape_fields[] = {
    PZ_FIELD(pz_reshape_params, allowzero, PZ_F_INT),
    PZ_FIELD(pz_reshape_params, axes, PZ_F_INT),
    PZ_FIELD(pz_reshape_params, minus_dim, PZ_F_I64),
};

const pz_rt_op pz_rt_op_reshape = {
    .name = "RESHAPE", PZ_OP_PARAMS(pz_reshape_params, reshape_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = reshape_prepare, .run = reshape_run,
    .run_shape = reshape_run_shape, .dyn_self = reshape_dyn_self,
};
