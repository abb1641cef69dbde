/* concat.c - Concat: joins tensors along `axis`.
 *   inputs[i] [d0.. a_i ..] (same rank and type, equal dims but the axis)
 *   -> concat_result [d0.. sum(a_i) ..]
 * axis is required from opset 4 (default 1 before); negative from opset 11.
 * An input allocated at run time (ir_value.rt_alloc: its dims stand-ins)
 * is checked by its rank only: the run checks the parts (rt/ops/concat.c).
 * More inputs than a layer takes (PZ_MAX_IO) unfold into Concats of up to
 * that many, then one of their results. */
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "op_inline.h"

typedef struct {
    int axis;
} concat_params;

static pz_status concat_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    concat_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis;
    if (g->opset >= 4 && !op_attr(n, "axis")) return op_err_attr(err, n, "axis", "is required");
    if (op_attr_int(n, "axis", 1, &axis, err)) return err->code;
    return op_axis(n, "axis", axis, x->rank, 0, &p->axis, err);
}

/* Copies the inputs' blocks in turn: for each index over dims before the
 * axis, input i contributes dims_i[axis] * prod(dims after the axis). */
static void concat_fold(ir_graph *g, const ir_node *n, int axis)
{
    const ir_tensor *y = op_out(g, n, 0);
    size_t es = ir_dtype_size(y->dtype);
    int64_t numel = ir_tensor_numel(y), outer = 1, inner = 1;
    for (int k = 0; k < axis; k++) outer *= y->dims[k];
    for (int k = axis + 1; k < y->rank; k++) inner *= y->dims[k];
    char *buf = pz_xcalloc((size_t)(numel ? numel : 1), es), *dst = buf;
    for (int64_t o = 0; numel && o < outer; o++)   /* numel 0: outer may be huge */
        for (int i = 0; i < n->n_in; i++) {
            const ir_tensor *x = op_in(g, n, i);
            size_t block = (size_t)(x->dims[axis] * inner) * es;
            if (block) memcpy(dst, (const char *)x->data + (size_t)o * block, block);
            dst += block;
        }
    ir_value_set_data(g, n->out[0], buf, (size_t)numel * es);
    free(buf);
}

static int concat_unfolds(const ir_graph *g, const ir_node *n)
{
    (void)g;
    return n->n_in > PZ_MAX_IO;
}

/* Groups of PZ_MAX_IO inputs each concatenated first (nodes NAME:partK,
 * before node i), node i then joining their results. */
static pz_status concat_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    int64_t axis;
    if (op_attr_int(n, "axis", 1, &axis, err)) return err->code;
    int n_in = n->n_in, groups = 0, start = g->n_nodes;
    int *ins = pz_xmalloc((size_t)n_in * sizeof(int));
    memcpy(ins, n->in, (size_t)n_in * sizeof(int));
    char *name = pz_xstrdup(n->name);
    size_t len = strlen(name) + 24;
    char *buf = pz_xmalloc(len);
    for (int s = 0; s < n_in; s += PZ_MAX_IO) {
        int c = n_in - s < PZ_MAX_IO ? n_in - s : PZ_MAX_IO;
        snprintf(buf, len, "%s:part%d", name, groups);
        int y = ir_graph_add_value_unique(g, buf);
        int m = op_append_node(g, buf, "Concat", ins + s, c, &y, 1);
        ir_node_add_attr_int(&g->nodes[m], "axis", axis);
        ins[groups++] = y;
    }
    ir_graph_move_tail(g, start, i);
    n = &g->nodes[i + groups];
    ir_node_set_n_in(n, groups);
    memcpy(n->in, ins, (size_t)groups * sizeof(int));
    free(buf);
    free(name);
    free(ins);
    return PZ_OK;
}

static pz_status concat_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const concat_params *p = n->params;
    const ir_tensor *x0 = op_in(g, n, 0);
    int64_t dims[IR_MAX_RANK];
    /* the dims off the axis: a bounded input's (an unbounded one's are stand-ins) */
    int shaped = 0;
    for (int i = 1; i < n->n_in && g->values[n->in[shaped]].rt_alloc; i++)
        if (n->in[i] >= 0 && !g->values[n->in[i]].rt_alloc) shaped = i;
    memcpy(dims, op_in(g, n, shaped)->dims, sizeof dims);
    dims[p->axis] = x0->dims[p->axis];
    int all_const = x0->data != NULL;
    for (int i = 1; i < n->n_in; i++) {
        const ir_tensor *x = op_in(g, n, i);
        if (!x) return op_err(err, n, "input %d is missing", i);
        if (x->dtype != x0->dtype)
            return op_err(err, n, "input %d is %s but input 0 is %s", i, ir_dtype_name(x->dtype),
                          ir_dtype_name(x0->dtype));
        if (x->rank != x0->rank)
            return op_err(err, n, "input %d has rank %d but input 0 has rank %d", i, x->rank,
                          x0->rank);
        const ir_tensor *xs = op_in(g, n, shaped);
        int unbounded = g->values[n->in[i]].rt_alloc || g->values[n->in[shaped]].rt_alloc;
        /* a run-time shape's dims are a bound: the run checks that the parts
         * agree off the axis (rt/ops/concat.c), Y is planned at the largest */
        int dyn = g->values[n->in[i]].dyn || g->values[n->in[shaped]].dyn;
        for (int k = 0; k < x->rank && dyn; k++)
            if (k != p->axis && x->dims[k] > dims[k]) dims[k] = x->dims[k];
        for (int k = 0; k < x->rank && !unbounded && !dyn; k++)
            if (k != p->axis && x->dims[k] != xs->dims[k]) {
                char a[128], b[128];
                return op_err(err, n, "input %d is %s but input %d is %s: dim %d differs and is "
                              "not the concat axis %d", i, ir_shape_str(x, a, sizeof a), shaped,
                              ir_shape_str(xs, b, sizeof b), k, p->axis);
            }
        if (op_dim_add(n, "the concatenated dim", dims[p->axis], x->dims[p->axis],
                       &dims[p->axis], err))
            return err->code;
        all_const &= x->data != NULL;
    }
    if (op_check_dims(n, x0->rank, dims, err)) return err->code;
    op_set_out(g, n, 0, x0->dtype, x0->rank, dims);
    if (all_const && op_fold_ready(g, n, 0, x0)) concat_fold(g, n, p->axis);
    return PZ_OK;
}

/* CONCAT of every input along the normalised axis. */
static pz_status concat_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const concat_params *p = n->params;
    pz_axis_params ap = {.axis = p->axis};
    op_lowered_init(out, n, PZ_OP_CONCAT, &ap, sizeof ap);
    return PZ_OK;
}

const op_def op_concat = {
    .name = "Concat",
    .min_in = 1, .max_in = 1 << 16, .min_out = 1, .max_out = 1,
    .params_size = sizeof(concat_params),
    .parse = concat_parse,
    .infer = concat_infer,
    .cost = NULL,
    .lower = concat_lower,
    .unfold = concat_unfold,
    .unfolds = concat_unfolds,
};
