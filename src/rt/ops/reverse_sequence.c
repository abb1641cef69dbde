/* reverse_sequence.c - the REVERSE_SEQUENCE layer (ONNX ReverseSequence):
 * X (any type, rank >= 2) and sequence_lens int64 [batch] -> Y, X's type
 * and shape. */
#include "rt/ops/ops.h"

static int reverse_sequence_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_reverse_sequence_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *lens = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !lens || !y) return pz_layer_fail(l, err, n, "needs X, sequence_lens and Y");
    if (pz_dtype_size(x->dtype) == 0)
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (x->rank < 2 || p->batch_axis < 0 || p->batch_axis >= x->rank || p->time_axis < 0 ||
        p->time_axis >= x->rank || p->batch_axis == p->time_axis)
        return pz_layer_fail(l, err, n, "batch_axis %d, time_axis %d for rank %d",
                             p->batch_axis, p->time_axis, x->rank);
    if (pz_layer_want_dtype(l, err, n, "sequence_lens", lens, PZ_I64)) return 1;
    if (lens->rank != 1 || lens->dims[0] != x->dims[p->batch_axis])
        return pz_layer_fail(l, err, n, "sequence_lens must be [%lld]",
                             (long long)x->dims[p->batch_axis]);
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x))
        return 1;
    return pz_index_run_prepare(l, lens, err, n);   /* run-time lengths: checked each run */
}

static void reverse_sequence_run(const pz_layer *l, int ith, int nth)
{
    const pz_reverse_sequence_params *p = l->params;
    const pz_tensor *x = l->in[0];
    /* a length outside [0, T] fails the run, as ONNX Runtime (the kernel
     * copies X's row for it) */
    if (ith == 0 && l->run_err)
        pz_run_check_span(l, l->in[1], "sequence_lens", 0, x->dims[p->time_axis]);
    pz_any_reverse_sequence__ref(pz_dtype_size(x->dtype), x->rank, x->dims, p->batch_axis,
                                 p->time_axis, l->in[1]->data, x->data, l->out[0]->data, ith,
                                 nth);
}

static const pz_param_field reverse_sequence_fields[] = {
    PZ_FIELD(pz_reverse_sequence_params, batch_axis, PZ_F_INT),
    PZ_FIELD(pz_reverse_sequence_params, time_axis, PZ_F_INT),
};

const pz_rt_op pz_rt_op_reverse_sequence = {
    .name = "REVERSE_SEQUENCE", PZ_OP_PARAMS(pz_reverse_sequence_params, reverse_sequence_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = reverse_sequence_prepare, .run = reverse_sequence_run,
};
