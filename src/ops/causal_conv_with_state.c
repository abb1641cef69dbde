/* causal_conv_with_state.c - CausalConvWithState (opset 27):
 *   input [B, C, L], weight [C, 1, K], bias? [C], past_state? [B, C, K-1]
 *   -> output [B, C, L], present_state? [B, C, K-1].
 * A depthwise causal conv1d over past_state ++ input (zeros without a past
 * state), then activation "none", "silu" or "swish" (SiLU); present_state
 * is the last K-1 columns of that concatenation. MACs: B*C*L*K. Runs as
 * CAUSAL_CONV (rt/ops/causal_conv.c). */
#include <string.h>

#include "op.h"

static pz_status causal_conv_parse(const ir_graph *g, const ir_node *n, void *params,
                                   pz_err *err)
{
    pz_causal_conv_params *p = params;
    const char *act;
    if (op_attr_string(n, "activation", "none", &act, err)) return err->code;
    if (!strcmp(act, "silu") || !strcmp(act, "swish")) p->silu = 1;
    else if (!strcmp(act, "none")) p->silu = 0;
    else return op_err_attr(err, n, "activation", "is \"%s\", expected none, silu or swish", act);
    return PZ_OK;
}

static pz_status causal_conv_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 1), *b = op_in(g, n, 2);
    const ir_tensor *past = op_in(g, n, 3);
    if (!x || !w) return op_err(err, n, "needs the inputs input and weight");
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "input has type %s, expected a float type",
                      ir_dtype_name(x->dtype));
    if (x->rank != 3)
        return op_err(err, n, "input has rank %d; only [batch, channels, length] (rank 3) is "
                      "supported", x->rank);
    int64_t B = x->dims[0], C = x->dims[1], L = x->dims[2];
    if (w->dtype != x->dtype || w->rank != 3 || w->dims[0] != C || w->dims[1] != 1 ||
        w->dims[2] < 1)
        return op_err(err, n, "weight must be [%lld, 1, k >= 1] of the input's type",
                      (long long)C);
    int64_t K = w->dims[2];
    if (b && (b->dtype != x->dtype || b->rank != 1 || b->dims[0] != C))
        return op_err(err, n, "bias must be [%lld] of the input's type", (long long)C);
    if (past && (past->dtype != x->dtype || past->rank != 3 || past->dims[0] != B ||
                 past->dims[1] != C || past->dims[2] != K - 1))
        return op_err(err, n, "past_state must be [%lld, %lld, %lld] of the input's type",
                      (long long)B, (long long)C, (long long)(K - 1));
    op_set_out(g, n, 0, x->dtype, 3, (int64_t[]){B, C, L});
    op_set_out(g, n, 1, x->dtype, 3, (int64_t[]){B, C, K - 1});
    return PZ_OK;
}

/* one multiply-add per output element and tap */
static void causal_conv_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 1);
    if (!x || !w || w->rank != 3) return;
    c->macs = ir_tensor_numel(x) * w->dims[2];
}

static pz_status causal_conv_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                   pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_CAUSAL_CONV, n->params, sizeof(pz_causal_conv_params));
    return PZ_OK;
}

const op_def op_causal_conv_with_state = {
    .name = "CausalConvWithState",
    .min_in = 2, .max_in = 4, .min_out = 1, .max_out = 2,
    .params_size = sizeof(pz_causal_conv_params),
    .parse = causal_conv_parse,
    .infer = causal_conv_infer,
    .cost = causal_conv_cost,
    .lower = causal_conv_lower,
};
