/* max_pool.c - MaxPool: the maximum over each window, with strides, pads,
 * auto_pad, dilations and ceil_mode (opset 10+), and an optional second
 * output Indices (opset 8+): the flat index of each maximum, row-major
 * (storage_order 0) or column-major (1).
 *   X [N, C, D1..Dk] -> Y [N, C, O1..Ok], Indices int64 [N, C, O1..Ok]
 * Floats, and int8/uint8 from opset 12. */
#include "window.h"

typedef struct {
    op_window w;
    int64_t storage_order;
} max_pool_params;

static pz_status max_pool_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    max_pool_params *p = params;
    if (op_pool_parse(g, n, &p->w, err)) return err->code;
    if (op_attr_int(n, "storage_order", 0, &p->storage_order, err)) return err->code;
    if (p->storage_order != 0 && p->storage_order != 1)
        return op_err_attr(err, n, "storage_order", "is %lld, must be 0 (row major) or 1 "
                           "(column major)", (long long)p->storage_order);
    return PZ_OK;
}

static pz_status max_pool_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    max_pool_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_is_float(x->dtype) && x->dtype != IR_I8 && x->dtype != IR_U8)
        return op_err(err, n, "X must be a floating-point, int8 or uint8 tensor, got %s",
                      ir_dtype_name(x->dtype));
    int64_t dims[IR_MAX_RANK];
    if (op_pool_out(g, n, &p->w, dims, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    op_set_out(g, n, 1, IR_I64, x->rank, dims);
    return PZ_OK;
}

/* POOL (MAX): X -> Y, Indices?; pads resolved by infer (auto_pad), and with
 * ceil_mode the runtime takes the window count from Y's shape. */
static pz_status max_pool_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                pz_err *err)
{
    const max_pool_params *p = n->params;
    pz_pool_params pp = {.kind = PZ_POOL_MAX, .storage_order = (int)p->storage_order};
    if (op_window_pool_params(n, &p->w, &pp, err)) return err->code;
    op_lowered_init(out, n, PZ_OP_POOL, &pp, sizeof pp);
    return PZ_OK;
}

const op_def op_max_pool = {
    .name = "MaxPool",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 2,
    .params_size = sizeof(max_pool_params),
    .parse = max_pool_parse,
    .infer = max_pool_infer,
    .lower = max_pool_lower,
};
