/* affine_grid.c - AffineGrid (opset 20):
 *   theta [N, 2, 3] or [N, 3, 4], size int64 [N, C, H, W] or [N, C, D, H, W]
 *   (constant: it shapes the output) -> grid [N, H, W, 2] or [N, D, H, W, 3].
 * align_corners. No MACs. Runs as AFFINE_GRID (rt/ops/affine_grid.c). */
#include "op.h"

typedef struct {
    int align_corners;
} affine_grid_attrs;

static pz_status affine_grid_parse(const ir_graph *g, const ir_node *n, void *params,
                                   pz_err *err)
{
    affine_grid_attrs *a = params;
    int64_t ac;
    if (op_attr_int(n, "align_corners", 0, &ac, err)) return err->code;
    a->align_corners = ac != 0;
    return PZ_OK;
}

static pz_status affine_grid_resolve(const ir_graph *g, const ir_node *n,
                                     pz_affine_grid_params *p, pz_err *err)
{
    const ir_tensor *t = op_in(g, n, 0);
    int64_t size[5];
    int ns;
    if (!t || !ir_dtype_is_float(t->dtype))
        return op_err(err, n, "input theta must be a float tensor");
    if (op_const_ints(g, n, 1, "size", size, 5, &ns, err)) return err->code;
    if (ns != 4 && ns != 5) return op_err(err, n, "input size has %d entries, expected 4 or 5", ns);
    int r = ns - 2;
    if (t->rank != 3 || t->dims[0] != size[0] || t->dims[1] != r || t->dims[2] != r + 1)
        return op_err(err, n, "input theta must be [%lld, %d, %d] for size of %d entries",
                      (long long)size[0], r, r + 1, ns);
    p->nsp = r;
    p->align_corners = ((const affine_grid_attrs *)n->params)->align_corners;
    for (int i = 0; i < r; i++) {
        p->size[i] = size[2 + i];
        if (p->size[i] < 0 || p->size[i] > (int64_t)1 << 32)
            return op_err(err, n, "input size has entry %lld out of range",
                          (long long)p->size[i]);
    }
    return PZ_OK;
}

static pz_status affine_grid_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    pz_affine_grid_params p = {0};
    if (affine_grid_resolve(g, n, &p, err)) return err->code;
    int64_t dims[IR_MAX_RANK] = {op_in(g, n, 0)->dims[0]};
    for (int i = 0; i < p.nsp; i++) dims[1 + i] = p.size[i];
    dims[1 + p.nsp] = p.nsp;
    if (op_check_dims(n, p.nsp + 2, dims, err)) return err->code;
    op_set_out(g, n, 0, op_in(g, n, 0)->dtype, p.nsp + 2, dims);
    return PZ_OK;
}

static pz_status affine_grid_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                   pz_err *err)
{
    pz_affine_grid_params p = {0};
    if (affine_grid_resolve(g, n, &p, err)) return err->code;
    op_lowered_init(out, n, PZ_OP_AFFINE_GRID, &p, sizeof p);
    out->n_in = 1;   /* the size is a param now */
    return PZ_OK;
}

const op_def op_affine_grid = {
    .name = "AffineGrid",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(affine_grid_attrs),
    .parse = affine_grid_parse,
    .infer = affine_grid_infer,
    .lower = affine_grid_lower,
};
