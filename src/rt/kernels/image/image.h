/* image.h - decoding encoded images to 8-bit RGB (ONNX ImageDecoder).
 *
 * The formats by their first bytes: JPEG (libjpeg), PNG (libpng), TIFF
 * (libtiff), WebP (libwebp), JPEG 2000 (libopenjp2), and BMP and binary PNM
 * read by our own code (image_bmp_pnm.c). Every decoder gives 8-bit RGB rows
 * as Pillow reads the image (what ONNX's reference decodes with): a gray
 * image with its value in each channel, alpha dropped, 16-bit samples to
 * their high byte.
 *
 * The image libraries allocate, and so do these decoders (the RGB pixels):
 * unlike the other kernels they are not pure. A decoder reads the header
 * first and refuses an image of more than max_pixels pixels before it
 * allocates for the pixels.
 *
 *   pz_image im;
 *   if (pz_image_decode(buf, n, max_px, &im, err, sizeof err)) ... err says why
 *   ... im.rgb[(y * im.w + x) * 3 + c] ...
 *   free(im.rgb);
 *
 * The decoders are their own archive, libpzimage (Makefile: IMG_OBJS), and
 * only a program with an ImageDecoder layer links it (with the image
 * libraries): the runtime's layer reaches pz_image_decode through a weak
 * reference, which a program links in with -Wl,-u,pz_image_decode
 * (PZ_IMAGE_ENTRY) before libpzimage.a. The pixel conversions at the end are
 * in the runtime (rt/kernels/image_pixels.c).
 */
#ifndef PZ_IMAGE_H
#define PZ_IMAGE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t h, w;
    uint8_t *rgb;          /* h * w * 3 bytes, row-major; the caller frees it */
} pz_image;

/* A decoder: 0 on success; else 1 with why in err (not an image, a format
 * not listed, corrupt or truncated data, too large) and nothing to free. */
typedef int pz_image_fn(const uint8_t *buf, size_t n, int64_t max_pixels, pz_image *im,
                        char *err, size_t errsize);

/* Any of the formats, by its first bytes: libpzimage's entry, which
 * `paleozoic build` links in by this name with -Wl,-u (gen/emit_common.c;
 * the Makefile and mk/install.mk spell it out). */
#define PZ_IMAGE_ENTRY "pz_image_decode"
pz_image_fn pz_image_decode;
/* The formats (image_<format>.c; BMP and PNM in image_bmp_pnm.c). */
pz_image_fn pz_image_jpeg, pz_image_png, pz_image_tiff, pz_image_webp, pz_image_jp2,
    pz_image_bmp, pz_image_pnm;

/* For the decoders: 1 with err set when an h x w image is empty or has more
 * than max_pixels pixels. */
int pz_image_check_size(int64_t h, int64_t w, int64_t max_pixels, char *err, size_t errsize);
/* For the decoders: checks h x w against max_pixels and allocates im->rgb
 * (zeroed); 1 with err set when the size is bad or memory is short. */
int pz_image_alloc(pz_image *im, int64_t h, int64_t w, int64_t max_pixels, char *err,
                   size_t errsize);

/* In the runtime (image_pixels.c): pixel conversions into ONNX
 * ImageDecoder's outputs: RGB as is, BGR, or Grayscale as Pillow's
 * convert("L") computes it (ITU-R 601-2 luma, weights in 16-bit fixed
 * point, rounded). */
void pz_image_to_bgr(const uint8_t *restrict rgb, uint8_t *restrict y, int64_t pixels);
void pz_image_to_gray(const uint8_t *restrict rgb, uint8_t *restrict y, int64_t pixels);

#endif
