/* rt_qconv_dyn.c - ConvInteger with a run-time zero point
 * (rt/kernels/quant/qconv_dyn.h) against the reference ConvInteger
 * (pz_any_qconv__ref): every kernel set this CPU has (scalar twin, AVX2,
 * AVX-VNNI, VNNI) bit for bit equal to it, at 1 and 3 workers. Cases: x
 * and w uint8 and int8, w's zero point absent, per tensor or per output
 * channel, x's any value of its type; odd channels, 1x1 to 5x5 windows,
 * strides 1-3, dilations 1-4, pads on each side (asymmetric), two images,
 * rows of one and of several segments; extreme values (x 255 or
 * 0, w at the ends of its type, zero points at the ends) where the sums
 * grow most. With the float32 output stage (qdyn_out.h): the reference's
 * sums through the unfused chain's roundings, bit for bit. The grouped
 * and depthwise plan (qgconv_dyn.h, twin, AVX2 and AVX-512) the same way. */
#include "rt/kernels/quant/qconv.h"
#include "rt/kernels/quant/qconv_dyn.h"
#include "rt/kernels/quant/qgconv_dyn.h"
#include "rt_test.h"
#include "q8_test.h"

static int extreme;

/* The float32 stage's row kernel of an ISA (as qdyn_out.c picks it): the
 * scalar twin, AVX2 or AVX-512. */
static void (*row_kernel(pz_isa isa))(const pz_qdyn_out *, int64_t, const int32_t *, float *,
                                      int64_t)
{
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX512) return pz_qdyn_out_row__avx512;
    if (isa == PZ_ISA_AVX2) return pz_qdyn_out_row__avx2;
#endif
    (void)isa;
    return pz_qdyn_out_row__scalar;
}

/* A case's inputs and the reference's sums: x, w (g groups), w's zero
 * points, x's; d the plans' description. x_signed, w_signed; wzk: 0 no w
 * zero point, 1 per tensor, 2 per m. 0 when the window does not fit. */
typedef struct {
    uint8_t *x, *w, *wz, xzb;
    int32_t xzp, *yr, *y;
    int64_t ny;
    pz_qconv_dyn_desc d;
} tcase;

static int tcase_new(tcase *t, int64_t n, int64_t c, int64_t m, int64_t g, int64_t ih, int64_t iw,
                     int k, int s, int dil, int xs, int ws, int wzk)
{
    const int pt = irnd(0, k - 1), pl = irnd(0, k - 1), pb = irnd(0, k - 1), pr = irnd(0, k - 1);
    const int64_t ext = (int64_t)dil * (k - 1) + 1;
    const int64_t oh = (ih + pt + pb - ext) / s + 1, ow = (iw + pl + pr - ext) / s + 1;
    if (oh < 1 || ow < 1) return 0;
    const int64_t nx = n * c * ih * iw, nw = m * (c / g) * k * k, ny = n * m * oh * ow;
    t->x = malloc((size_t)nx), t->w = malloc((size_t)nw), t->wz = malloc((size_t)m);
    t->yr = malloc((size_t)ny * 4), t->y = malloc((size_t)ny * 4), t->ny = ny;
    for (int64_t i = 0; i < nx; i++) t->x[i] = (uint8_t)(extreme ? (rnd() % 4 ? 255 : 0) : rnd());
    for (int64_t i = 0; i < nw; i++)
        t->w[i] = (uint8_t)(extreme ? (i % 3 ? (ws ? 0x80 : 0) : (ws ? 0x7f : 0xff)) : rnd());
    for (int64_t i = 0; i < m; i++) t->wz[i] = (uint8_t)(extreme ? (ws ? 0x7f : 0) : rnd());
    t->xzb = (uint8_t)(extreme ? (xs ? 0x80 : 0) : rnd());
    t->xzp = xs ? (int8_t)t->xzb : t->xzb;
    pz_qconv_params p = {.func = PZ_QCONV_INTEGER, .nsp = 2, .group = g,
                         .kernel = {k, k}, .stride = {s, s}, .dilation = {dil, dil},
                         .pad_begin = {pt, pl}, .pad_end = {pb, pr}};
    pz_qconv_desc rd = {.tx = xs ? PZ_I8 : PZ_U8, .tw = ws ? PZ_I8 : PZ_U8, .ty = PZ_I32,
                        .N = n, .C = c, .M = m, .xsp = {ih, iw}, .ysp = {oh, ow},
                        .wzp_per_m = wzk == 2};
    pz_qconv_args a = {.xzp = &t->xzb, .wzp = wzk ? t->wz : NULL};
    pz_any_qconv__ref(&p, &rd, t->x, t->w, &a, t->yr, 0, 1);
    t->d = (pz_qconv_dyn_desc){.n = n, .c = c, .m = m, .ih = ih, .iw = iw, .oh = oh, .ow = ow,
                               .kh = k, .kw = k, .sh = s, .sw = s, .dh = dil, .dw = dil,
                               .pt = pt, .pl = pl, .x_signed = xs, .w_signed = ws};
    return 1;
}

