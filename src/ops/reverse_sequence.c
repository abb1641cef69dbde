/* reverse_sequence.c - ReverseSequence (opset 10): for each batch entry b
 * (along batch_axis, default 1), the first sequence_lens[b] entries along
 * time_axis (default 0) reversed, the rest copied.
 *   X [rank >= 2, any type], sequence_lens int64 [batch] -> Y [X's shape]
 * A length outside [0, time size] is refused (a constant) or fails the run,
 * as ONNX Runtime.
 * Runs as REVERSE_SEQUENCE (rt/ops/reverse_sequence.c). */
#include "reduce.h"

typedef struct {
    int batch_axis, time_axis;
} reverse_sequence_params;

static pz_status reverse_sequence_parse(const ir_graph *g, const ir_node *n, void *params,
                                        pz_err *err)
{
    reverse_sequence_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t b, t;
    if (op_attr_int(n, "batch_axis", 1, &b, err) || op_attr_int(n, "time_axis", 0, &t, err))
        return err->code;
    if (x->rank < 2) return op_err(err, n, "input X must have rank >= 2, got %d", x->rank);
    if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t)
        return op_err_attr(err, n, b != 0 && b != 1 ? "batch_axis" : "time_axis",
                           "batch_axis %lld and time_axis %lld must be 0 and 1 in some order",
                           (long long)b, (long long)t);
    p->batch_axis = (int)b;
    p->time_axis = (int)t;
    return PZ_OK;
}

static pz_status reverse_sequence_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const reverse_sequence_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *lens = op_in(g, n, 1);
    if (ir_dtype_size(x->dtype) == 0)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (ReverseSequence): input X has type "
                       "%s, not supported", n->name, ir_dtype_name(x->dtype));
    if (lens->dtype != IR_I64 || lens->rank != 1 || lens->dims[0] != x->dims[p->batch_axis])
        return op_err(err, n, "input sequence_lens must be int64 [%lld]",
                      (long long)x->dims[p->batch_axis]);
    /* constant lengths in [0, T] (ONNX Runtime fails on others; the run
     * checks run-time ones) */
    if (op_check_span(g, n, lens, "sequence_lens", 0, x->dims[p->time_axis], err))
        return err->code;
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

static pz_status reverse_sequence_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                        pz_err *err)
{
    const reverse_sequence_params *p = n->params;
    pz_reverse_sequence_params rp = {.batch_axis = p->batch_axis, .time_axis = p->time_axis};
    op_lowered_init(out, n, PZ_OP_REVERSE_SEQUENCE, &rp, sizeof rp);
    return PZ_OK;
}

const op_def op_reverse_sequence = {
    .name = "ReverseSequence",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(reverse_sequence_params),
    .parse = reverse_sequence_parse,
    .infer = reverse_sequence_infer,
    .lower = reverse_sequence_lower,
};
