/* eye_like.c - EyeLike: a 2-D tensor with ones on a diagonal, zeros elsewhere.
 *   input [R, C] (any type; only its shape is read) -> output [R, C] of type
 *   `dtype` (default: the input's), output[i][j] = (j - i == k). k: which
 *   diagonal (0 the main one, > 0 above, < 0 below).
 * Shapes are static here, so the output is always a constant: nothing runs. */
#include <stdlib.h>

#include "fold.h"

typedef struct {
    int64_t dtype;   /* -1: the input's */
    int64_t k;
} eye_like_params;

static pz_status eye_like_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    eye_like_params *p = params;
    if (op_attr_int(n, "dtype", -1, &p->dtype, err) || op_attr_int(n, "k", 0, &p->k, err))
        return err->code;
    return PZ_OK;
}

static pz_status eye_like_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const eye_like_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!x || x->rank != 2) return op_err(err, n, "input must be 2-D");
    int dt = p->dtype >= 0 ? (int)p->dtype : (int)x->dtype;
    if (!ir_dtype_is_float(dt) && !ir_dtype_is_int(dt) && dt != IR_BOOL)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (EyeLike): attribute 'dtype': type "
                       "%s is not supported", n->name, ir_dtype_name(dt));
    op_set_out(g, n, 0, dt, 2, x->dims);
    const ir_tensor *y = op_out(g, n, 0);
    if (!y) return PZ_OK;
    int64_t numel = ir_tensor_numel(y);
    if (numel > OP_FOLD_LIMIT)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (EyeLike): an output of %lld "
                       "elements is above the %d this op makes at compile time", n->name,
                       (long long)numel, OP_FOLD_LIMIT);
    size_t es = ir_dtype_size(dt);
    void *buf = pz_xcalloc((size_t)(numel ? numel : 1), es);
    for (int64_t i = 0; i < x->dims[0]; i++) {
        int64_t j = i + p->k;
        if (j >= 0 && j < x->dims[1]) ir_store_f64(buf, dt, (size_t)(i * x->dims[1] + j), 1.0);
    }
    ir_value_set_data(g, n->out[0], buf, (size_t)numel * es);
    free(buf);
    return PZ_OK;
}

const op_def op_eye_like = {
    .name = "EyeLike",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(eye_like_params),
    .parse = eye_like_parse,
    .infer = eye_like_infer,
};
