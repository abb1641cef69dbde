/* slice.c - Slice: a strided window of a tensor.
 *   data [d...], starts, ends [, axes [, steps]] (int64, constant; inputs
 *   from opset 10, attributes starts/ends/axes before) -> output
 * For each listed axis (default 0..len-1), with its dim d and step s != 0:
 *   start += d if negative; then clamped to [0, d] (s > 0) or [0, d-1] (s < 0)
 *   end   += d if negative; then clamped to [0, d] (s > 0) or [-1, d-1] (s < 0)
 *   out   = max(0, ceil((end - start) / s))
 * so INT64_MAX / INT64_MIN ends mean "to the end" in either direction
 * (pz_slice_axis, which a dynamic region runs again at the run's dims).
 * Starts, ends, axes or steps known only at run time (op_rt_ints): the
 * output is planned at data's dims (no slice is larger) with a run-time
 * shape, and SLICE reads the four inputs when it runs (rt/ops/slice.c). */
#include <string.h>

#include "fold.h"
#include "slice.h"

typedef struct {
    int rank;
    int64_t start[IR_MAX_RANK], step[IR_MAX_RANK], stride[IR_MAX_RANK];
    int64_t given_start[IR_MAX_RANK], given_end[IR_MAX_RANK], given_step[IR_MAX_RANK];
} slice_map;

static int64_t slice_src(const int64_t *coord, const void *ctx)
{
    const slice_map *m = ctx;
    int64_t s = 0;
    for (int k = 0; k < m->rank; k++) s += (m->start[k] + coord[k] * m->step[k]) * m->stride[k];
    return s;
}

/* Whether starts, ends, axes and steps are read at run time: one is not a
 * constant, and each such one is a vector op_rt_ints_dyn takes (SLICE
 * checks the lengths it reads: a value of a run-time shape may be one). */
static int slice_at_run(const ir_graph *g, const ir_node *n)
{
    int some = 0;
    for (int i = 1; g->opset >= 10 && i < 5 && i < n->n_in; i++) {
        const ir_tensor *t = op_in(g, n, i);
        if (!t || t->data) continue;
        if (!op_rt_ints_dyn(g, n, i, IR_MAX_RANK, NULL)) return 0;
        some = 1;
    }
    return some;
}

/* Reads starts, ends, axes, steps from the attributes or the inputs. */
static pz_status slice_args(const ir_graph *g, const ir_node *n, int64_t *starts, int64_t *ends,
                            int64_t *axes, int64_t *steps, int *count, int *n_axes, int *n_steps,
                            pz_err *err)
{
    int n_ends;
    *n_steps = -1;
    if (g->opset < 10) {
        if (op_attr_ints(n, "starts", starts, IR_MAX_RANK, count, err) ||
            op_attr_ints(n, "ends", ends, IR_MAX_RANK, &n_ends, err) ||
            op_attr_ints(n, "axes", axes, IR_MAX_RANK, n_axes, err))
            return err->code;
        if (*count < 0) return op_err_attr(err, n, "starts", "is required");
        if (n_ends < 0) return op_err_attr(err, n, "ends", "is required");
        if (n->n_in > 1)
            return op_err(err, n, "starts, ends, axes and steps are inputs only from opset 10 "
                          "(the model uses %d)", g->opset);
    } else {
        *n_axes = -1;
        if (op_const_ints(g, n, 1, "starts", starts, IR_MAX_RANK, count, err) ||
            op_const_ints(g, n, 2, "ends", ends, IR_MAX_RANK, &n_ends, err))
            return err->code;
        if (op_in(g, n, 3) && op_const_ints(g, n, 3, "axes", axes, IR_MAX_RANK, n_axes, err))
            return err->code;
        if (op_in(g, n, 4) && op_const_ints(g, n, 4, "steps", steps, IR_MAX_RANK, n_steps, err))
            return err->code;
    }
    if (n_ends != *count)
        return op_err(err, n, "starts has %d entries but ends has %d", *count, n_ends);
    if (*n_axes >= 0 && *n_axes != *count)
        return op_err(err, n, "starts has %d entries but axes has %d", *count, *n_axes);
    if (*n_steps >= 0 && *n_steps != *count)
        return op_err(err, n, "starts has %d entries but steps has %d", *count, *n_steps);
    return PZ_OK;
}

/* The output dims and, per input axis, the first element and the step
 * (0 and 1 on the axes not sliced). */
