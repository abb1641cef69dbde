/* concat.c - Concat: joins tensors along `axis`.
 *   inputs[i] [d0.. a_i ..] (same rank and type, equal dims but the axis)
 *   -> concat_result [d0.. sum(a_i) ..]
 * axis is required from opset 4 (default 1 before); negative from opset 11. */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

typedef struct {
    int axis;
} concat_params;

static pz_status concat_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    concat_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis;
    if (g->opset >= 4 && !op_attr(n, "axis")) return op_err_attr(err, n, "axis", "is required");
    if (op_attr_int(n, "axis", 1, &axis, err)) return err->code;
    return op_axis(n, "axis", axis, x->rank, 0, &p->axis, err);
}

/* Copies the inputs' blocks in turn: for each index over dims before the
 * axis, input i contributes dims_i[axis] * prod(dims after the axis). */
static void concat_fold(ir_graph *g, const ir_node *n, int axis)
{
    const ir_tensor *y = op_out(g, n, 0);
    size_t es = ir_dtype_size(y->dtype);
    int64_t numel = ir_tensor_numel(y), outer = 1, inner = 1;
    for (int k = 0; k < axis; k++) outer *= y->dims[k];
    for (int k = axis + 1; k < y->rank; k++) inner *= y->dims[k];
    char *buf = pz_xcalloc((size_t)(numel ? numel : 1), es), *dst = buf;
    for (int64_t o = 0; numel && o < outer; o++)   /* numel 0: outer may be huge */
        for (int i = 0; i < n->n_in; i++) {
            const ir_tensor *x = op_in(g, n, i);
            size_t block = (size_t)(x->dims[axis] * inner) * es;
            if (block) memcpy(dst, (const char *)x->data + (size_t)o * block, block);
            dst += block;
        }
    ir_value_set_data(g, n->out[0], buf, (size_t)numel * es);
    free(buf);
}

static pz_status concat_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const concat_params *p = n->params;
    const ir_tensor *x0 = op_in(g, n, 0);
    int64_t dims[IR_MAX_RANK];
    memcpy(dims, x0->dims, sizeof dims);
    int all_const = x0->data != NULL;
    for (int i = 1; i < n->n_in; i++) {
        const ir_tensor *x = op_in(g, n, i);
        if (!x) return op_err(err, n, "input %d is missing", i);
        if (x->dtype != x0->dtype)
            return op_err(err, n, "input %d is %s but input 0 is %s", i, ir_dtype_name(x->dtype),
                          ir_dtype_name(x0->dtype));
        if (x->rank != x0->rank)
            return op_err(err, n, "input %d has rank %d but input 0 has rank %d", i, x->rank,
                          x0->rank);
        for (int k = 0; k < x->rank; k++)
            if (k != p->axis && x->dims[k] != x0->dims[k]) {
                char a[128], b[128];
                return op_err(err, n, "input %d is %s but input 0 is %s: dim %d differs and is "
                              "not the concat axis %d", i, ir_shape_str(x, a, sizeof a),
                              ir_shape_str(x0, b, sizeof b), k, p->axis);
            }
        if (op_dim_add(n, "the concatenated dim", dims[p->axis], x->dims[p->axis],
                       &dims[p->axis], err))
            return err->code;
        all_const &= x->data != NULL;
    }
    if (op_check_dims(n, x0->rank, dims, err)) return err->code;
    op_set_out(g, n, 0, x0->dtype, x0->rank, dims);
    if (all_const && op_fold_ready(g, n, 0, x0)) concat_fold(g, n, p->axis);
    return PZ_OK;
}

/* CONCAT of every input along the normalised axis. */
static pz_status concat_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const concat_params *p = n->params;
    pz_axis_params ap = {.axis = p->axis};
    op_lowered_init(out, n, PZ_OP_CONCAT, &ap, sizeof ap);
    return PZ_OK;
}

const op_def op_concat = {
    .name = "Concat",
    .min_in = 1, .max_in = 1 << 16, .min_out = 1, .max_out = 1,
    .params_size = sizeof(concat_params),
    .parse = concat_parse,
    .infer = concat_infer,
    .cost = NULL,
    .lower = concat_lower,
};
