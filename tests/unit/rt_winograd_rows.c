/* rt_winograd_rows.c - Winograd F(4x4, 3x3) over row ranges (winograd.h:
 * d->r0, d->r1, and the row windows d->xb, xr, yb, yr that a fused F-Block
 * hands it, rt/fuse.c) against the whole-layer call of the same kernel:
 *   - ranges [r0, r1) with r0 a multiple of the tile (4) and r1 one or the
 *     last row, cut at random, on full tensors: every row of a range
 *     bitwise equal to the whole-layer result, every other row untouched
 *     (NaN-filled output);
 *   - the same ranges with x, y and the residual z held in windows: x from
 *     a row at or before the first row the range reads (down to 1 row
 *     earlier) to at or past the last (to the input's end), y from a row
 *     that is no multiple of 4 where there is one: the tiles stay the
 *     layer's, so the bits stay the same;
 *   - worker splits: each range on 1 worker and on 2 (slices of
 *     pz_winograd_rows_scratch_size, NaN-filled: scratch read before
 *     written shows);
 * for the scalar kernel and (when the CPU has it and the build is not
 * PZ_SCALAR) the AVX-512 one, over edge shapes: heights 1..17 and 28, 56
 * (a partial last tile row or not), pads 0 and 1, batch 1 and 2, channels
 * not multiples of 16, the panel order and a layer that runs whole in the
 * whole-image order (512 channels at 28x28; a range of all its rows, or
 * of enough tiles, takes that order too), bias, residual and ReLU.
 *
 * Prints `rt_winograd_rows: P passed, F failed`; exits 1 on a failure.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/winograd.h"
#include "rt/rows.h"
#include "rt_test.h"

static bool have_avx512;

typedef struct {
    int64_t n, c, m, h, w;
    int pt, pb;
    bool residual;
} rcase;

/* Copies rows [b, b + rows) of every plane of t (planes of H rows of
 * W * 16 floats) into a new buffer of planes of `rows` rows. */
static float *window_of(const float *t, int64_t planes, int64_t H, int64_t W, int64_t b,
                        int64_t rows)
{
    float *o = new_nan(planes * rows * W * 16);
    for (int64_t p = 0; p < planes; p++)
        memcpy(o + p * rows * W * 16, t + (p * H + b) * W * 16,
               (size_t)(rows * W * 16) * sizeof(float));
    return o;
}

/* Whether rows [r0, r1) of each plane of a (planes of ha rows from row
 * ba) equal those of b (hb rows from bb), bitwise, and a's other rows are
 * all NaN (untouched). */
static bool rows_match(const float *a, int64_t ba, int64_t ha, const float *b, int64_t bb,
                       int64_t hb, int64_t planes, int64_t W, int64_t r0, int64_t r1)
{
    const int64_t row = W * 16;
    for (int64_t p = 0; p < planes; p++)
        for (int64_t r = ba; r < ba + ha; r++) {
            const float *ar = a + (p * ha + r - ba) * row;
            if (r >= r0 && r < r1) {
                if (memcmp(ar, b + (p * hb + r - bb) * row, (size_t)row * sizeof(float)))
                    return false;
            } else {
                for (int64_t e = 0; e < row; e++)
                    if (ar[e] == ar[e]) return false;
            }
        }
    return true;
}

