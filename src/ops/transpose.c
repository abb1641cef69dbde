/* transpose.c - Transpose: permutes the dims.
 *   data [d0..d(r-1)] -> transposed [d(perm[0]) .. d(perm[r-1])]
 * perm defaults to reversing the dims; it must name every dim once. */
#include "fold.h"

typedef struct {
    int rank;
    int perm[IR_MAX_RANK];
} transpose_params;

static pz_status transpose_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    transpose_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t perm[IR_MAX_RANK];
    int count;
    if (op_attr_ints(n, "perm", perm, IR_MAX_RANK, &count, err)) return err->code;
    p->rank = x->rank;
    if (count < 0) {
        for (int k = 0; k < x->rank; k++) p->perm[k] = x->rank - 1 - k;
        return PZ_OK;
    }
    if (count != x->rank)
        return op_err_attr(err, n, "perm", "has %d entries, the input has rank %d", count, x->rank);
    unsigned seen = 0;
    for (int k = 0; k < count; k++) {
        if (perm[k] < 0 || perm[k] >= x->rank)
            return op_err_attr(err, n, "perm", "entry %d is %lld, must be in [0, %d)", k,
                               (long long)perm[k], x->rank);
        if (seen & (1u << perm[k]))
            return op_err_attr(err, n, "perm", "dim %lld appears twice", (long long)perm[k]);
        seen |= 1u << perm[k];
        p->perm[k] = (int)perm[k];
    }
    return PZ_OK;
}

typedef struct {
    int rank;
    int64_t stride[IR_MAX_RANK];   /* input stride of output dim k: in_stride[perm[k]] */
} transpose_map;

static int64_t transpose_src(const int64_t *coord, const void *ctx)
{
    const transpose_map *m = ctx;
    int64_t s = 0;
    for (int k = 0; k < m->rank; k++) s += coord[k] * m->stride[k];
    return s;
}

static pz_status transpose_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const transpose_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t dims[IR_MAX_RANK], in_stride[IR_MAX_RANK];
    for (int k = 0; k < p->rank; k++) dims[k] = x->dims[p->perm[k]];
    op_set_out(g, n, 0, x->dtype, p->rank, dims);
    if (!op_fold_ready(g, n, 0, x)) return PZ_OK;
    transpose_map m = {.rank = p->rank};
    op_strides(x, in_stride);
    for (int k = 0; k < p->rank; k++) m.stride[k] = in_stride[p->perm[k]];
    op_fold_map(g, n, 0, x, transpose_src, &m, NULL);
    return PZ_OK;
}

/* TRANSPOSE with perm; the runtime merges the axes that stay neighbours. */
static pz_status transpose_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                 pz_err *err)
{
    const transpose_params *p = n->params;
    pz_transpose_params tp = {{0}};
    for (int k = 0; k < p->rank; k++) tp.perm[k] = p->perm[k];
    op_lowered_init(out, n, PZ_OP_TRANSPOSE, &tp, sizeof tp);
    return PZ_OK;
}

/* A view when the dims larger than 1 keep their order ([128,1,768] to
 * [1,128,768]): the bytes are the same, so no layer need move them. */
static int transpose_view_if(const ir_graph *g, const ir_node *n)
{
    const transpose_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!p || x->rank != p->rank) return 0;
    int last = -1;
    for (int k = 0; k < p->rank; k++) {
        if (x->dims[p->perm[k]] == 1) continue;
        if (p->perm[k] < last) return 0;
        last = p->perm[k];
    }
    return 1;
}

const op_def op_transpose = {
    .name = "Transpose",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(transpose_params),
    .parse = transpose_parse,
    .infer = transpose_infer,
    .cost = NULL,
    .lower = transpose_lower,
    .view_if = transpose_view_if,
};
