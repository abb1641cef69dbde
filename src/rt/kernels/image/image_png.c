/* image_png.c - PNG through libpng: palette and low-bit gray expanded, 16-bit
 * samples to their high byte, gray to RGB, alpha (and tRNS) dropped rather
 * than composited, as Pillow's RGB pixels are. Errors (a bad CRC, truncated
 * data) come back by longjmp; warnings are ignored as libpng's reader does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "rt/kernels/image/image.h"

typedef struct {
    const uint8_t *buf;
    size_t n, pos;
    char *err;
    size_t errsize;
} png_src;

static void png_read_mem(png_structp png, png_bytep dst, size_t len)
{
    png_src *s = png_get_io_ptr(png);
    if (len > s->n - s->pos) png_error(png, "the data ends early (truncated)");
    memcpy(dst, s->buf + s->pos, len);
    s->pos += len;
}

static void png_fail(png_structp png, png_const_charp msg)
{
    png_src *s = png_get_error_ptr(png);
    snprintf(s->err, s->errsize, "a PNG that libpng cannot decode: %s", msg);
    png_longjmp(png, 1);
}

static void png_warn(png_structp png, png_const_charp msg)
{
}

int pz_image_png(const uint8_t *buf, size_t n, int64_t max_pixels, pz_image *im, char *err,
                 size_t errsize)
{
    png_src src = {buf, n, 0, err, errsize};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_fail, png_warn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    /* volatile: set after setjmp, read after the longjmp */
    uint8_t *volatile rgb = NULL;
    png_bytep *volatile rows = NULL;
    if (!info) {
        snprintf(err, errsize, "out of memory for libpng");
        png_destroy_read_struct(&png, NULL, NULL);
        return 1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(rgb);
        free(rows);
        im->rgb = NULL;
        return 1;
    }
    png_set_read_fn(png, &src, png_read_mem);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    png_set_expand(png);          /* palette -> RGB, gray < 8 bits -> 8, tRNS -> alpha */
    png_set_strip_16(png);
    png_set_strip_alpha(png);
    png_set_gray_to_rgb(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 3) png_error(png, "unexpected row size");
    if (pz_image_alloc(im, h, w, max_pixels, err, errsize)) {
        png_destroy_read_struct(&png, &info, NULL);
        return 1;
    }
    rgb = im->rgb;
    rows = malloc(sizeof(png_bytep) * h);
    if (!rows) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < h; y++) rows[y] = rgb + (size_t)y * w * 3;
    (void)passes;   /* png_read_image runs every pass of an interlaced image */
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    return 0;
}
