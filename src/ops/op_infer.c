/* op_infer.c - shape inference and cost over a sorted graph. */
#include "op_infer.h"
#include "op_seq.h"
#include "op_fold_rt.h"

#include <string.h>

#include "op.h"
#include "../rt/op_desc.h"

void ir_cost_node(const ir_graph *g, ir_node *n)
{
    ir_cost *c = &n->cost;
    memset(c, 0, sizeof *c);
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] < 0) continue;
        const ir_value *v = &g->values[n->in[i]];
        int64_t numel = ir_tensor_numel(&v->t);
        if (v->t.data) c->params += numel;
        else c->bytes_in += numel * (int64_t)ir_dtype_size(v->t.dtype);
    }
    for (int i = 0; i < n->n_out; i++) {
        if (n->out[i] < 0) continue;
        const ir_value *v = &g->values[n->out[i]];
        c->bytes_out += ir_tensor_numel(&v->t) * (int64_t)ir_dtype_size(v->t.dtype);
    }
    const ir_tensor *x = op_in(g, n, 0), *y = op_out((ir_graph *)g, n, 0);
    if (x && x->rank >= 2) c->c_in = x->dims[1];
    if (y && y->rank >= 2) c->c_out = y->dims[1];
    if (n->op && n->op->cost) n->op->cost(g, n, c);
}

static pz_status check_declared(const ir_graph *g, const ir_value *v, pz_err *err)
{
    if (v->decl_rank < 0) return PZ_OK;
    char a[160], b[160];
    ir_tensor decl = {.rank = v->decl_rank};
    memcpy(decl.dims, v->decl_dims, sizeof decl.dims);
    int bad = v->decl_rank != v->t.rank;
    /* a run-time shape: its dims are a bound (the declared ones may be the actual) */
    for (int d = 0; !bad && !v->dyn && d < v->decl_rank; d++)
        if (v->decl_dims[d] >= 0 && v->decl_dims[d] != v->t.dims[d]) bad = 1;
    if (bad) {
        const char *who = v->producer >= 0 ? g->nodes[v->producer].name : "(input)";
        const char *op = v->producer >= 0 ? g->nodes[v->producer].op_type : "";
        return pz_fail(err, PZ_ERR_INPUT, "shape mismatch: graph output \"%s\" is declared %s "
                       "but node \"%s\" (%s) produces %s", v->name,
                       ir_shape_str(&decl, a, sizeof a), who, op, ir_shape_str(&v->t, b, sizeof b));
    }
    if (v->decl_dtype && v->decl_dtype != v->t.dtype) {
        const char *who = v->producer >= 0 ? g->nodes[v->producer].name : "(input)";
        return pz_fail(err, PZ_ERR_INPUT, "type mismatch: graph output \"%s\" is declared %s but "
                       "node \"%s\" produces %s", v->name, ir_dtype_name(v->decl_dtype), who,
                       ir_dtype_name(v->t.dtype));
    }
    return PZ_OK;
}

/* A node that does not infer inside a branch of an If whose condition is
 * unknown (both branches were inlined): the branch the run would not take
 * may not fit these shapes, so the condition is asked for (the loader binds
 * it from the given inputs, as op_need_const asks). */
static pz_status in_branch(const ir_graph *g, const ir_node *n, pz_err *err)
{
    if (!n->branch_of || err->need_const[0] || err->code == PZ_ERR_INTERNAL) return err->code;
    const char *cond = g->values[n->branch_of - 1].name;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    snprintf(err->need_const, sizeof err->need_const, "%s", cond);
    err->code = PZ_OK;
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "%s (in a branch of an If whose condition \"%s\" is "
                   "known only at run time: both branches are planned, and this one does not "
                   "fit; give the input the condition comes from)", msg, cond);
}

/* The input of n with a run-time shape (ir_value.dyn), or -1. */
static int dyn_input(const ir_graph *g, const ir_node *n)
{
    for (int k = 0; k < n->n_in; k++)
        if (n->in[k] >= 0 && g->values[n->in[k]].dyn) return k;
    return -1;
}

/* Whether COPY node n runs at a run-time shape (rt/ops/copy.c): Identity,
 * Squeeze and Unsqueeze (unit dims taken out or put in), Flatten (two
 * products of X's dims), a Reshape to [-1] (the run's element count). */
