/* clip.c - Clip: Y = min(max(X, lo), hi), element-wise.
 *   X [any shape] (, min [scalar], max [scalar]) -> Y [X's shape and type]
 * Before opset 11 the bounds are FLOAT attributes `min` and `max` (absent:
 * unbounded); from opset 11 they are optional scalar inputs 1 and 2 of X's
 * type (omitted: unbounded), constant or not. lo > hi is allowed (Y = hi).
 * Floats; integers too from opset 12. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "op_infer.h"

typedef struct {
    int has_min, has_max;   /* bound given (attribute or input) */
    double min, max;        /* its value when known at compile time */
    int min_runtime, max_runtime; /* given by a non-constant input */
} clip_params;

static pz_status clip_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    clip_params *p = params;
    const char *names[2] = {"min", "max"};
    int *has[2] = {&p->has_min, &p->has_max}, *rt[2] = {&p->min_runtime, &p->max_runtime};
    double *val[2] = {&p->min, &p->max};
    for (int k = 0; k < 2; k++) {
        *has[k] = *rt[k] = 0;
        *val[k] = 0;
        if (g->opset < 11) {
            float f;
            if (op_attr_float(n, names[k], 0, &f, err)) return err->code;
            if (op_attr(n, names[k])) {
                *has[k] = 1;
                *val[k] = f;
            }
            continue;
        }
        if (op_attr(n, names[k]))
            return op_err_attr(err, n, names[k], "is an input from opset 11 on (the model has "
                               "opset %d)", g->opset);
        const ir_tensor *t = op_in(g, n, 1 + k);
        if (!t) continue;
        *has[k] = 1;
        if (t->data && ir_tensor_numel(t) == 1) *val[k] = ir_load_f64(t->data, t->dtype, 0);
        else *rt[k] = 1;
    }
    if (g->opset < 11 && n->n_in > 1)
        return op_err(err, n, "has %d inputs; before opset 11 the bounds are attributes", n->n_in);
    return PZ_OK;
}

static pz_status clip_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!x) return op_err(err, n, "input X is missing");
    if (!ir_dtype_is_float(x->dtype) && !(g->opset >= 12 && ir_dtype_is_int(x->dtype)))
        return op_err(err, n, "X must be a %s tensor, got %s",
                      g->opset >= 12 ? "numeric" : "floating-point", ir_dtype_name(x->dtype));
    for (int k = 1; k <= 2; k++) {
        const ir_tensor *t = op_in(g, n, k);
        if (!t) continue;
        if (t->dtype != x->dtype)
            return op_err(err, n, "%s is %s but X is %s", k == 1 ? "min" : "max",
                          ir_dtype_name(t->dtype), ir_dtype_name(x->dtype));
        if (t->rank > 1 || ir_tensor_numel(t) != 1) {
            char s[128];
            return op_err(err, n, "%s must be a scalar, got shape %s", k == 1 ? "min" : "max",
                          ir_shape_str(t, s, sizeof s));
        }
    }
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

/* UNARY CLIP, lo = alpha, hi = beta (omitted: -inf / +inf); the bounds must
 * be known now, and the min/max inputs are dropped. Read from the graph
 * rather than the parsed flags, so that a bound folded after parse counts. */
static pz_status clip_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const clip_params *p = n->params;
    double bound[2] = {p->has_min ? p->min : -INFINITY, p->has_max ? p->max : INFINITY};
    if (g->opset >= 11) {
        for (int k = 0; k < 2; k++) {
            const ir_tensor *t = op_in(g, n, 1 + k);
            bound[k] = k ? INFINITY : -INFINITY;
            if (!t) continue;
            if (!t->data)
                return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): the %s bound (input "
                               "\"%s\") must be a constant: bounds computed at run time are not "
                               "supported", n->name, n->op_type, k ? "max" : "min",
                               g->values[n->in[1 + k]].name);
            bound[k] = ir_load_f64(t->data, t->dtype, 0);
        }
    }
    pz_unary_params up = {.func = PZ_UN_CLIP, .alpha = (float)bound[0], .beta = (float)bound[1]};
    op_lowered_init(out, n, PZ_OP_UNARY, &up, sizeof up);
    out->n_in = 1;   /* X only */
    return PZ_OK;
}

/* A bound computed at run time (opset 11+): node "C" = Clip(x, lo, hi) becomes
 *   "C:min" = Max(x, lo),  "C:max" = Min(C:min, hi),  "C" = Clip(C:max)
 * so each bound runs as a BINARY layer; a constant bound stays in the Clip.
 * Returns the nodes inserted. */
static int clip_expand(ir_graph *g, int i)
{
    static const char *const step_op[2] = {"Max", "Min"}, *const suffix[2] = {":min", ":max"};
    int added = 0;
    for (int k = 0; k < 2; k++) {
        ir_node *c = &g->nodes[i + added];
        if (g->opset < 11 || c->n_in <= 1 + k || c->in[1 + k] < 0) continue;
        if (g->values[c->in[1 + k]].t.data) continue;
        size_t len = strlen(c->name) + 8;
        char *name = pz_xmalloc(len);
        snprintf(name, len, "%s%s", c->name, suffix[k]);
        int x = c->in[0], bound = c->in[1 + k], at = i + added;
        ir_graph_insert_node(g, at, name, step_op[k], g->nodes[at].domain, 2, 1);
        ir_node *n = &g->nodes[at];
        c = &g->nodes[at + 1];
        n->op = op_find(step_op[k]);
        n->in[0] = x;
        n->in[1] = bound;
        n->out[0] = ir_graph_add_value_unique(g, name);
        pz_err err = {0};
        /* X and a scalar bound of X's type (clip_infer checked): cannot fail */
        PZ_ASSERT(n->op && n->op->infer(g, n, &err) == PZ_OK);
        ir_cost_node(g, n);
        c->in[0] = n->out[0];
        c->in[1 + k] = -1;
        free(name);
        added++;
    }
    return added;
}

const op_def op_clip = {
    .name = "Clip",
    .min_in = 1, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(clip_params),
    .parse = clip_parse,
    .infer = clip_infer,
    .lower = clip_lower,
    .expand = clip_expand,
};
