/* signal.c - the window generators' and MelWeightMatrix's shared parts
 * (signal.h). Values are computed in double and rounded once to the output
 * type (integer types truncate, as numpy's astype does). */
#include <math.h>
#include <stdlib.h>

#include "fold.h"
#include "signal.h"

pz_status op_signal_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    op_signal_params *p = params;
    if (op_attr_int(n, "output_datatype", IR_F32, &p->output_datatype, err) ||
        op_attr_int(n, "periodic", 1, &p->periodic, err))
        return err->code;
    if (p->periodic != 0 && p->periodic != 1)
        return op_err_attr(err, n, "periodic", "is %lld, must be 0 or 1", (long long)p->periodic);
    return op_signal_dtype(n, p->output_datatype, err);
}

pz_status op_signal_dtype(const ir_node *n, int64_t dt, pz_err *err)
{
    if (dt < 0 || dt > 64 || !ir_dtype_supported((int)dt) || ir_dtype_is_small((int)dt) ||
        (!ir_dtype_is_float((int)dt) && !ir_dtype_is_int((int)dt)))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): attribute 'output_datatype': "
                       "type %lld (%s) is not supported (float and integer types)", n->name,
                       n->op_type, (long long)dt, ir_dtype_name((int)dt));
    return PZ_OK;
}

pz_status op_signal_set(ir_graph *g, const ir_node *n, int dt, int rank, const int64_t *dims,
                        const double *v, pz_err *err)
{
    if (op_check_dims(n, rank, dims, err)) return err->code;
    op_set_out(g, n, 0, dt, rank, dims);
    const ir_tensor *y = op_out(g, n, 0);
    if (!y) return PZ_OK;
    const int64_t numel = ir_tensor_numel(y);
    const size_t es = ir_dtype_size(dt);
    void *buf = pz_xcalloc((size_t)(numel ? numel : 1), es);
    for (int64_t i = 0; i < numel; i++) ir_store_f64(buf, dt, (size_t)i, v[i]);
    ir_value_set_data(g, n->out[0], buf, (size_t)numel * es);
    free(buf);
    return PZ_OK;
}

pz_status op_cosine_window_infer(ir_graph *g, ir_node *n, const op_cosine_window *cw,
                                 pz_err *err)
{
    const op_signal_params *p = n->params;
    int64_t size;
    int cnt;
    if (op_const_ints(g, n, 0, "size", &size, 1, &cnt, err)) return err->code;
    if (cnt != 1) return op_err(err, n, "input size must be a scalar");
    if (size < 0 || size > OP_FOLD_LIMIT)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input size is %lld: sizes 0 "
                       "to %d are made at compile time", n->name, n->op_type, (long long)size,
                       OP_FOLD_LIMIT);
    /* N = 0 (size 1, symmetric) gives 0 / 0 = NaN, as the ONNX reference */
    const double N = (double)(p->periodic ? size : size - 1);
    double *v = pz_xcalloc((size_t)(size ? size : 1), sizeof *v);
    for (int64_t i = 0; i < size; i++)
        v[i] = cw->a0 - cw->a1 * cos(2 * M_PI * (double)i / N) +
               cw->a2 * cos(4 * M_PI * (double)i / N);
    pz_status st = op_signal_set(g, n, (int)p->output_datatype, 1, &size, v, err);
    free(v);
    return st;
}
