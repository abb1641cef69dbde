/* op_rt_int.c - what the compiler knows of values the run computes: an
 * upper bound or the exact value of an entry of an integer vector (a
 * shape), and the dims of a run-time-shaped tensor (ir_value.dyn) that are
 * the same at every run (a NonZero's [rank, N] has rank rows, whatever N).
 * Torchvision's exports test such dims (squeeze(1) becomes an If on
 * Shape -> Gather -> Equal): knowing them folds the test, and the If. */
#include <string.h>

#include "op.h"

enum { TRACE_DEPTH = 32 };
#define UNKNOWN OP_INT_UNKNOWN

/* Element k of integer vector v: its bound (exact 0) or its value (exact
 * 1) traced through what exporters build shapes from; UNKNOWN when not
 * known. */
static int64_t rt_int(const ir_graph *g, int v, int64_t k, int exact, int depth);

/* Axes of Squeeze or Unsqueeze (an attribute, or input 1 from opset 13)
 * into out[IR_MAX_RANK]; -1 when not given or not constant. */
static int node_axes(const ir_graph *g, const ir_node *n, int64_t *out)
{
    int count = 0;
    pz_err e = {0};
    if (n->n_in > 1 && n->in[1] >= 0) {
        const ir_tensor *a = &g->values[n->in[1]].t;
        if (!a->data || a->rank > 1 || ir_tensor_numel(a) > IR_MAX_RANK) return -1;
        count = (int)ir_tensor_numel(a);
        for (int j = 0; j < count; j++) out[j] = ir_load_i64(a->data, a->dtype, (size_t)j);
        return count;
    }
    if (!op_attr(n, "axes") || op_attr_ints(n, "axes", out, IR_MAX_RANK, &count, &e)) return -1;
    return count;
}

static int has_axis(const int64_t *axes, int count, int rank, int d)
{
    for (int j = 0; j < count; j++)
        if ((axes[j] < 0 ? axes[j] + rank : axes[j]) == d) return 1;
    return 0;
}

/* Ops whose output dims are their inputs' broadcast (one input: the same). */
static int is_eltwise(const char *op)
{
    static const char *const names[] = {
        "Cast", "Identity", "Neg", "Abs", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt",
        "Floor", "Ceil", "Round", "Not", "Clip", "Reciprocal", "Sign", "Softmax", "Add", "Sub",
        "Mul", "Div", "Pow", "Mod", "Min", "Max", "Equal", "Less", "LessOrEqual", "Greater",
        "GreaterOrEqual", "And", "Or", "Xor", "Where"};
    for (size_t j = 0; j < PZ_ARRAY_LEN(names); j++)
        if (!strcmp(op, names[j])) return 1;
    return 0;
}

static int64_t dim_fixed(const ir_graph *g, int v, int d, int depth);
static int64_t rt_int(const ir_graph *g, int v, int64_t k, int exact, int depth);

/* Dim d of output rank r broadcast from n's inputs: an input's fixed dim
 * other than 1 is the run's (the others are 1 or equal), all 1 gives 1. */
static int64_t bcast_fixed(const ir_graph *g, const ir_node *n, int r, int d, int depth)
{
    int all = 1;
    for (int j = 0; j < n->n_in; j++) {
        if (n->in[j] < 0) continue;
        int rj = g->values[n->in[j]].t.rank, dj = d - (r - rj);
        if (dj < 0) continue;
        int64_t f = dim_fixed(g, n->in[j], dj, depth + 1);
        if (f >= 0 && f != 1) return f;
        all &= f == 1;
    }
    return all ? 1 : -1;
}

/* The entry of n's output `which` along `axis` of a Slice or Split of a
 * fixed input dim: the planned one, when the input's planned dim is the
 * run's (the other inputs constants). */
static int64_t cut_fixed(const ir_graph *g, const ir_node *n, int y, int axis, int depth)
{
    const ir_tensor *x = &g->values[n->in[0]].t;
    for (int j = 1; j < n->n_in; j++)
        if (n->in[j] >= 0 && !g->values[n->in[j]].t.data) return -1;
    if (axis < 0 || axis >= x->rank || dim_fixed(g, n->in[0], axis, depth + 1) != x->dims[axis])
        return -1;
    return g->values[y].t.dims[axis];
}

/* Dim d, a -1 in the shape, of the output (rank r) of Reshape n: X's fixed
 * dims over the shape's known entries, when X has one dim and the shape
 * one entry known only at run time, taken as the same (torchvision's
 * view(K, -1) of a [K, 364]; RESHAPE checks every dim at run time). */