static void run_case(const rcase *t, unsigned seed)
{
    const int64_t N = t->n, oh = t->h + t->pt + t->pb - 2, ow = t->w;
    pz_conv_params p = {.nsp = 2, .group = 1};
    for (int j = 0; j < 2; j++) p.kernel[j] = 3, p.stride[j] = 1, p.dilation[j] = 1;
    p.pad_begin[0] = t->pt;
    p.pad_end[0] = t->pb;
    p.pad_begin[1] = p.pad_end[1] = 1;
    p.act.kind = PZ_ACT_RELU;
    const int64_t xd[4] = {N, t->c, t->h, t->w}, yd[4] = {N, t->m, oh, ow};
    pz_conv16c_desc d;
    char what[200];
    snprintf(what, sizeof what, "N%lld C%lld M%lld %lldx%lld pads %d %d%s: a Winograd conv",
             (long long)N, (long long)t->c, (long long)t->m, (long long)t->h, (long long)t->w,
             t->pt, t->pb, t->residual ? " residual" : "");
    bool ok = pz_conv16c_init(&d, &p, xd, yd) == 0 && pz_winograd_ok(&d);
    check(ok, what);
    if (!ok) return;

    const int64_t xplanes = N * ((t->c + 15) / 16), yplanes = N * ((t->m + 15) / 16);
    const int64_t nx = xplanes * t->h * t->w * 16, ny = yplanes * oh * ow * 16;
    float *x = new_rand(N * t->c * t->h * t->w), *w = new_rand(t->m * t->c * 9);
    float *b = new_rand(t->m), *x16 = new_nan(nx), *z16 = NULL;
    pz_f32_nchw_to_nchwxc(N, t->c, t->h, t->w, 16, x, x16, 0, 1);
    if (t->residual) {
        float *z = new_rand(N * t->m * oh * ow);
        z16 = new_nan(ny);
        pz_f32_nchw_to_nchwxc(N, t->m, oh, ow, 16, z, z16, 0, 1);
        free(z);
    }
    float *bp = new_nan(pz_pack_bias16_size(t->m)), *u = new_nan(pz_winograd_weights_size(&d));
    pz_pack_bias16(t->m, b, bp);
    pz_winograd_pack_weights(&d, w, u);
    const int64_t nsw = pz_winograd_scratch_size(&d, 1), nsr = pz_winograd_rows_scratch_size(&d, 2);
    float *sw = new_nan(nsw), *sr = new_nan(nsr), *yfull = new_nan(ny), *y = new_nan(ny);

    /* the scalar twin, and the AVX-512 kernel where this CPU and build have
     * one (pz_winograd_kernel_for gives the scalar one otherwise) */
    const char *names[2] = {"scalar", "avx512"};
    pz_winograd_fn fns[2] = {pz_winograd_kernel_for(PZ_ISA_SCALAR),
                             have_avx512 ? pz_winograd_kernel_for(PZ_ISA_AVX512) : NULL};
    srand(seed);
    for (int i = 0; i < 2; i++) {
        if (!fns[i] || (i > 0 && fns[i] == fns[0])) continue;
        fill_nan(yfull, ny);
        fns[i](&d, x16, u, bp, z16, yfull, sw, 0, 1);
        /* cut the rows at random multiples of the tile */
        int64_t r0 = 0;
        bool full_ok = true, win_ok = true;
        int ranges = 0;
        while (r0 < oh) {
            /* the first range all rows in every other case (the whole-image
             * order where the layer takes it) */
            int64_t r1 = r0 == 0 && seed % 2 ? oh : r0 + PZ_WINO_TILE * (1 + rand() % 3);
            if (r1 > oh) r1 = oh;
            ranges++;
            for (int nth = 1; nth <= 2; nth++) {
                /* full tensors */
                pz_conv16c_desc dr = d;
                dr.r0 = r0, dr.r1 = r1;
                fill_nan(y, ny);
                fill_nan(sr, nsr);
                for (int ith = 0; ith < nth; ith++)
                    fns[i](&dr, x16, u, bp, z16, y, sr, ith, nth);
                full_ok &= rows_match(y, 0, oh, yfull, 0, oh, yplanes, ow, r0, r1);
                /* windows: x from up to a row before what the range reads,
                 * y from up to 3 rows before r0 (no multiple of 4) */
                int64_t a, e;
                pz_rows_window(r0, r1, 3, 1, t->pt, 1, t->h, &a, &e);
                int64_t xb = a - rand() % 2, xe = e + rand() % 2;
                if (xb < 0) xb = 0;
                if (xe > t->h) xe = t->h;
                int64_t yb = r0 - rand() % 4, ye = r1 + rand() % 3;
                if (yb < 0) yb = 0;
                if (ye > oh) ye = oh;
                if (xe <= xb) xb = 0, xe = t->h > 0 ? 1 : 0;   /* nothing read: any row */
                float *xw = window_of(x16, xplanes, t->h, t->w, xb, xe - xb);
                float *zw = z16 ? window_of(z16, yplanes, oh, ow, yb, ye - yb) : NULL;
                float *yw = new_nan(yplanes * (ye - yb) * ow * 16);
                dr.xb = xb, dr.xr = xe - xb, dr.yb = yb, dr.yr = ye - yb;
                fill_nan(sr, nsr);
                for (int ith = 0; ith < nth; ith++)
                    fns[i](&dr, xw, u, bp, zw, yw, sr, ith, nth);
                win_ok &= rows_match(yw, yb, ye - yb, yfull, 0, oh, yplanes, ow, r0, r1);
                free(xw), free(zw), free(yw);
            }
            r0 = r1;
        }
        char tag[400];
        snprintf(tag, sizeof tag, "%s, %s: %d ranges on full tensors bitwise equal to the "
                 "whole layer, other rows untouched (1 and 2 workers)", what, names[i], ranges);
        check(full_ok, tag);
        snprintf(tag, sizeof tag, "%s, %s: the same ranges in row windows bitwise equal",
                 what, names[i]);
        check(win_ok, tag);
    }
    free(x), free(w), free(b), free(x16), free(z16), free(bp), free(u), free(sw), free(sr);
    free(yfull), free(y);
}

