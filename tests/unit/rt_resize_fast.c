/* rt_resize_fast.c - the float32 Resize's fast twin (resize_fast.c)
 * against pz_any_resize__ref, bit for bit, on random shapes: nearest under
 * each rounding mode, linear and cubic (exclude_outside 0 and 1), under
 * half_pixel, pytorch_half_pixel, align_corners and asymmetric, and
 * antialiased linear and cubic; upsampling by 2, odd sizes, downsampling,
 * one-pixel outputs; inputs with signed zeros; 1 and 3 workers; the plain
 * C row and the AVX-512 one (where the CPU has it). Within 1
 * ulp where the reference takes its general loop (pytorch_half_pixel with
 * N or C of 1). Every
 * output starts as NaN so an element left unwritten shows. More taps than
 * the table holds (antialias shrinking by 10) must be refused (the
 * reference keeps them). */
#include "rt/kernels/twins_fast.h"
#include "rt_test.h"

static uint32_t urand(uint32_t n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33) % n;
}

typedef struct {
    pz_resize_tap *taps;
    int64_t *idx;
    double *w;
} axis_taps;

static void axis_new(axis_taps *t, const pz_resize_params *p, int a, int64_t in, int64_t out)
{
    int width = pz_resize_width(p, a, in, out);
    t->taps = calloc((size_t)out, sizeof *t->taps);
    t->idx = calloc((size_t)(out * width), sizeof *t->idx);
    t->w = calloc((size_t)(out * width), sizeof *t->w);
    pz_resize_taps(p, a, in, out, t->taps, t->idx, t->w);
}

static void axis_free(axis_taps *t)
{
    free(t->taps);
    free(t->idx);
    free(t->w);
}

/* The table's arrays for taps[0..n) (none when the table refuses them). */
static void lin_new(pz_resize_lin *l, const pz_resize_tap *taps, int64_t in, int64_t n)
{
    memset(l, 0, sizeof *l);
    l->k = pz_resize_lin_taps(taps, in, n);
    for (int j = 0; j < l->k; j++) {
        l->i[j] = malloc((size_t)n * sizeof *l->i[j]);
        l->w[j] = malloc((size_t)n * sizeof *l->w[j]);
    }
    l->n = malloc((size_t)n);
}

static void lin_free(pz_resize_lin *l)
{
    for (int j = 0; j < PZ_RESIZE_FAST_TAPS; j++) {
        free(l->i[j]);
        free(l->w[j]);
    }
    free(l->n);
}

/* The largest distance in units in the last place between a and b. */
static int64_t max_ulps(const float *a, const float *b, int64_t n)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t ia, ib;
        memcpy(&ia, &a[i], 4);
        memcpy(&ib, &b[i], 4);
        int64_t ka = ia < 0 ? (int64_t)INT32_MIN - ia : ia, kb = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
        int64_t d = ka > kb ? ka - kb : kb - ka;
        if (isnan(a[i]) || isnan(b[i])) d = INT64_MAX;
        if (d > m) m = d;
    }
    return m;
}

static const char *const COORD[] = {"half_pixel", "asymmetric", "pytorch_half_pixel",
                                    "align_corners"};

static int n_refused;   /* cases of more taps than the table holds */

