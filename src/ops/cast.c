/* cast.c - Cast: converts the elements to the type `to`.
 *   input [d...] -> output [d...] of type `to` (an onnx.TensorProto.DataType
 *   number; a name such as "FLOAT" in opsets 1-5).
 * Attributes: saturate (opset 19+, default 1: float8 targets clamp out-of-
 * range values to their largest finite value; 0 sends them to inf/NaN) and
 * round_mode (opset 25, float8e8m0 targets: "up" (default), "down",
 * "nearest"). Float to integer truncates toward zero and saturates, except
 * to the 4- and 2-bit integers, which wrap (as the ONNX reference does);
 * anything to bool is x != 0. See src/rt/kernels/cast_small.c for float8,
 * float8e8m0 and float4e2m1. Strings and complex numbers are refused.
 * The conversion, folded or at run time, is the runtime's one kernel. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cast.h"
#include "fold.h"
#include "../rt/kernels/kernels.h"

static int cast_type_by_name(const char *s)
{
    static const struct { const char *name; int dt; } names[] = {
        {"FLOAT", IR_F32}, {"UINT8", IR_U8}, {"INT8", IR_I8}, {"UINT16", IR_U16},
        {"INT16", IR_I16}, {"INT32", IR_I32}, {"INT64", IR_I64}, {"STRING", IR_STRING},
        {"BOOL", IR_BOOL}, {"FLOAT16", IR_F16}, {"DOUBLE", IR_F64}, {"UINT32", IR_U32},
        {"UINT64", IR_U64}, {"COMPLEX64", IR_C64}, {"COMPLEX128", IR_C128},
        {"BFLOAT16", IR_BF16},
    };
    for (size_t i = 0; i < PZ_ARRAY_LEN(names); i++)
        if (!strcasecmp(s, names[i].name)) return names[i].dt;
    return -1;
}

pz_status cast_parse_rounding(const ir_node *n, const char *op, cast_params *p, pz_err *err)
{
    int64_t sat;
    if (op_attr_int(n, "saturate", 1, &sat, err)) return err->code;
    if (sat != 0 && sat != 1) return op_err_attr(err, n, "saturate", "is %lld, not 0 or 1",
                                                 (long long)sat);
    p->rt.nosat = sat == 0;
    const char *mode;
    if (op_attr_string(n, "round_mode", "up", &mode, err)) return err->code;
    if (!strcmp(mode, "up")) p->rt.round = PZ_ROUND_UP;
    else if (!strcmp(mode, "down")) p->rt.round = PZ_ROUND_DOWN;
    else if (!strcmp(mode, "nearest")) p->rt.round = PZ_ROUND_NEAREST;
    else return op_err_attr(err, n, "round_mode", "is \"%s\", not \"up\", \"down\" or "
                            "\"nearest\" (%s)", mode, op);
    return PZ_OK;
}

pz_status cast_check_target(const ir_node *n, const char *op, const char *what, int to, pz_err *err)
{
    if (!ir_dtype_supported(to))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): %s: casting to %s (type %d) "
                       "is not supported", n->name, op, what, ir_dtype_name(to), to);
    return PZ_OK;
}

static pz_status cast_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    cast_params *p = params;
    const ir_attr *a = op_attr(n, "to");
    if (!a) return op_err_attr(err, n, "to", "is required");
    if (a->type == IR_ATTR_STRING) {
        p->to = cast_type_by_name(a->s);
        if (p->to < 0) return op_err_attr(err, n, "to", "\"%s\" is not a tensor type", a->s);
    } else {
        int64_t to;
        if (op_attr_int(n, "to", 0, &to, err)) return err->code;
        if (to <= 0 || to > 64) return op_err_attr(err, n, "to", "%lld is not a tensor type",
                                                    (long long)to);
        p->to = (int)to;
    }
    if (cast_check_target(n, "Cast", "attribute 'to'", p->to, err)) return err->code;
    return cast_parse_rounding(n, "Cast", p, err);
}

pz_status cast_infer_to(ir_graph *g, ir_node *n, const cast_params *p, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_supported(x->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input 0 has element type %s "
                       "(%d), which is not supported", n->name, n->op_type,
                       ir_dtype_name(x->dtype), (int)x->dtype);
    op_set_out(g, n, 0, p->to, x->rank, x->dims);
    const ir_tensor *y = op_out(g, n, 0);
    if (!y || !x->data || ir_tensor_numel(y) > OP_FOLD_LIMIT) return PZ_OK;
    size_t numel = (size_t)ir_tensor_numel(y), es = ir_dtype_size(p->to);
    void *buf = pz_xcalloc(numel ? numel : 1, es);
    /* the runtime's kernel: a folded Cast equals a run one, bit for bit */
    pz_any_cast__ref(&p->rt, x->dtype, x->data, p->to, buf, (int64_t)numel, 0, 1);
    ir_value_set_data(g, n->out[0], buf, numel * es);
    free(buf);
    return PZ_OK;
}

static pz_status cast_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return cast_infer_to(g, n, n->params, err);
}

/* CAST: the target type is the output tensor's; params only when they are
 * not the defaults (saturate, round up), so common casts stay param-free. */
pz_status cast_lower_with(const ir_node *n, const cast_params *p, op_lowered *out)
{
    int plain = !p->rt.nosat && p->rt.round == PZ_ROUND_UP;
    op_lowered_init(out, n, PZ_OP_CAST, plain ? NULL : &p->rt, plain ? 0 : sizeof p->rt);
    return PZ_OK;
}

static pz_status cast_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return cast_lower_with(n, n->params, out);
}

const op_def op_cast = {
    .name = "Cast",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(cast_params),
    .parse = cast_parse,
    .infer = cast_infer,
    .cost = NULL,
    .lower = cast_lower,
};
