/* elementwise.c - shared inference for element-wise ops. */
#include "elementwise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "op_infer.h"
#include "../rt/kernels/kernels.h"

pz_status op_unary_float_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!x) return op_err(err, n, "input 0 is missing");
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "input must be a floating-point tensor, got %s",
                      ir_dtype_name(x->dtype));
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

pz_status op_attr_finite(const ir_node *n, const char *name, float def, float *out, pz_err *err)
{
    if (op_attr_float(n, name, def, out, err)) return err->code;
    if (!isfinite(*out)) return op_err_attr(err, n, name, "must be a finite number");
    return PZ_OK;
}

pz_status op_unary_math_set(void *params, pz_unary_func func, op_types types, float alpha,
                            float beta)
{
    op_unary_math *p = params;
    p->rt = (pz_unary_params){.func = func, .alpha = alpha, .beta = beta};
    p->types = types;
    return PZ_OK;
}

static int type_allowed(op_types types, int dt)
{
    if (ir_dtype_is_float(dt)) return 1;
    if (!ir_dtype_is_int(dt)) return 0;
    return types == OP_TYPES_NUMERIC || (types == OP_TYPES_SIGNED && pz_dtype_is_signed(dt));
}

pz_status op_unary_math_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    static const char *const TYPES[] = {"a floating-point", "a signed or floating-point",
                                        "a numeric"};
    const op_unary_math *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!x) return op_err(err, n, "input X is missing");
    if (!type_allowed(p->types, x->dtype))
        return op_err(err, n, "input X must be %s tensor, got %s", TYPES[p->types],
                      ir_dtype_name(x->dtype));
    if (p->rt.func == PZ_UN_SHRINK && ir_dtype_is_int(x->dtype) &&
        p->rt.beta != truncf(p->rt.beta))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): attribute 'bias' %g on %s "
                       "input X is not supported (only a whole bias on integers)", n->name,
                       n->op_type, p->rt.beta, ir_dtype_name(x->dtype));
    op_same_as(g, n, 0, 0);
    int64_t numel = ir_tensor_numel(x);
    if (!x->data || numel > OP_FOLD_MAX || n->out[0] < 0) return PZ_OK;
    size_t es = ir_dtype_size(x->dtype);
    void *buf = pz_xcalloc((size_t)(numel ? numel : 1), es);
    if (x->dtype == IR_F32) pz_f32_unary__ref(&p->rt, x->data, buf, numel, 0, 1);
    else pz_any_unary__ref(&p->rt, x->dtype, x->data, buf, numel, 0, 1);
    ir_value_set_data(g, n->out[0], buf, (size_t)numel * es);
    free(buf);
    return PZ_OK;
}

/* Index of out element `o` in a broadcast input t (right-aligned dims). */
static size_t bcast_index(const ir_tensor *t, const ir_tensor *out, size_t o)
{
    size_t idx = 0, stride = 1;
    for (int d = out->rank - 1, k = t->rank - 1; d >= 0; d--, k--) {
        size_t coord = o % (size_t)out->dims[d];
        o /= (size_t)out->dims[d];
        if (k >= 0) {
            if (t->dims[k] != 1) idx += coord * stride;
            stride *= (size_t)t->dims[k];
        }
    }
    return idx;
}

/* A uint64 constant above INT64_MAX would be misread by the int64 folding
 * (division and comparisons are sign-sensitive). */
static int has_big_u64(const ir_tensor *t)
{
    if (t->dtype != IR_U64) return 0;
    int64_t cnt = ir_tensor_numel(t);
    for (int64_t k = 0; k < cnt; k++)
        if (ir_load_i64(t->data, t->dtype, (size_t)k) < 0) return 1;
    return 0;
}

