/* split.c - Split: cuts a tensor into parts along `axis`.
 *   input [.. d ..], split (int64 [n], attribute before opset 13, optional
 *   input 1 from 13) -> outputs[i] [.. split[i] ..]
 * Without split: `num_outputs` (opset 18+) parts of ceil(d / num_outputs),
 * the last one smaller; or else as many equal parts as there are outputs.
 * A split input nothing binds (op_rt_ints) is read at run time: each part
 * is planned at the whole axis, its bound, with a run-time shape (the
 * layer checks the sizes add up to the axis). */
#include "fold.h"

#define SPLIT_MAX_OUT 4096

typedef struct {
    int axis;
} split_params;

static pz_status split_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    split_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis;
    if (op_attr_int(n, "axis", 0, &axis, err)) return err->code;
    return op_axis(n, "axis", axis, x->rank, 0, &p->axis, err);
}

/* The sizes of the parts, in sizes[n->n_out]. */
static pz_status split_sizes(const ir_graph *g, const ir_node *n, int64_t d, int64_t *sizes,
                             pz_err *err)
{
    int count = -1, nout = n->n_out;
    int64_t num_outputs;
    if (g->opset >= 13 || g->opset < 2) {
        if (op_attr(n, "split") && g->opset >= 13)
            return op_err_attr(err, n, "split", "is not an attribute from opset 13, where split "
                               "is input 1 (the model uses opset %d)", g->opset);
        if (op_in(g, n, 1) &&
            op_const_ints(g, n, 1, "split", sizes, SPLIT_MAX_OUT, &count, err))
            return err->code;
        if (count == 0) count = -1;   /* an empty split input counts as absent */
    } else if (op_in(g, n, 1)) {
        return op_err(err, n, "split is an input only from opset 13 (the model uses %d)",
                      g->opset);
    }
    if (count < 0 && g->opset < 13) {
        if (op_attr_ints(n, "split", sizes, SPLIT_MAX_OUT, &count, err)) return err->code;
    }
    if (op_attr_int(n, "num_outputs", 0, &num_outputs, err)) return err->code;
    if (op_attr(n, "num_outputs")) {
        if (g->opset < 18)
            return op_err_attr(err, n, "num_outputs", "exists from opset 18 (the model uses %d)",
                               g->opset);
        if (count >= 0)
            return op_err_attr(err, n, "num_outputs", "and the split input are both given; "
                               "give one");
        if (num_outputs != nout)
            return op_err_attr(err, n, "num_outputs", "is %lld but the node has %d outputs",
                               (long long)num_outputs, nout);
        int64_t chunk = d / nout + (d % nout != 0);   /* ceil(d / nout) */
        int64_t left = d;
        for (int i = 0; i < nout; i++) {
            sizes[i] = left < chunk ? left : chunk;
            left -= sizes[i];
        }
        return PZ_OK;
    }
    if (count < 0) {
        if (d % nout)
            return op_err(err, n, "the split dim has %lld entries, which do not divide into %d "
                          "equal parts", (long long)d, nout);
        for (int i = 0; i < nout; i++) sizes[i] = d / nout;
        return PZ_OK;
    }
    if (count != nout)
        return op_err(err, n, "split has %d entries but the node has %d outputs", count, nout);
    int64_t sum = 0;
    for (int i = 0; i < count; i++) {
        if (sizes[i] < 0)
            return op_err(err, n, "split[%d] is %lld, must be >= 0", i, (long long)sizes[i]);
        if (sizes[i] > d - sum)
            return op_err(err, n, "split adds up to more than the %lld entries of the split dim",
                          (long long)d);
        sum += sizes[i];
    }
    if (sum != d)
        return op_err(err, n, "split adds up to %lld but the split dim has %lld entries",
                      (long long)sum, (long long)d);
    return PZ_OK;
}

typedef struct {
    int rank, axis;
    int64_t offset;
    int64_t stride[IR_MAX_RANK];
} split_map;

static int64_t split_src(const int64_t *coord, const void *ctx)
{
    const split_map *m = ctx;
    int64_t s = m->offset * m->stride[m->axis];
    for (int k = 0; k < m->rank; k++) s += coord[k] * m->stride[k];
    return s;
}

static pz_status split_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const split_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (n->n_out > SPLIT_MAX_OUT)
        return op_err(err, n, "has %d outputs, at most %d are supported", n->n_out, SPLIT_MAX_OUT);
    int64_t sizes[SPLIT_MAX_OUT], dims[IR_MAX_RANK];
    int cnt;
    if (g->opset >= 13 && op_rt_ints(g, n, 1, SPLIT_MAX_OUT, &cnt)) {
        if (cnt != n->n_out)
            return op_err(err, n, "split has %d entries but the node has %d outputs", cnt,
                          n->n_out);
        for (int i = 0; i < n->n_out; i++) {
            op_set_out(g, n, i, x->dtype, x->rank, x->dims);
            op_set_dyn(g, n, i);
        }
        return PZ_OK;
    }
    if (split_sizes(g, n, x->dims[p->axis], sizes, err)) return err->code;
    split_map m = {.rank = x->rank, .axis = p->axis, .offset = 0};
    op_strides(x, m.stride);
    for (int i = 0; i < n->n_out; i++) {
        for (int k = 0; k < x->rank; k++) dims[k] = k == p->axis ? sizes[i] : x->dims[k];
        op_set_out(g, n, i, x->dtype, x->rank, dims);
        if (op_fold_ready(g, n, i, x)) op_fold_map(g, n, i, x, split_src, &m, NULL);
        m.offset += sizes[i];
    }
    return PZ_OK;
}

/* SPLIT of input 0 along the normalised axis; the parts' sizes are the
 * outputs' dims (the split input, a constant, is dropped), or the split
 * input read at run time (input 1). */
static pz_status split_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const split_params *p = n->params;
    /* an omitted output has no tensor to tell the runtime its size */
    for (int i = 0; i < n->n_out; i++)
        if (n->out[i] < 0)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Split): output %d is "
                           "omitted; the runtime needs every part", n->name, i);
    pz_axis_params ap = {.axis = p->axis};
    op_lowered_init(out, n, PZ_OP_SPLIT, &ap, sizeof ap);
    int cnt;
    out->n_in = g->opset >= 13 && op_rt_ints(g, n, 1, SPLIT_MAX_OUT, &cnt) ? 2 : 1;
    return PZ_OK;
}

const op_def op_split = {
    .name = "Split",
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = SPLIT_MAX_OUT,
    .params_size = sizeof(split_params),
    .parse = split_parse,
    .infer = split_infer,
    .cost = NULL,
    .lower = split_lower,
};
