/* rt_signal.c - the reference DFT, STFT and QCONV kernels against
 * independent computations: the DFT against a long-double sum with its own
 * angles (sizes 1 to 64, prime and powers of two, real and complex, cut and
 * zero-padded, forward, inverse, onesided), irfft(rfft(x)) == x for even and
 * odd lengths, STFT frames against the DFT of each windowed frame, and
 * ConvInteger/QLinearConv against a plain nested-loop convolution (groups,
 * strides, dilations, pads on every side, per-channel zero points); and
 * the FFT paths of DFT and STFT (radix-2, Bluestein) against their twins,
 * the direct sums (lengths 1 to 1024, every mode, real and complex, cut and
 * padded, with and without a window); each with 1 and 3 workers. */
#include "rt_test.h"
#include "rt/kernels/kernels.h"
#include "rt/kernels/quant/qconv.h"
#include "rt/kernels/signal/dft_fft.h"

/* Y [outer, K, inner, 2] of the direct DFT of x [outer, m, inner, cin] in
 * long double, angles from 2 pi j k / n reduced here, not from a table. */
static void dft_naive(int64_t outer, int64_t m, int64_t inner, int cin, int64_t n, int inverse,
                      int64_t K, const float *x, double *y)
{
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < K; k++)
            for (int64_t i = 0; i < inner; i++) {
                long double re = 0, im = 0;
                for (int64_t j = 0; j < m && j < n; j++) {
                    const float *xp = x + ((o * m + j) * inner + i) * cin;
                    long double a = (inverse ? 2 : -2) * 3.14159265358979323846264338327950288L *
                                    (long double)((j * k) % n) / (long double)n;
                    long double xr = xp[0], xi = cin == 2 ? xp[1] : 0;
                    re += xr * cosl(a) - xi * sinl(a);
                    im += xr * sinl(a) + xi * cosl(a);
                }
                double *yp = y + ((o * K + k) * inner + i) * 2;
                yp[0] = (double)(inverse ? re / n : re);
                yp[1] = (double)(inverse ? im / n : im);
            }
}

static void run_dft(const pz_dft_params *p, int64_t outer, int64_t m, int64_t inner, int cin,
                    const float *x, float *y, int nth)
{
    double *tw = malloc(sizeof(double) * 2 * (size_t)p->length);
    pz_dft_twiddles(p->length, tw);
    for (int t = 0; t < nth; t++) pz_any_dft__ref(p, tw, PZ_F32, outer, m, inner, cin, x, y, t, nth);
    free(tw);
}

static void test_dft(void)
{
    static const int64_t NS[] = {1, 2, 3, 5, 8, 16, 17, 31, 64};
    for (size_t a = 0; a < sizeof NS / sizeof NS[0]; a++)
        for (int cin = 1; cin <= 2; cin++)
            for (int mode = 0; mode < 4; mode++) {
                /* 0: forward, 1: inverse, 2: onesided, 3: forward cut/padded */
                const int64_t n = NS[a], m = mode == 3 ? n + (n % 2 ? -n / 2 : 3) : n;
                const int64_t outer = 2, inner = 3;
                pz_dft_params p = {.axis = 1, .inverse = mode == 1, .onesided = mode == 2,
                                   .length = n};
                const int64_t K = mode == 2 ? n / 2 + 1 : n;
                float *x = new_rand(outer * m * inner * cin);
                double *want = malloc(sizeof(double) * (size_t)(outer * K * inner * 2));
                dft_naive(outer, m, inner, cin, n, p.inverse, K, x, want);
                for (int nth = 1; nth <= 3; nth += 2) {
                    float *y = new_nan(outer * K * inner * 2);
                    run_dft(&p, outer, m, inner, cin, x, y, nth);
                    double e = 0;
                    for (int64_t i = 0; i < outer * K * inner * 2; i++)
                        e = fmax(e, isnan(y[i]) ? INFINITY : fabs(y[i] - want[i]));
                    checkf(e <= 1e-5 * (double)(n > 1 ? n : 1),
                           "dft n %lld m %lld cin %d mode %d nth %d: error %.3g", (long long)n,
                           (long long)m, cin, mode, nth, e);
                    free(y);
                }
                free(x);
                free(want);
            }
}

