/* image_decoder.c - ImageDecoder (opset 20): encoded_stream (uint8 [n], the
 * bytes of a JPEG, PNG, TIFF, WebP, JPEG 2000, BMP or PNM file) -> image
 * uint8 [H, W, 3] (pixel_format RGB, the default, or BGR) or [H, W, 1]
 * (Grayscale). H and W are the image's, known only when it is decoded: the
 * output has a run-time shape planned at a bound, the shape the model
 * declares for it (a graph output with every dim given); a larger image
 * fails the run with an error naming the node, as do bytes that are no
 * readable image. With the bytes a constant the node folds. Runs as
 * IMAGE_DECODER (rt/ops/image_decoder.c, the decoders in rt/kernels/image). */
#include <string.h>

#include "op.h"

static const char *const PIXEL_FORMATS[] = {"RGB", "BGR", "Grayscale"};   /* pz_pixel_format */

static pz_status image_decoder_parse(const ir_graph *g, const ir_node *n, void *params,
                                     pz_err *err)
{
    pz_image_decoder_params *p = params;
    const char *fmt;
    if (op_attr_string(n, "pixel_format", "RGB", &fmt, err)) return err->code;
    for (p->pixel_format = 0; p->pixel_format < 3; p->pixel_format++)
        if (!strcmp(fmt, PIXEL_FORMATS[p->pixel_format])) return PZ_OK;
    return op_err_attr(err, n, "pixel_format", "\"%s\", expected RGB, BGR or Grayscale", fmt);
}

static pz_status image_decoder_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_image_decoder_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (x->dtype != IR_U8)
        return op_err(err, n, "input encoded_stream has type %s, expected uint8",
                      ir_dtype_name(x->dtype));
    if (x->rank != 1)
        return op_err(err, n, "input encoded_stream has rank %d, expected 1 (the file's bytes)",
                      x->rank);
    int64_t c = p->pixel_format == PZ_PIXEL_GRAY ? 1 : 3;
    const ir_value *y = &g->values[n->out[0]];
    int declared = y->is_output && y->decl_rank == 3;
    for (int d = 0; declared && d < 3; d++) declared = y->decl_dims[d] > 0;
    if (!declared)
        return op_err(err, n, "output \"%s\" needs a declared shape [H, W, %lld] with every dim "
                      "given: the image's size is known only when it is decoded, and the "
                      "program is planned for that bound", y->name, (long long)c);
    if (y->decl_dims[2] != c)
        return op_err(err, n, "output \"%s\" is declared with %lld channels, pixel_format %s "
                      "gives %lld", y->name, (long long)y->decl_dims[2],
                      PIXEL_FORMATS[p->pixel_format], (long long)c);
    op_set_out(g, n, 0, IR_U8, 3, y->decl_dims);
    op_set_dyn(g, n, 0);
    return PZ_OK;
}

static pz_status image_decoder_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                     pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_IMAGE_DECODER, n->params, sizeof(pz_image_decoder_params));
    return PZ_OK;
}

const op_def op_image_decoder = {
    .name = "ImageDecoder",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_image_decoder_params),
    .parse = image_decoder_parse,
    .infer = image_decoder_infer,
    .lower = image_decoder_lower,
};
