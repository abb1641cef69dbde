/* loop_begin.c - LoopBegin (domain ai.paleozoic, made by Loop's unfold,
 * loop.c): the start of a Loop run at run time (its trip count or
 * condition read at run time).
 *   v_initial... -> iteration_num (int64), cond_in (bool), v_in...
 * The body reads its outputs; the Loop node after it (LoopEnd) runs the
 * body per iteration and writes v_out back into v_in (rt/ops/loop.c).
 * Never folded: its outputs change per iteration.
 * grow 1 (Loop's unfold found a carried value the body resizes, x = cat(x,
 * y)): every output has a run-time shape with no compile-time bound, the
 * body is a dynamic region, and the run sizes v_in to v_out's per
 * iteration (rt/exec.c). */
#include "op.h"

static pz_status loop_begin_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    if (n->n_out != n->n_in + 2)
        return op_err(err, n, "has %d inputs and %d outputs (2 more expected)", n->n_in, n->n_out);
    int64_t one = 1;
    int r0 = g->values[n->out[0]].decl_rank == 1, r1 = g->values[n->out[1]].decl_rank == 1;
    op_set_out(g, n, 0, IR_I64, r0, &one);
    op_set_out(g, n, 1, IR_BOOL, r1, &one);
    for (int j = 0; j < n->n_in; j++) {
        const ir_value *v = &g->values[n->in[j]];
        /* one of a run-time shape is planned at its compile-time guess; the
         * run checks its size (rt/ops/loop.c) */
        if (v->kind)
            return op_err(err, n, "carried value %d \"%s\" is a sequence or an optional: a "
                          "loop run at run time carries tensors", j, v->name);
        op_set_out(g, n, 2 + j, (int)v->t.dtype, v->t.rank, v->t.dims);
    }
    int64_t grow;
    if (op_attr_int(n, "grow", 0, &grow, err)) return err->code;
    for (int j = 0; grow && j < n->n_out; j++) op_set_rt_alloc(g, n, j);
    return PZ_OK;
}

static pz_status loop_begin_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                  pz_err *err)
{
    (void)g;
    int64_t grow;
    if (op_attr_int(n, "grow", 0, &grow, err)) return err->code;
    pz_loop_params p = {(int)grow};
    op_lowered_init(out, n, PZ_OP_LOOP_BEGIN, &p, sizeof p);
    return PZ_OK;
}

const op_def op_loop_begin = {
    .name = "LoopBegin",
    .domain = "ai.paleozoic",
    .min_in = 0, .max_in = PZ_MAX_IO - 2, .min_out = 2, .max_out = PZ_MAX_IO,
    .infer = loop_begin_infer,
    .lower = loop_begin_lower,
    .random = 1,   /* never folded into constants */
};