/* Folds out[o] = fn(in[0][..], in[1][..], ...) over the broadcast shape. */
static void fold(ir_graph *g, ir_node *n, const ir_tensor *const *in, int n_in,
                 const ir_tensor *shape, const op_binary_fn *fn)
{
    int64_t numel = ir_tensor_numel(shape);
    int is_int = 1;
    for (int i = 0; i < n_in; i++) {
        is_int &= ir_dtype_is_int(in[i]->dtype);
        if (has_big_u64(in[i])) return;
    }
    if (is_int ? !fn->i : !fn->f) return;
    size_t es = ir_dtype_size(shape->dtype);
    void *buf = pz_xcalloc((size_t)(numel ? numel : 1), es);
    for (size_t o = 0; o < (size_t)numel; o++) {
        if (is_int) {
            int64_t acc = ir_load_i64(in[0]->data, in[0]->dtype, bcast_index(in[0], shape, o));
            for (int i = 1; i < n_in; i++)
                acc = fn->i(acc, ir_load_i64(in[i]->data, in[i]->dtype,
                                             bcast_index(in[i], shape, o)));
            ir_store_i64(buf, shape->dtype, o, acc);
        } else {
            double acc = ir_load_f64(in[0]->data, in[0]->dtype, bcast_index(in[0], shape, o));
            for (int i = 1; i < n_in; i++)
                acc = fn->f(acc, ir_load_f64(in[i]->data, in[i]->dtype,
                                             bcast_index(in[i], shape, o)));
            ir_store_f64(buf, shape->dtype, o, acc);
        }
    }
    ir_value_set_data(g, n->out[0], buf, (size_t)numel * es);
    free(buf);
}

/* Broadcasts the views in[0..n_in) (the inputs, or reshaped views of them)
 * into output 0, of type out_dtype (-1: in[0]'s); folds when all are
 * constant. */
static pz_status broadcast_views(ir_graph *g, ir_node *n, const ir_tensor *const *in, int n_in,
                                 int same_type, int out_dtype, const op_binary_fn *fn,
                                 pz_err *err)
{
    ir_tensor shape = *in[0];
    shape.data = NULL;
    int all_const = in[0]->data != NULL;
    for (int i = 1; i < n_in; i++) {
        const ir_tensor *b = in[i];
        if (same_type && b->dtype != shape.dtype)
            return op_err(err, n, "input %d is %s but input 0 is %s", i, ir_dtype_name(b->dtype),
                          ir_dtype_name(shape.dtype));
        ir_tensor r = shape;
        if (op_broadcast(g, n, &shape, b, &r, err)) return err->code;
        shape.rank = r.rank;
        for (int d = 0; d < r.rank; d++) shape.dims[d] = r.dims[d];
        all_const &= b->data != NULL;
    }
    if (op_check_dims(n, shape.rank, shape.dims, err)) return err->code;
    if (out_dtype >= 0) shape.dtype = out_dtype;
    op_set_out(g, n, 0, shape.dtype, shape.rank, shape.dims);
    if (fn && all_const && ir_tensor_numel(&shape) <= OP_FOLD_MAX && n->out[0] >= 0)
        fold(g, n, in, n_in, &shape, fn);
    return PZ_OK;
}

pz_status op_broadcast_infer(ir_graph *g, ir_node *n, int same_type, const op_binary_fn *fn,
                             pz_err *err)
{
    const ir_tensor *in[64];
    if (n->n_in < 1) return op_err(err, n, "needs at least one input");
    if (n->n_in > (int)PZ_ARRAY_LEN(in))
        return op_err(err, n, "has %d inputs, at most %d are supported", n->n_in,
                      (int)PZ_ARRAY_LEN(in));
    for (int i = 0; i < n->n_in; i++)
        if (!(in[i] = op_in(g, n, i))) return op_err(err, n, "input %d is missing", i);
    return broadcast_views(g, n, in, n->n_in, same_type, -1, fn, err);
}

static int same_shape(const ir_tensor *a, const ir_tensor *b)
{
    if (a->rank != b->rank) return 0;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d] != b->dims[d]) return 0;
    return 1;
}

pz_status op_arith_infer(ir_graph *g, ir_node *n, int same_type, const op_binary_fn *fn,
                         pz_err *err)
{
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 1);
    if (!a || !b) return op_err(err, n, "input %s is missing", a ? "B" : "A");
    if (a->dtype == IR_BOOL || b->dtype == IR_BOOL)
        return op_err(err, n, "inputs must be numeric, got %s and %s", ir_dtype_name(a->dtype),
                      ir_dtype_name(b->dtype));
    return op_binary_infer(g, n, same_type, -1, fn, err);
}

