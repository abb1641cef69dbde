/* array_feature_extractor.c - ArrayFeatureExtractor (ai.onnx.ml, opset 1):
 * the entries of X's last axis that Y selects.
 *   X [..., N] (rank >= 2, any held type), Y int64 [K] -> Z [..., K]
 * That is Gather along the last axis; runs as GATHER. A 1-D X (Z [1, K])
 * or a Y of rank other than 1 is refused. A constant Y is checked against
 * [0, N) (ONNX Runtime rejects other indices); a run-time negative index
 * counts from the end, as Gather's do. */
#include "reduce.h"

static pz_status array_feature_extractor_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0), *y = op_in(g, n, 1);
    if (ir_dtype_size(x->dtype) == 0)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (ArrayFeatureExtractor): input X has "
                       "type %s, not supported", n->name, ir_dtype_name(x->dtype));
    if (y->dtype != IR_I64) return op_err(err, n, "input Y must be int64, got %s",
                                          ir_dtype_name(y->dtype));
    if (x->rank < 2 || y->rank != 1)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (ArrayFeatureExtractor): X of rank "
                       "%d and Y of rank %d: only X of rank >= 2 and 1-D Y are supported",
                       n->name, x->rank, y->rank);
    const int64_t N = x->dims[x->rank - 1];
    if (y->data)
        for (int64_t k = 0; k < y->dims[0]; k++) {
            int64_t i = ir_load_i64(y->data, y->dtype, (size_t)k);
            if (i < 0 || i >= N)
                return op_err(err, n, "index %lld (entry %lld of Y) is outside [0, %lld)",
                              (long long)i, (long long)k, (long long)N);
        }
    int64_t dims[IR_MAX_RANK];
    for (int a = 0; a < x->rank - 1; a++) dims[a] = x->dims[a];
    dims[x->rank - 1] = y->dims[0];
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    return PZ_OK;
}

static pz_status array_feature_extractor_lower(const ir_graph *g, const ir_node *n,
                                               op_lowered *out, pz_err *err)
{
    pz_axis_params ap = {.axis = op_in(g, n, 0)->rank - 1};
    op_lowered_init(out, n, PZ_OP_GATHER, &ap, sizeof ap);
    return PZ_OK;
}

const op_def op_array_feature_extractor = {
    .name = "ArrayFeatureExtractor",
    .domain = "ai.onnx.ml",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = array_feature_extractor_infer,
    .lower = array_feature_extractor_lower,
};
