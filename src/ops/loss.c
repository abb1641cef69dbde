/* loss.c - the parts NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
 * share (see loss.h). */
#include "loss.h"
#include "norm.h"

#include <string.h>

pz_status op_loss_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    pz_loss_params *p = params;
    const char *red;
    const ir_attr *ii = op_attr(n, "ignore_index");
    if (op_attr_string(n, "reduction", "mean", &red, err)) return err->code;
    if (!strcmp(red, "none")) p->reduction = PZ_LOSS_NONE;
    else if (!strcmp(red, "sum")) p->reduction = PZ_LOSS_SUM;
    else if (!strcmp(red, "mean")) p->reduction = PZ_LOSS_MEAN;
    else return op_err_attr(err, n, "reduction", "is \"%s\", expected none, sum or mean", red);
    p->has_ignore = ii != NULL;
    return op_attr_int(n, "ignore_index", 0, &p->ignore_index, err);
}

/* X [N, C, d...] float, target [N, d...] int32/int64, weight [C]? ->
 * loss [N, d...] (none) or [] (sum, mean), log_prob? [X's shape]. */
pz_status op_loss_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_loss_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *t = op_in(g, n, 1), *w = op_in(g, n, 2);
    if (!x || !t) return op_err(err, n, "needs the inputs scores and target");
    if (op_want_float(n, x, "scores", err)) return err->code;
    if (t->dtype != IR_I32 && t->dtype != IR_I64)
        return op_err(err, n, "input target has type %s, expected int32 or int64",
                      ir_dtype_name(t->dtype));
    if (x->rank < 2) return op_err(err, n, "input 0 has rank %d, expected >= 2", x->rank);
    if (t->rank != x->rank - 1 || t->dims[0] != x->dims[0])
        return op_err(err, n, "target must be [N, d1..dk] for input 0 [N, C, d1..dk]");
    for (int i = 2; i < x->rank; i++)
        if (t->dims[i - 1] != x->dims[i])
            return op_err(err, n, "target's dim %d is %lld, input 0's dim %d is %lld", i - 1,
                          (long long)t->dims[i - 1], i, (long long)x->dims[i]);
    if (w && (w->dtype != x->dtype || w->rank != 1 || w->dims[0] != x->dims[1]))
        return op_err(err, n, "weight must be [C] = [%lld] of type %s", (long long)x->dims[1],
                      ir_dtype_name(x->dtype));
    if (p->reduction == PZ_LOSS_NONE) op_set_out(g, n, 0, x->dtype, t->rank, t->dims);
    else op_set_out(g, n, 0, x->dtype, 0, NULL);
    if (n->n_out > 1 && n->out[1] >= 0) op_same_as(g, n, 1, 0);
    return PZ_OK;
}

pz_status op_loss_lower(const ir_graph *g, const ir_node *n, pz_loss_func func, op_lowered *out)
{
    pz_loss_params lp = *(const pz_loss_params *)n->params;
    lp.func = func;
    op_lowered_init(out, n, PZ_OP_LOSS, &lp, sizeof lp);
    return PZ_OK;
}