static int copy_takes(const ir_graph *g, const ir_node *n)
{
    if (!strcmp(n->op_type, "Identity") || !strcmp(n->op_type, "Squeeze") ||
        !strcmp(n->op_type, "Unsqueeze") || !strcmp(n->op_type, "Flatten"))
        return 1;
    if (n->n_out < 1 || n->out[0] < 0 || g->values[n->out[0]].t.rank != 1) return 0;
    if (strcmp(n->op_type, "Reshape") || n->n_in < 2 || n->in[1] < 0) return 0;
    int64_t shape[1];
    int count = 0;
    pz_err e = {0};
    return !op_const_ints(g, n, 1, "shape", shape, 1, &count, &e) && count == 1 && shape[0] == -1;
}

/* A node reading a value with a run-time shape (planned at its bound) is
 * in a dynamic region: it must run as a layer kind that takes its shape at
 * run time (op_desc.h's run_shape: element-wise unary and binary ops,
 * comparisons, Not, Where, Cast,
 * Identity, Squeeze, Unsqueeze, Flatten, a flatten to one dim, Reshape (RESHAPE,
 * rt/ops/reshape.c: to any shape, read at run time), Transpose, Slice,
 * Gather, GatherND, Concat, Expand, Tile, Shape, Softmax, the reductions,
 * ArgMax/ArgMin/Hardmax, CumSum/CumProd, TopK, MatMul, NonZero, Conv and
 * ConvTranspose of a run-time N, pools of a run-time N or C,
 * LayerNormalization), and its outputs have
 * run-time shapes too (Shape's: run-time values). Any other node (one that
 * folds to constants from the bound, as Shape would, included) is refused. */
static pz_status dyn_region(ir_graph *g, int i, int k, pz_err *err)
{
    const ir_node *n = &g->nodes[i];
    const ir_value *v = &g->values[n->in[k]];
    op_lowered lw;
    pz_err lerr = {0};
    memset(&lw, 0, sizeof lw);
    int fits = n->op->lower && !n->op->lower(g, n, &lw, &lerr) && pz_rt_ops[lw.kind]->run_shape;
    /* COPY also computes Reshape, Flatten, ...: any other target than
     * copy_takes' would be computed at run time */
    if (fits && lw.kind == PZ_OP_COPY) fits = copy_takes(g, n);
    /* VIEW: Expand and Tile (rt/ops/view.c) */
    if (fits && lw.kind == PZ_OP_VIEW) {
        const pz_view_params *vp = (const pz_view_params *)lw.p.any;
        fits = vp->func == PZ_VIEW_EXPAND || vp->func == PZ_VIEW_TILE;
    }
    for (int j = 0; fits && j < n->n_out; j++) fits = n->out[j] < 0 || !g->values[n->out[j]].t.data;
    if (!fits) {
        const ir_node *p = v->producer >= 0 ? &g->nodes[v->producer] : NULL;
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s) reads the run-time-shaped "
                       "output \"%s\" of %s \"%s\": not supported yet (a dynamic region "
                       "takes element-wise unary and binary ops, comparisons, Not, Where, "
                       "Cast, Identity, Squeeze, Unsqueeze, Flatten, Reshape, Transpose, "
                       "Slice, Gather, GatherND, Concat, Expand, Tile, Shape, Softmax, "
                       "reductions, ArgMax/ArgMin, CumSum, TopK, MatMul, NonZero, Conv, "
                       "ConvTranspose, pools and LayerNormalization; else "
                       "such a value must be a graph output, or computed at compile time "
                       "from constants)",
                       n->name, n->op_type, v->name, p ? p->op_type : "?", p ? p->name : "?");
    }
    /* Shape: the values are the run's, its own shape [rank] is static; the
     * others' sizes follow an unbounded input (rt/compile.c's rule too) */
    int unbounded = 0;
    for (int j = 0; j < n->n_in; j++) unbounded |= n->in[j] >= 0 && g->values[n->in[j]].rt_alloc;
    for (int j = 0; j < n->n_out && !pz_rt_ops[lw.kind]->dyn_stops; j++)
        if (n->out[j] >= 0) {
            g->values[n->out[j]].dyn = 1;
            if (unbounded) g->values[n->out[j]].rt_alloc = 1;
        }
    return PZ_OK;
}

/* Infers nodes from index `first` on; with stop_op, up to the first node
 * of that op named stop_name, whose index goes to *at (-1: none). */