/* One case: X [n, c, ih, iw] to [n, c, oh, ow]; false on a mismatch. */
static bool one_case(pz_resize_mode mode, pz_resize_coord coord, pz_resize_nearest nm, int flags,
                     int64_t n, int64_t c, int64_t ih, int64_t iw, int64_t oh, int64_t ow)
{
    /* flags: 1 exclude_outside, 2 antialias */
    pz_resize_params p = {.mode = mode, .coord = coord, .nearest = nm,
                          .cubic_coeff_a = -0.75f, .exclude_outside = flags & 1,
                          .antialias = (flags & 2) != 0};
    const int64_t xd[4] = {n, c, ih, iw}, yd[4] = {n, c, oh, ow};
    for (int a = 0; a < 4; a++) p.scale[a] = (float)((double)yd[a] / (double)xd[a]);
    axis_taps t[4];
    for (int a = 0; a < 4; a++) axis_new(&t[a], &p, a, xd[a], yd[a]);
    const pz_resize_tap *taps[4] = {t[0].taps, t[1].taps, t[2].taps, t[3].taps};
    pz_resize_lin lh, lw;
    lin_new(&lh, t[2].taps, ih, oh);
    lin_new(&lw, t[3].taps, iw, ow);
    /* not strict: pytorch_half_pixel on an axis of length 1 (taps 0.5, 0.5
     * at 0): the reference's general loop, whose sum of halves may round
     * differently: within 1 ulp */
    const bool strict = pz_resize_only_last_two(4, xd, yd, taps);
    bool ok = (strict || coord == PZ_CT_PYTORCH_HALF_PIXEL) &&
              pz_resize_lin_table(taps[2], ih, oh, &lh) && pz_resize_lin_table(taps[3], iw, ow, &lw);
    /* an antialiased shrink of more taps than the table holds: refused, the
     * reference runs it (right); any other refusal is a failure */
    int most = 0;
    for (int a = 2; a < 4; a++)
        for (int64_t o = 0; o < yd[a]; o++) most = t[a].taps[o].n > most ? t[a].taps[o].n : most;
    const bool wide = !ok && most > PZ_RESIZE_FAST_TAPS;
    n_refused += wide;
    const int64_t nx = n * c * ih * iw, ny = n * c * oh * ow;
    float *x = new_rand(nx), *yr = new_nan(ny), *yf = new_nan(ny);
    for (int64_t i = 0; i < nx; i += 7) x[i] = i % 2 ? -0.0f : 0.0f;   /* signed zeros */
    pz_any_resize__ref(&p, PZ_F32, 4, xd, yd, taps, x, yr, 0, 1);
    /* the plain C row, then the AVX-512 one where this CPU has it */
    pz_resize_row_fn rows[2] = {NULL, NULL};
    int n_rows = 1;
#ifndef PZ_SCALAR
    if (cpu_has_avx512()) rows[n_rows++] = pz_f32_resize_row__avx512;
#endif
    for (int k = 0; ok && k < 2 * n_rows; k++) {
        const int nth = k % 2 ? 3 : 1;
        fill_nan(yf, ny);
        for (int ith = 0; ith < nth; ith++)
            pz_f32_resize2d__fast(&lh, &lw, n * c, ih, iw, oh, ow, x, yf, rows[k / 2], ith, nth);
        ok = strict ? memcmp(yf, yr, (size_t)ny * sizeof *yf) == 0 : max_ulps(yf, yr, ny) <= 1;
        for (int64_t i = 0; !ok && i < ny; i++)
            if (memcmp(&yf[i], &yr[i], sizeof *yf)) {
                fprintf(stderr, "  y[%lld] = %a, the reference %a\n", (long long)i, yf[i], yr[i]);
                break;
            }
    }
    ok |= wide;
    if (!ok)
        fprintf(stderr, "  mismatch: mode %d %s nearest %d flags %d, %lldx%lld -> %lldx%lld\n",
                (int)mode, COORD[coord], (int)nm, flags, (long long)ih, (long long)iw,
                (long long)oh, (long long)ow);
    free(x);
    free(yr);
    free(yf);
    lin_free(&lh);
    lin_free(&lw);
    for (int a = 0; a < 4; a++) axis_free(&t[a]);
    return ok;
}

int main(void)
{
    static const int64_t SIZES[] = {1, 2, 3, 5, 7, 10, 16, 33};
    int bad = 0, cases = 0;
    for (int m = PZ_RESIZE_NEAREST; m <= PZ_RESIZE_CUBIC; m++)
        for (int ct = PZ_CT_HALF_PIXEL; ct <= PZ_CT_ALIGN_CORNERS; ct++)
            for (int nm = PZ_NEAREST_ROUND_PREFER_FLOOR; nm <= PZ_NEAREST_CEIL; nm++) {
                if (m != PZ_RESIZE_NEAREST && nm > 0) continue;
                /* linear: plain and antialiased; cubic: exclude_outside 0
                 * and 1, each also antialiased */
                const int nflags = m == PZ_RESIZE_NEAREST ? 1 : m == PZ_RESIZE_LINEAR ? 2 : 4;
                for (int fl = 0; fl < nflags; fl++) {
                    const int flags = m == PZ_RESIZE_LINEAR ? 2 * fl : fl;
                    /* upsample 2x (the FPN's), then random sizes up and down */
                    for (int k = 0; k < 8; k++) {
                        int64_t ih = SIZES[urand(8)], iw = SIZES[urand(8)];
                        int64_t oh = k < 2 ? 2 * ih : SIZES[urand(8)] + (int64_t)urand(3);
                        int64_t ow = k < 2 ? 2 * iw : SIZES[urand(8)] + (int64_t)urand(3);
                        bad += !one_case((pz_resize_mode)m, (pz_resize_coord)ct,
                                         (pz_resize_nearest)nm, flags, 1 + urand(2),
                                         1 + urand(3), ih, iw, oh, ow);
                        cases++;
                    }
                }
            }
    checkf(bad == 0 && cases == 320 && n_refused < cases / 10,
           "resize fast twin bitwise equal to the reference (%d of %d cases differ, %d too wide)",
           bad, cases, n_refused);
    /* cubic takes 4 taps; an antialiased linear shrinking by 10 more than
     * the table holds: the reference keeps it */
    pz_resize_params pc = {.mode = PZ_RESIZE_CUBIC, .coord = PZ_CT_HALF_PIXEL,
                           .cubic_coeff_a = -0.75f, .scale = {1, 1, 2, 2}};
    pz_resize_params pa = {.mode = PZ_RESIZE_LINEAR, .coord = PZ_CT_HALF_PIXEL, .antialias = 1,
                           .scale = {1, 1, 0.1f, 0.1f}};
    axis_taps tc, ta;
    axis_new(&tc, &pc, 2, 8, 16);
    axis_new(&ta, &pa, 2, 40, 4);
    checkf(pz_resize_lin_taps(tc.taps, 8, 16) == 4, "cubic: 4 taps in the table (%d)",
           pz_resize_lin_taps(tc.taps, 8, 16));
    check(!pz_resize_lin_taps(ta.taps, 40, 4), "antialias shrinking by 10 refused by the fast table");
    axis_free(&tc);
    axis_free(&ta);
    return test_summary("rt_resize_fast");
}
