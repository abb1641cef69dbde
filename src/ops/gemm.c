/* gemm.c - Gemm: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A,
 * B' = transB ? B^T : B.
 *   A [M, K] ([K, M] if transA), B [K, N] ([N, K] if transB),
 *   C broadcastable unidirectionally to [M, N] (optional from opset 11) -> Y [M, N]
 * Opset < 7 attribute `broadcast` is accepted: its broadcasting is a subset
 * of the unidirectional rule applied here. Floats; int32/int64/uint32/uint64
 * from opset 9.
 * MACs: M * K * N. In a dynamic region (A of a run-time M: a detector's
 * box head over its proposals) it unfolds into MatMul, Mul and Add, which
 * take run-time shapes.
 */
#include "op_inline.h"

typedef struct {
    int64_t trans_a, trans_b;
    float alpha, beta;
    int64_t m, k, n;   /* set by infer */
} gemm_params;

/* float16/32/64, bfloat16; int32/int64/uint32/uint64 from opset 9 */
static int gemm_type_ok(int opset, int dt)
{
    if (ir_dtype_is_float(dt)) return 1;
    return opset >= 9 && (dt == IR_I32 || dt == IR_I64 || dt == IR_U32 || dt == IR_U64);
}

static pz_status gemm_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    gemm_params *p = params;
    int64_t bcast;
    if (op_attr_int(n, "transA", 0, &p->trans_a, err)) return err->code;
    if (op_attr_int(n, "transB", 0, &p->trans_b, err)) return err->code;
    if (p->trans_a != 0 && p->trans_a != 1)
        return op_err_attr(err, n, "transA", "is %lld, must be 0 or 1", (long long)p->trans_a);
    if (p->trans_b != 0 && p->trans_b != 1)
        return op_err_attr(err, n, "transB", "is %lld, must be 0 or 1", (long long)p->trans_b);
    if (op_attr_float(n, "alpha", 1.0f, &p->alpha, err)) return err->code;
    if (op_attr_float(n, "beta", 1.0f, &p->beta, err)) return err->code;
    return op_attr_int(n, "broadcast", 0, &bcast, err);
}

static pz_status gemm_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    gemm_params *p = n->params;
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 1), *c = op_in(g, n, 2);
    if (!a || !b) return op_err(err, n, "input %s is missing", a ? "B" : "A");
    if (!c && g->opset < 11) return op_err(err, n, "input C is required before opset 11");
    if (a->rank != 2 || b->rank != 2)
        return op_err(err, n, "A and B must be 2-D, got rank %d and %d", a->rank, b->rank);
    if (!gemm_type_ok(g->opset, a->dtype))
        return op_err(err, n, "A has unsupported type %s", ir_dtype_name(a->dtype));
    if (b->dtype != a->dtype || (c && c->dtype != a->dtype))
        return op_err(err, n, "A, B and C must have one type, got %s, %s and %s",
                      ir_dtype_name(a->dtype), ir_dtype_name(b->dtype),
                      c ? ir_dtype_name(c->dtype) : "-");
    int64_t m = a->dims[p->trans_a], k = a->dims[1 - p->trans_a];
    int64_t kb = b->dims[p->trans_b], nn = b->dims[1 - p->trans_b];
    if (k != kb)
        return op_err(err, n, "inner dimensions differ: A%s gives K = %lld, B%s gives %lld",
                      p->trans_a ? "^T" : "", (long long)k, p->trans_b ? "^T" : "", (long long)kb);
    int64_t dims[2] = {m, nn};
    if (c) {   /* unidirectional: C's dims (right-aligned) are 1 or Y's */
        int ok = c->rank <= 2;
        for (int d = 0; ok && d < c->rank; d++) {
            int64_t dc = c->dims[d], dy = dims[2 - c->rank + d];
            ok = dc == 1 || dc == dy;
        }
        if (!ok) {
            char s[128];
            return op_err(err, n, "C of shape %s does not broadcast to [%lld, %lld]",
                          ir_shape_str(c, s, sizeof s), (long long)m, (long long)nn);
        }
    }
    if (op_check_dims(n, 2, dims, err)) return err->code;
    p->m = m;
    p->k = k;
    p->n = nn;
    op_set_out(g, n, 0, a->dtype, 2, dims);
    return PZ_OK;
}

static void gemm_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const gemm_params *p = n->params;
    int64_t mk = p->m * p->k;   /* numel(A): fits */
    if (__builtin_mul_overflow(mk, p->n, &c->macs)) c->macs = INT64_MAX;
}

