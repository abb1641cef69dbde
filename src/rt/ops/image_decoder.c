/* image_decoder.c - the IMAGE_DECODER layer (ONNX ImageDecoder): encoded
 * bytes (uint8 [n]) -> uint8 [H, W, C], C 3 (RGB, BGR) or 1 (Grayscale),
 * planned at a bound (the output's dims at compile) and set to the image's
 * size by run (a run-time shape, packed at it). The decoders are in
 * rt/kernels/image/ (libjpeg, libpng, libtiff, libwebp, libopenjp2, BMP and
 * PNM of our own), the archive libpzimage, apart from the runtime. Bytes that are no readable image, or an image past the
 * bound, leave Y [0, 0, C] and the error for pz_net_run_error. One worker. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/image/image.h"
#include "rt/ops/ops.h"

/* libpzimage's entry, weak: a program links the decoders and the image
 * libraries only when it has this layer (`paleozoic build` adds them), so
 * that a model without it needs none of them; NULL when not linked in. */
extern pz_image_fn pz_image_decode __attribute__((weak));

typedef struct {
    int64_t max_pixels;     /* the bound: H * W of Y as planned */
    char err[512];          /* the last run's error, "" when it decoded */
} image_decoder_state;

static int image_decoder_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_image_decoder_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs the encoded bytes and Y");
    if (!pz_image_decode)
        return pz_layer_fail(l, err, n, "ImageDecoder: this program was linked without the image "
                             "decoders (libpzimage: -Wl,-u," PZ_IMAGE_ENTRY " libpzimage.a and "
                             "the image libraries)");
    if (pz_layer_want_dtype(l, err, n, "encoded_stream", x, PZ_U8) ||
        pz_layer_want_dtype(l, err, n, "Y", y, PZ_U8))
        return 1;
    if (p->pixel_format < PZ_PIXEL_RGB || p->pixel_format > PZ_PIXEL_GRAY)
        return pz_layer_fail(l, err, n, "pixel_format %d is not a pz_pixel_format", p->pixel_format);
    int64_t c = p->pixel_format == PZ_PIXEL_GRAY ? 1 : 3;
    if (x->rank != 1 || y->rank != 3 || y->dims[2] != c) {
        char bx[96], by[96];
        return pz_layer_fail(l, err, n, "encoded bytes %s and Y %s are not [n] and [H, W, %lld]",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(y, by, sizeof by),
                             (long long)c);
    }
    image_decoder_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    st->max_pixels = y->dims[0] * y->dims[1];
    l->state = st;
    l->nth = 1;
    return 0;
}

static void image_decoder_run(const pz_layer *l, int ith, int nth)
{
    const pz_image_decoder_params *p = l->params;
    image_decoder_state *st = l->state;
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    pz_image im;
    char why[400];
    st->err[0] = 0;
    if (pz_image_decode(x->data, (size_t)x->dims[0], st->max_pixels, &im, why, sizeof why)) {
        snprintf(st->err, sizeof st->err, "node \"%s\" (ImageDecoder): %s", l->name, why);
        y->dims[0] = y->dims[1] = 0;
        return;
    }
    int64_t px = im.h * im.w;
    if (p->pixel_format == PZ_PIXEL_RGB) memcpy(y->data, im.rgb, (size_t)px * 3);
    else if (p->pixel_format == PZ_PIXEL_BGR) pz_image_to_bgr(im.rgb, y->data, px);
    else pz_image_to_gray(im.rgb, y->data, px);
    free(im.rgb);
    y->dims[0] = im.h, y->dims[1] = im.w;
}

static const char *image_decoder_error(const pz_layer *l)
{
    const image_decoder_state *st = l->state;
    return st && st->err[0] ? st->err : NULL;
}

static void image_decoder_release(pz_layer *l)
{
    free(l->state);
    l->state = NULL;
}

static const char *const PIXEL_FORMAT[] = {"PZ_PIXEL_RGB", "PZ_PIXEL_BGR", "PZ_PIXEL_GRAY"};
static const pz_param_field image_decoder_fields[] = {
    PZ_FIELD_ENUM(pz_image_decoder_params, pixel_format, PIXEL_FORMAT),
};

const pz_rt_op pz_rt_op_image_decoder = {
    .name = "IMAGE_DECODER", PZ_OP_PARAMS(pz_image_decoder_params, image_decoder_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = image_decoder_prepare, .run = image_decoder_run,
    .release = image_decoder_release, .run_error = image_decoder_error,
    .dyn_out = 1,
};
