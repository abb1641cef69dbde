/* batch.c - --batch N on a model whose batch is a static 1 (see batch.h).
 *
 * An op keeps the batch elements apart when output element b depends only on
 * input element b along axis 0: element-wise ops (broadcast against
 * constants), Conv and pools, the inference normalizations, Gemm and MatMul
 * over rows with a B that does not carry the batch, and the ops whose axis
 * is not 0 (Softmax, Concat, Split, Gather, Reduce*, Flatten, Transpose with
 * perm[0] = 0, Squeeze/Unsqueeze, Slice, Pad). Anything else that reads the
 * batch is refused, naming the node: a wrong batch is worse than none. */
#include "batch.h"

#include <stdarg.h>
#include <string.h>

#include "../ops/op.h"

typedef struct {
    char *node;   /* the node whose input `slot` reads the new constant */
    int idx;      /* its index at batch 1 (names need not be unique) */
    int slot;
    ir_tensor t;  /* int64, data owned */
} batch_const;

struct batch_plan {
    int64_t n;
    ir_graph *g1;              /* the model at batch 1 */
    unsigned char *carries;    /* per value of g1: its axis 0 is the batch */
    batch_const *c;
    int nc;
};

static int is_one_of(const char *op, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(op, *list)) return 1;
    return 0;
}

/* Output b of these is computed from input element b alone; their other
 * inputs (weights, bounds, scales) must not carry the batch. */
static const char *const ROWWISE[] = {
    "Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "GlobalAveragePool",
    "GlobalMaxPool", "GlobalLpPool", "BatchNormalization", "InstanceNormalization", "LRN",
    "Dropout", "Identity", "Cast", "CastLike", "Relu", "LeakyRelu", "Sigmoid", "Tanh",
    "HardSigmoid", "HardSwish", "Elu", "Selu", "Celu", "Softplus", "Softsign", "Gelu", "Mish",
    "Swish", "Erf", "Exp", "Log", "Sqrt", "Abs", "Neg", "Reciprocal", "Floor", "Ceil", "Round",
    "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
    "Not", "IsNaN", "IsInf", "Clip", "Shrink", "ThresholdedRelu", "DepthToSpace", "SpaceToDepth",
    "BitwiseNot", "Resize", "Upsample", "QuantizeLinear", "DequantizeLinear", NULL};

/* Broadcasting element-wise ops: a batch input of the output's rank keeps
 * its axis 0 there; the others broadcast their leading 1. */
static const char *const ELEMWISE[] = {
    "Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean", "Where", "Equal",
    "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "And", "Or", "Xor", "PRelu", "BitShift",
    "BitwiseAnd", "BitwiseOr", "BitwiseXor", NULL};

