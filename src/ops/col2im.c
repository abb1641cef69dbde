/* col2im.c - Col2Im (opset 18):
 *   input [N, C*prod(block_shape), L], image_shape [r], block_shape [r]
 *   (int64, constant: they shape the output) -> output [N, C, image...].
 * dilations, pads (begin then end), strides, r up to 3. No MACs. Runs as
 * COL2IM (rt/ops/col2im.c). */
#include "op.h"

typedef struct {
    int64_t dil[PZ_MAX_SPATIAL], pads[2 * PZ_MAX_SPATIAL], strides[PZ_MAX_SPATIAL];
    int nd, np, ns;
} col2im_attrs;

static pz_status col2im_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    col2im_attrs *a = params;
    return op_attr_ints(n, "dilations", a->dil, PZ_MAX_SPATIAL, &a->nd, err) ||
                   op_attr_ints(n, "pads", a->pads, 2 * PZ_MAX_SPATIAL, &a->np, err) ||
                   op_attr_ints(n, "strides", a->strides, PZ_MAX_SPATIAL, &a->ns, err)
               ? err->code
               : PZ_OK;
}

/* The runtime params from the attributes and the constant shape inputs. */
static pz_status col2im_resolve(const ir_graph *g, const ir_node *n, pz_col2im_params *p,
                                pz_err *err)
{
    const col2im_attrs *a = n->params;
    int ni, nb;
    if (op_const_ints(g, n, 1, "image_shape", p->image, PZ_MAX_SPATIAL, &ni, err) ||
        op_const_ints(g, n, 2, "block_shape", p->block, PZ_MAX_SPATIAL, &nb, err))
        return err->code;
    if (ni != nb || ni < 1)
        return op_err(err, n, "image_shape has %d entries, block_shape %d", ni, nb);
    if ((a->nd >= 0 && a->nd != ni) || (a->ns >= 0 && a->ns != ni) ||
        (a->np >= 0 && a->np != 2 * ni))
        return op_err(err, n, "dilations, strides, pads do not have %d (pads %d) entries", ni,
                      2 * ni);
    p->nsp = ni;
    for (int i = 0; i < ni; i++) {
        p->dilation[i] = a->nd >= 0 ? a->dil[i] : 1;
        p->stride[i] = a->ns >= 0 ? a->strides[i] : 1;
        p->pad_begin[i] = a->np >= 0 ? a->pads[i] : 0;
        p->pad_end[i] = a->np >= 0 ? a->pads[ni + i] : 0;
        int64_t span = p->dilation[i] * (p->block[i] - 1) + 1;
        if (p->dilation[i] < 1 || p->stride[i] < 1 || p->pad_begin[i] < 0 || p->pad_end[i] < 0 ||
            p->block[i] < 1 || p->image[i] < 1 ||
            p->image[i] + p->pad_begin[i] + p->pad_end[i] < span)
            return op_err(err, n, "axis %d: block %lld (dilation %lld, stride %lld) does not "
                          "fit image %lld", i, (long long)p->block[i], (long long)p->dilation[i],
                          (long long)p->stride[i], (long long)p->image[i]);
    }
    return PZ_OK;
}

static pz_status col2im_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    pz_col2im_params p = {0};
    if (!x || x->rank != 3) return op_err(err, n, "input must be 3-D [N, C*prod(block), L]");
    if (!ir_dtype_is_float(x->dtype) && !ir_dtype_is_int(x->dtype))
        return op_err(err, n, "input has type %s, not supported", ir_dtype_name(x->dtype));
    if (col2im_resolve(g, n, &p, err)) return err->code;
    int64_t kn = 1, L = 1;
    for (int i = 0; i < p.nsp; i++) {
        kn *= p.block[i];
        L *= (p.image[i] + p.pad_begin[i] + p.pad_end[i] -
              (p.dilation[i] * (p.block[i] - 1) + 1)) / p.stride[i] + 1;
    }
    if (x->dims[1] % kn || x->dims[2] != L)
        return op_err(err, n, "input [%lld,%lld,%lld] is not [N, C*%lld, %lld]",
                      (long long)x->dims[0], (long long)x->dims[1], (long long)x->dims[2],
                      (long long)kn, (long long)L);
    int64_t dims[IR_MAX_RANK] = {x->dims[0], x->dims[1] / kn};
    for (int i = 0; i < p.nsp; i++) dims[2 + i] = p.image[i];
    op_set_out(g, n, 0, x->dtype, 2 + p.nsp, dims);
    return PZ_OK;
}

static pz_status col2im_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    pz_col2im_params p = {0};
    if (col2im_resolve(g, n, &p, err)) return err->code;
    op_lowered_init(out, n, PZ_OP_COL2IM, &p, sizeof p);
    out->n_in = 1;   /* the shapes are params now */
    return PZ_OK;
}

const op_def op_col2im = {
    .name = "Col2Im",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(col2im_attrs),
    .parse = col2im_parse,
    .infer = col2im_infer,
    .lower = col2im_lower,
};