pz_status op_binary_infer(ir_graph *g, ir_node *n, int same_type, int out_dtype,
                          const op_binary_fn *fn, pz_err *err)
{
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 1);
    if (!a || !b) return op_err(err, n, "input %s is missing", a ? "B" : "A");
    int64_t bcast = 0, axis;
    if (g->opset < 7 && op_attr_int(n, "broadcast", 0, &bcast, err)) return err->code;
    if (g->opset < 7 && !bcast && !same_shape(a, b)) {
        char sa[128], sb[128];
        return op_err(err, n, "shapes %s and %s differ and attribute 'broadcast' is not 1 "
                      "(opset %d requires equal shapes)", ir_shape_str(a, sa, sizeof sa),
                      ir_shape_str(b, sb, sizeof sb), g->opset);
    }
    if (g->opset >= 7 || !bcast) {
        const ir_tensor *in[2] = {a, b};
        return broadcast_views(g, n, in, 2, same_type, out_dtype, fn, err);
    }
    /* legacy broadcast: B's dims line up with A's from `axis` on; B is viewed
     * with trailing 1s so that right-aligned broadcasting does the rest */
    if (b->rank > a->rank)
        return op_err(err, n, "B has rank %d, above A's %d (attribute 'broadcast' broadcasts B "
                      "into A)", b->rank, a->rank);
    if (op_attr_int(n, "axis", a->rank - b->rank, &axis, err)) return err->code;
    if (axis < -a->rank || axis > a->rank - b->rank)
        return op_err_attr(err, n, "axis", "B (rank %d) does not fit into A (rank %d) from axis "
                           "%lld", b->rank, a->rank, (long long)axis);
    if (axis < 0) axis += a->rank;
    if (axis > a->rank - b->rank)
        return op_err_attr(err, n, "axis", "B (rank %d) does not fit into A (rank %d) from axis "
                           "%lld", b->rank, a->rank, (long long)axis - a->rank);
    ir_tensor bv = *b;
    bv.rank = a->rank - (int)axis;
    for (int d = 0; d < bv.rank; d++) {
        bv.dims[d] = d < b->rank ? b->dims[d] : 1;
        if (bv.dims[d] != 1 && bv.dims[d] != a->dims[axis + d])
            return op_err(err, n, "B's dimension %d (%lld) does not match A's dimension %lld "
                          "(%lld)", d, (long long)bv.dims[d], (long long)(axis + d),
                          (long long)a->dims[axis + d]);
    }
    const ir_tensor *in[2] = {a, &bv};
    return broadcast_views(g, n, in, 2, same_type, out_dtype, fn, err);
}

pz_status op_softmax_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    op_softmax_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis;
    if (!x) return op_err(err, n, "input 0 is missing");
    if (x->rank < 1) return op_err(err, n, "input must have rank >= 1, got a scalar");
    p->coerce_2d = g->opset < 13;
    if (op_attr_int(n, "axis", p->coerce_2d ? 1 : -1, &axis, err)) return err->code;
    /* [-rank, rank) in every opset: -1 is the last axis, also in the 2-D view */
    return op_axis(n, "axis", axis, x->rank, 0, &p->axis, err);
}

void op_unary_lower(const ir_node *n, pz_unary_func func, float alpha, float beta, float gamma,
                    op_lowered *out)
{
    pz_unary_params up = {.func = func, .alpha = alpha, .beta = beta, .gamma = gamma};
    op_lowered_init(out, n, PZ_OP_UNARY, &up, sizeof up);
}

pz_status op_unary_math_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const op_unary_math *p = n->params;
    op_lowered_init(out, n, PZ_OP_UNARY, &p->rt, sizeof p->rt);
    return PZ_OK;
}

