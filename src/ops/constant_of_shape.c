/* constant_of_shape.c - ConstantOfShape: a tensor filled with one value.
 *   input int64 [k] (constant: the output's dims) -> output [dims] filled
 *   with `value` (a one-element tensor attribute; default float32 0), whose
 *   type is the output's. Folded, up to CONST_OF_SHAPE_MAX_BYTES, when the
 *   input is constant; read at run time (a graph input nothing binds), the
 *   output has no compile-time bound: the FILL layer (rt/ops/fill.c), the
 *   net allocating Y when it runs. */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

#define CONST_OF_SHAPE_MAX_BYTES ((size_t)1 << 30)

static pz_status constant_of_shape_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    int64_t dims[IR_MAX_RANK];
    int rank;
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
    if (op_rt_ints_dyn(g, n, 0, IR_MAX_RANK, &rank)) {
        /* read at run time (FILL, which checks the length it reads: a value
         * of a run-time shape may be one): each dim at its bound when every
         * one has one (a Shape of a bounded tensor: torch's full_like), else
         * no bound, the net allocates Y (1s stand in) */
        pz_fill_params *p = n->params;
        p->bounded = 1;
        for (int k = 0; k < rank; k++) {
            dims[k] = op_rt_int_bound(g, n->in[0], k);
            if (dims[k] < 0) p->bounded = 0;
        }
        for (int k = 0; k < rank && !p->bounded; k++) dims[k] = 1;
        op_set_out(g, n, 0, dtype, rank, dims);
        if (p->bounded) op_set_dyn(g, n, 0);
        else op_set_rt_alloc(g, n, 0);
        if (ir_dtype_size(dtype) > sizeof(int64_t))
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (ConstantOfShape): type %s "
                           "is not supported", n->name, ir_dtype_name(dtype));
        memcpy(&p->bits, value, sizeof value);
        return PZ_OK;
    }
    if (op_const_ints(g, n, 0, "input", dims, IR_MAX_RANK, &rank, err)) return err->code;
    if (op_check_dims(n, rank, dims, err)) return err->code;
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

static pz_status constant_of_shape_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                         pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_FILL, n->params, sizeof(pz_fill_params));
    return PZ_OK;
}

const op_def op_constant_of_shape = {
    .name = "ConstantOfShape",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_fill_params),
    .parse = NULL,
    .infer = constant_of_shape_infer,
    .lower = constant_of_shape_lower,
    .cost = NULL,
};