static void tcase_free(tcase *t)
{
    free(t->x), free(t->w), free(t->wz), free(t->yr), free(t->y);
}

static void dcase(int64_t n, int64_t c, int64_t m, int64_t ih, int64_t iw, int k, int s, int dil,
                  int xs, int ws, int wzk)
{
    tcase t;
    if (!tcase_new(&t, n, c, m, 1, ih, iw, k, s, dil, xs, ws, wzk)) return;
    uint8_t *x = t.x, *w = t.w, *wz = t.wz;
    int32_t *yr = t.yr, *y = t.y;
    const int32_t xzp = t.xzp;
    const int64_t ny = t.ny, oh = t.d.oh, ow = t.d.ow;
    const pz_qconv_dyn_desc d = t.d;
    for (int kk = 0; kk < NK; kk++) {
        if (!kernel_here(kk)) continue;
        pz_qconv_dyn_desc dk = d;
        dk.novnni = kk == PZ_Q8_AVX2;
        char err[200];
        pz_qconv_dyn *q = pz_qconv_dyn_new(&dk, KISA[kk], w, wzk ? wz : NULL, wzk == 2, err,
                                           sizeof err);
        checkf(q != NULL, "plan %s: %s", KNAME[kk], err);
        if (!q) continue;
        check(pz_qconv_dyn_kernel(q) == (pz_q8_kernel)kk, "the kernel set asked for");
        for (int nth = 1; nth <= 3; nth += 2) {
            void *sc = malloc(pz_qconv_dyn_scratch(q, nth));
            memset(y, 0x5a, (size_t)ny * 4);
            for (int ith = 0; ith < nth; ith++) pz_qconv_dyn_run(q, x, xzp, NULL, y, sc, ith, nth);
            int64_t bad = 0;
            for (int64_t i = 0; i < ny; i++) bad += y[i] != yr[i];
            checkf(bad == 0, "%s nth %d: n %lld c %lld m %lld %lldx%lld k %d s %d d %d x%s w%s "
                   "wz %d: %lld of %lld differ", KNAME[kk], nth, (long long)n, (long long)c,
                   (long long)m, (long long)ih, (long long)iw, k, s, dil, xs ? "s8" : "u8",
                   ws ? "s8" : "u8", wzk, (long long)bad, (long long)ny);
            /* the float32 output stage (qdyn_out.h) against the reference's
             * sums through the chain's steps: Cast, Mul(xs, ws), Mul, Add, Relu */
            float *wsc = malloc((size_t)m * 4), *bia = malloc((size_t)m * 4), *yf = (float *)y;
            for (int64_t i = 0; i < m; i++)
                wsc[i] = (float)rnd() / 9e3f, bia[i] = (float)rnd() / 300.0f - 0.4f;
            const pz_qdyn_out o = {.xs = 0.0173f, .ws = wsc, .ws_per = wzk == 2, .b = wzk != 1 ? bia : NULL,
                                   .b_per = 1, .act = {.kind = wzk ? PZ_ACT_RELU : PZ_ACT_NONE},
                                   .row = row_kernel(nth == 1 ? PZ_ISA_SCALAR : KISA[kk])};
            for (int ith = 0; ith < nth; ith++) pz_qconv_dyn_run(q, x, xzp, &o, y, sc, ith, nth);
            bad = 0;
            for (int64_t i = 0; i < ny; i++) {
                const int64_t mm = i / (oh * ow) % m;
                float v = (float)yr[i] * (o.xs * wsc[o.ws_per ? mm : 0]);
                if (o.b) v += bia[mm];
                if (o.act.kind == PZ_ACT_RELU && v < 0) v = 0;
                bad += memcmp(&v, &yf[i], 4) != 0;
            }
            checkf(bad == 0, "%s nth %d float out: %lld of %lld differ", KNAME[kk], nth,
                   (long long)bad, (long long)ny);
            free(sc), free(wsc), free(bia);
        }
        pz_qconv_dyn_free(q);
    }
    tcase_free(&t);
}

/* Grouped and depthwise (qgconv_dyn.h): the scalar twin, the AVX2 and the
 * AVX-512 taps (where the CPU has them) against the reference, int32 and
 * float32 out, 1 and 3 workers. g groups of c/g inputs and m/g outputs;
 * pads random. */
