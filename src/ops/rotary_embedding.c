/* rotary_embedding.c - RotaryEmbedding (opset 23):
 *   X [B, H, S, D] or [B, S, H*D] (num_heads), cos_cache and sin_cache
 *   [positions, rot/2] with position_ids int64 [B, S], else [B, S, rot/2]
 *   -> Y [X's shape].
 * interleaved, rotary_embedding_dim (0: D). No MACs. Runs as ROTARY
 * (rt/ops/rotary.c). */
#include "op.h"

static pz_status rotary_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    pz_rotary_params *p = params;
    int64_t il, nh, rd;
    if (op_attr_int(n, "interleaved", 0, &il, err) ||
        op_attr_int(n, "num_heads", 0, &nh, err) ||
        op_attr_int(n, "rotary_embedding_dim", 0, &rd, err))
        return err->code;
    if (nh < 0 || nh > 1 << 20) return op_err_attr(err, n, "num_heads", "is out of range");
    if (rd < 0 || rd > 1 << 20 || rd % 2)
        return op_err_attr(err, n, "rotary_embedding_dim", "must be even and >= 0");
    p->interleaved = il != 0;
    p->num_heads = (int)nh;
    p->rotary_dim = (int)rd;
    return PZ_OK;
}

static pz_status rotary_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_rotary_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *co = op_in(g, n, 1), *si = op_in(g, n, 2);
    const ir_tensor *pos = op_in(g, n, 3);
    if (!x || !co || !si) return op_err(err, n, "needs the inputs X, cos_cache and sin_cache");
    if (!ir_dtype_is_float(x->dtype) || co->dtype != x->dtype || si->dtype != x->dtype)
        return op_err(err, n, "inputs X (%s), cos_cache (%s), sin_cache (%s) must be of one "
                      "float type", ir_dtype_name(x->dtype), ir_dtype_name(co->dtype),
                      ir_dtype_name(si->dtype));
    if (x->rank != 4 && x->rank != 3)
        return op_err(err, n, "input X has rank %d, expected 3 or 4", x->rank);
    if (x->rank == 3 && (p->num_heads <= 0 || x->dims[2] % p->num_heads))
        return op_err_attr(err, n, "num_heads", "must divide the hidden size %lld of a 3-D X",
                           (long long)x->dims[2]);
    if (pos && pos->dtype != IR_I64)
        return op_err(err, n, "input position_ids has type %s, expected int64",
                      ir_dtype_name(pos->dtype));
    /* constant positions are rows of the caches (as ONNX Runtime 1.30; the
     * run checks others) */
    if (pos && co->rank == 2 &&
        op_check_span(g, n, pos, "position_ids", 0, co->dims[0] - 1, err))
        return err->code;
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

static pz_status rotary_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_ROTARY, n->params, sizeof(pz_rotary_params));
    return PZ_OK;
}

const op_def op_rotary_embedding = {
    .name = "RotaryEmbedding",
    .min_in = 3, .max_in = 4, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_rotary_params),
    .parse = rotary_parse,
    .infer = rotary_infer,
    .lower = rotary_lower,
};
