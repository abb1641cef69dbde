/* col2im.c - the COL2IM layer (ONNX Col2Im): X [N, C*prod(block), L] ->
 * Y [N, C, image...]; the image and block shapes are params (the compiler
 * reads them from constant inputs, which the layer then ignores). */
#include "rt/ops/ops.h"

static int col2im_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_col2im_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_dtype_size(x->dtype) == 0 || x->dtype == PZ_BOOL || pz_dtype_is_small_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (p->nsp < 1 || p->nsp > PZ_MAX_SPATIAL || x->rank != 3 || y->rank != 2 + p->nsp)
        return pz_layer_fail(l, err, n, "X must be 3-D and Y [N, C, image...] of 1 to %d dims",
                             PZ_MAX_SPATIAL);
    int64_t kn = 1, L = 1;
    for (int i = 0; i < p->nsp; i++) {
        int64_t span = p->dilation[i] * (p->block[i] - 1) + 1;
        int64_t ext = p->image[i] + p->pad_begin[i] + p->pad_end[i];
        if (p->block[i] < 1 || p->stride[i] < 1 || p->dilation[i] < 1 || ext < span ||
            y->dims[2 + i] != p->image[i])
            return pz_layer_fail(l, err, n, "axis %d: block %lld does not fit image %lld", i,
                                 (long long)p->block[i], (long long)p->image[i]);
        kn *= p->block[i];
        L *= (ext - span) / p->stride[i] + 1;
    }
    if (x->dims[1] != y->dims[1] * kn || x->dims[2] != L || x->dims[0] != y->dims[0])
        return pz_layer_fail(l, err, n, "X [%lld,%lld,%lld] is not [N, C*%lld, %lld]",
                             (long long)x->dims[0], (long long)x->dims[1], (long long)x->dims[2],
                             (long long)kn, (long long)L);
    return 0;
}

static void col2im_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *y = l->out[0];
    pz_any_col2im__ref(l->params, y->dtype, y->dims[0], y->dims[1], l->in[0]->data, y->data,
                       ith, nth);
}

static const pz_param_field col2im_fields[] = {
    PZ_FIELD(pz_col2im_params, nsp, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_col2im_params, image, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_col2im_params, block, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_col2im_params, stride, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_col2im_params, dilation, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_col2im_params, pad_begin, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_col2im_params, pad_end, PZ_F_I64),
};

const pz_rt_op pz_rt_op_col2im = {
    .name = "COL2IM", PZ_OP_PARAMS(pz_col2im_params, col2im_fields),
    .min_in = 1, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = col2im_prepare, .run = col2im_run,
};
