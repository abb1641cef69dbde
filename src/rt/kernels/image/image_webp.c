/* image_webp.c - WebP (lossy and lossless) through libwebp, decoded
 * straight into RGB; alpha, when the image has it, is dropped. */
#include <stdio.h>
#include <stdlib.h>

#include <webp/decode.h>

#include "rt/kernels/image/image.h"

int pz_image_webp(const uint8_t *buf, size_t n, int64_t max_pixels, pz_image *im, char *err,
                  size_t errsize)
{
    int w, h;
    if (!WebPGetInfo(buf, n, &w, &h)) {
        snprintf(err, errsize, "a WebP file whose header libwebp cannot read");
        return 1;
    }
    if (pz_image_alloc(im, h, w, max_pixels, err, errsize)) return 1;
    size_t bytes = (size_t)h * (size_t)w * 3;
    if (!WebPDecodeRGBInto(buf, n, im->rgb, bytes, w * 3)) {
        free(im->rgb), im->rgb = NULL;
        snprintf(err, errsize, "a WebP file that libwebp cannot decode (corrupt or truncated)");
        return 1;
    }
    return 0;
}
