/* image_tiff.c - TIFF through libtiff, read from memory by TIFFClientOpenExt
 * with its own error handler (no global one changed): the first page, as
 * TIFFReadRGBAImageOriented gives it (any photometric, bit depth and
 * compression libtiff converts), alpha dropped. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include "rt/kernels/image/image.h"

typedef struct {
    const uint8_t *buf;
    toff_t n, pos;
    char *err;
    size_t errsize;
    int failed;
} tiff_src;

static tmsize_t tiff_read(thandle_t h, void *dst, tmsize_t len)
{
    tiff_src *s = (tiff_src *)h;
    if (len < 0) return -1;
    toff_t k = (toff_t)len < s->n - s->pos ? (toff_t)len : s->n - s->pos;
    memcpy(dst, s->buf + s->pos, (size_t)k);
    s->pos += k;
    return (tmsize_t)k;
}

static tmsize_t tiff_write(thandle_t h, void *src, tmsize_t len)
{
    return -1;
}

static toff_t tiff_seek(thandle_t h, toff_t off, int whence)
{
    tiff_src *s = (tiff_src *)h;
    toff_t base = whence == SEEK_CUR ? s->pos : whence == SEEK_END ? s->n : 0;
    if (off > UINT64_MAX - base) return (toff_t)-1;
    s->pos = base + off > s->n ? s->n : base + off;
    return s->pos;
}

static int tiff_close(thandle_t h)
{
    return 0;
}

static toff_t tiff_size(thandle_t h)
{
    return ((tiff_src *)h)->n;
}

static int tiff_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    tiff_src *s = user;
    if (!s->failed) {
        char msg[256];
        vsnprintf(msg, sizeof msg, fmt, ap);
        snprintf(s->err, s->errsize, "a TIFF that libtiff cannot decode: %s", msg);
    }
    s->failed = 1;
    return 1;   /* handled: libtiff prints nothing */
}

static int tiff_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    return 1;
}

int pz_image_tiff(const uint8_t *buf, size_t n, int64_t max_pixels, pz_image *im, char *err,
                  size_t errsize)
{
    tiff_src src = {buf, n, 0, err, errsize, 0};
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts) {
        snprintf(err, errsize, "out of memory for libtiff");
        return 1;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(opts, tiff_error, &src);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, tiff_warning, &src);
    TIFF *tif = TIFFClientOpenExt("image", "rm", (thandle_t)&src, tiff_read, tiff_write, tiff_seek,
                                  tiff_close, tiff_size, NULL, NULL, opts);
    TIFFOpenOptionsFree(opts);
    uint32_t *px = NULL;
    int rc = 1;
    if (!tif) {
        if (!src.failed) snprintf(err, errsize, "a TIFF that libtiff cannot open");
        return 1;
    }
    uint32_t w = 0, h = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    if (pz_image_alloc(im, h, w, max_pixels, err, errsize)) goto done;
    px = malloc((size_t)w * h * sizeof *px);
    if (!px) {
        snprintf(err, errsize, "out of memory for a %u x %u TIFF", w, h);
        goto done;
    }
    if (!TIFFReadRGBAImageOriented(tif, w, h, px, ORIENTATION_TOPLEFT, 1) || src.failed) {
        if (!src.failed) snprintf(err, errsize, "a TIFF that libtiff cannot decode");
        goto done;
    }
    for (size_t i = 0; i < (size_t)w * h; i++) {
        im->rgb[3 * i] = (uint8_t)TIFFGetR(px[i]);
        im->rgb[3 * i + 1] = (uint8_t)TIFFGetG(px[i]);
        im->rgb[3 * i + 2] = (uint8_t)TIFFGetB(px[i]);
    }
    rc = 0;
done:
    if (rc) free(im->rgb), im->rgb = NULL;
    free(px);
    TIFFClose(tif);
    return rc;
}