static pz_status refuse(const batch_plan *p, const ir_node *n, pz_err *err, const char *fmt, ...)
{
    char why[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return pz_fail(err, PZ_ERR_INPUT, "--batch %lld: node \"%s\" (%s) %s; the model fixes its "
                   "batch at 1, and --batch changes it only where every node keeps the batch "
                   "elements apart", (long long)p->n, n->name, n->op_type, why);
}

static int carries(const batch_plan *p, int v)
{
    return v >= 0 && p->carries[v];
}

/* A constant integer tensor into out (at most max); its count, or -1. */
static int const_ints(const ir_tensor *t, int64_t *out, int max)
{
    if (!t || !t->data || t->rank > 1) return -1;
    int64_t k = ir_tensor_numel(t);
    if (k > max) return -1;
    for (int64_t i = 0; i < k; i++) {
        if (t->dtype == IR_I64) out[i] = ((const int64_t *)t->data)[i];
        else if (t->dtype == IR_I32) out[i] = ((const int32_t *)t->data)[i];
        else return -1;
    }
    return (int)k;
}

/* The axes of node n: attribute `attr`, else its input `slot`; -1: none. */
static int node_axes(const ir_graph *g, const ir_node *n, const char *attr, int slot,
                     int64_t *axes, int max)
{
    int cnt = -1;
    pz_err e = {0};
    if (op_attr(n, attr) && !op_attr_ints(n, attr, axes, max, &cnt, &e)) return cnt;
    return slot >= 0 ? const_ints(op_in(g, n, slot), axes, max) : -1;
}

static int has_axis0(const int64_t *axes, int k, int rank)
{
    for (int i = 0; i < k; i++)
        if (axes[i] == 0 || axes[i] + rank == 0) return 1;
    return 0;
}

static int64_t attr_int(const ir_node *n, const char *name, int64_t def)
{
    int64_t v = def;
    pz_err e = {0};
    op_attr_int(n, name, def, &v, &e);
    return v;
}

/* Input `slot` of node n is a constant of the model file (an initializer or
 * a Constant node's output), integer, of rank 0 or 1, whose first element is
 * 1: the plan gives n a copy with the batch there. Returns 1 if it did. */
static int rewrite_at(batch_plan *p, const ir_node *n, int slot)
{
    const ir_graph *g = p->g1;
    const ir_value *v = &g->values[n->in[slot]];
    int from_file = v->is_initializer ||
                    (v->producer >= 0 && !strcmp(g->nodes[v->producer].op_type, "Constant"));
    if (!from_file || !v->t.data || v->t.rank > 1 || ir_tensor_numel(&v->t) < 1 ||
        (v->t.dtype == IR_I64 ? ((const int64_t *)v->t.data)[0]
         : v->t.dtype == IR_I32 ? ((const int32_t *)v->t.data)[0] : 0) != 1)
        return 0;
    p->c = pz_xrealloc(p->c, (size_t)(p->nc + 1) * sizeof *p->c);
    batch_const *c = &p->c[p->nc++];
    c->node = pz_xstrdup(n->name);
    c->idx = (int)(n - g->nodes);
    c->slot = slot;
    c->t = v->t;
    c->t.data = pz_xmalloc(v->t.nbytes);
    memcpy(c->t.data, v->t.data, v->t.nbytes);
    if (v->t.dtype == IR_I64) ((int64_t *)c->t.data)[0] = p->n;
    else ((int32_t *)c->t.data)[0] = (int32_t)p->n;
    return 1;
}

/* The shape (or repeats) read by input `slot` of node n leads with 1 at batch
 * 1: find the constant of the model file that gives that 1, directly or
 * through what exporters build shapes with (Concat on axis 0 from its first
 * input, Unsqueeze, Squeeze, Cast, Identity), and plan it rewritten. A
 * shape computed from the input (Shape -> Gather) is left alone: it follows
 * the batch by itself. Returns 1 if a constant was planned. */
static int rewrite_lead(batch_plan *p, const ir_node *n, int slot)
{
    const ir_graph *g = p->g1;
    if (slot >= n->n_in || n->in[slot] < 0) return 0;
    const ir_tensor *t = &g->values[n->in[slot]].t;
    if (!t->data || t->rank > 1 || ir_tensor_numel(t) < 1 ||
        (t->dtype == IR_I64 ? ((const int64_t *)t->data)[0]
         : t->dtype == IR_I32 ? ((const int32_t *)t->data)[0] : 0) != 1)
        return 0;
    for (int hop = 0; hop < 16; hop++) {
        if (rewrite_at(p, n, slot)) return 1;
        int pr = g->values[n->in[slot]].producer;
        if (pr < 0) return 0;
        const ir_node *m = &g->nodes[pr];
        const char *op = m->op_type;
        if (!strcmp(op, "Concat") && attr_int(m, "axis", 0) == 0) {
            slot = 0;   /* the first piece holds the leading entry */
        } else if (!strcmp(op, "Unsqueeze") || !strcmp(op, "Squeeze") || !strcmp(op, "Cast") ||
                   !strcmp(op, "Identity")) {
            slot = 0;
        } else {
            return 0;
        }
        n = m;
        if (n->n_in < 1 || n->in[0] < 0) return 0;
    }
    return 0;
}

/* Input `slot` of node n (a Concat), of batch 1, does not carry the batch:
 * a constant (a class token, [1, 1, D]) is given to n repeated n times, as
 * each image joins it; an Expand, Tile or ConstantOfShape computed at run
 * time gets its shape (repeats) constant rewritten. */
static int promote(batch_plan *p, const ir_node *n, int slot)
{
    const ir_graph *g = p->g1;
    int v = n->in[slot];
    const ir_tensor *t = &g->values[v].t;
    if (t->rank < 1 || t->dims[0] != 1) return 0;
    if (t->data && t->nbytes && (size_t)p->n <= ((size_t)64 << 20) / t->nbytes) {
        p->c = pz_xrealloc(p->c, (size_t)(p->nc + 1) * sizeof *p->c);
        batch_const *c = &p->c[p->nc++];
        c->node = pz_xstrdup(n->name);
        c->idx = (int)(n - g->nodes);
        c->slot = slot;
        c->t = *t;
        c->t.dims[0] = p->n;
        c->t.nbytes = t->nbytes * (size_t)p->n;
        c->t.data = pz_xmalloc(c->t.nbytes);
        for (int64_t i = 0; i < p->n; i++)
            memcpy((char *)c->t.data + (size_t)i * t->nbytes, t->data, t->nbytes);
        return 1;   /* the value itself stays [1, ...] for its other readers */
    }
    int pr = g->values[v].producer;
    if (pr < 0) return 0;
    const ir_node *m = &g->nodes[pr];
    int ms = !strcmp(m->op_type, "Expand") || !strcmp(m->op_type, "Tile") ? 1
           : !strcmp(m->op_type, "ConstantOfShape") ? 0 : -1;
    if (ms < 0 || !rewrite_lead(p, m, ms)) return 0;
    p->carries[v] = 1;
    return 1;
}

/* Slice on axis 0 keeps the batch only when it takes all of it. */
static pz_status check_slice(batch_plan *p, const ir_node *n, int rank, pz_err *err)
{
    const ir_graph *g = p->g1;
    int64_t st[IR_MAX_RANK], en[IR_MAX_RANK], ax[IR_MAX_RANK], sp[IR_MAX_RANK];
    int k = node_axes(g, n, "starts", 1, st, IR_MAX_RANK);
    int ke = node_axes(g, n, "ends", 2, en, IR_MAX_RANK);
    int ka = node_axes(g, n, "axes", 3, ax, IR_MAX_RANK);
    int ks = n->n_in > 4 ? const_ints(op_in(g, n, 4), sp, IR_MAX_RANK) : -1;
    if (k < 0 || ke != k) return refuse(p, n, err, "slices with starts and ends not known");
    for (int i = 0; i < k; i++) {
        int64_t a = ka >= 0 ? ax[i] : i;
        if (a < 0) a += rank;
        if (a != 0) continue;
        if (st[i] != 0 || (ks > i && sp[i] != 1) || en[i] < INT32_MAX)
            return refuse(p, n, err, "slices the batch axis 0 (starts %lld, ends %lld)",
                          (long long)st[i], (long long)en[i]);
    }
    return PZ_OK;
}

/* The rules for a node that reads the batch; outputs carry it unless *mask
 * says otherwise (bit i: output i carries). */
static pz_status check_node(batch_plan *p, const ir_node *n, unsigned *mask, pz_err *err)
{
    const ir_graph *g = p->g1;
    const char *op = n->op_type;
    const ir_tensor *x = op_in(g, n, 0), *y = op_out((ir_graph *)g, n, 0);
    int r = x ? x->rank : 0, yr = y ? y->rank : 0;
    int c0 = carries(p, n->in[0]);
    int64_t axes[IR_MAX_RANK];
    *mask = ~0u;
    if (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx"))
        return refuse(p, n, err, "is not an ONNX op this compiler knows to keep the batch apart");
    if (is_one_of(op, ELEMWISE)) {
        for (int i = 0; i < n->n_in; i++)
            if (carries(p, n->in[i]) && g->values[n->in[i]].t.rank != yr)
                return refuse(p, n, err, "broadcasts its batch input %d of rank %d to rank %d, "
                              "moving the batch off axis 0", i, g->values[n->in[i]].t.rank, yr);
        return PZ_OK;
    }
    /* the ops below read the batch through input 0, or refuse */
    if (!c0 && strcmp(op, "Gather") && strcmp(op, "MatMul") && strcmp(op, "Concat"))
        return refuse(p, n, err, "reads the batch through an input other than its data input");
    for (int i = 1; i < n->n_in && strcmp(op, "MatMul") && strcmp(op, "Concat"); i++)
        if (carries(p, n->in[i]) && strcmp(op, "Gather"))
            return refuse(p, n, err, "reads the batch through its input %d as well", i);
    if (is_one_of(op, ROWWISE)) {
        if (!strcmp(op, "BatchNormalization") && attr_int(n, "training_mode", 0))
            return refuse(p, n, err, "normalizes over the batch (training_mode 1)");
        if ((!strcmp(op, "QuantizeLinear") || !strcmp(op, "DequantizeLinear")) && n->n_in > 1 &&
            ir_tensor_numel(op_in(g, n, 1)) > 1 && (attr_int(n, "axis", 1) + r) % (r ? r : 1) == 0)
            return refuse(p, n, err, "quantizes per element of the batch axis 0");
        if (!strcmp(op, "Resize") && n->n_in > 3) rewrite_lead(p, n, 3);   /* sizes [1, ...] */
        return PZ_OK;
    }
    if (!strcmp(op, "Softmax") || !strcmp(op, "LogSoftmax") || !strcmp(op, "Hardmax") ||
        !strcmp(op, "LayerNormalization") || !strcmp(op, "Flatten") || !strcmp(op, "Split") ||
        !strcmp(op, "ArgMax") || !strcmp(op, "ArgMin") || !strcmp(op, "CumSum")) {
        int64_t def = !strcmp(op, "Flatten") ? 1
                    : (!strcmp(op, "Softmax") || !strcmp(op, "LogSoftmax") || !strcmp(op, "Hardmax"))
                          ? (g->opset < 13 ? 1 : -1)
                    : !strcmp(op, "LayerNormalization") ? -1 : 0;
        int64_t a = def;
        if (!strcmp(op, "CumSum")) {
            if (const_ints(op_in(g, n, 1), &a, 1) != 1) a = 0;
        } else {
            a = attr_int(n, "axis", def);
        }
        if (a < 0) a += r;
        if (a == 0) return refuse(p, n, err, "works along the batch axis 0");
        return PZ_OK;
    }
    if (!strcmp(op, "MeanVarianceNormalization")) {
        int k = node_axes(g, n, "axes", -1, axes, IR_MAX_RANK);
        if (k < 0 || has_axis0(axes, k, r)) return refuse(p, n, err, "normalizes over the batch axis 0");
        return PZ_OK;
    }
    if (!strcmp(op, "Concat")) {
        int64_t a = attr_int(n, "axis", 0);
        if (a < 0) a += yr;
        if (a == 0) return refuse(p, n, err, "joins its inputs along the batch axis 0");
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i] >= 0 && !carries(p, n->in[i]) && !promote(p, n, i))
                return refuse(p, n, err, "joins the batch with its input %d (\"%s\"), whose batch "
                              "of 1 comes from no constant that can be rewritten", i,
                              g->values[n->in[i]].name);
        return PZ_OK;
    }
    if (!strcmp(op, "Gather")) {
        int64_t a = attr_int(n, "axis", 0);
        if (a < 0) a += r;
        int c1 = carries(p, n->in[1]);
        if (c0 && c1) return refuse(p, n, err, "reads the batch from both data and indices");
        if (c0 && a == 0) return refuse(p, n, err, "gathers along the batch axis 0");
        if (c1 && a != 0) return refuse(p, n, err, "puts its batch indices at axis %lld", (long long)a);
        return PZ_OK;
    }
    if (!strcmp(op, "Transpose")) {
        int k = node_axes(g, n, "perm", -1, axes, IR_MAX_RANK);
        if ((k < 0 && r > 1) || (k > 0 && axes[0] != 0))
            return refuse(p, n, err, "moves the batch axis 0 elsewhere");
        return PZ_OK;
    }
    if (!strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze")) {
        int k = node_axes(g, n, "axes", 1, axes, IR_MAX_RANK);
        int rk = !strcmp(op, "Squeeze") ? r : yr;
        if (k < 0 && !strcmp(op, "Squeeze")) return refuse(p, n, err, "squeezes every dim of 1, the batch too");
        if (k < 0 || has_axis0(axes, k, rk))
            return refuse(p, n, err, "%s axis 0, the batch axis", !strcmp(op, "Squeeze") ? "removes" : "inserts");
        return PZ_OK;
    }
    if (!strncmp(op, "Reduce", 6)) {
        int k = node_axes(g, n, "axes", 1, axes, IR_MAX_RANK);
        if (k <= 0 && attr_int(n, "noop_with_empty_axes", 0)) return PZ_OK;
        if (k <= 0 || has_axis0(axes, k, r)) return refuse(p, n, err, "reduces over the batch axis 0");
        return PZ_OK;
    }
    if (!strcmp(op, "Slice")) return check_slice(p, n, r, err);
    if (!strcmp(op, "Pad")) {
        int64_t pads[2 * IR_MAX_RANK], ax[IR_MAX_RANK];
        int k = node_axes(g, n, "pads", 1, pads, 2 * IR_MAX_RANK);
        int ka = n->n_in > 3 ? const_ints(op_in(g, n, 3), ax, IR_MAX_RANK) : -1;
        if (k < 0 || k % 2) return refuse(p, n, err, "pads by amounts not known");
        for (int i = 0; i < k / 2; i++) {
            int64_t a = ka >= 0 ? (ax[i] < 0 ? ax[i] + r : ax[i]) : i;
            if (a == 0 && (pads[i] || pads[i + k / 2])) return refuse(p, n, err, "pads the batch axis 0");
        }
        return PZ_OK;
    }
    if (!strcmp(op, "Reshape")) {
        if (yr < 1 || y->dims[0] != 1) {
            char a[160], b[160];
            return refuse(p, n, err, "mixes the batch dim into others: %s -> %s",
                          ir_shape_str(x, a, sizeof a), ir_shape_str(y, b, sizeof b));
        }
        rewrite_lead(p, n, 1);   /* [1, -1] -> [N, -1]; a computed shape follows the batch */
        return PZ_OK;
    }
    if (!strcmp(op, "Expand") || !strcmp(op, "Tile")) {
        if (r != yr) return refuse(p, n, err, "moves the batch off axis 0 (rank %d -> %d)", r, yr);
        return PZ_OK;
    }
    if (!strcmp(op, "Gemm")) {
        if (attr_int(n, "transA", 0)) return refuse(p, n, err, "reads the batch as the reduced dim (transA 1)");
        return PZ_OK;
    }
    if (!strcmp(op, "MatMul")) {
        int c1 = carries(p, n->in[1]);
        const ir_tensor *b = op_in(g, n, 1);
        if (c0 && (r < 2 || r != yr)) return refuse(p, n, err, "takes its batch input A of rank %d into rank %d", r, yr);
        if (c1 && (b->rank < 3 || b->rank != yr))
            return refuse(p, n, err, "reads the batch through B of rank %d (its rows are the reduced dim)", b->rank);
        return PZ_OK;
    }
    if (!strcmp(op, "Shape") || !strcmp(op, "Size")) {
        *mask = 0;   /* shape data, computed again at batch N */
        return PZ_OK;
    }
    return refuse(p, n, err, "is not known to keep the batch elements apart (axis 0)");
}