static pz_status gemm_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const gemm_params *p = n->params;
    pz_gemm_params gp = {.trans_a = (int)p->trans_a, .trans_b = (int)p->trans_b,
                         .alpha = p->alpha, .beta = p->beta, .act = op_act(n)};
    op_lowered_init(out, n, PZ_OP_GEMM, &gp, sizeof gp);   /* A, B, C? */
    return PZ_OK;
}

/* A, B or C with a run-time shape (ir_value.dyn); other than float32 only
 * unscaled (the scales are float32 constants). */
static int gemm_unfolds(const ir_graph *g, const ir_node *n)
{
    int dyn = 0;
    for (int i = 0; i < n->n_in; i++) dyn |= n->in[i] >= 0 && g->values[n->in[i]].dyn;
    float alpha = 1, beta = 1;
    pz_err e = {0};
    if (!dyn || op_attr_float(n, "alpha", 1.0f, &alpha, &e) ||
        op_attr_float(n, "beta", 1.0f, &beta, &e))
        return 0;
    return (alpha == 1 && beta == 1) || g->values[n->in[0]].t.dtype == IR_F32;
}

/* Appends op_type(ins) to a new value named NAME/tag; returns it. */
static int gemm_step(ir_graph *g, const char *name, const char *tag, const char *op_type,
                     const int *ins, int n_in)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", name, tag);
    int y = ir_graph_add_value_unique(g, buf);
    op_append_node(g, buf, op_type, ins, n_in, &y, 1);
    return y;
}

/* B^T of a constant 2-D B, as a new constant: a Transpose node would
 * rewrite the weights at every run (the whole of fc6 in a box head). */
static int gemm_const_bt(ir_graph *g, const char *name, const ir_tensor *b)
{
    size_t es = ir_dtype_size(b->dtype);
    int64_t r = b->dims[0], c = b->dims[1], dims[2] = {b->dims[1], b->dims[0]};
    const char *s = b->data;
    char *d = pz_xmalloc(b->nbytes ? b->nbytes : 1), buf[512];
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++)
            memcpy(d + (size_t)(j * r + i) * es, s + (size_t)(i * c + j) * es, es);
    snprintf(buf, sizeof buf, "%s/Bt", name);
    int v = op_new_const(g, buf, b->dtype, 2, dims, d);
    free(d);
    return v;
}

/* Y = (alpha * MatMul(A', B')) + (beta * C): A', B' Transposes (a constant
 * B transposed here); node i becomes the last step. */
static pz_status gemm_unfold(ir_graph *g, int i, pz_err *err)
{
    gemm_params p;
    ir_node *n = &g->nodes[i];
    if (gemm_parse(g, n, &p, err)) return err->code;
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 1);
    if (!a || !b || a->rank != 2 || b->rank != 2)
        return op_err(err, n, "A and B must be 2-D, got rank %d and %d", a ? a->rank : -1,
                      b ? b->rank : -1);
    int x[2] = {n->in[0], n->in[1]}, c = n->n_in > 2 ? n->in[2] : -1, start = g->n_nodes;
    char *name = pz_xstrdup(n->name);
    if (p.trans_a) x[0] = gemm_step(g, name, "At", "Transpose", &x[0], 1);
    const ir_tensor *bv = &g->values[x[1]].t;   /* b moves when At adds a value */
    if (p.trans_b && bv->data && g->values[x[1]].producer < 0)
        x[1] = gemm_const_bt(g, name, bv);
    else if (p.trans_b)
        x[1] = gemm_step(g, name, "Bt", "Transpose", &x[1], 1);
    int y = gemm_step(g, name, "AB", "MatMul", x, 2);
    if (p.alpha != 1) {
        int s[2] = {y, op_new_const(g, "alpha", IR_F32, 0, NULL, &p.alpha)};
        y = gemm_step(g, name, "alphaAB", "Mul", s, 2);
    }
    if (c >= 0 && p.beta != 1) {
        int s[2] = {c, op_new_const(g, "beta", IR_F32, 0, NULL, &p.beta)};
        c = gemm_step(g, name, "betaC", "Mul", s, 2);
    }
    int ins[2] = {y, c};
    op_node_rewrite(g, i, c >= 0 ? "Add" : "Identity", ins, c >= 0 ? 2 : 1, 0);
    ir_graph_move_tail(g, start, i);
    free(name);
    return PZ_OK;
}

const op_def op_gemm = {
    .name = "Gemm",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(gemm_params),
    .parse = gemm_parse,
    .infer = gemm_infer,
    .cost = gemm_cost,
    .lower = gemm_lower,
    .unfold = gemm_unfold,
    .unfolds = gemm_unfolds,
    .takes_act = 1,
};
