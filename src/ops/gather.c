/* gather.c - Gather: picks entries of `axis` by index.
 *   data [d0..d(r-1)], indices (int32/int64) [i0..i(q-1)]
 *   -> output [d0..d(axis-1), i0..i(q-1), d(axis+1)..d(r-1)]  (rank r + q - 1)
 * Indices may be negative (counted from the end of the axis). Folded when
 * both inputs are constant: PyTorch's Shape -> Gather -> Unsqueeze chains. */
#include "fold.h"

typedef struct {
    int axis;
} gather_params;

static pz_status gather_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    gather_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis;
    if (op_attr_int(n, "axis", 0, &axis, err)) return err->code;
    return op_axis(n, "axis", axis, x->rank, 0, &p->axis, err);
}

typedef struct {
    int axis, r, q;
    int64_t d;                      /* dims[axis] */
    int64_t stride[IR_MAX_RANK];    /* of data */
    int64_t istride[IR_MAX_RANK];   /* of indices */
    const ir_tensor *idx;
} gather_map;

static int64_t gather_src(const int64_t *coord, const void *ctx)
{
    const gather_map *m = ctx;
    int64_t s = 0, iflat = 0;
    for (int k = 0; k < m->axis; k++) s += coord[k] * m->stride[k];
    for (int j = 0; j < m->q; j++) iflat += coord[m->axis + j] * m->istride[j];
    int64_t i = ir_load_i64(m->idx->data, m->idx->dtype, (size_t)iflat);
    s += (i < 0 ? i + m->d : i) * m->stride[m->axis];
    for (int k = m->axis + 1; k < m->r; k++) s += coord[k + m->q - 1] * m->stride[k];
    return s;
}

static pz_status gather_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const gather_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *idx = op_in(g, n, 1);
    if (idx->dtype != IR_I64 && idx->dtype != IR_I32)
        return op_err(err, n, "indices must be int64 or int32, got %s", ir_dtype_name(idx->dtype));
    int rank = x->rank + idx->rank - 1;
    if (rank > IR_MAX_RANK)
        return op_err(err, n, "the output would have rank %d, above the supported %d", rank,
                      IR_MAX_RANK);
    int64_t dims[IR_MAX_RANK], d = x->dims[p->axis];
    for (int k = 0; k < p->axis; k++) dims[k] = x->dims[k];
    for (int j = 0; j < idx->rank; j++) dims[p->axis + j] = idx->dims[j];
    for (int k = p->axis + 1; k < x->rank; k++) dims[k + idx->rank - 1] = x->dims[k];
    if (op_check_dims(n, rank, dims, err)) return err->code;
    /* constant indices out of range are refused here; the run checks others */
    if (op_check_indices(g, n, idx, 1, x->dims + p->axis, p->axis, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, rank, dims);
    if (!idx->data || !op_fold_ready(g, n, 0, x)) return PZ_OK;
    gather_map m = {.axis = p->axis, .r = x->rank, .q = idx->rank, .d = d, .idx = idx};
    op_strides(x, m.stride);
    op_strides(idx, m.istride);
    op_fold_map(g, n, 0, x, gather_src, &m, NULL);
    return PZ_OK;
}

/* GATHER data by indices (constant or computed) along the normalised axis. */
static pz_status gather_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const gather_params *p = n->params;
    pz_axis_params ap = {.axis = p->axis};
    op_lowered_init(out, n, PZ_OP_GATHER, &ap, sizeof ap);
    return PZ_OK;
}

const op_def op_gather = {
    .name = "Gather",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(gather_params),
    .parse = gather_parse,
    .infer = gather_infer,
    .cost = NULL,
    .lower = gather_lower,
};
