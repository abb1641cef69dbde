/* reshape.c - Reshape: the same elements under a new shape.
 *   data [d...], shape [k] (int64, constant) -> reshaped [k dims]
 * A 0 in `shape` copies the input's dim at that index (unless allowzero = 1,
 * opset 14+, where it means a 0 dim); one -1 takes what is left. Before
 * opset 5 the shape is the `shape` attribute. Runs as a view of its input
 * (no layer; a COPY where lowering cannot make one: op_lower.c). A shape
 * known only at run time (op_rt_ints) runs as RESHAPE, the output planned
 * at a bound per dim and a run-time shape (rt/ops/reshape.c says the
 * design). */
#include "fold.h"

typedef struct {
    int64_t allowzero;
} reshape_params;

static pz_status reshape_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    reshape_params *p = params;
    if (op_attr_int(n, "allowzero", 0, &p->allowzero, err)) return err->code;
    if (p->allowzero != 0 && p->allowzero != 1)
        return op_err_attr(err, n, "allowzero", "is %lld, must be 0 or 1", (long long)p->allowzero);
    return PZ_OK;
}

/* Whether the node runs as RESHAPE: its shape is read at run time, or X
 * has a run-time shape and the shape is a constant other than [-1] (which
 * COPY takes, op_infer.c). */
static int reshape_at_run(const ir_graph *g, const ir_node *n)
{
    const ir_tensor *s = op_in(g, n, 1);
    if (g->opset < 5 || !s) return 0;
    if (op_rt_ints(g, n, 1, IR_MAX_RANK, NULL)) return 1;
    if (!g->values[n->in[0]].dyn || !s->data || s->rank > 1 || ir_tensor_numel(s) > IR_MAX_RANK ||
        (s->dtype != IR_I64 && s->dtype != IR_I32))
        return 0;
    /* [12] too: RESHAPE checks the run's count against it (COPY would not) */
    return ir_tensor_numel(s) != 1 || ir_load_i64(s->data, s->dtype, 0) != -1;
}

/* A -1 beside one entry known only at run time, X's dims all fixed but
 * one (op_dim_fixed): torchvision's view(K, -1, 4) of a [K, 364]. The
 * run-time entry is taken as X's run-time dim, so -1 is bounded by the
 * rest (91), not by X's count (which, times K's bound, overflows); a run
 * where it is not fails naming the layer (RESHAPE checks every dim). */
static void reshape_rest_bound(const ir_graph *g, const ir_node *n, int rank, int64_t *dims)
{
    int minus = -1, open = 0;
    int64_t known = 1, rest = 1;
    for (int k = 0; k < rank; k++) {
        int64_t v = op_rt_int_known(g, n->in[1], k);
        if (v == 0 && k < g->values[n->in[0]].t.rank) v = op_dim_fixed(g, n->in[0], k);
        if (v == -1 && minus < 0 && op_rt_int_known(g, n->in[1], k) == -1) minus = k;
        else if (v > 0) known *= v;
        else open++;
    }
    const ir_tensor *x = &g->values[n->in[0]].t;
    for (int k = 0; k < x->rank; k++) {
        int64_t f = op_dim_fixed(g, n->in[0], k);
        if (f < 0) open--;
        else rest *= f;
    }
    if (minus >= 0 && open == 0 && known > 0 && rest % known == 0 && rest / known > 0 &&
        rest / known < dims[minus])
        dims[minus] = rest / known;
}

