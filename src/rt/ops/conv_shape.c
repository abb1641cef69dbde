/* conv_shape.c - what CONV and CONV_TRANSPOSE share: their params' fields,
 * the geometry prepare checks, and the run's shape in a dynamic region. */
#include <string.h>

#include "rt/ops/ops.h"

/* pz_conv_params as the code generator prints it (CONV, CONV_TRANSPOSE). */
static const char *const CONV_ALGO[] = {"PZ_CONV_AUTO", "PZ_CONV_DIRECT", "PZ_CONV_WINOGRAD",
                                         "PZ_CONV_SPARSE", "PZ_CONV_SPARSE_WINOGRAD"};
const pz_param_field pz_conv_fields[PZ_CONV_N_FIELDS] = {
    PZ_FIELD(pz_conv_params, nsp, PZ_F_INT), PZ_FIELD(pz_conv_params, group, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_conv_params, kernel, PZ_F_I64), PZ_FIELD_ARRAY(pz_conv_params, stride, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_conv_params, dilation, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_conv_params, pad_begin, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_conv_params, pad_end, PZ_F_I64), PZ_FIELD(pz_conv_params, act, PZ_F_ACT),
    PZ_FIELD_ENUM(pz_conv_params, algo, CONV_ALGO), PZ_FIELD(pz_conv_params, sparsity, PZ_F_F32),
};

int pz_conv_check_geometry(const pz_layer *l, char *err, size_t n, bool transpose)
{
    const pz_conv_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *y = pz_out(l, 0);
    char bx[96], bw[96], by[96];
    if (p->nsp < 1 || p->nsp > PZ_MAX_SPATIAL)
        return pz_layer_fail(l, err, n, "%d spatial dims, expected 1 to %d", p->nsp,
                             PZ_MAX_SPATIAL);
    if (x->rank != 2 + p->nsp || w->rank != 2 + p->nsp || y->rank != 2 + p->nsp)
        return pz_layer_fail(l, err, n, "X %s, W %s, Y %s: expected rank %d (N, C, %d spatial)",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(w, bw, sizeof bw),
                             pz_shape_str(y, by, sizeof by), 2 + p->nsp, p->nsp);
    int64_t G = p->group, C = x->dims[1], M = y->dims[1];
    /* conv: W is {M, C/G, k...}; transposed: W is {C, M/G, k...} */
    int64_t wc = transpose ? C : M, wg = transpose ? M / (G > 0 ? G : 1) : C / (G > 0 ? G : 1);
    if (G < 1 || C % G || M % G || w->dims[0] != wc || w->dims[1] != wg || y->dims[0] != x->dims[0])
        return pz_layer_fail(l, err, n, "X %s, W %s, Y %s, group %lld do not agree",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(w, bw, sizeof bw),
                             pz_shape_str(y, by, sizeof by), (long long)G);
    for (int j = 0; j < p->nsp; j++) {
        int64_t k = p->kernel[j], s = p->stride[j], d = p->dilation[j];
        int64_t pb = p->pad_begin[j], pe = p->pad_end[j], in = x->dims[2 + j];
        /* transposed: Y's size is given (output_padding, output_shape), so
         * only pad_begin matters and it may be anything */
        if (k != w->dims[2 + j] || s < 1 || d < 1 || (!transpose && (pb < 0 || pe < 0)))
            return pz_layer_fail(l, err, n,
                                 "spatial dim %d: kernel %lld (W has %lld), stride %lld, "
                                 "dilation %lld, pads %lld/%lld", j, (long long)k,
                                 (long long)w->dims[2 + j], (long long)s, (long long)d,
                                 (long long)pb, (long long)pe);
        if (!transpose) {
            int64_t want = (in + pb + pe - d * (k - 1) - 1) / s + 1;
            if (in + pb + pe - d * (k - 1) - 1 < 0) want = 0;
            if (y->dims[2 + j] != want)
                return pz_layer_fail(l, err, n, "spatial dim %d: Y has %lld, expected %lld",
                                     j, (long long)y->dims[2 + j], (long long)want);
        } else if (y->dims[2 + j] < 0) {
            return pz_layer_fail(l, err, n, "spatial dim %d: Y has %lld", j,
                                 (long long)y->dims[2 + j]);
        }
    }
    return 0;
}

/* A dynamic region (X's images the run's count N, at most the planned: a
 * detector's regions): Y [N, M, spatial...] as planned; X's other dims must
 * be the planned ones (xplan), else the run fails naming the layer (Y
 * empty). */
void pz_conv_run_shape(const pz_layer *l, const int64_t *xplan)
{
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    y->dims[0] = 0;
    int same = x->rank == y->rank;
    for (int d = 1; same && d < x->rank; d++) same = x->dims[d] == xplan[d];
    if (!same) {
        pz_tensor plan = *x;
        memcpy(plan.dims, xplan, sizeof plan.dims);
        plan.dims[0] = x->dims[0];
        char sx[96], sp[96];
        pz_layer_run_fail(l, "X is %s, expected %s (only the first dim may vary at run time)",
                          pz_shape_str(x, sx, sizeof sx), pz_shape_str(&plan, sp, sizeof sp));
        return;
    }
    y->dims[0] = x->dims[0];
}
