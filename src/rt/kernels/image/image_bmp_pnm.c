/* image_bmp_pnm.c - the two formats simple enough to read here: BMP
 * (uncompressed, 1, 4, 8, 24 or 32 bits a pixel, bottom-up or top-down) and
 * binary PNM (P5 gray, P6 RGB, maxval 255). Anything else of theirs is
 * refused by name. Every read is checked against the buffer's end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/image/image.h"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int bad(char *err, size_t errsize, const char *what)
{
    snprintf(err, errsize, "%s", what);
    return 1;
}

int pz_image_bmp(const uint8_t *buf, size_t n, int64_t max_pixels, pz_image *im, char *err,
                 size_t errsize)
{
    if (n < 54) return bad(err, errsize, "a BMP file shorter than its headers");
    uint32_t off = le32(buf + 10), hsize = le32(buf + 14);
    if (hsize < 40) return bad(err, errsize, "a BMP with an OS/2 header: not read");
    int64_t w = (int32_t)le32(buf + 18), h = (int32_t)le32(buf + 22);
    int bpp = buf[28] | buf[29] << 8;
    uint32_t comp = le32(buf + 30), ncolors = le32(buf + 46);
    int top_down = h < 0;
    if (top_down) h = -h;
    if (comp != 0) {
        snprintf(err, errsize, "a BMP with compression %u: only uncompressed BMP is read", comp);
        return 1;
    }
    if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 24 && bpp != 32) {
        snprintf(err, errsize, "a BMP of %d bits a pixel: 1, 4, 8, 24 or 32 are read", bpp);
        return 1;
    }
    /* the palette: after the info header, 4 bytes (B, G, R, 0) an entry */
    const uint8_t *pal = buf + 14 + hsize;
    uint32_t npal = bpp <= 8 ? (ncolors && ncolors < (1u << bpp) ? ncolors : 1u << bpp) : 0;
    if (14 + (uint64_t)hsize + 4ull * npal > n) return bad(err, errsize, "a BMP truncated in its palette");
    if (w < 1 || h < 1 || w > (1 << 28) || h > (1 << 28)) {
        snprintf(err, errsize, "a BMP of %lld x %lld pixels", (long long)w, (long long)h);
        return 1;
    }
    uint64_t stride = ((uint64_t)w * (uint64_t)bpp + 31) / 32 * 4;   /* rows padded to 4 bytes */
    if (off > n || (n - off) / stride < (uint64_t)h)
        return bad(err, errsize, "a BMP truncated in its pixels");
    if (pz_image_alloc(im, h, w, max_pixels, err, errsize)) return 1;
    for (int64_t y = 0; y < h; y++) {
        const uint8_t *row = buf + off + stride * (uint64_t)(top_down ? y : h - 1 - y);
        uint8_t *dst = im->rgb + y * w * 3;
        for (int64_t x = 0; x < w; x++, dst += 3) {
            if (bpp >= 24) {
                const uint8_t *s = row + x * (bpp / 8);
                dst[0] = s[2], dst[1] = s[1], dst[2] = s[0];
                continue;
            }
            /* palette index: bits from the most significant end of each byte */
            int64_t bit = x * bpp;
            unsigned idx = (row[bit / 8] >> (8 - bpp - bit % 8)) & ((1u << bpp) - 1);
            if (idx >= npal) {
                free(im->rgb), im->rgb = NULL;
                snprintf(err, errsize, "a BMP pixel names palette entry %u of %u", idx, npal);
                return 1;
            }
            dst[0] = pal[4 * idx + 2], dst[1] = pal[4 * idx + 1], dst[2] = pal[4 * idx];
        }
    }
    return 0;
}

/* A PNM header number after whitespace and # comments; -1 when there is none. */
static int64_t pnm_number(const uint8_t *buf, size_t n, size_t *pos)
{
    size_t i = *pos;
    for (;;) {
        while (i < n && (buf[i] == ' ' || (buf[i] >= '\t' && buf[i] <= '\r'))) i++;
        if (i < n && buf[i] == '#') {
            while (i < n && buf[i] != '\n' && buf[i] != '\r') i++;
            continue;
        }
        break;
    }
    int64_t v = 0;
    size_t first = i;
    while (i < n && buf[i] >= '0' && buf[i] <= '9' && v < (1 << 28)) v = v * 10 + (buf[i++] - '0');
    *pos = i;
    return i == first ? -1 : v;
}

int pz_image_pnm(const uint8_t *buf, size_t n, int64_t max_pixels, pz_image *im, char *err,
                 size_t errsize)
{
    int kind = buf[1] - '0';
    if (kind != 5 && kind != 6) {
        snprintf(err, errsize, "a PNM of kind P%d: binary P5 (gray) and P6 (RGB) are read", kind);
        return 1;
    }
    size_t pos = 2;
    int64_t w = pnm_number(buf, n, &pos), h = pnm_number(buf, n, &pos);
    int64_t maxval = pnm_number(buf, n, &pos);
    if (w < 1 || h < 1 || maxval < 1 || pos >= n)
        return bad(err, errsize, "a PNM with a bad or truncated header");
    if (maxval != 255) {
        snprintf(err, errsize, "a PNM with maxval %lld: only 255 is read", (long long)maxval);
        return 1;
    }
    pos++;   /* the one whitespace byte before the pixels */
    int ch = kind == 6 ? 3 : 1;
    if ((uint64_t)(n - pos) / (uint64_t)(w * ch) < (uint64_t)h)
        return bad(err, errsize, "a PNM truncated in its pixels");
    if (pz_image_alloc(im, h, w, max_pixels, err, errsize)) return 1;
    const uint8_t *s = buf + pos;
    for (int64_t i = 0; i < h * w; i++, s += ch)
        for (int c = 0; c < 3; c++) im->rgb[3 * i + c] = s[ch == 3 ? c : 0];
    return 0;
}