int main(void)
{
    have_avx512 = cpu_has_avx512();
    if (!have_avx512) printf("rt_winograd_rows: no AVX-512 here: the scalar kernel only\n");
    static const int64_t H[] = {1, 3, 4, 5, 8, 9, 14, 17};
    unsigned seed = 1;
    for (size_t hi = 0; hi < sizeof H / sizeof H[0]; hi++)
        for (int pads = 0; pads < 4; pads++) {
            rcase t = {.n = 1 + (int64_t)(hi % 2), .c = hi % 3 ? 17 : 16, .m = hi % 2 ? 20 : 32,
                       .h = H[hi] + 2 - (pads & 1) - (pads >> 1), .w = 7 + (int64_t)hi,
                       .pt = pads & 1, .pb = pads >> 1, .residual = hi % 3 == 1};
            if (t.h < 1) continue;
            run_case(&t, seed++);
        }
    /* ResNet-18's layer1 and layer2 shapes; a whole-image-order layer */
    run_case(&(rcase){.n = 1, .c = 64, .m = 64, .h = 56, .w = 56, .pt = 1, .pb = 1,
                      .residual = true}, seed++);
    run_case(&(rcase){.n = 1, .c = 128, .m = 128, .h = 28, .w = 28, .pt = 1, .pb = 1}, seed++);
    pz_conv16c_desc d;
    pz_conv_params p = {.nsp = 2, .group = 1, .kernel = {3, 3}, .stride = {1, 1},
                        .dilation = {1, 1}, .pad_begin = {1, 1}, .pad_end = {1, 1}};
    const int64_t xd[4] = {1, 512, 28, 28}, yd[4] = {1, 64, 28, 28};
    check(pz_conv16c_init(&d, &p, xd, yd) == 0 && pz_winograd_whole_image(&d, 1),
          "512 -> 64 at 28x28 runs whole in the whole-image order");
    run_case(&(rcase){.n = 1, .c = 512, .m = 64, .h = 28, .w = 28, .pt = 1, .pb = 1}, 1);
    run_case(&(rcase){.n = 1, .c = 512, .m = 64, .h = 28, .w = 28, .pt = 1, .pb = 1}, 2);
    return test_summary("rt_winograd_rows");
}
