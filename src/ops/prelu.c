/* prelu.c - PRelu: Y = X < 0 ? slope * X : X, element-wise.
 *   X [any shape], slope [broadcastable to X] -> Y [X's shape and type]
 * From opset 7 slope broadcasts unidirectionally (numpy rules, into X's
 * shape). Before, slope is either a single value or one per channel: a 1-D
 * tensor of X.dims[1] entries, applied along dim 1 (caffe2 style). Floats;
 * integers too from opset 9. */
#include "elementwise.h"

typedef struct {
    int per_channel;   /* legacy: slope [C] applies along dim 1 of X */
} prelu_params;

/* Unidirectional broadcast: every slope dim (right-aligned) is 1 or X's. */
static int fits_into(const ir_tensor *s, const ir_tensor *x)
{
    if (s->rank > x->rank) return 0;
    for (int k = 0; k < s->rank; k++) {
        int64_t ds = s->dims[k], dx = x->dims[x->rank - s->rank + k];
        if (ds != 1 && ds != dx) return 0;
    }
    return 1;
}

static pz_status prelu_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    prelu_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *s = op_in(g, n, 1);
    if (!x || !s) return op_err(err, n, "input %s is missing", x ? "slope" : "X");
    if (!ir_dtype_is_float(x->dtype) && !(g->opset >= 9 && ir_dtype_is_int(x->dtype)))
        return op_err(err, n, "X must be a %s tensor, got %s",
                      g->opset >= 9 ? "numeric" : "floating-point", ir_dtype_name(x->dtype));
    if (s->dtype != x->dtype)
        return op_err(err, n, "slope is %s but X is %s", ir_dtype_name(s->dtype),
                      ir_dtype_name(x->dtype));
    p->per_channel = 0;
    if (!fits_into(s, x)) {
        char sx[128], ss[128];
        if (g->opset < 7 && s->rank == 1 && x->rank >= 2 && s->dims[0] == x->dims[1])
            p->per_channel = 1;
        else
            return op_err(err, n, "slope of shape %s does not broadcast to X of shape %s",
                          ir_shape_str(s, ss, sizeof ss), ir_shape_str(x, sx, sizeof sx));
    }
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

static pz_status prelu_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const prelu_params *p = n->params;
    if (p->per_channel)   /* slope [C] along dim 1: not numpy broadcasting */
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): a per-channel slope (opset "
                       "< 7, slope [C] along dim 1) is not supported by the runtime; reshape "
                       "the slope to [C, 1, ..., 1]", n->name, n->op_type);
    pz_binary_params bp = {.func = PZ_BIN_PRELU, .act = {.kind = PZ_ACT_NONE}};
    op_lowered_init(out, n, PZ_OP_BINARY, &bp, sizeof bp);
    return PZ_OK;
}

const op_def op_prelu = {
    .name = "PRelu",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(prelu_params),
    .infer = prelu_infer,
    .lower = prelu_lower,
};
