/* shape.c - Shape: the dims of a tensor as a 1-D int64 tensor.
 *   data [d0..d(r-1)] -> shape int64 [end - start] = d(start)..d(end-1)
 * start (default 0) and end (default r), opset 15+, count from the end when
 * negative and are clamped to [0, r]. The output is a constant, except for
 * X with a run-time shape (ir_value.dyn: NonZero, Unique, ...): then it runs
 * as SHAPE (rt/ops/shape.c), its values known at run time. */
#include "fold.h"

typedef struct {
    int start, end;
} shape_params;

static pz_status shape_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    shape_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t r = x->rank, start, end;
    if (op_attr_int(n, "start", 0, &start, err) || op_attr_int(n, "end", r, &end, err))
        return err->code;
    if (g->opset < 15 && (op_attr(n, "start") || op_attr(n, "end")))
        return op_err(err, n, "start and end exist from opset 15 (the model uses %d)", g->opset);
    if (start < 0) start = start < -r ? 0 : start + r;
    if (end < 0) end = end < -r ? 0 : end + r;
    p->start = (int)(start > r ? r : start);
    p->end = (int)(end > r ? r : end);
    return PZ_OK;
}

static pz_status shape_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const shape_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t len = p->end > p->start ? p->end - p->start : 0;
    op_set_out(g, n, 0, IR_I64, 1, &len);
    if (n->out[0] >= 0 && !g->values[n->in[0]].dyn)
        ir_value_set_data(g, n->out[0], x->dims + p->start, (size_t)len * sizeof(int64_t));
    return PZ_OK;
}

static pz_status shape_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const shape_params *p = n->params;
    pz_shape_params sp = {.start = p->start, .end = p->end > p->start ? p->end : p->start};
    op_lowered_init(out, n, PZ_OP_SHAPE, &sp, sizeof sp);
    return PZ_OK;
}

const op_def op_shape = {
    .name = "Shape",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(shape_params),
    .parse = shape_parse,
    .infer = shape_infer,
    .cost = NULL,
    .lower = shape_lower,   /* only for a run-time shape: else the output folds */
};
