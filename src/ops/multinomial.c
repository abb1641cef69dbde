/* multinomial.c - Multinomial: X [N, C] unnormalized log-probabilities
 * (float) -> Y [N, sample_size] of dtype int32 (default) or int64, each a
 * class index drawn with probability softmax(X[n])[c]; seed optional. The
 * RANDOM layer (random.h), reading X. */
#include "random.h"

static pz_status multinomial_parse(const ir_graph *g, const ir_node *n, void *params,
                                   pz_err *err)
{
    return random_parse(n, PZ_RANDOM_MULTINOMIAL, params, err);
}

static pz_status multinomial_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const random_op_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_is_float(x->dtype) || x->rank != 2)
        return op_err(err, n, "input has type %s and rank %d, expected a float [batch, "
                      "classes] tensor", ir_dtype_name(x->dtype), x->rank);
    if (x->dims[1] < 1) return op_err(err, n, "input has no classes");
    return random_set_out(g, n, p, IR_I32, 2, (int64_t[]){x->dims[0], p->sample_size}, err);
}

static pz_status multinomial_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                   pz_err *err)
{
    (void)g, (void)err;
    const random_op_params *p = n->params;
    op_lowered_init(out, n, PZ_OP_RANDOM, &p->rt, sizeof p->rt);
    return PZ_OK;
}

const op_def op_multinomial = {
    .name = "Multinomial",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(random_op_params),
    .parse = multinomial_parse,
    .infer = multinomial_infer,
    .lower = multinomial_lower,
    .random = 1,
};