static pz_status infer_from(ir_graph *g, int first, const op_def *stop_op, const char *stop_name,
                            int *at, pz_err *err)
{
    if (at) *at = -1;
    for (int i = first; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        PZ_ASSERT(n->op);
        if (stop_op && n->op == stop_op && !strcmp(n->name, stop_name)) {
            *at = i;
            return PZ_OK;
        }
        for (int k = 0; k < n->n_in; k++) {
            if (n->in[k] < 0 && k < n->op->min_in)
                return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): input %d is required but "
                               "omitted (empty name)", n->name, n->op_type, k);
            if (n->in[k] < 0) continue;
            const ir_value *v = &g->values[n->in[k]];
            if (v->t.rank < 0)
                return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): the shape of input %d "
                               "\"%s\" is unknown", n->name, n->op_type, k, v->name);
            if (!ir_dtype_supported(v->t.dtype) &&
                !(v->t.dtype == IR_STRING && n->op->takes_string))
                return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input %d \"%s\" has "
                               "element type %s, which is not supported", n->name, n->op_type,
                               k, v->name, ir_dtype_name(v->t.dtype));
        }
        for (int k = 0; k < n->n_out && k < n->op->min_out; k++)
            if (n->out[k] < 0)
                return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): output %d is required but "
                               "omitted (empty name)", n->name, n->op_type, k);
        int dyn_k = dyn_input(g, n);
        int again;
        if (op_seq_reads(g, i, &again, err)) return in_branch(g, n, err);
        if (again) {
            i--;   /* an Identity of a sequence became its copy */
            continue;
        }
        if (n->op->unfold && (!n->op->unfolds || n->op->unfolds(g, n))) {
            /* a failed unfold may have appended nodes: g->nodes moved, node i did not */
            if (n->op->unfold(g, i, err)) return in_branch(g, &g->nodes[i], err);
            i--;   /* walk the nodes that replaced it */
            continue;
        }
        if (!n->params && n->op->params_size) n->params = pz_xcalloc(1, n->op->params_size);
        if ((n->op->parse && n->op->parse(g, n, n->params, err)) || n->op->infer(g, n, err))
            return in_branch(g, n, err);
        op_fold_by_runtime(g, i);
        op_fold_known(g, i);
        n = &g->nodes[i];
        /* a node whose outputs all folded does not run */
        int folded = 1;
        for (int k = 0; k < n->n_out; k++) folded &= n->out[k] < 0 || !!g->values[n->out[k]].t.data;
        if (folded) dyn_k = -1;
        /* a container stays out of the run (SplitToSequence's of a run-time
         * length: its readers read its input) */
        if (dyn_k >= 0 && n->n_out >= 1 && n->out[0] >= 0 && g->values[n->out[0]].kind)
            dyn_k = -1;
        if (dyn_k >= 0 && dyn_region(g, i, dyn_k, err)) return err->code;
        for (int k = 0; k < n->n_out; k++) {
            if (n->out[k] < 0) continue;
            ir_value *v = &g->values[n->out[k]];
            if (v->t.rank < 0)
                return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): output %d \"%s\" is "
                               "not supported (no shape inferred)", n->name, n->op_type, k, v->name);
            size_t nbytes;
            char what[512];
            snprintf(what, sizeof what, "node \"%s\" (%s): output %d \"%s\"", n->name, n->op_type,
                     k, v->name);
            if (ir_tensor_bytes(&v->t, &nbytes, what, err)) return err->code;
            PZ_ASSERT(!v->t.data || v->t.nbytes == nbytes);
        }
        ir_cost_node(g, n);
    }
    return PZ_OK;
}

pz_status ir_infer(ir_graph *g, pz_err *err)
{
    if (infer_from(g, 0, NULL, NULL, NULL, err)) return err->code;
    /* sequence and optional outputs: their elements, written by Identities */
    int first = g->n_nodes;
    if (op_seq_outputs(g, err) || infer_from(g, first, NULL, NULL, NULL, err)) return err->code;
    op_seq_drop(g);
    for (int i = 0; i < g->n_outputs; i++)
        if (check_declared(g, &g->values[g->outputs[i]], err)) return err->code;
    return PZ_OK;
}

pz_status ir_infer_until(ir_graph *g, int first, const struct op_def *op, const char *name, int *at,
                         pz_err *err)
{
    return infer_from(g, first, op, name, at, err);
}
