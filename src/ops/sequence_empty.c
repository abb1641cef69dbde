/* sequence_empty.c - SequenceEmpty: a sequence of no tensors of `dtype`
 * (default float32). Nothing runs (op_seq.h). */
#include "op_seq.h"

static pz_status sequence_empty_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    int64_t dt;
    if (op_attr_int(n, "dtype", IR_F32, &dt, err)) return err->code;
    if (!ir_dtype_supported((ir_dtype)dt))
        return op_err_attr(err, n, "dtype", "element type %lld is not supported", (long long)dt);
    op_set_container(g, n, IR_KIND_SEQ, (ir_dtype)dt);
    return PZ_OK;
}

const op_def op_sequence_empty = {
    .name = "SequenceEmpty",
    .min_in = 0, .max_in = 0, .min_out = 1, .max_out = 1,
    .infer = sequence_empty_infer,
};
