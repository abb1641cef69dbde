/* image_decode.c - pz_image_decode: the format by its first bytes, then its
 * decoder (image.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/image/image.h"

static int starts(const uint8_t *buf, size_t n, const void *magic, size_t m)
{
    return n >= m && !memcmp(buf, magic, m);
}

int pz_image_decode(const uint8_t *buf, size_t n, int64_t max_pixels, pz_image *im, char *err,
                    size_t errsize)
{
    memset(im, 0, sizeof *im);
    if (starts(buf, n, "\xff\xd8\xff", 3)) return pz_image_jpeg(buf, n, max_pixels, im, err, errsize);
    if (starts(buf, n, "\x89PNG\r\n\x1a\n", 8)) return pz_image_png(buf, n, max_pixels, im, err, errsize);
    if (starts(buf, n, "II*\0", 4) || starts(buf, n, "MM\0*", 4))
        return pz_image_tiff(buf, n, max_pixels, im, err, errsize);
    if (n >= 12 && starts(buf, n, "RIFF", 4) && !memcmp(buf + 8, "WEBP", 4))
        return pz_image_webp(buf, n, max_pixels, im, err, errsize);
    /* the JP2 file's signature box, or a bare J2K codestream (SOC, SIZ) */
    if (starts(buf, n, "\0\0\0\x0cjP  \r\n\x87\n", 12) || starts(buf, n, "\xff\x4f\xff\x51", 4))
        return pz_image_jp2(buf, n, max_pixels, im, err, errsize);
    if (starts(buf, n, "BM", 2)) return pz_image_bmp(buf, n, max_pixels, im, err, errsize);
    if (n >= 2 && buf[0] == 'P' && buf[1] >= '1' && buf[1] <= '7')
        return pz_image_pnm(buf, n, max_pixels, im, err, errsize);
    snprintf(err, errsize, "%zu bytes that are not an image of a known format (JPEG, PNG, TIFF, "
             "WebP, JPEG 2000, BMP, PNM)", n);
    return 1;
}

int pz_image_check_size(int64_t h, int64_t w, int64_t max_pixels, char *err, size_t errsize)
{
    if (h < 1 || w < 1) {
        snprintf(err, errsize, "the image is %lld x %lld pixels", (long long)h, (long long)w);
        return 1;
    }
    if (h > max_pixels / w) {
        snprintf(err, errsize, "the image is %lld x %lld pixels, more than the %lld pixels the "
                 "output is planned for (its declared shape)", (long long)h, (long long)w,
                 (long long)max_pixels);
        return 1;
    }
    return 0;
}

int pz_image_alloc(pz_image *im, int64_t h, int64_t w, int64_t max_pixels, char *err,
                   size_t errsize)
{
    if (pz_image_check_size(h, w, max_pixels, err, errsize)) return 1;
    im->h = h, im->w = w;
    im->rgb = calloc((size_t)(h * w), 3);
    if (!im->rgb) {
        snprintf(err, errsize, "out of memory for a %lld x %lld image", (long long)h, (long long)w);
        return 1;
    }
    return 0;
}
