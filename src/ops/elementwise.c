/* elementwise.c - shared inference for element-wise ops. */
#include "elementwise.h"

#include <stdlib.h>

pz_status op_unary_float_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "input must be a floating-point tensor, got %s",
                      ir_dtype_name(x->dtype));
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

/* Index of out element `o` in a broadcast input t (right-aligned dims). */
static size_t bcast_index(const ir_tensor *t, const ir_tensor *out, size_t o)
{
    size_t idx = 0, stride = 1;
    for (int d = out->rank - 1, k = t->rank - 1; d >= 0; d--, k--) {
        size_t coord = o % (size_t)out->dims[d];
        o /= (size_t)out->dims[d];
        if (k >= 0) {
            if (t->dims[k] != 1) idx += coord * stride;
            stride *= (size_t)t->dims[k];
        }
    }
    return idx;
}

pz_status op_broadcast_infer(ir_graph *g, ir_node *n, int same_type, const op_binary_fn *fn,
                             pz_err *err)
{
    ir_tensor shape = *op_in(g, n, 0);
    shape.data = NULL;
    int all_const = op_in_const(g, n, 0) != NULL;
    for (int i = 1; i < n->n_in; i++) {
        const ir_tensor *b = op_in(g, n, i);
        if (!b) return op_err(err, n, "input %d is missing", i);
        if (same_type && b->dtype != shape.dtype)
            return op_err(err, n, "input %d is %s but input 0 is %s", i, ir_dtype_name(b->dtype),
                          ir_dtype_name(shape.dtype));
        ir_tensor r = shape;
        if (op_broadcast(n, &shape, b, &r, err)) return err->code;
        shape.rank = r.rank;
        for (int d = 0; d < r.rank; d++) shape.dims[d] = r.dims[d];
        all_const &= b->data != NULL;
    }
    op_set_out(g, n, 0, shape.dtype, shape.rank, shape.dims);
    int64_t numel = ir_tensor_numel(&shape);
    int is_int = ir_dtype_is_int(shape.dtype);
    if (!fn || !all_const || numel > OP_FOLD_MAX || (is_int && !fn->i) || n->n_in < 1)
        return PZ_OK;
    size_t es = ir_dtype_size(shape.dtype);
    void *buf = pz_xcalloc((size_t)(numel ? numel : 1), es);
    for (size_t o = 0; o < (size_t)numel; o++) {
        const ir_tensor *a = op_in(g, n, 0);
        size_t ia = bcast_index(a, &shape, o);
        if (is_int) {
            int64_t acc = ir_load_i64(a->data, a->dtype, ia);
            for (int i = 1; i < n->n_in; i++) {
                const ir_tensor *b = op_in(g, n, i);
                acc = fn->i(acc, ir_load_i64(b->data, b->dtype, bcast_index(b, &shape, o)));
            }
            ir_store_i64(buf, shape.dtype, o, acc);
        } else {
            double acc = ir_load_f64(a->data, a->dtype, ia);
            for (int i = 1; i < n->n_in; i++) {
                const ir_tensor *b = op_in(g, n, i);
                acc = fn->f(acc, ir_load_f64(b->data, b->dtype, bcast_index(b, &shape, o)));
            }
            ir_store_f64(buf, shape.dtype, o, acc);
        }
    }
    ir_value_set_data(g, n->out[0], buf, (size_t)numel * es);
    free(buf);
    return PZ_OK;
}