static int64_t reshape_minus_fixed(const ir_graph *g, const ir_node *n, int r, int d, int depth)
{
    const int x = n->in[0], rx = g->values[x].t.rank;
    int64_t rest = 1, known = 1;
    int xopen = 0, sopen = 0;
    for (int k = 0; k < rx; k++) {
        int64_t f = dim_fixed(g, x, k, depth + 1);
        if (f < 0) xopen++;
        else rest *= f;
    }
    for (int k = 0; k < r; k++) {
        if (k == d) continue;
        int64_t v = rt_int(g, n->in[1], k, 1, depth + 1);
        if (v == 0 && k < rx) v = dim_fixed(g, x, k, depth + 1);
        if (v > 0) known *= v;
        else sopen++;
    }
    /* one unknown on each side, or none (two could pair any way) */
    if (xopen != sopen || xopen > 1) return -1;
    return known > 0 && rest % known == 0 ? rest / known : -1;
}

/* Dim d of value v when the same at every run, else -1. */
static int64_t dim_fixed(const ir_graph *g, int v, int d, int depth)
{
    const ir_value *val = &g->values[v];
    const ir_tensor *t = &val->t;
    if (depth > TRACE_DEPTH || d < 0 || d >= t->rank) return -1;
    if (!val->dyn) return t->dims[d];
    if (val->producer < 0 || val->kind) return -1;
    const ir_node *n = &g->nodes[val->producer];
    const char *op = n->op_type;
    if (n->n_in < 1 || n->in[0] < 0) return -1;
    int x = n->in[0], rx = g->values[x].t.rank, r = t->rank;
    int64_t axis = 0, axes[IR_MAX_RANK];
    pz_err e = {0};
    if (is_eltwise(op)) return bcast_fixed(g, n, r, d, depth);
    if (!strcmp(op, "SelectBranch")) {   /* either branch's tensor: both must agree */
        int64_t a = dim_fixed(g, n->in[1], d, depth + 1);
        return a == dim_fixed(g, n->in[2], d, depth + 1) ? a : -1;
    }
    if (!strcmp(op, "NonZero")) return d == 0 ? rx : -1;
    if (!strcmp(op, "NonMaxSuppression")) return d == 1 ? 3 : -1;
    if (!strcmp(op, "RoiAlign")) {   /* [R, C, output_height, output_width] */
        int64_t hw = 1;
        if (d == 1) return dim_fixed(g, x, 1, depth + 1);
        if (d >= 2 && op_attr_int(n, d == 2 ? "output_height" : "output_width", 1, &hw, &e) == PZ_OK)
            return hw;
        return -1;
    }
    if (!strcmp(op, "ConstantOfShape")) {
        int64_t s = rt_int(g, x, d, 1, depth + 1);
        return s < 0 ? -1 : s;
    }
    if (!strcmp(op, "Flatten")) {   /* [prod(dims[:axis]), prod(dims[axis:])] */
        if (op_attr_int(n, "axis", 1, &axis, &e)) return -1;
        int a = (int)(axis < 0 ? axis + rx : axis), lo = d == 0 ? 0 : a, hi = d == 0 ? a : rx;
        int64_t prod = 1;
        for (int j = lo; j < hi; j++) {
            int64_t f = dim_fixed(g, x, j, depth + 1);
            if (f < 0) return -1;
            prod *= f;
        }
        return prod;
    }
    if (!strcmp(op, "Conv") || !strcmp(op, "ConvTranspose")) {
        /* N is X's; channels the weights'; a spatial dim as planned when
         * X's is fixed at its planned size (the rest are attributes) */
        const ir_tensor *w = n->n_in > 1 && n->in[1] >= 0 ? &g->values[n->in[1]].t : NULL;
        if (d == 0) return dim_fixed(g, x, 0, depth + 1);
        if (d == 1) return w && w->data ? t->dims[1] : -1;
        return w && w->data && dim_fixed(g, x, d, depth + 1) == g->values[x].t.dims[d]
                   ? t->dims[d] : -1;
    }
    if (!strcmp(op, "Gemm") && d == 1 && n->n_in > 1 && n->in[1] >= 0) {   /* B's columns */
        if (op_attr_int(n, "transB", 0, &axis, &e)) return -1;
        return dim_fixed(g, n->in[1], axis ? 0 : 1, depth + 1);
    }
    if (!strcmp(op, "Transpose")) {
        int count = 0;
        if (op_attr_ints(n, "perm", axes, IR_MAX_RANK, &count, &e)) return -1;
        if (!op_attr(n, "perm")) return dim_fixed(g, x, rx - 1 - d, depth + 1);
        return count == r ? dim_fixed(g, x, (int)axes[d], depth + 1) : -1;
    }
    if (!strcmp(op, "Gather")) {
        if (op_attr_int(n, "axis", 0, &axis, &e) || n->n_in < 2 || n->in[1] < 0) return -1;
        int a = (int)(axis < 0 ? axis + rx : axis), q = g->values[n->in[1]].t.rank;
        if (d < a) return dim_fixed(g, x, d, depth + 1);
        if (d < a + q) return dim_fixed(g, n->in[1], d - a, depth + 1);
        return dim_fixed(g, x, d - q + 1, depth + 1);
    }
    if (!strcmp(op, "Concat")) {
        if (op_attr_int(n, "axis", 0, &axis, &e)) return -1;
        int a = (int)(axis < 0 ? axis + r : axis);
        int64_t sum = 0;
        for (int j = 0; j < n->n_in; j++) {
            if (n->in[j] < 0) continue;
            int64_t f = dim_fixed(g, n->in[j], d, depth + 1);
            if (d != a && f >= 0) return f;   /* the inputs agree off the axis */
            if (f < 0) return -1;
            sum += f;
        }
        return d == a ? sum : -1;
    }
    if (!strcmp(op, "Unsqueeze") || !strcmp(op, "Squeeze")) {
        int count = node_axes(g, n, axes), sq = op[0] == 'S';
        if (count < 0) return -1;
        if (!sq && has_axis(axes, count, r, d)) return 1;
        /* the input dim that becomes output dim d: the d-th not squeezed,
         * or d less the axes inserted before it */
        int j = d;
        if (sq)
            for (int left = d, s = 0; s < rx; s++)
                if (!has_axis(axes, count, rx, s) && left-- == 0) {
                    j = s;
                    break;
                }
        for (int s = 0; !sq && s < d; s++) j -= has_axis(axes, count, r, s);
        return dim_fixed(g, x, j, depth + 1);
    }
    if (!strcmp(op, "Reshape") && n->n_in > 1 && n->in[1] >= 0) {
        int64_t s = rt_int(g, n->in[1], d, 1, depth + 1);
        if (s == 0 && op_attr_int(n, "allowzero", 0, &axis, &e) == PZ_OK && !axis)
            return dim_fixed(g, x, d, depth + 1);
        if (s == -1) return reshape_minus_fixed(g, n, r, d, depth);
        return s < 0 ? -1 : s;   /* not known */
    }
    if (!strcmp(op, "Slice")) {
        int count = 0;
        if (n->n_in > 3 && n->in[3] >= 0) {
            const ir_tensor *a = &g->values[n->in[3]].t;
            if (!a->data || ir_tensor_numel(a) > IR_MAX_RANK) return -1;
            count = (int)ir_tensor_numel(a);
            for (int j = 0; j < count; j++) axes[j] = ir_load_i64(a->data, a->dtype, (size_t)j);
        } else {
            count = rx;
            for (int j = 0; j < count; j++) axes[j] = j;
        }
        if (!has_axis(axes, count, rx, d)) return dim_fixed(g, x, d, depth + 1);
        return cut_fixed(g, n, v, d, depth);
    }
    if (!strcmp(op, "Split")) {
        if (op_attr_int(n, "axis", 0, &axis, &e)) return -1;
        int a = (int)(axis < 0 ? axis + rx : axis);
        return d == a ? cut_fixed(g, n, v, a, depth) : dim_fixed(g, x, d, depth + 1);
    }
    return -1;
}

