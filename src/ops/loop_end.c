/* loop_end.c - LoopEnd (domain ai.paleozoic): a Loop node run at run time,
 * after its LoopBegin and its body (loop.c makes them; the node keeps the
 * Loop's name, op_type and outputs).
 *   M?, cond?, iteration_num, cond_in, v_in..., cond_out, v_out..., scan...
 *   -> v_final..., scan_out... (each scan value stacked along a new axis 0)
 * The body is planned once; v_out must keep v_in's type and rank, and its
 * shape unless LoopBegin sizes the carried values per iteration (grow). The
 * scan outputs' length is the run's iteration count: no compile-time bound,
 * the net allocates them (rt/ops/loop.c), and so the loop's outputs are a
 * dynamic region when it has scan outputs. */
#include "op.h"

static pz_status loop_end_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    int N = n->n_in - n->n_out - 5, K = n->n_out - N;
    if (N < 0 || K < 0) return op_err(err, n, "%d inputs and %d outputs do not make a loop",
                                      n->n_in, n->n_out);
    for (int k = 0; k < n->n_in; k++)
        if (n->in[k] >= 0 && (g->values[n->in[k]].kind))
            return op_err(err, n, "the body gives a sequence or an optional (input %d): with a "
                          "trip count or condition read at run time the loop carries tensors "
                          "only", k);
    const ir_tensor *co = op_in(g, n, 4 + N);
    if (!co || co->dtype != IR_BOOL || ir_tensor_numel(co) != 1)
        return op_err(err, n, "the body's cond output must be one bool");
    for (int j = 0; j < N; j++) {
        const ir_tensor *a = op_in(g, n, 4 + j), *b = op_in(g, n, 5 + N + j);
        /* a v_out of a run-time shape (from a nested loop's scan outputs)
         * planned as v_in's: the run checks its size per iteration */
        int same = b && a->dtype == b->dtype && a->rank == b->rank;
        /* one LoopBegin's grow sizes per iteration (rt/exec.c): any dims */
        int grows = g->values[n->in[4 + j]].rt_alloc;
        for (int d = 0; same && !grows && d < a->rank; d++) same = a->dims[d] == b->dims[d];
        if (!same) {
            char sa[96], sb[96];
            return op_err(err, n, "carried value %d goes in as %s %s and comes out of the body "
                          "as %s %s%s: a loop whose trip count or condition is read at run time "
                          "carries a value of one type and rank",
                          j, ir_dtype_name(a->dtype), ir_shape_str(a, sa, sizeof sa),
                          b ? ir_dtype_name(b->dtype) : "?",
                          b ? ir_shape_str(b, sb, sizeof sb) : "?",
                          b && a->rank != b->rank ? " (its rank changes)" : "");
        }
    }
    for (int s = 0; s < K; s++) {
        /* one of a run-time shape (a nested loop's outputs): the run checks
         * that every iteration's keeps the first's */
        const ir_tensor *e = op_in(g, n, 5 + 2 * N + s);
        if (e->rank + 1 > IR_MAX_RANK)
            return op_err(err, n, "scan output %d would have more than %d dims", s, IR_MAX_RANK);
    }
    for (int j = 0; j < N + K; j++) {
        if (n->out[j] < 0) continue;
        if (j < N) {
            const ir_tensor *a = op_in(g, n, 4 + j);
            op_set_out(g, n, j, (int)a->dtype, a->rank, a->dims);
        } else {
            const ir_tensor *e = op_in(g, n, 5 + 2 * N + (j - N));
            int64_t dims[IR_MAX_RANK];
            dims[0] = 1;   /* stands in for the run's iteration count */
            for (int d = 0; d < e->rank; d++) dims[1 + d] = e->dims[d];
            op_set_out(g, n, j, (int)e->dtype, e->rank + 1, dims);
        }
        /* the runtime allocates every output of a layer with an unbounded
         * one, or reading one (a carried value sized per iteration) */
        if (K > 0 || (N > 0 && g->values[n->in[4]].rt_alloc)) op_set_rt_alloc(g, n, j);
    }
    return PZ_OK;
}

static pz_status loop_end_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    (void)g;
    if (n->n_in > PZ_MAX_IO || n->n_out > PZ_MAX_IO)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Loop): with a trip count or "
                       "condition read at run time, %d inputs and outputs to the loop's layer "
                       "(2 per carried value, 1 per scan output, 5 more) are more than %d",
                       n->name, n->n_in, PZ_MAX_IO);
    op_lowered_init(out, n, PZ_OP_LOOP, NULL, 0);
    return PZ_OK;
}

const op_def op_loop_end = {
    .name = "LoopEnd",
    .domain = "ai.paleozoic",
    .min_in = 0, .max_in = 4096, .min_out = 0, .max_out = 4096,   /* M and cond may be omitted */
    .infer = loop_end_infer,
    .lower = loop_end_lower,
    .random = 1,   /* never folded */
};
