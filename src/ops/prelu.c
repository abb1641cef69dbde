/* prelu.c - PRelu: Y = X < 0 ? slope * X : X, element-wise.
 *   X [any shape], slope [broadcastable to X] -> Y [X's shape and type]
 * From opset 7 slope broadcasts unidirectionally (numpy rules, into X's
 * shape). Before, slope is either a single value or one per channel: a 1-D
 * tensor of X.dims[1] entries, applied along dim 1 (caffe2 style). Floats;
 * integers too from opset 9. The runtime broadcasts numpy-style only, so a
 * per-channel slope is given to it as [C, 1, ..., 1] (prelu_expand). */
#include <string.h>

#include "op_infer.h"
#include "elementwise.h"

typedef struct {
    int per_channel;   /* legacy: slope [C] applies along dim 1 of X */
} prelu_params;

/* Unidirectional broadcast: every slope dim (right-aligned) is 1 or X's. */
static int fits_into(const ir_tensor *s, const ir_tensor *x)
{
    if (s->rank > x->rank) return 0;
    for (int k = 0; k < s->rank; k++) {
        int64_t ds = s->dims[k], dx = x->dims[x->rank - s->rank + k];
        if (ds != 1 && ds != dx) return 0;
    }
    return 1;
}

static pz_status prelu_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    prelu_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *s = op_in(g, n, 1);
    if (!x || !s) return op_err(err, n, "input %s is missing", x ? "slope" : "X");
    if (!ir_dtype_is_float(x->dtype) && !(g->opset >= 9 && ir_dtype_is_int(x->dtype)))
        return op_err(err, n, "X must be a %s tensor, got %s",
                      g->opset >= 9 ? "numeric" : "floating-point", ir_dtype_name(x->dtype));
    if (s->dtype != x->dtype)
        return op_err(err, n, "slope is %s but X is %s", ir_dtype_name(s->dtype),
                      ir_dtype_name(x->dtype));
    p->per_channel = 0;
    if (!fits_into(s, x)) {
        char sx[128], ss[128];
        if (g->opset < 7 && s->rank == 1 && x->rank >= 2 && s->dims[0] == x->dims[1])
            p->per_channel = 1;
        else
            return op_err(err, n, "slope of shape %s does not broadcast to X of shape %s",
                          ir_shape_str(s, ss, sizeof ss), ir_shape_str(x, sx, sizeof sx));
    }
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

/* A per-channel slope [C] (opset < 7) becomes a view of shape [C, 1, ..., 1]
 * (X's rank - 1 dims), which numpy broadcasting applies along dim 1: a
 * constant slope is copied into a new constant "<slope>:c11"; a slope
 * computed at run time goes through a Reshape node "<node>:slope" (a COPY)
 * inserted before the node. Returns the nodes inserted. */
static int prelu_expand(ir_graph *g, int i)
{
    prelu_params *p = g->nodes[i].params;
    if (!p || !p->per_channel) return 0;
    int x = g->nodes[i].in[0], s = g->nodes[i].in[1], inserted = 0;
    ir_tensor view = g->values[s].t;
    view.data = NULL;
    view.nbytes = 0;
    view.rank = g->values[x].t.rank - 1;
    for (int d = 1; d < view.rank; d++) view.dims[d] = 1;
    size_t len = strlen(g->values[s].name) + strlen(g->nodes[i].name) + 16;
    char *name = pz_xmalloc(len);
    snprintf(name, len, "%s:c11", g->values[s].name);
    int v = ir_graph_add_value_unique(g, name);
    g->values[v].t = view;
    if (g->values[s].t.data) {
        ir_value_set_data(g, v, g->values[s].t.data, g->values[s].t.nbytes);
        g->values[v].is_initializer = 1;
    } else {
        snprintf(name, len, "%s:slope", g->nodes[i].name);
        ir_graph_insert_node(g, i, name, "Reshape", "", 1, 1);
        ir_node *r = &g->nodes[i];
        r->op = op_find("Reshape");
        r->params = pz_xcalloc(1, r->op->params_size);   /* allowzero 0; lowers to a COPY */
        r->in[0] = s;
        r->out[0] = v;
        ir_cost_node(g, r);
        inserted = 1;
    }
    free(name);
    ir_node *n = &g->nodes[i + inserted];
    n->in[1] = v;
    p->per_channel = 0;
    ir_cost_node(g, n);
    return inserted;
}

static pz_status prelu_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const prelu_params *p = n->params;
    if (p->per_channel)   /* prelu_expand did not run (a caller that skips ir_model_lower) */
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): a per-channel slope (opset "
                       "< 7, slope [C] along dim 1) is not supported by the runtime; reshape "
                       "the slope to [C, 1, ..., 1]", n->name, n->op_type);
    pz_binary_params bp = {.func = PZ_BIN_PRELU, .act = {.kind = PZ_ACT_NONE}};
    op_lowered_init(out, n, PZ_OP_BINARY, &bp, sizeof bp);
    return PZ_OK;
}

const op_def op_prelu = {
    .name = "PRelu",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(prelu_params),
    .infer = prelu_infer,
    .lower = prelu_lower,
    .expand = prelu_expand,
};