int64_t op_dim_fixed(const ir_graph *g, int v, int d)
{
    return dim_fixed(g, v, d, 0);
}

/* Element k of integer vector v: its bound (exact 0) or its value (exact
 * 1) traced through what exporters build shapes from; -1 when not known. */
static int64_t rt_int(const ir_graph *g, int v, int64_t k, int exact, int depth)
{
    const ir_value *val = &g->values[v];
    const ir_tensor *t = &val->t;
    if (depth > TRACE_DEPTH || k < 0 || t->rank > 1 || k >= ir_tensor_numel(t)) return UNKNOWN;
    if (exact && t->dtype != IR_I64 && t->dtype != IR_I32) return UNKNOWN;
    if (t->data) return ir_load_i64(t->data, t->dtype, (size_t)k);
    if (val->producer < 0) return UNKNOWN;
    const ir_node *n = &g->nodes[val->producer];
    const char *op = n->op_type;
    if (n->n_in < 1 || n->in[0] < 0) return UNKNOWN;
    if (!strcmp(op, "Unsqueeze") || !strcmp(op, "Squeeze") || !strcmp(op, "Cast") ||
        !strcmp(op, "Identity"))
        return rt_int(g, n->in[0], k, exact, depth + 1);
    if (!strcmp(op, "Concat")) {   /* rank 1: the axis is 0 */
        for (int i = 0; i < n->n_in; i++) {
            if (n->in[i] < 0) return UNKNOWN;
            int64_t len = ir_tensor_numel(&g->values[n->in[i]].t);
            if (k < len) return rt_int(g, n->in[i], k, exact, depth + 1);
            k -= len;
        }
        return UNKNOWN;
    }
    if (!strcmp(op, "Gather")) {   /* of constant indices, axis 0 */
        const ir_tensor *ix = n->n_in > 1 && n->in[1] >= 0 ? &g->values[n->in[1]].t : NULL;
        int64_t axis = 0, len = ir_tensor_numel(&g->values[n->in[0]].t);
        pz_err e = {0};
        if (!ix || !ix->data || op_attr_int(n, "axis", 0, &axis, &e) || axis != 0) return UNKNOWN;
        int64_t i = ir_load_i64(ix->data, ix->dtype, (size_t)k);
        return rt_int(g, n->in[0], i < 0 ? i + len : i, exact, depth + 1);
    }
    if (!strcmp(op, "Reshape") && t->rank == 1 &&
        ir_tensor_numel(&g->values[n->in[0]].t) == ir_tensor_numel(t))   /* a vector's [-1] */
        return rt_int(g, n->in[0], k, exact, depth + 1);
    if (!strcmp(op, "ConstantOfShape")) {   /* its value, whatever the shape */
        const ir_attr *a = op_attr(n, "value");
        if (!a || a->type != IR_ATTR_TENSOR || !a->t || ir_tensor_numel(a->t) != 1 ||
            (a->t->dtype != IR_I64 && a->t->dtype != IR_I32))
            return UNKNOWN;
        return ir_load_i64(a->t->data, a->t->dtype, 0);
    }
    if (!strcmp(op, "Where") && n->n_in == 3 && n->in[1] >= 0 && n->in[2] >= 0) {
        /* either branch's entry (torch's expand_as: Where(s == -1, 1, s)):
         * the larger bound, or the value both give */
        int64_t e[2];
        for (int j = 0; j < 2; j++) {
            int b = n->in[1 + j];
            e[j] = rt_int(g, b, ir_tensor_numel(&g->values[b].t) > k ? k : 0, exact, depth + 1);
            if (e[j] == UNKNOWN || (!exact && e[j] < 0)) return UNKNOWN;
        }
        return exact ? (e[0] == e[1] ? e[0] : UNKNOWN) : e[0] > e[1] ? e[0] : e[1];
    }
    if (!strcmp(op, "Shape")) {   /* X's planned dims bound its run's; its fixed are it */
        const ir_value *x = &g->values[n->in[0]];
        int64_t start = 0;
        pz_err e = {0};
        if (op_attr_int(n, "start", 0, &start, &e)) return UNKNOWN;
        if (start < 0) start += x->t.rank;
        if (start + k >= x->t.rank) return UNKNOWN;
        int64_t f = exact ? dim_fixed(g, n->in[0], (int)(start + k), depth + 1)
                          : x->rt_alloc ? -1 : x->t.dims[start + k];
        return f < 0 ? UNKNOWN : f;
    }
    return UNKNOWN;
}

