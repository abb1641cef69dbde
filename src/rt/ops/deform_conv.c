/* deform_conv.c - the DEFORM_CONV layer (ONNX DeformConv, 2-D): X [N, C, H,
 * W], W [M, C/G, kh, kw], offset [N, OG*2*kh*kw, OH, OW], B [M]?, mask [N,
 * OG*kh*kw, OH, OW]? of one float type -> Y [N, M, OH, OW]. */
#include "rt/ops/ops.h"

static int deform_conv_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_deform_conv_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *o = pz_in(l, 2), *b = pz_in(l, 3);
    const pz_tensor *m = pz_in(l, 4), *y = pz_out(l, 0);
    if (!x || !w || !o || !y) return pz_layer_fail(l, err, n, "needs X, W, offset and Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    const pz_tensor *all[] = {w, o, b, m, y};
    for (int i = 0; i < 5; i++)
        if (all[i] && pz_layer_want_dtype(l, err, n, "an input or Y", all[i], x->dtype)) return 1;
    if (x->rank != 4 || w->rank != 4 || o->rank != 4 || y->rank != 4)
        return pz_layer_fail(l, err, n, "X, W, offset and Y must be 4-D");
    int64_t N = x->dims[0], C = x->dims[1], M = w->dims[0], kn = p->kernel[0] * p->kernel[1];
    int64_t og = p->offset_group, OH = y->dims[2], OW = y->dims[3];
    if (p->group < 1 || og < 1 || C % p->group || M % p->group || C % og ||
        w->dims[1] != C / p->group || w->dims[2] != p->kernel[0] || w->dims[3] != p->kernel[1] ||
        y->dims[0] != N || y->dims[1] != M)
        return pz_layer_fail(l, err, n, "W, group %lld or offset_group %lld do not fit X",
                             (long long)p->group, (long long)og);
    if (o->dims[0] != N || o->dims[1] != og * 2 * kn || o->dims[2] != OH || o->dims[3] != OW)
        return pz_layer_fail(l, err, n, "offset must be [%lld,%lld,%lld,%lld]", (long long)N,
                             (long long)(og * 2 * kn), (long long)OH, (long long)OW);
    if (b && pz_numel(b) != M) return pz_layer_fail(l, err, n, "B must have %lld elements",
                                                    (long long)M);
    if (m && (m->rank != 4 || m->dims[0] != N || m->dims[1] != og * kn || m->dims[2] != OH ||
              m->dims[3] != OW))
        return pz_layer_fail(l, err, n, "mask must be [%lld,%lld,%lld,%lld]", (long long)N,
                             (long long)(og * kn), (long long)OH, (long long)OW);
    return 0;
}

static void deform_conv_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0], *b = pz_in(l, 3), *m = pz_in(l, 4);
    pz_any_deform_conv__ref(l->params, x->dtype, x->dims, l->out[0]->dims, x->data,
                            l->in[1]->data, l->in[2]->data, b ? b->data : NULL,
                            m ? m->data : NULL, l->out[0]->data, ith, nth);
}

static const pz_param_field deform_conv_fields[] = {
    PZ_FIELD(pz_deform_conv_params, group, PZ_F_I64),
    PZ_FIELD(pz_deform_conv_params, offset_group, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_deform_conv_params, kernel, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_deform_conv_params, stride, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_deform_conv_params, dilation, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_deform_conv_params, pad_begin, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_deform_conv_params, pad_end, PZ_F_I64),
};

const pz_rt_op pz_rt_op_deform_conv = {
    .name = "DEFORM_CONV", PZ_OP_PARAMS(pz_deform_conv_params, deform_conv_fields),
    .min_in = 3, .max_in = 5, .min_out = 1, .max_out = 1,
    .prepare = deform_conv_prepare, .run = deform_conv_run,
};