/* irfft(rfft(x), n) == x: the Hermitian half-spectrum back to the signal. */
static void test_irfft(void)
{
    static const int64_t NS[] = {2, 3, 4, 7, 10, 16, 33};
    for (size_t a = 0; a < sizeof NS / sizeof NS[0]; a++) {
        const int64_t n = NS[a], K = n / 2 + 1, inner = 2;
        float *x = new_rand(n * inner), *f = new_nan(K * inner * 2);
        pz_dft_params fw = {.axis = 0, .onesided = 1, .length = n};
        run_dft(&fw, 1, n, inner, 1, x, f, 1);
        for (int nth = 1; nth <= 3; nth += 2) {
            float *y = new_nan(n * inner);
            pz_dft_params inv = {.axis = 0, .inverse = 1, .onesided = 1, .length = n};
            run_dft(&inv, 1, K, inner, 2, f, y, nth);
            checkf(nerr(y, x, x, n * inner) <= 1e-5, "irfft(rfft) n %lld nth %d: error %.3g",
                   (long long)n, nth, nerr(y, x, x, n * inner));
            free(y);
        }
        free(x);
        free(f);
    }
}

/* STFT frame f == DFT of the windowed frame (kernel against kernel, but
 * the DFT is checked above against the long-double sum). */
static void test_stft(void)
{
    const int64_t B = 2, L = 37, flen = 8, step = 3, frames = (L - flen) / step + 1;
    for (int cin = 1; cin <= 2; cin++)
        for (int onesided = 0; onesided <= 1; onesided++) {
            const int64_t K = onesided ? flen / 2 + 1 : flen;
            float *x = new_rand(B * L * cin), *w = new_rand(flen);
            float *y = new_nan(B * frames * K * 2), *fr = new_nan(flen * cin);
            float *yd = new_nan(K * 2);
            pz_stft_params p = {.frame_step = step, .frame_length = flen, .onesided = onesided};
            double *tw = malloc(sizeof(double) * 2 * flen);
            pz_dft_twiddles(flen, tw);
            for (int t = 0; t < 3; t++)
                pz_any_stft__ref(&p, tw, PZ_F32, B, L, cin, x, w, frames, y, t, 3);
            double e = 0;
            for (int64_t b = 0; b < B; b++)
                for (int64_t f = 0; f < frames; f++) {
                    for (int64_t j = 0; j < flen * cin; j++)
                        fr[j] = x[(b * L + f * step) * cin + j] * w[j / cin];
                    pz_dft_params d = {.axis = 0, .onesided = onesided, .length = flen};
                    run_dft(&d, 1, flen, 1, cin, fr, yd, 1);
                    e = fmax(e, nerr(y + (b * frames + f) * K * 2, yd, yd, K * 2));
                }
            checkf(e <= 1e-5, "stft cin %d onesided %d: error %.3g", cin, onesided, e);
            free(tw), free(x), free(w), free(y), free(fr), free(yd);
        }
}

/* QCONV: 2-D, against nested loops over (X - zx) (W - zw) with explicit
 * bounds checks; ConvInteger exactly, QLinearConv after round-half-even. */