int64_t op_rt_int_bound(const ir_graph *g, int v, int64_t k)
{
    int64_t b = rt_int(g, v, k, 0, 0);
    return b < 0 ? -1 : b;
}

int64_t op_rt_int_known(const ir_graph *g, int v, int64_t k)
{
    return rt_int(g, v, k, 1, 0);
}

void op_fold_known(ir_graph *g, int i)
{
    const ir_node *n = &g->nodes[i];
    for (int j = 0; j < n->n_out; j++) {
        int y = n->out[j];
        if (y < 0) continue;
        const ir_value *v = &g->values[y];
        if (v->t.rank > 1) continue;
        int64_t len = ir_tensor_numel(&v->t), vals[IR_MAX_RANK];
        if (v->t.data || v->kind || v->t.rank > 1 || len < 1 || len > IR_MAX_RANK ||
            (v->t.dtype != IR_I64 && v->t.dtype != IR_I32))
            continue;
        int64_t k = 0;
        while (k < len && (vals[k] = op_rt_int_known(g, y, k)) != OP_INT_UNKNOWN) k++;
        if (k < len) continue;
        int32_t v32[IR_MAX_RANK];
        for (k = 0; k < len; k++) v32[k] = (int32_t)vals[k];
        if (v->t.dtype == IR_I64) ir_value_set_data(g, y, vals, (size_t)len * sizeof(int64_t));
        else ir_value_set_data(g, y, v32, (size_t)len * sizeof(int32_t));
    }
}