static pz_status slice_plan(const ir_graph *g, const ir_node *n, int64_t *dims, slice_map *m,
                            pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    int64_t starts[IR_MAX_RANK], ends[IR_MAX_RANK], axes[IR_MAX_RANK], steps[IR_MAX_RANK];
    int count, n_axes, n_steps, ax[IR_MAX_RANK];
    if (slice_args(g, n, starts, ends, axes, steps, &count, &n_axes, &n_steps, err))
        return err->code;
    if (count > x->rank)
        return op_err(err, n, "starts has %d entries but the input has rank %d", count, x->rank);
    if (n_axes < 0)
        for (int i = 0; i < count; i++) axes[i] = i;
    if (op_axes_list(n, "axes", axes, count, x->rank, ax, err)) return err->code;

    m->rank = x->rank;
    for (int k = 0; k < x->rank; k++) {
        dims[k] = x->dims[k];
        m->start[k] = 0;
        m->step[k] = 1;
        m->given_start[k] = 0;
        m->given_end[k] = INT64_MAX;
        m->given_step[k] = 1;
    }
    for (int i = 0; i < count; i++) {
        int k = ax[i];
        int64_t d = x->dims[k], s = n_steps >= 0 ? steps[i] : 1, b, len;
        if (s == 0) return op_err(err, n, "steps[%d] is 0", i);
        pz_slice_axis(d, starts[i], ends[i], s, &b, &len);
        m->given_start[k] = starts[i];
        m->given_end[k] = ends[i];
        m->given_step[k] = s;
        dims[k] = len;
        m->start[k] = len > 0 ? b : 0;   /* an empty axis reads nothing */
        m->step[k] = len > 1 ? s : 1;    /* a single element needs no step */
    }
    return PZ_OK;
}

static pz_status slice_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    int64_t dims[IR_MAX_RANK];
    slice_map m;
    if (slice_at_run(g, n)) {
        op_set_out(g, n, 0, x->dtype, x->rank, x->dims);
        op_set_dyn(g, n, 0);
        return PZ_OK;
    }
    if (slice_plan(g, n, dims, &m, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    if (!op_fold_ready(g, n, 0, x)) return PZ_OK;
    op_strides(x, m.stride);
    op_fold_map(g, n, 0, x, slice_src, &m, NULL);
    return PZ_OK;
}

int op_slice_last_cols(const ir_graph *g, const ir_node *n, int64_t *start)
{
    const ir_tensor *x = op_in(g, n, 0);
    int64_t dims[IR_MAX_RANK];
    slice_map m;
    pz_err err = {0};
    if (!x || x->rank < 1 || slice_at_run(g, n) || slice_plan(g, n, dims, &m, &err)) return 0;
    const int r = x->rank;
    for (int k = 0; k + 1 < r; k++)
        if (dims[k] != x->dims[k] || m.start[k] != 0) return 0;
    if (m.step[r - 1] != 1 || dims[r - 1] < 1) return 0;
    *start = m.start[r - 1];
    return 1;
}

/* SLICE of input 0 with the start and step of every axis; starts, ends,
 * axes and steps (constants) are dropped, or kept for the run to read. */
static pz_status slice_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    int64_t dims[IR_MAX_RANK];
    slice_map m;
    pz_slice_params sp;
    memset(&sp, 0, sizeof sp);
    if (slice_at_run(g, n)) {
        for (int k = 0; k < IR_MAX_RANK; k++)
            sp.step[k] = sp.given_step[k] = 1, sp.given_end[k] = INT64_MAX;
        op_lowered_init(out, n, PZ_OP_SLICE, &sp, sizeof sp);
        out->n_in = n->n_in;
        return PZ_OK;
    }
    if (slice_plan(g, n, dims, &m, err)) return err->code;
    for (int k = 0; k < m.rank; k++) {
        sp.start[k] = m.start[k];
        sp.step[k] = m.step[k];
        sp.given_start[k] = m.given_start[k];
        sp.given_end[k] = m.given_end[k];
        sp.given_step[k] = m.given_step[k];
    }
    op_lowered_init(out, n, PZ_OP_SLICE, &sp, sizeof sp);
    out->n_in = 1;
    return PZ_OK;
}

const op_def op_slice = {
    .name = "Slice",
    .min_in = 1, .max_in = 5, .min_out = 1, .max_out = 1,
    .params_size = 0,
    .parse = NULL,
    .infer = slice_infer,
    .cost = NULL,
    .lower = slice_lower,
};
