/* image_pixels.c - ImageDecoder's pixel conversions (rt/kernels/image/image.h):
 * in the runtime, not in libpzimage with the decoders, as they need no image
 * library. */
#include "rt/kernels/image/image.h"

void pz_image_to_bgr(const uint8_t *restrict rgb, uint8_t *restrict y, int64_t pixels)
{
    for (int64_t i = 0; i < pixels; i++) {
        y[3 * i] = rgb[3 * i + 2];
        y[3 * i + 1] = rgb[3 * i + 1];
        y[3 * i + 2] = rgb[3 * i];
    }
}

void pz_image_to_gray(const uint8_t *restrict rgb, uint8_t *restrict y, int64_t pixels)
{
    /* Pillow's L24: 0.299, 0.587, 0.114 times 65536, the half added to round */
    for (int64_t i = 0; i < pixels; i++)
        y[i] = (uint8_t)((rgb[3 * i] * 19595u + rgb[3 * i + 1] * 38470u + rgb[3 * i + 2] * 7471u +
                          0x8000u) >> 16);
}
