/* quant.c - the parts QuantizeLinear and DequantizeLinear share (quant.h). */
#include "quant.h"

pz_status op_quant_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    op_quant_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis, sat, prec;
    if (!x) return op_err(err, n, "input x is missing");
    if (op_attr_int(n, "axis", 1, &axis, err) || op_attr_int(n, "block_size", 0, &p->q.block_size, err) ||
        op_attr_int(n, "saturate", 1, &sat, err) ||
        op_attr_int(n, "output_dtype", 0, &p->output_dtype, err) ||
        op_attr_int(n, "precision", 0, &prec, err))
        return err->code;
    /* axis matters only to a per-axis or blocked scale (op_quant_check) */
    p->axis_ok = x->rank > 0 && axis >= -x->rank && axis < x->rank;
    p->q.axis = p->axis_ok ? (int)(axis < 0 ? axis + x->rank : axis) : 0;
    if (p->q.block_size < 0) return op_err_attr(err, n, "block_size", "is negative");
    if (prec != 0)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): attribute 'precision' (%lld) "
                       "is not supported", n->name, n->op_type, (long long)prec);
    p->q.saturate = sat != 0;
    return PZ_OK;
}

int op_quant_type_ok(int dt)
{
    switch (dt) {
    case IR_U8: case IR_I8: case IR_U16: case IR_I16: case IR_U4: case IR_I4: case IR_U2:
    case IR_I2: case IR_F8E4M3FN: case IR_F8E4M3FNUZ: case IR_F8E5M2: case IR_F8E5M2FNUZ:
    case IR_F4E2M1:
        return 1;
    default:
        return 0;
    }
}

pz_status op_quant_check(const ir_graph *g, const ir_node *n, int tq, pz_err *err)
{
    const op_quant_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *s = op_in(g, n, 1), *z = op_in(g, n, 2);
    if (!s) return op_err(err, n, "input scale is missing");
    if (!ir_dtype_is_float(s->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input scale has type %s, "
                       "not supported (float types only)", n->name, n->op_type,
                       ir_dtype_name(s->dtype));
    if ((p->q.block_size > 0 || ir_tensor_numel(s) != 1) && !p->axis_ok)
        return op_err_attr(err, n, "axis", "is out of range for x of rank %d", x->rank);
    if (z && ((int)z->dtype != tq || ir_tensor_numel(z) != ir_tensor_numel(s)))
        return op_err(err, n, "input zero_point must have the scale's shape and type %s",
                      ir_dtype_name(tq));
    if (p->q.block_size > 0) {
        if (s->rank != x->rank) return op_err(err, n, "blocked: scale must have X's rank");
        for (int i = 0; i < x->rank; i++) {
            int64_t want = i == p->q.axis ? (x->dims[i] + p->q.block_size - 1) / p->q.block_size
                                          : x->dims[i];
            if (s->dims[i] != want)
                return op_err_attr(err, n, "block_size", "scale dim %d is %lld, expected %lld",
                                   i, (long long)s->dims[i], (long long)want);
        }
    } else if (ir_tensor_numel(s) != 1 &&
               (s->rank != 1 || x->rank == 0 || s->dims[0] != x->dims[p->q.axis])) {
        return op_err(err, n, "input scale must be a scalar or 1-D of x's axis length");
    }
    return PZ_OK;
}

pz_status op_quant_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_QUANT, &((const op_quant_params *)n->params)->q,
                    sizeof(pz_quant_params));
    return PZ_OK;
}