static void test_qconv(void)
{
    static const struct { int64_t C, M, G, H, W, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr; } S[] = {
        {3, 4, 1, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {4, 6, 2, 7, 5, 2, 3, 2, 1, 1, 2, 0, 2, 1, 0},
        {6, 6, 6, 4, 4, 3, 1, 1, 2, 2, 1, 2, 0, 2, 1},
        {2, 3, 1, 1, 9, 1, 4, 1, 3, 1, 1, 0, 1, 0, 3},
    };
    for (size_t s = 0; s < sizeof S / sizeof S[0]; s++)
        for (int ql = 0; ql <= 1; ql++) {
            const int64_t N = 2, C = S[s].C, M = S[s].M, G = S[s].G, cg = C / G, mg = M / G;
            const int64_t H = S[s].H, W = S[s].W, kh = S[s].kh, kw = S[s].kw;
            const int64_t OH = (H + S[s].pt + S[s].pb - (S[s].dh * (kh - 1) + 1)) / S[s].sh + 1;
            const int64_t OW = (W + S[s].pl + S[s].pr - (S[s].dw * (kw - 1) + 1)) / S[s].sw + 1;
            pz_qconv_params p = {.func = ql ? PZ_QCONV_QLINEAR : PZ_QCONV_INTEGER, .nsp = 2,
                                 .group = G, .kernel = {kh, kw}, .stride = {S[s].sh, S[s].sw},
                                 .dilation = {S[s].dh, S[s].dw}, .pad_begin = {S[s].pt, S[s].pl},
                                 .pad_end = {S[s].pb, S[s].pr}};
            pz_qconv_desc d = {.tx = PZ_U8, .tw = PZ_I8, .ty = ql ? PZ_U8 : PZ_I32, .ts = PZ_F32,
                               .N = N, .C = C, .M = M, .xsp = {H, W}, .ysp = {OH, OW},
                               .wzp_per_m = 1, .ws_per_m = 1};
            uint8_t *x = malloc((size_t)(N * C * H * W)), xz = 7, yz = 100;
            int8_t *w = malloc((size_t)(M * cg * kh * kw)), *wz = malloc((size_t)M);
            float xs = 0.05f, ys = 0.7f, *ws = malloc(sizeof(float) * (size_t)M);
            int32_t *b = malloc(sizeof(int32_t) * (size_t)M);
            for (int64_t i = 0; i < N * C * H * W; i++) x[i] = (uint8_t)((frand() + 1) * 127.9);
            for (int64_t i = 0; i < M * cg * kh * kw; i++) w[i] = (int8_t)(frand() * 127.9);
            for (int64_t m = 0; m < M; m++) {
                wz[m] = (int8_t)(frand() * 5);
                ws[m] = 0.01f + 0.02f * (float)m;
                b[m] = (int32_t)(frand() * 500);
            }
            const int64_t ny = N * M * OH * OW;
            int32_t *ref = malloc(sizeof(int32_t) * (size_t)ny);
            for (int64_t nb = 0; nb < N; nb++)
                for (int64_t m = 0; m < M; m++)
                    for (int64_t oh = 0; oh < OH; oh++)
                        for (int64_t ow = 0; ow < OW; ow++) {
                            int64_t acc = ql ? b[m] : 0;
                            for (int64_t c = 0; c < cg; c++)
                                for (int64_t i = 0; i < kh; i++)
                                    for (int64_t j = 0; j < kw; j++) {
                                        int64_t ih = oh * S[s].sh - S[s].pt + i * S[s].dh;
                                        int64_t iw = ow * S[s].sw - S[s].pl + j * S[s].dw;
                                        if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                        int64_t ch = m / mg * cg + c;
                                        acc += ((int64_t)x[((nb * C + ch) * H + ih) * W + iw] - xz) *
                                               ((int64_t)w[((m * cg + c) * kh + i) * kw + j] - wz[m]);
                                    }
                            int64_t e = ((nb * M + m) * OH + oh) * OW + ow;
                            if (!ql) {
                                ref[e] = (int32_t)acc;
                                continue;
                            }
                            double v = nearbyint((double)acc * (double)(xs * ws[m] / ys)) + yz;
                            ref[e] = (int32_t)(v < 0 ? 0 : v > 255 ? 255 : v);
                        }
            pz_qconv_args a = {&xz, wz, &xs, ws, &ys, &yz, ql ? b : NULL};
            for (int nth = 1; nth <= 3; nth += 2) {
                void *y = malloc((size_t)ny * 4);
                memset(y, 0xA5, (size_t)ny * 4);
                for (int t = 0; t < nth; t++) pz_any_qconv__ref(&p, &d, x, w, &a, y, t, nth);
                int64_t bad = 0;
                for (int64_t e = 0; e < ny; e++)
                    bad += (ql ? ((uint8_t *)y)[e] : ((int32_t *)y)[e]) != ref[e];
                checkf(bad == 0, "qconv case %zu %s nth %d: %lld of %lld differ", s,
                       ql ? "QLinearConv" : "ConvInteger", nth, (long long)bad, (long long)ny);
                free(y);
            }
            free(x), free(w), free(wz), free(ws), free(b), free(ref);
        }
}

/* The FFT paths against the direct sum, every mode; normalised error.
 * Radix-2 on powers of two, Bluestein (forced) on any length. */
static void test_fft(void)
{
    static const int64_t NS[] = {1, 2, 3, 4, 5, 8, 10, 17, 32, 64, 100, 127, 128, 400, 1024};
    for (size_t a = 0; a < sizeof NS / sizeof NS[0]; a++)
        for (int path = PZ_DFT_RADIX2; path <= PZ_DFT_BLUESTEIN; path++)
            for (int cin = 1; cin <= 2; cin++)
                for (int mode = 0; mode < 6; mode++) {
                    /* 0 forward, 1 inverse, 2 onesided, 3 cut, 4 padded, 5 irfft */
                    const int64_t n = NS[a];
                    const int64_t m = mode == 3 ? n - n / 4 - 1 + (n <= 2)
                                    : mode == 4 ? n + 3 : mode == 5 ? n / 2 + 1 : n;
                    const int64_t outer = 3, inner = 2;
                    pz_dft_plan pl;
                    CHECK(pz_dft_plan_init(&pl, n, (pz_dft_path)path) == 0);
                    if (pl.path != path) {   /* radix-2 asked of a length it does not take */
                        CHECK(pl.path == PZ_DFT_DIRECT && (n < 2 || (n & (n - 1))));
                        pz_dft_plan_free(&pl);
                        continue;
                    }
                    pz_dft_params p = {.axis = 1, .inverse = mode == 1 || mode == 5,
                                       .onesided = mode == 2 || mode == 5, .length = n};
                    const int64_t K = mode == 2 ? n / 2 + 1 : n, cout = mode == 5 ? 1 : 2;
                    const int64_t ny = outer * K * inner * cout, ns = pz_dft_plan_scratch(&pl);
                    float *x = new_rand(outer * m * inner * cin), *yr = new_nan(ny);
                    double *scr = malloc(sizeof(double) * 3 * (size_t)ns);
                    pz_any_dft__ref(&p, pl.tw, PZ_F32, outer, m, inner, cin, x, yr, 0, 1);
                    for (int nth = 1; nth <= 3; nth += 2) {
                        float *y = new_nan(ny);
                        for (int t = 0; t < nth; t++)
                            pz_any_dft__fft(&p, &pl, PZ_F32, outer, m, inner, cin, x, y,
                                            scr + t * ns, t, nth);
                        const double e = nerr(y, yr, yr, ny);
                        checkf(e <= 1e-6, "%s n %lld m %lld cin %d mode %d nth %d: error %.3g",
                               path == PZ_DFT_RADIX2 ? "fft2" : "bluestein", (long long)n,
                               (long long)m, cin, mode, nth, e);
                        free(y);
                    }
                    free(x), free(yr), free(scr);
                    pz_dft_plan_free(&pl);
                }
}

/* The STFT's FFT paths against its direct sum: frame lengths 2 to 256
 * (radix-2) and 3 to 100 (Bluestein), with and without a window, real and
 * complex, onesided or not. */
static void test_stft_fft(void)
{
    static const int64_t NS[] = {2, 3, 8, 12, 32, 100, 128, 256};
    for (size_t a = 0; a < sizeof NS / sizeof NS[0]; a++)
        for (int path = PZ_DFT_RADIX2; path <= PZ_DFT_BLUESTEIN; path++)
            for (int cin = 1; cin <= 2; cin++)
                for (int mode = 0; mode < 4; mode++) {   /* bit 0: onesided, bit 1: a window */
                    const int64_t n = NS[a], B = 2, L = 3 * n + 5, step = n / 2 + 1;
                    const int64_t frames = (L - n) / step + 1, K = mode & 1 ? n / 2 + 1 : n;
                    pz_dft_plan pl;
                    CHECK(pz_dft_plan_init(&pl, n, (pz_dft_path)path) == 0);
                    if (pl.path != path) {
                        pz_dft_plan_free(&pl);
                        continue;
                    }
                    pz_stft_params p = {.frame_step = step, .frame_length = n,
                                        .onesided = mode & 1};
                    const int64_t ny = B * frames * K * 2, ns = pz_dft_plan_scratch(&pl);
                    float *x = new_rand(B * L * cin), *w = mode & 2 ? new_rand(n) : NULL;
                    float *yr = new_nan(ny);
                    double *scr = malloc(sizeof(double) * 3 * (size_t)ns);
                    pz_any_stft__ref(&p, pl.tw, PZ_F32, B, L, cin, x, w, frames, yr, 0, 1);
                    for (int nth = 1; nth <= 3; nth += 2) {
                        float *y = new_nan(ny);
                        for (int t = 0; t < nth; t++)
                            pz_any_stft__fft(&p, &pl, PZ_F32, B, L, cin, x, w, frames, y,
                                             scr + t * ns, t, nth);
                        const double e = nerr(y, yr, yr, ny);
                        checkf(e <= 1e-6, "stft %s n %lld cin %d mode %d nth %d: error %.3g",
                               path == PZ_DFT_RADIX2 ? "fft2" : "bluestein", (long long)n, cin,
                               mode, nth, e);
                        free(y);
                    }
                    free(x), free(w), free(yr), free(scr);
                    pz_dft_plan_free(&pl);
                }
}

int main(void)
{
    test_dft();
    test_irfft();
    test_stft();
    test_qconv();
    test_fft();
    test_stft_fft();
    return test_summary("rt_signal");
}