static pz_status reshape_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const reshape_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t shape[IR_MAX_RANK], dims[IR_MAX_RANK];
    int rank;
    const char *what = "shape";
    if (g->opset < 5) {
        if (op_attr_ints(n, "shape", shape, IR_MAX_RANK, &rank, err)) return err->code;
        if (rank < 0) return op_err_attr(err, n, "shape", "is required");
    } else {
        if (n->n_in < 2 || !op_in(g, n, 1)) return op_err(err, n, "input 1 (shape) is missing");
        if (reshape_at_run(g, n)) {
            /* every dim at most X's count, or X's largest dim (a 0 copies
             * it); a constant's positive dim is itself, a traced one its
             * bound (Shape -> Gather -> Concat: without it every dim
             * would be X's count, and two such outputs would not concat) */
            const ir_tensor *s = op_in(g, n, 1);
            int64_t bound = ir_tensor_numel(x);
            for (int k = 0; k < x->rank; k++)
                if (x->dims[k] > bound) bound = x->dims[k];
            rank = (int)ir_tensor_numel(s);
            for (int k = 0; k < rank; k++) {
                int64_t v = s->data ? ir_load_i64(s->data, s->dtype, (size_t)k)
                                    : op_rt_int_bound(g, n->in[1], k);
                dims[k] = v > 0 && (s->data || v < bound) ? v : bound;
            }
            reshape_rest_bound(g, n, rank, dims);
            op_set_out(g, n, 0, x->dtype, rank, dims);
            op_set_dyn(g, n, 0);
            return PZ_OK;
        }
        if (op_const_ints(g, n, 1, "shape", shape, IR_MAX_RANK, &rank, err)) return err->code;
    }
    int infer_at = -1;
    for (int k = 0; k < rank; k++) {
        dims[k] = shape[k];
        if (shape[k] == 0 && !p->allowzero) {
            if (k >= x->rank)
                return op_err(err, n, "%s[%d] is 0 (copy the input dim) but the input %s has "
                              "only %d dims", what, k, "data", x->rank);
            dims[k] = x->dims[k];
        } else if (shape[k] == -1) {
            if (infer_at >= 0)
                return op_err(err, n, "%s has -1 at both %d and %d; at most one dim can be "
                              "inferred", what, infer_at, k);
            infer_at = k;
            dims[k] = 1;
        } else if (shape[k] < 0) {
            return op_err(err, n, "%s[%d] is %lld; dims must be >= 0, or -1 to infer one",
                          what, k, (long long)shape[k]);
        }
    }
    if (op_check_dims(n, rank, dims, err)) return err->code;
    int64_t known = 1, numel = ir_tensor_numel(x);
    for (int k = 0; k < rank; k++) known *= dims[k];
    char xs[128], ss[160];
    ir_tensor st = {.rank = rank};
    for (int k = 0; k < rank; k++) st.dims[k] = shape[k];
    if (infer_at >= 0) {
        if (known == 0 || numel % known)
            return op_err(err, n, "cannot reshape %s (%lld elements) to %s: the -1 dim cannot "
                          "be inferred", ir_shape_str(x, xs, sizeof xs), (long long)numel,
                          ir_shape_str(&st, ss, sizeof ss));
        dims[infer_at] = numel / known;
        known = numel;
    }
    if (known != numel)
        return op_err(err, n, "cannot reshape %s (%lld elements) to %s (%lld elements)",
                      ir_shape_str(x, xs, sizeof xs), (long long)numel,
                      ir_shape_str(&st, ss, sizeof ss), (long long)known);
    op_set_out(g, n, 0, x->dtype, rank, dims);
    op_fold_copy(g, n, 0, x);
    return PZ_OK;
}

static pz_status reshape_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const reshape_params *p = n->params;
    if (!reshape_at_run(g, n)) return op_copy_lower(g, n, out, err);
    pz_reshape_params rp = {.allowzero = (int)p->allowzero};
    /* a -1 taken as fixed (op_dim_fixed: what later shapes were planned
     * and folded on) is checked at each run */
    const ir_tensor *y = op_out((ir_graph *)g, n, 0);
    for (int k = 0; y && g->values[n->out[0]].dyn && k < y->rank; k++)
        if (op_rt_int_known(g, n->in[1], k) == -1) {
            int64_t f = op_dim_fixed(g, n->out[0], k);
            rp.minus_dim = f > 0 ? f : 0;
        }
    op_lowered_init(out, n, PZ_OP_RESHAPE, &rp, sizeof rp);
    out->n_in = 2;
    return PZ_OK;
}

const op_def op_reshape = {
    .name = "Reshape",
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(reshape_params),
    .parse = reshape_parse,
    .infer = reshape_infer,
    .cost = NULL,
    .lower = reshape_lower,
    .view = 1,
};
