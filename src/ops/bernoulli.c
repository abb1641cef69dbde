/* bernoulli.c - Bernoulli: P (float, probabilities) -> Y of P's shape and of
 * dtype (default P's type; any number type or bool), 1 with probability
 * P[i], else 0; seed optional. Unfolded at compile time (op_inline.h) into
 * Cast(Less(RandomUniformLike(P), P), dtype): one random layer (random.h). */
#include "op_inline.h"
#include "op_train.h"
#include "random.h"

static pz_status bernoulli_unfold(ir_graph *g, int i, pz_err *err)
{
    const ir_node *n = &g->nodes[i];
    random_op_params p = {0};
    if (random_parse(n, PZ_RANDOM_UNIFORM, &p, err)) return err->code;
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "input has type %s, expected a float type",
                      ir_dtype_name(x->dtype));
    const int dt = p.dtype ? (int)p.dtype : (int)x->dtype;
    if (!ir_dtype_supported(dt) || !ir_dtype_size(dt) || ir_dtype_is_small(dt))
        return op_err_attr(err, n, "dtype", "is %s, expected a number type or bool",
                           ir_dtype_name(dt));
    const int xin = n->in[0], xdt = x->dtype, has_seed = p.rt.has_seed;
    op_train_builder b = {g, pz_xstrdup(n->name), 0};
    const int start = g->n_nodes;
    int u = op_train_node(&b, "RandomUniformLike", xin, -1);
    ir_node_add_attr_int(&g->nodes[g->n_nodes - 1], "dtype", xdt);
    if (has_seed) ir_node_add_attr_float(&g->nodes[g->n_nodes - 1], "seed", (float)p.rt.seed);
    int y = op_train_node(&b, "Cast", op_train_node(&b, "Less", u, xin), -1);
    ir_node_add_attr_int(&g->nodes[g->n_nodes - 1], "to", dt);
    op_train_finish(&b, i, start, &y);
    return PZ_OK;
}

const op_def op_bernoulli = {
    .name = "Bernoulli",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unfold_only,
    .unfold = bernoulli_unfold,
    .random = 1,
};