static void gcase(int64_t n, int64_t c, int64_t m, int64_t g, int64_t ih, int64_t iw, int k,
                  int s, int dil, int xs, int ws, int wzk)
{
    tcase t;
    if (!tcase_new(&t, n, c, m, g, ih, iw, k, s, dil, xs, ws, wzk)) return;
    uint8_t *x = t.x, *w = t.w, *wz = t.wz;
    int32_t *yr = t.yr, *y = t.y;
    const int32_t xzp = t.xzp;
    const int64_t ny = t.ny, oh = t.d.oh, ow = t.d.ow;
    const pz_qconv_dyn_desc d = t.d;
    static const pz_isa ISAS[] = {PZ_ISA_SCALAR, PZ_ISA_AVX2, PZ_ISA_AVX512};
    static const char *const INAME[] = {"twin", "avx2", "avx512"};
    for (int v = 0; v < 3; v++) {
#ifdef PZ_SCALAR
        if (v) continue;
#endif
        if (pz_cpu_isa() < ISAS[v]) continue;
        char err[200];
        pz_qgconv_dyn *q = pz_qgconv_dyn_new(&d, g, ISAS[v], w, wzk ? wz : NULL, wzk == 2, err,
                                             sizeof err);
        checkf(q != NULL, "grouped plan: %s", err);
        if (!q) continue;
        check(pz_qgconv_dyn_isa(q) == ISAS[v], "the tap asked for");
        for (int nth = 1; nth <= 3; nth += 2) {
            void *sc = malloc(pz_qgconv_dyn_scratch(q, nth));
            memset(y, 0x5a, (size_t)ny * 4);
            for (int ith = 0; ith < nth; ith++) pz_qgconv_dyn_run(q, x, xzp, NULL, y, sc, ith, nth);
            int64_t bad = 0;
            for (int64_t i = 0; i < ny; i++) bad += y[i] != yr[i];
            checkf(bad == 0, "grouped %s nth %d: n %lld c %lld m %lld g %lld %lldx%lld k %d s %d "
                   "d %d x%s w%s wz %d: %lld of %lld differ", INAME[v], nth,
                   (long long)n, (long long)c, (long long)m, (long long)g, (long long)ih,
                   (long long)iw, k, s, dil, xs ? "s8" : "u8", ws ? "s8" : "u8", wzk,
                   (long long)bad, (long long)ny);
            float *wsc = malloc((size_t)m * 4), *yf = (float *)y;
            for (int64_t i = 0; i < m; i++) wsc[i] = (float)rnd() / 9e3f;
            const pz_qdyn_out o = {.xs = 0.0173f, .ws = wsc, .ws_per = 1,
                                   .act = {.kind = PZ_ACT_RELU}, .row = row_kernel(ISAS[v])};
            for (int ith = 0; ith < nth; ith++) pz_qgconv_dyn_run(q, x, xzp, &o, y, sc, ith, nth);
            bad = 0;
            for (int64_t i = 0; i < ny; i++) {
                float f = (float)yr[i] * (o.xs * wsc[i / (oh * ow) % m]);
                if (f < 0) f = 0;
                bad += memcmp(&f, &yf[i], 4) != 0;
            }
            checkf(bad == 0, "grouped %s nth %d float out: %lld of %lld differ", INAME[v], nth,
                   (long long)bad, (long long)ny);
            free(sc), free(wsc);
        }
        pz_qgconv_dyn_free(q);
    }
    tcase_free(&t);
}

/* The taps alone against the twin: 1-11 taps over 16 to 64 columns,
 * strides 1-3, each tap's row its own allocation of exactly the bytes the
 * header promises (a read past it is a sanitizer's error), the extreme
 * values; the sums start from random int32s (wrap). */