void batch_plan_free(batch_plan *p)
{
    if (!p) return;
    for (int i = 0; i < p->nc; i++) {
        free(p->c[i].node);
        free(p->c[i].t.data);
    }
    free(p->c);
    free(p->carries);
    ir_graph_free(p->g1);
    free(p);
}

pz_status batch_plan_make(const char *path, const onnx_load_opts *opts, int64_t n,
                          batch_plan **plan, pz_err *err)
{
    *plan = NULL;
    onnx_load_opts o = *opts;
    o.by_position = NULL;
    o.n_by_position = 0;
    o.bind_needed = 0;
    o.given_len = NULL;
    o.n_given_len = 0;
    o.rebatch = 0;
    o.before_infer = NULL;
    ir_graph *g = NULL;
    pz_err e = {0};
    if (onnx_load_file(path, &o, &g, &e)) return PZ_OK;   /* the real load says why */
    batch_plan *p = pz_xcalloc(1, sizeof *p);
    p->n = n;
    p->g1 = g;
    p->carries = pz_xcalloc((size_t)g->n_values + 1, 1);
    int any = 0;
    /* an input at batch n already (a symbolic batch --batch bound): the
     * plain binding is the whole story, fixed inputs of 1 beside it too */
    for (int i = 0; i < g->n_inputs; i++)
        if (g->values[g->inputs[i]].t.rank > 0 && g->values[g->inputs[i]].t.dims[0] == n) {
            batch_plan_free(p);
            return PZ_OK;
        }
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_value *v = &g->values[g->inputs[i]];
        int named = 0;   /* --input-shape gives its dims: not ours to change */
        for (int s = 0; s < opts->n_shapes; s++) named |= !strcmp(opts->shapes[s].name, v->name);
        if (v->t.rank > 0 && v->t.dims[0] == 1 && !named) p->carries[g->inputs[i]] = any = 1;
    }
    if (!any) {
        batch_plan_free(p);
        return PZ_OK;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *nd = &g->nodes[i];
        int reads = 0, folded = 1;
        for (int k = 0; k < nd->n_in; k++) reads |= carries(p, nd->in[k]);
        for (int k = 0; k < nd->n_out; k++)
            if (nd->out[k] >= 0 && !g->values[nd->out[k]].t.data) folded = 0;
        if (!reads || folded) continue;
        unsigned mask;
        if (check_node(p, nd, &mask, err)) {
            batch_plan_free(p);
            return err->code;
        }
        for (int k = 0; k < nd->n_out && k < 32; k++)
            if (nd->out[k] >= 0 && (mask >> k & 1)) {
                const ir_value *v = &g->values[nd->out[k]];
                if (v->t.rank < 1 || v->t.dims[0] != 1) {
                    char a[160];
                    pz_status s = refuse(p, nd, err, "gives output \"%s\" the shape %s at batch 1, "
                                         "not one with the batch in front", v->name,
                                         ir_shape_str(&v->t, a, sizeof a));
                    batch_plan_free(p);
                    return s;
                }
                p->carries[nd->out[k]] = 1;
            }
    }
    /* the plan keeps shapes and names; the weights go (held twice otherwise
     * while the model loads again) */
    for (int v = 0; v < g->n_values; v++)
        if (g->values[v].owns_data && g->values[v].t.data && g->values[v].t.nbytes > 4096) {
            ir_tensor_free_data(&g->values[v].t);
            g->values[v].owns_data = 0;
        }
    *plan = p;
    return PZ_OK;
}

