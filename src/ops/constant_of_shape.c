/* constant_of_shape.c - ConstantOfShape: a tensor filled with one value.
 *   input int64 [k] (constant: the output's dims) -> output [dims] filled
 *   with `value` (a one-element tensor attribute; default float32 0), whose
 *   type is the output's. Always folded, up to CONST_OF_SHAPE_MAX_BYTES. */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

#define CONST_OF_SHAPE_MAX_BYTES ((size_t)1 << 30)

static pz_status constant_of_shape_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    int64_t dims[IR_MAX_RANK];
    int rank;
    if (op_const_ints(g, n, 0, "input", dims, IR_MAX_RANK, &rank, err)) return err->code;
    if (op_check_dims(n, rank, dims, err)) return err->code;

    unsigned char value[8] = {0};
    int dtype = IR_F32;
    const ir_attr *a = op_attr(n, "value");
    if (a) {
        if (op_attr_expect(n, a, IR_ATTR_TENSOR, err)) return err->code;
        if (ir_tensor_numel(a->t) != 1)
            return op_err_attr(err, n, "value", "must hold one element, it has %lld",
                               (long long)ir_tensor_numel(a->t));
        dtype = a->t->dtype;
        memcpy(value, a->t->data, ir_dtype_size(dtype));
    }
    op_set_out(g, n, 0, dtype, rank, dims);
    const ir_tensor *y = op_out(g, n, 0);
    if (!y) return PZ_OK;
    size_t nbytes, es = ir_dtype_size(dtype);
    char what[300];
    snprintf(what, sizeof what, "node \"%s\" (ConstantOfShape): output", n->name);
    if (ir_tensor_bytes(y, &nbytes, what, err)) return err->code;
    if (nbytes > CONST_OF_SHAPE_MAX_BYTES)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (ConstantOfShape): the output has "
                       "%zu bytes, above the %zu that are computed at compile time", n->name,
                       nbytes, CONST_OF_SHAPE_MAX_BYTES);
    /* one element, then doubling copies: fast even for a large output; the
     * value keeps this buffer (no second copy) */
    char *buf = pz_xmalloc(nbytes ? nbytes : 1);
    if (nbytes) memcpy(buf, value, es);
    for (size_t done = es; done < nbytes; done *= 2)
        memcpy(buf + done, buf, done < nbytes - done ? done : nbytes - done);
    ir_value_take_data(g, n->out[0], buf, nbytes);
    return PZ_OK;
}

const op_def op_constant_of_shape = {
    .name = "ConstantOfShape",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = 0,
    .parse = NULL,
    .infer = constant_of_shape_infer,
    .cost = NULL,
};
