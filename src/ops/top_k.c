/* top_k.c - TopK (opsets 1, 10, 11, 24): the k largest (largest=1, the
 * default) or smallest entries along axis (default -1) and their indices.
 *   X [any shape, rank >= 1], K int64 [1] (opset 10+; opset 1: attribute k)
 *   -> Values [X's shape, k along axis] (X's type), Indices int64 [same].
 * K shapes the outputs: a constant (op_const_ints; the loader binds a graph
 * input), or one computed at run time (k = min(K, the number of detections)
 * from a Shape of a NonZero's output): then the outputs have run-time
 * shapes (ir_value.dyn) planned at k = X's size along axis, the bound. Ties go to the lower index, as ONNX asks; sorted=0 leaves the
 * order free, the kernel sorts anyway. Runs as TOPK (rt/ops/topk.c). */
#include "reduce.h"

typedef struct {
    int64_t axis, largest, sorted, k_attr;
    int k_given;
} top_k_params;

static pz_status top_k_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    top_k_params *p = params;
    if (op_attr_int(n, "axis", -1, &p->axis, err) ||
        op_attr_int(n, "largest", 1, &p->largest, err) ||
        op_attr_int(n, "sorted", 1, &p->sorted, err) ||
        op_attr_int(n, "k", -1, &p->k_attr, err))
        return err->code;
    p->k_given = op_attr(n, "k") != NULL;
    if (p->largest != 0 && p->largest != 1)
        return op_err_attr(err, n, "largest", "is %lld, must be 0 or 1", (long long)p->largest);
    if (p->sorted != 0 && p->sorted != 1)
        return op_err_attr(err, n, "sorted", "is %lld, must be 0 or 1", (long long)p->sorted);
    if (!op_in(g, n, 1) && !p->k_given)
        return op_err(err, n, "needs the input K (or, opset 1, the attribute k)");
    return PZ_OK;
}

/* k and the axis (normalised) of the node, checked against X. */
static pz_status top_k_geometry(const ir_graph *g, const ir_node *n, int64_t *k, int *axis,
                                pz_err *err)
{
    const top_k_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (x->rank < 1) return op_err(err, n, "input X must have rank >= 1, got a scalar");
    if (op_axis(n, "axis", p->axis, x->rank, 0, axis, err)) return err->code;
    const ir_tensor *kt = op_in(g, n, 1);
    if (kt && !kt->data) {
        if (kt->dtype != IR_I64 || ir_tensor_numel(kt) != 1 || kt->rank > 1)
            return op_err(err, n, "input K must be one int64, got %s of %lld values",
                          ir_dtype_name(kt->dtype), (long long)ir_tensor_numel(kt));
        *k = -1;   /* the run's: planned at the bound */
        return PZ_OK;
    }
    if (kt) {
        int cnt;
        if (op_const_ints(g, n, 1, "K", k, 1, &cnt, err)) return err->code;
        if (cnt != 1) return op_err(err, n, "input K must hold one value, got %d", cnt);
    } else {
        *k = p->k_attr;
    }
    if (*k < 0 || *k > x->dims[*axis])
        return op_err(err, n, "k is %lld, must be in [0, %lld] (X's size along axis %d)",
                      (long long)*k, (long long)x->dims[*axis], *axis);
    return PZ_OK;
}

static pz_status top_k_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (op_want_numeric(n, x, "X", 1, 0, err)) return err->code;
    int64_t k, dims[IR_MAX_RANK];
    int axis;
    if (top_k_geometry(g, n, &k, &axis, err)) return err->code;
    for (int a = 0; a < x->rank; a++) dims[a] = a == axis && k >= 0 ? k : x->dims[a];
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    op_set_out(g, n, 1, IR_I64, x->rank, dims);
    if (k < 0) op_set_dyn(g, n, 0), op_set_dyn(g, n, 1);
    return PZ_OK;
}

static pz_status top_k_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const top_k_params *p = n->params;
    int64_t k;
    int axis;
    if (top_k_geometry(g, n, &k, &axis, err)) return err->code;
    pz_topk_params tp = {.axis = axis, .k = k, .largest = (int)p->largest,
                         .sorted = (int)p->sorted};
    op_lowered_init(out, n, PZ_OP_TOPK, &tp, sizeof tp);
    out->n_in = k < 0 ? 2 : 1;   /* K is in the params, or read at run time (k -1) */
    return PZ_OK;
}

const op_def op_top_k = {
    .name = "TopK",
    .min_in = 1, .max_in = 2, .min_out = 2, .max_out = 2,
    .params_size = sizeof(top_k_params),
    .parse = top_k_parse,
    .infer = top_k_infer,
    .lower = top_k_lower,
};
