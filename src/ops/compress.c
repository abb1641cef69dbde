/* compress.c - Compress (opsets 9, 11): the slices of X along axis (no axis:
 * the elements of the flattened X) where condition (bool, 1-D) is true.
 * A condition shorter than the axis drops the slices past it. With the
 * condition a constant, Y's shape is known at compile time; otherwise Y has
 * a run-time shape planned at the bound min(len(condition), X's length
 * along the axis). Runs as COMPRESS (rt/ops/compress.c). */
#include "op.h"

typedef struct {
    int64_t axis;
    int has_axis;
} compress_params;

static pz_status compress_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    compress_params *p = params;
    if (op_attr_int(n, "axis", 0, &p->axis, err)) return err->code;
    p->has_axis = op_attr(n, "axis") != NULL;
    return PZ_OK;
}

static pz_status compress_axis(const ir_graph *g, const ir_node *n, int *axis, pz_err *err)
{
    const compress_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    *axis = -1;
    if (!p->has_axis) return PZ_OK;
    if (x->rank < 1) return op_err(err, n, "input X is a scalar, axis needs rank >= 1");
    return op_axis(n, "axis", p->axis, x->rank, 0, axis, err);
}

static pz_status compress_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0), *c = op_in(g, n, 1);
    if (c->dtype != IR_BOOL)
        return op_err(err, n, "input condition has type %s, expected bool", ir_dtype_name(c->dtype));
    if (c->rank != 1) return op_err(err, n, "input condition must be 1-D, has rank %d", c->rank);
    int axis;
    if (compress_axis(g, n, &axis, err)) return err->code;
    int64_t len = axis < 0 ? ir_tensor_numel(x) : x->dims[axis];
    int64_t bound = len < c->dims[0] ? len : c->dims[0];
    if (c->data) {   /* the count is known */
        int64_t k = 0;
        for (int64_t j = 0; j < bound; j++) k += ((const uint8_t *)c->data)[j] != 0;
        bound = k;
    }
    int64_t dims[IR_MAX_RANK];
    for (int a = 0; a < x->rank; a++) dims[a] = a == axis ? bound : x->dims[a];
    if (axis < 0) op_set_out(g, n, 0, x->dtype, 1, &bound);
    else op_set_out(g, n, 0, x->dtype, x->rank, dims);
    if (!c->data) op_set_dyn(g, n, 0);
    return PZ_OK;
}

static pz_status compress_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    int axis;
    if (compress_axis(g, n, &axis, err)) return err->code;
    pz_compress_params cp = {.axis = axis};
    op_lowered_init(out, n, PZ_OP_COMPRESS, &cp, sizeof cp);
    return PZ_OK;
}

const op_def op_compress = {
    .name = "Compress",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(compress_params),
    .parse = compress_parse,
    .infer = compress_infer,
    .lower = compress_lower,
};
