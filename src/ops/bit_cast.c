/* bit_cast.c - BitCast (opset 26): Y holds X's bits as the type `to`, which
 * must have X's bit width (bool counts 8 bits); Y has X's shape.
 *   X [any shape] -> Y [same shape], type `to`
 * The 4- and 2-bit types are refused: held one per byte (int4 sign-extended,
 * the others in the low bits), their reinterpretation is not a byte copy.
 * Folds when X is constant; else runs as BITCAST (rt/ops/bitcast.c). */
#include <string.h>

#include "reduce.h"

typedef struct {
    int64_t to;
} bit_cast_params;

static pz_status bit_cast_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    bit_cast_params *p = params;
    if (!op_attr(n, "to")) return op_err_attr(err, n, "to", "is required");
    if (op_attr_int(n, "to", 0, &p->to, err)) return err->code;
    if (!ir_dtype_supported((int)p->to) || ir_dtype_size((int)p->to) == 0)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (BitCast): attribute 'to': type %lld "
                       "(%s) is not supported", n->name, (long long)p->to,
                       ir_dtype_name((int)p->to));
    return PZ_OK;
}

static pz_status bit_cast_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const bit_cast_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    const int to = (int)p->to;
    if (ir_dtype_size(x->dtype) == 0)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (BitCast): input has type %s, not "
                       "supported", n->name, ir_dtype_name(x->dtype));
    if (ir_dtype_file_bits(x->dtype) < 8 || ir_dtype_file_bits(to) < 8)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (BitCast): attribute 'to': %s to %s: "
                       "the 4- and 2-bit types are not supported", n->name,
                       ir_dtype_name(x->dtype), ir_dtype_name(to));
    if (ir_dtype_size(x->dtype) != ir_dtype_size(to))
        return op_err_attr(err, n, "to", "%s has %d bits, the input (%s) %d: BitCast needs the "
                           "same width", ir_dtype_name(to), ir_dtype_file_bits(to),
                           ir_dtype_name(x->dtype), ir_dtype_file_bits(x->dtype));
    op_set_out(g, n, 0, to, x->rank, x->dims);
    void *buf = op_fold_start(g, n, 0, x);
    if (buf) {
        memcpy(buf, x->data, (size_t)ir_tensor_numel(x) * ir_dtype_size(to));
        op_fold_finish(g, n, 0, buf);
    }
    return PZ_OK;
}

static pz_status bit_cast_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_BITCAST, NULL, 0);
    return PZ_OK;
}

const op_def op_bit_cast = {
    .name = "BitCast",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(bit_cast_params),
    .parse = bit_cast_parse,
    .infer = bit_cast_infer,
    .lower = bit_cast_lower,
};
