/* tensor_scatter.c - TensorScatter (opset 24): a KV-cache update. Y is a
 * copy of past_cache with update's rows along axis (default -2, not the
 * batch axis 0) written from write_indices[b] on (zeros when omitted);
 * mode "circular" wraps them modulo the axis; "linear" (default) needs the
 * rows to fit before the axis' end (ONNX leaves the rest undefined; ONNX
 * Runtime fails, as does a negative index in either mode: a constant one
 * is refused here, a run-time one fails the run).
 *   past_cache [B, ..., M, ...], update [B, ..., S, ...] (S <= M), the same
 *   type, write_indices? int64 [B] -> Y [past's shape and type]
 * Runs as TENSOR_SCATTER (rt/ops/tensor_scatter.c). */
#include <string.h>

#include "reduce.h"

typedef struct {
    int axis, circular;
} tensor_scatter_params;

static pz_status tensor_scatter_parse(const ir_graph *g, const ir_node *n, void *params,
                                      pz_err *err)
{
    tensor_scatter_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis;
    const char *mode;
    if (op_attr_int(n, "axis", -2, &axis, err) ||
        op_attr_string(n, "mode", "linear", &mode, err))
        return err->code;
    if (x->rank < 2) return op_err(err, n, "input past_cache must have rank >= 2, got %d",
                                   x->rank);
    if (op_axis(n, "axis", axis, x->rank, 0, &p->axis, err)) return err->code;
    if (p->axis == 0) return op_err_attr(err, n, "axis", "is the batch axis 0");
    if (strcmp(mode, "linear") && strcmp(mode, "circular"))
        return op_err_attr(err, n, "mode", "is \"%s\", must be \"linear\" or \"circular\"", mode);
    p->circular = !strcmp(mode, "circular");
    return PZ_OK;
}

static pz_status tensor_scatter_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const tensor_scatter_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *u = op_in(g, n, 1), *wi = op_in(g, n, 2);
    if (ir_dtype_size(x->dtype) == 0)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (TensorScatter): input past_cache "
                       "has type %s, not supported", n->name, ir_dtype_name(x->dtype));
    if (u->dtype != x->dtype)
        return op_err(err, n, "input update has type %s, past_cache %s", ir_dtype_name(u->dtype),
                      ir_dtype_name(x->dtype));
    int ok = u->rank == x->rank;
    for (int a = 0; ok && a < x->rank; a++)
        ok = a == p->axis ? u->dims[a] <= x->dims[a] : u->dims[a] == x->dims[a];
    if (!ok) {
        char sx[128], su[128];
        return op_err(err, n, "input update %s must be past_cache's shape %s but along axis %d "
                      "(at most as long)", ir_shape_str(u, su, sizeof su),
                      ir_shape_str(x, sx, sizeof sx), p->axis);
    }
    if (wi && (wi->dtype != IR_I64 || wi->rank != 1 || wi->dims[0] != x->dims[0]))
        return op_err(err, n, "input write_indices must be int64 [%lld]", (long long)x->dims[0]);
    /* constant write indices >= 0, linear ones leaving room for the update
     * (as ONNX Runtime 1.30; the run checks others) */
    if (op_check_span(g, n, wi, "write_indices", 0,
                      p->circular ? INT64_MAX : x->dims[p->axis] - u->dims[p->axis], err))
        return err->code;
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

static pz_status tensor_scatter_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                      pz_err *err)
{
    const tensor_scatter_params *p = n->params;
    pz_tensor_scatter_params tp = {.axis = p->axis, .circular = p->circular};
    op_lowered_init(out, n, PZ_OP_TENSOR_SCATTER, &tp, sizeof tp);
    return PZ_OK;
}

const op_def op_tensor_scatter = {
    .name = "TensorScatter",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(tensor_scatter_params),
    .parse = tensor_scatter_parse,
    .infer = tensor_scatter_infer,
    .lower = tensor_scatter_lower,
};
