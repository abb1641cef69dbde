/* select_branch.c - SelectBranch (domain ai.paleozoic): cond, A, B -> A or
 * B, the whole tensor. If's (if.c) for an output whose branches give one
 * type and rank at different shapes, or a run-time shape, with a condition
 * known only at run time (Where would need one shape). Y has a run-time
 * shape planned at the element-wise max of A's and B's bounds. Runs as
 * SELECT_BRANCH (rt/ops/select_branch.c). */
#include "op.h"

static pz_status select_branch_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *c = op_in(g, n, 0), *a = op_in(g, n, 1), *b = op_in(g, n, 2);
    if (c->dtype != IR_BOOL || ir_tensor_numel(c) != 1)
        return op_err(err, n, "cond must be one bool, got %s of %lld elements",
                      ir_dtype_name(c->dtype), (long long)ir_tensor_numel(c));
    if (a->dtype != b->dtype || a->rank != b->rank || !ir_dtype_size(a->dtype)) {
        char sa[96], sb[96];
        return op_err(err, n, "the branches give %s %s and %s %s: a choice at run time takes "
                      "one type (not string) and one rank", ir_dtype_name(a->dtype),
                      ir_shape_str(a, sa, sizeof sa), ir_dtype_name(b->dtype),
                      ir_shape_str(b, sb, sizeof sb));
    }
    int64_t dims[IR_MAX_RANK];
    for (int d = 0; d < a->rank; d++) dims[d] = a->dims[d] > b->dims[d] ? a->dims[d] : b->dims[d];
    op_set_out(g, n, 0, (int)a->dtype, a->rank, dims);
    if (g->values[n->in[1]].rt_alloc || g->values[n->in[2]].rt_alloc) op_set_rt_alloc(g, n, 0);
    else op_set_dyn(g, n, 0);
    return PZ_OK;
}

static pz_status select_branch_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                     pz_err *err)
{
    (void)g, (void)err;
    op_lowered_init(out, n, PZ_OP_SELECT_BRANCH, NULL, 0);
    return PZ_OK;
}

const op_def op_select_branch = {
    .name = "SelectBranch",
    .domain = "ai.paleozoic",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .infer = select_branch_infer,
    .lower = select_branch_lower,
};