static void taps_sweep(void)
{
#ifndef PZ_SCALAR
    static pz_qgconv_taps_fn *const TAPS[] = {pz_qgconv_taps__avx2, pz_qgconv_taps__avx512};
    static const pz_isa TISA[] = {PZ_ISA_AVX2, PZ_ISA_AVX512};
    static const int32_t ZW[][3] = {{0, 255, -255}, {-128, 255, 255}, {127, -255, -1},
                                    {77, 13, -200}};
    int32_t a0[64], ar[64], a[64], wv[11];
    const uint8_t *xs[11];
    for (int64_t n = 16; n <= 64; n += 16)
        for (int sw = 1; sw <= 3; sw++)
            for (int nt = 1; nt <= 11; nt += 2)
                for (int z = 0; z < 4; z++)
                    for (int xs8 = 0; xs8 < 2; xs8++) {
                        const int64_t len = (n - 1) * sw + 2;
                        const int32_t zx = xs8 ? ZW[z][0] : ZW[z][0] & 0xff;
                        for (int t = 0; t < nt; t++) {
                            uint8_t *r = malloc((size_t)len);
                            for (int64_t i = 0; i < len; i++)
                                r[i] = (uint8_t)(z % 2 ? rnd() : i % 3 ? 255 : 0);
                            xs[t] = r;
                            wv[t] = t % 2 ? ZW[z][1 + xs8] : (int32_t)(rnd() % 511) - 255;
                        }
                        for (int i = 0; i < 64; i++) a0[i] = (int32_t)rnd();
                        memcpy(ar, a0, sizeof ar);
                        pz_qgconv_taps__scalar(ar, n, xs, wv, nt, sw, zx, xs8);
                        for (int k = 0; k < 2; k++) {
                            if (pz_cpu_isa() < TISA[k]) continue;
                            memcpy(a, a0, sizeof a);
                            TAPS[k](a, n, xs, wv, nt, sw, zx, xs8);
                            checkf(!memcmp(a, ar, sizeof a), "taps %s: n %lld sw %d nt %d zx "
                                   "%d x%s", k ? "avx512" : "avx2", (long long)n, sw, nt, zx,
                                   xs8 ? "s8" : "u8");
                        }
                        for (int t = 0; t < nt; t++) free((void *)xs[t]);
                    }
#endif
}

int main(void)
{
    taps_sweep();
    /* depthwise (g = c = m), a channel multiplier (m = 2c), groups of
     * several channels; strides 1-3 (3: the twin's loop in the AVX-512
     * tap), dilations, rows shorter and longer than a vector */
    for (int v = 0; v < 18; v++) {
        const int k = v % 3 == 0 ? 3 : v % 3 == 1 ? 5 : 1, s = 1 + v % 3;
        const int dil = k == 1 ? 1 : 1 + v % 2;
        const int64_t c = 4 + v % 5 * 3;
        const int64_t g = v % 6 < 3 ? c : v % 6 == 3 ? 2 - c % 2 : 1 + (c % 3 == 0) * 2;
        const int64_t m = v % 6 == 4 ? 2 * c : v % 6 == 5 ? c / g * g : c;
        gcase(1 + v % 2, c, m, g, 3 + v % 7, 5 + v * 4, k, s, dil, v % 2, v / 2 % 2, v % 3);
    }
    extreme = 1;
    for (int i = 0; i < 4; i++) gcase(1, 32, 32, 32, 9, 40, 3, 1 + i % 2, 1, i % 2, i / 2, 1 + i % 2);
    gcase(1, 64, 64, 2, 6, 19, 3, 1, 1, 0, 0, 1);
    extreme = 0;
    if (!pz_cpu_has_vnni()) printf("no AVX512-VNNI here: no VNNI kernel tested\n");
    if (!pz_cpu_has_avxvnni()) printf("no AVX-VNNI here: no AVX-VNNI kernel tested\n");
    static const int ks[] = {1, 3, 5}, cs[] = {1, 3, 5, 16, 19}, ms[] = {1, 7, 16, 17, 40};
    int v = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++, v++) {
            const int s = 1 + v % 3, dil = ks[i] == 1 ? 1 : 1 + v % 4;
            dcase(1 + v % 2, cs[j], ms[(v + i) % 5], 5 + v % 9, 6 + v % 11, ks[i], s, dil,
                  v % 2, v / 2 % 2, v % 3);
        }
    /* rows of several segments (K 5400: 97 pixels a segment), one with
     * stride 2 and dilation 3; several rows a worker */
    dcase(1, 600, 16, 3, 250, 3, 1, 1, 0, 0, 1);
    dcase(1, 600, 9, 8, 300, 3, 2, 3, 1, 0, 2);
    dcase(2, 8, 24, 30, 29, 3, 1, 1, 0, 0, 1);
    dcase(1, 3, 16, 40, 37, 3, 2, 1, 0, 0, 2);
    dcase(1, 64, 33, 12, 35, 3, 1, 2, 1, 1, 2);
    extreme = 1;
    for (int i = 0; i < 4; i++) dcase(1, 67 + 30 * i, 17, 7, 9, 3, 1, 1, i % 2, i / 2, 1 + i % 2);
    extreme = 0;
    char err[200];
    const uint8_t w1 = 1;
    pz_qconv_dyn_desc bad = {.n = 1, .c = 1, .m = 1, .ih = 1, .iw = 1, .oh = 1, .ow = 0,
                             .kh = 1, .kw = 1, .sh = 1, .sw = 1, .dh = 1, .dw = 1};
    pz_qconv_dyn *q = pz_qconv_dyn_new(&bad, PZ_ISA_AVX512, &w1, NULL, 0, err, sizeof err);
    checkf(!q && strstr(err, "sizes"), "an empty output refused: %s", err);
    return test_summary("rt_qconv_dyn");
}