/* before_infer: the rewritten constants in place, and graph outputs that carry
 * the batch declared with a free leading dim. */
static pz_status apply(ir_graph *g, void *ctx, pz_err *err)
{
    const batch_plan *p = ctx;
    for (int c = 0; c < p->nc; c++) {
        int i = p->c[c].idx;
        if (i >= g->n_nodes || strcmp(g->nodes[i].name, p->c[c].node))
            for (i = 0; i < g->n_nodes && strcmp(g->nodes[i].name, p->c[c].node); i++) {}
        if (i == g->n_nodes || p->c[c].slot >= g->nodes[i].n_in || g->nodes[i].in[p->c[c].slot] < 0)
            return pz_fail(err, PZ_ERR_INTERNAL, "--batch %lld: node \"%s\" is not there at batch "
                           "%lld", (long long)p->n, p->c[c].node, (long long)p->n);
        char base[300];
        snprintf(base, sizeof base, "%s:batch", g->values[g->nodes[i].in[p->c[c].slot]].name);
        int vid = ir_graph_add_value_unique(g, base);
        ir_value *v = &g->values[vid];
        v->t = p->c[c].t;
        v->t.data = NULL;
        ir_value_set_data(g, vid, p->c[c].t.data, p->c[c].t.nbytes);
        g->values[vid].is_initializer = 1;
        g->nodes[i].in[p->c[c].slot] = vid;
    }
    for (int i = 0; i < g->n_outputs; i++) {
        ir_value *v = &g->values[g->outputs[i]];
        int w = ir_graph_find(p->g1, v->name);
        if (w >= 0 && p->carries[w]) v->decl_rank = -1;   /* batch_plan_check checks it */
    }
    return PZ_OK;
}

