/* cast.c - Cast: converts the elements to the type `to`.
 *   input [d...] -> output [d...] of type `to` (an onnx.TensorProto.DataType
 *   number; a name such as "FLOAT" in opsets 1-5).
 * Float to integer truncates toward zero; anything to bool is x != 0.
 * Types we do not hold (string, complex, float8, 4-bit) are refused. */
#include <stdlib.h>
#include <strings.h>

#include "fold.h"

typedef struct {
    int to;
} cast_params;

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

/* Names of the ONNX types we do not hold, for the error. */
static const char *cast_type_name(int dt)
{
    static const char *const names[] = {
        [IR_STRING] = "string", [IR_C64] = "complex64", [IR_C128] = "complex128",
        [17] = "float8e4m3fn", [18] = "float8e4m3fnuz", [19] = "float8e5m2",
        [20] = "float8e5m2fnuz", [21] = "uint4", [22] = "int4", [23] = "float4e2m1",
        [24] = "float8e8m0", [25] = "uint2", [26] = "int2",
    };
    if (dt >= 0 && dt < (int)PZ_ARRAY_LEN(names) && names[dt]) return names[dt];
    return ir_dtype_name(dt);
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
    if (!ir_dtype_supported(p->to))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Cast): attribute 'to': casting "
                       "to %s (type %d) is not supported", n->name,
                       cast_type_name(p->to), p->to);
    return PZ_OK;
}

static pz_status cast_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const cast_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    op_set_out(g, n, 0, p->to, x->rank, x->dims);
    const ir_tensor *y = op_out(g, n, 0);
    if (!y || !x->data || ir_tensor_numel(y) > OP_FOLD_LIMIT) return PZ_OK;
    size_t numel = (size_t)ir_tensor_numel(y), es = ir_dtype_size(p->to);
    void *buf = pz_xcalloc(numel ? numel : 1, es);
    /* integers stay exact through int64; anything with a float goes through double */
    int exact = !ir_dtype_is_float(x->dtype) && !ir_dtype_is_float(p->to);
    for (size_t i = 0; i < numel; i++) {
        if (exact) ir_store_i64(buf, p->to, i, ir_load_i64(x->data, x->dtype, i));
        else ir_store_f64(buf, p->to, i, ir_load_f64(x->data, x->dtype, i));
    }
    ir_value_set_data(g, n->out[0], buf, numel * es);
    free(buf);
    return PZ_OK;
}

/* CAST: the target type is the output tensor's. */
static pz_status cast_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_CAST, NULL, 0);
    return PZ_OK;
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
