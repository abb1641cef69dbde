/* rt_maxpool8.c - the 8-bit max pooling on NCHW16c (pz_8_maxpool2d_nchw16c,
 * rt/kernels/pool/maxpool16c_u8.c) against a max over each window written
 * here on the plain values (int8 compared as signed): uint8 and int8;
 * ResNet's 3x3/2 pad 1, VGG's 2x2/2, AlexNet's 3x3/2, dilation 2, uneven
 * pads, an image wider than a span of the kernel's column buffer (two
 * spans), and a window wider than the buffer (the pixel path); 1 and 3
 * workers the same bytes. */
#include "rt/kernels/fast.h"
#include "rt_test.h"

static uint64_t seed = 8;
static uint8_t rnd8(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint8_t)(seed >> 40);
}

static void pcase(int sgn, int64_t c, int64_t h, int64_t w, int64_t k, int64_t s, int64_t dl,
                  int64_t pt, int64_t pl, int64_t pb, int64_t pr)
{
    const int64_t cb = (c + 15) / 16, ext = (k - 1) * dl + 1;
    const int64_t oh = (h + pt + pb - ext) / s + 1, ow = (w + pl + pr - ext) / s + 1;
    uint8_t *x = malloc((size_t)(cb * h * w * 16)), *y = malloc((size_t)(cb * oh * ow * 16));
    uint8_t *y3 = malloc((size_t)(cb * oh * ow * 16));
    for (int64_t i = 0; i < cb * h * w * 16; i++) x[i] = rnd8();
    pz_pool16c_desc d = {.n = 1, .c = c, .h = h, .w = w, .oh = oh, .ow = ow, .kh = k, .kw = k,
                         .sh = s, .sw = s, .dh = dl, .dw = dl, .pt = pt, .pl = pl, .pb = pb,
                         .pr = pr, .max = 1};
    pz_8_maxpool2d_nchw16c(&d, sgn, x, y, 0, 1);
    for (int t = 0; t < 3; t++) pz_8_maxpool2d_nchw16c(&d, sgn, x, y3, t, 3);
    int64_t bad = 0;
    for (int64_t ch = 0; ch < c; ch++)
        for (int64_t i = 0; i < oh; i++)
            for (int64_t j = 0; j < ow; j++) {
                int best = -1000;
                for (int64_t a = 0; a < k; a++)
                    for (int64_t b = 0; b < k; b++) {
                        const int64_t ih = i * s - pt + a * dl, iw = j * s - pl + b * dl;
                        if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                        const uint8_t v = x[((ch / 16 * h + ih) * w + iw) * 16 + ch % 16];
                        const int iv = sgn ? (int8_t)v : v;
                        best = iv > best ? iv : best;
                    }
                const uint8_t g = y[((ch / 16 * oh + i) * ow + j) * 16 + ch % 16];
                bad += (sgn ? (int8_t)g : g) != best;
            }
    checkf(bad == 0 && !memcmp(y, y3, (size_t)(cb * oh * ow * 16)),
           "maxpool8 %s c%lld %lldx%lld k%lld s%lld d%lld pads %lld %lld %lld %lld: %lld wrong%s",
           sgn ? "s8" : "u8", (long long)c, (long long)h, (long long)w, (long long)k,
           (long long)s, (long long)dl, (long long)pt, (long long)pl, (long long)pb,
           (long long)pr, (long long)bad,
           memcmp(y, y3, (size_t)(cb * oh * ow * 16)) ? ", 3 workers differ" : "");
    free(x), free(y), free(y3);
}

int main(void)
{
    for (int sgn = 0; sgn < 2; sgn++) {
        pcase(sgn, 24, 12, 14, 3, 2, 1, 1, 1, 1, 1);     /* ResNet */
        pcase(sgn, 16, 8, 10, 2, 2, 1, 0, 0, 0, 0);      /* VGG */
        pcase(sgn, 40, 13, 13, 3, 2, 1, 0, 0, 0, 0);     /* AlexNet */
        pcase(sgn, 16, 9, 11, 3, 1, 2, 2, 1, 0, 2);      /* dilated, uneven pads */
        pcase(sgn, 16, 3, 600, 3, 1, 1, 1, 1, 1, 1);     /* two spans of columns */
        pcase(sgn, 16, 2, 1100, 3, 2, 1, 0, 1, 0, 1);    /* three, stride 2 */
        pcase(sgn, 16, 520, 530, 520, 1, 1, 0, 0, 0, 0); /* the pixel path */
    }
    return test_summary("rt_maxpool8");
}