void batch_plan_opts(batch_plan *p, onnx_load_opts *opts)
{
    opts->rebatch = p->n;
    opts->before_infer = apply;
    opts->before_infer_ctx = p;
}

/* Value w of g1 in g: N in front where it carries the batch, else the same. */
static pz_status check_value(const batch_plan *p, const ir_graph *g, int w, pz_err *err)
{
    const ir_value *a = &p->g1->values[w];
    int v = a->name && a->name[0] ? ir_graph_find(g, a->name) : -1;
    if (v < 0) return PZ_OK;
    ir_tensor want = a->t;
    if (p->carries[w]) want.dims[0] = p->n;
    const ir_tensor *got = &g->values[v].t;
    int bad = got->rank != want.rank;
    for (int d = 0; !bad && d < want.rank; d++) bad = got->dims[d] != want.dims[d];
    if (!bad) return PZ_OK;
    char s1[160], s2[160], s3[160];
    int pr = a->producer;
    return pz_fail(err, PZ_ERR_INPUT, "--batch %lld: node \"%s\" (%s) does not pass the batch "
                   "through: its output \"%s\" is %s at batch 1 and %s at batch %lld, not %s (a "
                   "shape the model computes from constants fixes the batch)", (long long)p->n,
                   pr >= 0 ? p->g1->nodes[pr].name : "(input)",
                   pr >= 0 ? p->g1->nodes[pr].op_type : "", a->name,
                   ir_shape_str(&a->t, s1, sizeof s1), ir_shape_str(got, s2, sizeof s2),
                   (long long)p->n, ir_shape_str(&want, s3, sizeof s3));
}

pz_status batch_plan_check(const batch_plan *p, const ir_graph *g, pz_err *err)
{
    const ir_graph *g1 = p->g1;
    for (int i = 0; i < g1->n_inputs; i++)
        if (check_value(p, g, g1->inputs[i], err)) return err->code;
    for (int i = 0; i < g1->n_nodes; i++)
        for (int k = 0; k < g1->nodes[i].n_out; k++)
            if (g1->nodes[i].out[k] >= 0 && check_value(p, g, g1->nodes[i].out[k], err))
                return err->code;
    return PZ_OK;
}
