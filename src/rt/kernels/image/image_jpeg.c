/* image_jpeg.c - JPEG through libjpeg (Debian's libjpeg62-turbo): libjpeg's
 * own YCbCr -> RGB with its defaults (JDCT_ISLOW, fancy upsampling), which
 * is what Pillow decodes with, so the bytes agree exactly. A fatal libjpeg
 * error comes back by longjmp; a warning (corrupt or truncated data, which
 * libjpeg would paper over with gray) is refused too. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

#include "rt/kernels/image/image.h"

typedef struct {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char *err;
    size_t errsize;
} jpeg_err;

static void jpeg_fail(j_common_ptr c)
{
    jpeg_err *e = (jpeg_err *)c->err;
    char msg[JMSG_LENGTH_MAX];
    c->err->format_message(c, msg);
    snprintf(e->err, e->errsize, "a JPEG that libjpeg cannot decode: %s", msg);
    longjmp(e->jump, 1);
}

/* level -1: a warning (corrupt data); 0 and up: trace messages, ignored */
static void jpeg_message(j_common_ptr c, int level)
{
    if (level < 0) jpeg_fail(c);
}

int pz_image_jpeg(const uint8_t *buf, size_t n, int64_t max_pixels, pz_image *im, char *err,
                  size_t errsize)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_err e = {.err = err, .errsize = errsize};
    /* volatile: changed after setjmp, read after the longjmp */
    uint8_t *volatile rgb = NULL;
    cinfo.err = jpeg_std_error(&e.mgr);
    e.mgr.error_exit = jpeg_fail;
    e.mgr.emit_message = jpeg_message;
    if (setjmp(e.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(rgb);
        im->rgb = NULL;
        return 1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, buf, (unsigned long)n);
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        snprintf(err, errsize, "a CMYK JPEG: not read (RGB and gray JPEGs are)");
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    cinfo.out_color_space = JCS_RGB;
    if (pz_image_alloc(im, cinfo.image_height, cinfo.image_width, max_pixels, err, errsize)) {
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    rgb = im->rgb;
    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = rgb + (size_t)cinfo.output_scanline * cinfo.output_width * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}