pz_status op_arith_lower(const ir_graph *g, const ir_node *n, pz_binary_func func,
                         op_lowered *out, pz_err *err)
{
    if (op_legacy_bcast_check(g, n, err)) return err->code;
    pz_binary_params bp = {.func = func, .act = op_act(n)};   /* Relu after Add: passes */
    op_lowered_init(out, n, PZ_OP_BINARY, &bp, sizeof bp);
    return PZ_OK;
}

pz_status op_legacy_bcast_check(const ir_graph *g, const ir_node *n, pz_err *err)
{
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 1);
    int64_t bcast = 0, axis;
    if (g->opset < 7 && op_attr_int(n, "broadcast", 0, &bcast, err)) return err->code;
    if (bcast) {
        /* infer checked the legacy rule: B fits into A from `axis` on, which is
         * numpy's right-aligned rule only when B ends where A ends */
        if (op_attr_int(n, "axis", a->rank - b->rank, &axis, err)) return err->code;
        if (axis < 0) axis += a->rank;
        if (axis != a->rank - b->rank && ir_tensor_numel(b) != 1)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): legacy broadcast of B "
                           "(rank %d) into A (rank %d) from axis %lld is not supported by the "
                           "runtime (only B aligned with A's trailing dims)", n->name,
                           n->op_type, b->rank, a->rank, (long long)axis);
    }
    return PZ_OK;
}

pz_status op_variadic_lower(const ir_graph *g, const ir_node *n, pz_binary_func func,
                            op_lowered *out, pz_err *err)
{
    if (n->n_in == 1) {
        op_lowered_init(out, n, PZ_OP_COPY, NULL, 0);
        return PZ_OK;
    }
    if (n->n_in > 2)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): %d inputs; the runtime "
                       "takes 1 or 2 (split it into a chain of 2-input %s nodes)", n->name,
                       n->op_type, n->n_in, n->op_type);
    pz_binary_params bp = {.func = func, .act = {.kind = PZ_ACT_NONE}};
    op_lowered_init(out, n, PZ_OP_BINARY, &bp, sizeof bp);
    return PZ_OK;
}

int op_variadic_expand(ir_graph *g, int i)
{
    int k = g->nodes[i].n_in;
    if (k <= 2) return 0;
    char *name = pz_xstrdup(g->nodes[i].name);
    size_t len = strlen(name) + 24;
    char *step = pz_xmalloc(len);
    int acc = g->nodes[i].in[0];
    for (int s = 1; s < k - 1; s++) {
        /* step s: acc = op(acc, in[s]), inserted just before the node */
        snprintf(step, len, "%s:%d", name, s);
        int at = i + s - 1;
        int rhs = g->nodes[i + s - 1].in[s];   /* the node moved up s - 1 places */
        ir_graph_insert_node(g, at, step, g->nodes[at].op_type, g->nodes[at].domain, 2, 1);
        ir_node *n = &g->nodes[at], *orig = &g->nodes[at + 1];
        n->op = orig->op;
        n->in[0] = acc;
        n->in[1] = rhs;
        n->out[0] = ir_graph_add_value_unique(g, step);
        pz_err err = {0};
        /* two inputs that the k-input node already broadcast: cannot fail */
        PZ_ASSERT(n->op->infer(g, n, &err) == PZ_OK);
        ir_cost_node(g, n);
        acc = n->out[0];
    }
    ir_node *n = &g->nodes[i + k - 2];
    n->in[0] = acc;
    n->in[1] = n->in[k - 1];
    ir_node_set_n_in(n, 2);
    ir_cost_node(g, n);
    free(step);
    free(name);
    return k - 2;
}

pz_status op_softmax_lower(const ir_graph *g, const ir_node *n, int log, op_lowered *out,
                           pz_err *err)
{
    const op_softmax_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    pz_softmax_params sp = {.axis = p->axis, .log = log, .coerce_2d = p->coerce_2d};
    /* the 2-D view over the last axis is the last axis itself */
    if (sp.coerce_2d && sp.axis == x->rank - 1) sp.coerce_2d = 0;
    op_lowered_init(out, n, PZ_OP_SOFTMAX, &sp, sizeof sp);
    return PZ_OK;
}
