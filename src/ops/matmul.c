/* matmul.c - MatMul: the matrix product with numpy semantics.
 *   A [..., M, K], B [..., K, N] -> Y [batch..., M, N], the batch dims
 *   broadcast (numpy). A 1-D A is [1, K] with the M dim then dropped; a 1-D
 *   B is [K, 1] with the N dim dropped (so 1-D x 1-D is a scalar).
 * Floats; int32/int64/uint32/uint64 from opset 9 (one type for A and B).
 * MACs: prod(batch) * M * K * N. */
#include "matmul.h"

typedef struct {
    int64_t batch, m, k, n;   /* set by infer */
} matmul_params;

/* float16/32/64, bfloat16; int32/int64/uint32/uint64 from opset 9 */
static int matmul_type_ok(int opset, int dt)
{
    if (ir_dtype_is_float(dt)) return 1;
    return opset >= 9 && (dt == IR_I32 || dt == IR_I64 || dt == IR_U32 || dt == IR_U64);
}

pz_status op_matmul_shape(const ir_node *n, const ir_tensor *a, const ir_tensor *b,
                          op_matmul_dims *md, pz_err *err)
{
    /* promote 1-D operands to matrices */
    ir_tensor a2 = *a, b2 = *b;
    if (a->rank == 1) {   /* [K] -> [1, K] */
        a2.rank = 2;
        a2.dims[0] = 1;
        a2.dims[1] = a->dims[0];
    }
    if (b->rank == 1) {   /* [K] -> [K, 1] */
        b2.rank = 2;
        b2.dims[0] = b->dims[0];
        b2.dims[1] = 1;
    }
    int64_t m = a2.dims[a2.rank - 2], k = a2.dims[a2.rank - 1];
    int64_t kb = b2.dims[b2.rank - 2], nn = b2.dims[b2.rank - 1];
    if (k != kb) {
        char sa[128], sb[128];
        return op_err(err, n, "inner dimensions differ: A %s has K = %lld, B %s has %lld",
                      ir_shape_str(a, sa, sizeof sa), (long long)k, ir_shape_str(b, sb, sizeof sb),
                      (long long)kb);
    }
    /* batch dims: everything but the last two, broadcast */
    ir_tensor ba = a2, bb = b2, batch;
    ba.rank -= 2;
    bb.rank -= 2;
    if (op_broadcast(NULL, n, &ba, &bb, &batch, err)) return err->code;
    int r = 0;
    for (int d = 0; d < batch.rank; d++) md->dims[r++] = batch.dims[d];
    if (a->rank > 1) md->dims[r++] = m;
    if (b->rank > 1) md->dims[r++] = nn;
    if (op_check_dims(n, r, md->dims, err)) return err->code;
    md->rank = r;
    md->batch = ir_tensor_numel(&batch);
    md->m = m;
    md->k = k;
    md->n = nn;
    return PZ_OK;
}

static pz_status matmul_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    matmul_params *p = n->params;
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 1);
    if (!a || !b) return op_err(err, n, "input %s is missing", a ? "B" : "A");
    if (a->rank < 1 || b->rank < 1)
        return op_err(err, n, "A and B must have rank >= 1, got %d and %d", a->rank, b->rank);
    if (!matmul_type_ok(g->opset, a->dtype))
        return op_err(err, n, "A has unsupported type %s", ir_dtype_name(a->dtype));
    if (b->dtype != a->dtype)
        return op_err(err, n, "A is %s but B is %s", ir_dtype_name(a->dtype),
                      ir_dtype_name(b->dtype));
    /* a run-time shape's dims are a bound: K, which Y's shape does not
     * hold, is checked by the run (rt/ops/matmul.c) */
    ir_tensor ak = *a;
    if (g->values[n->in[0]].dyn || g->values[n->in[1]].dyn)
        ak.dims[a->rank - 1] = b->dims[b->rank == 1 ? 0 : b->rank - 2];
    op_matmul_dims md;
    if (op_matmul_shape(n, &ak, b, &md, err)) return err->code;
    p->batch = md.batch;
    p->m = md.m;
    p->k = md.k;
    p->n = md.n;
    op_set_out(g, n, 0, a->dtype, md.rank, md.dims);
    return PZ_OK;
}

static void matmul_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const matmul_params *p = n->params;
    int64_t y = p->batch * p->m * p->n;   /* numel(Y): checked by infer */
    if (__builtin_mul_overflow(y, p->k, &c->macs)) c->macs = INT64_MAX;
}

static pz_status matmul_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    /* in: A, B, and the bias C the passes may have fused (with act) */
    pz_matmul_params mp = {.act = op_act(n)};
    op_lowered_init(out, n, PZ_OP_MATMUL, &mp, sizeof mp);
    return PZ_OK;
}

const op_def op_matmul = {
    .name = "MatMul",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(matmul_params),
    .infer = matmul_infer,
    .cost = matmul_cost,
    .lower = matmul_lower,
    .takes_act = 1,
};
