/* fold.c - axis lists, constant inputs and constant folding for the
 * shape and data-movement ops. */
#include "fold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int op_fold_ready(ir_graph *g, const ir_node *n, int out, const ir_tensor *src)
{
    const ir_tensor *y = op_out(g, n, out);
    return y && src && src->data && ir_tensor_numel(y) <= OP_FOLD_LIMIT;
}

void op_strides(const ir_tensor *t, int64_t *strides)
{
    int64_t s = 1;
    for (int k = t->rank - 1; k >= 0; k--) {
        strides[k] = s;
        s *= t->dims[k];
    }
}

void op_fold_map(ir_graph *g, const ir_node *n, int out, const ir_tensor *src,
                 op_src_index_fn fn, const void *ctx, const void *fill)
{
    const ir_tensor *y = op_out(g, n, out);
    PZ_ASSERT(y && src->data && src->dtype == y->dtype);
    size_t es = ir_dtype_size(y->dtype);
    int64_t numel = ir_tensor_numel(y), src_numel = ir_tensor_numel(src);
    PZ_ASSERT(es && numel >= 0 && numel <= OP_FOLD_LIMIT);
    char *buf = pz_xcalloc((size_t)(numel ? numel : 1), es);
    int64_t coord[IR_MAX_RANK] = {0};
    for (int64_t o = 0; o < numel; o++) {
        int64_t s = fn(coord, ctx);
        PZ_ASSERT(s >= -1 && s < src_numel);
        if (s >= 0) memcpy(buf + (size_t)o * es, (const char *)src->data + (size_t)s * es, es);
        else if (fill) memcpy(buf + (size_t)o * es, fill, es);
        /* next coordinate, last dim fastest */
        for (int k = y->rank - 1; k >= 0; k--) {
            if (++coord[k] < y->dims[k]) break;
            coord[k] = 0;
        }
    }
    ir_value_set_data(g, n->out[out], buf, (size_t)numel * es);
    free(buf);
}

void op_fold_copy(ir_graph *g, const ir_node *n, int out, const ir_tensor *src)
{
    if (!op_fold_ready(g, n, out, src)) return;
    const ir_tensor *y = op_out(g, n, out);
    PZ_ASSERT(y->dtype == src->dtype && ir_tensor_numel(y) == ir_tensor_numel(src));
    ir_value_set_data(g, n->out[out], src->data,
                      (size_t)ir_tensor_numel(y) * ir_dtype_size(y->dtype));
}

pz_status op_copy_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_COPY, NULL, 0);
    out->n_in = 1;    /* shape, axes: constants that infer already used */
    out->n_out = 1;
    return PZ_OK;
}

pz_status op_axes_at_run(ir_graph *g, const ir_node *n, int count, int sign, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    const int rank = x->rank + sign * count;
    if (rank < 0 || rank > IR_MAX_RANK)
        return op_err(err, n, "the output would have rank %d (input rank %d, %d axes)", rank,
                      x->rank, count);
    int64_t bound = 1, dims[IR_MAX_RANK];   /* each dim a 1 or one of X's */
    for (int k = 0; k < x->rank; k++)
        if (x->dims[k] > bound) bound = x->dims[k];
    for (int k = 0; k < rank; k++) dims[k] = bound;
    op_set_out(g, n, 0, x->dtype, rank, dims);
    op_set_dyn(g, n, 0);
    return PZ_OK;
}

pz_status op_axes_at_run_lower(const ir_graph *g, const ir_node *n, op_lowered *out, int sign,
                               pz_err *err)
{
    int count = 0;
    const ir_tensor *axes = g->opset >= 13 ? op_in(g, n, 1) : NULL;
    /* constant axes of a run-time-shaped X go to RESHAPE too: COPY would
     * map Y's axes to X's by the planned dims, which a unit dim (or an
     * unbounded X's placeholder 1s) leaves ambiguous */
    if (axes && axes->data && g->values[n->in[0]].dyn && axes->rank == 1)
        count = (int)ir_tensor_numel(axes);
    else if (g->opset < 13 || !op_rt_ints(g, n, 1, IR_MAX_RANK, &count))
        return op_copy_lower(g, n, out, err);
    if (sign < 0 && !count) return op_copy_lower(g, n, out, err);
    pz_reshape_params rp = {.axes = sign};
    op_lowered_init(out, n, PZ_OP_RESHAPE, &rp, sizeof rp);
    out->n_in = 2;
    return PZ_OK;
}

pz_status op_axes_list(const ir_node *n, const char *what, const int64_t *axes, int count,
                       int rank, int *out, pz_err *err)
{
    for (int i = 0; i < count; i++) {
        if (axes[i] < -(int64_t)rank || axes[i] >= rank)
            return op_err(err, n, "%s: axis %lld is out of range for rank %d", what,
                          (long long)axes[i], rank);
        out[i] = (int)(axes[i] < 0 ? axes[i] + rank : axes[i]);
        for (int j = 0; j < i; j++)
            if (out[j] == out[i])
                return op_err(err, n, "%s: axis %d is given twice", what, out[i]);
    }
    return PZ_OK;
}

pz_status op_const_floats(const ir_graph *g, const ir_node *n, int i, const char *what,
                          double *out, int max, int *count, pz_err *err)
{
    const ir_tensor *t = op_in(g, n, i);
    if (!t) return op_err(err, n, "input %d (%s) is missing", i, what);
    if (!t->data)
        return op_need_const(err, g, n, i, what,
                             "shapes that depend on run-time data are not supported");
    if (!ir_dtype_is_float(t->dtype))
        return op_err(err, n, "input %d (%s) must be floating-point, got %s", i, what,
                      ir_dtype_name(t->dtype));
    if (t->rank > 1)
        return op_err(err, n, "input %d (%s) must be 1-D, got rank %d", i, what, t->rank);
    int64_t cnt = ir_tensor_numel(t);
    if (cnt > max)
        return op_err(err, n, "input %d (%s) has %lld entries, at most %d allowed", i, what,
                      (long long)cnt, max);
    for (int64_t k = 0; k < cnt; k++) out[k] = ir_load_f64(t->data, t->dtype, (size_t)k);
    *count = (int)cnt;
    return PZ_OK;
}

pz_status op_dim_add(const ir_node *n, const char *what, int64_t a, int64_t b, int64_t *out,
                     pz_err *err)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return op_err(err, n, "%s: %lld + %lld overflows", what, (long long)a, (long long)b);
    *out = a + b;
    return PZ_OK;
}

pz_status op_scale_dim(const ir_node *n, const char *what, int64_t d, double scale, int64_t *out,
                       pz_err *err)
{
    if (!(scale > 0) || isinf(scale))
        return op_err(err, n, "%s: scale %g is not a positive number", what, scale);
    double v = floor((double)d * scale);
    if (v >= 0x1p62)
        return op_err(err, n, "%s: %lld * %g is too large a dim", what, (long long)d, scale);
    *out = (int64_t)v;
    return PZ_OK;
}

pz_status op_upsample_nearest(const ir_node *n, int rank, const double *scale,
                              pz_resize_nearest *out, pz_err *err)
{
    int up = 0, down = 0;
    for (int k = 0; k < rank; k++) {
        up |= scale[k] > 1;
        down |= scale[k] < 1;
    }
    if (up && down)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): nearest resizing that "
                       "enlarges some dims and shrinks others is not supported at this opset "
                       "(%s rounds differently in each direction)", n->name, n->op_type,
                       n->op_type);
    *out = down ? PZ_NEAREST_CEIL : PZ_NEAREST_FLOOR;
    return PZ_OK;
}
