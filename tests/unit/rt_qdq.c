/* rt_qdq.c - the per-tensor quantize/dequantize kernels (qdq.h): the
 * AVX-512 and AVX2 kernels and their scalar twins bit for bit against the reference
 * QUANT kernels (quant_ref.c), uint8 and int8, over values that round half
 * way, saturate both ends, infinities and NaN, lengths with tails; QLinearAdd
 * (all three, bitwise equal) against the float graph it replaces; and the
 * byte layout conversion plain <-> NCHW16c (layout.h) round trip. */
#include <math.h>
#include <string.h>

#include "rt/kernels/quant/qdq.h"
#include "rt/layout.h"
#include "rt_test.h"

static const char *const KN[3] = {"scalar", "avx512", "avx2"};

static void qdq_case(int64_t n, int y_signed, float s, int32_t zp)
{
    float *x = new_rand(n), *back = new_nan(n), *want_back = new_nan(n);
    for (int64_t i = 0; i < n; i++) x[i] *= 200.0f * s;
    if (n > 8) {
        x[0] = 2.5f * s, x[1] = -3.5f * s, x[2] = INFINITY, x[3] = -INFINITY, x[4] = NAN;
        x[5] = 1e30f, x[6] = -0.0f, x[7] = 0.5f * s;
    }
    const int ty = y_signed ? PZ_I8 : PZ_U8;
    uint8_t want[4096], got[4096], zb = (uint8_t)zp;
    pz_quant_desc d = {.outer = 1, .D = n, .inner = 1, .block = 1};
    pz_any_quantize__ref(&d, 1, PZ_F32, x, PZ_F32, &s, &zb, ty, want, 0, 1);
    pz_any_dequantize__ref(&d, ty, want, PZ_F32, &s, &zb, PZ_F32, want_back, 0, 1);
    const pz_qdq_kernels *ks[3] = {pz_qdq_for(PZ_ISA_SCALAR), pz_qdq_for(PZ_ISA_AVX512),
                                   pz_qdq_for(PZ_ISA_AVX2)};
    for (int k = 0; k < 3; k++) {
        memset(got, 0xa5, sizeof got);
        ks[k]->quantize(n, x, s, y_signed ? (int8_t)zb : zb, y_signed, got);
        checkf(!memcmp(got, want, (size_t)n) && got[n] == 0xa5,
               "quantize %s n %lld signed %d zp %d", KN[k], (long long)n,
               y_signed, zp);
        ks[k]->dequantize(n, want, y_signed, s, y_signed ? (int8_t)zb : zb, back);
        checkf(!memcmp(back, want_back, (size_t)n * sizeof(float)),
               "dequantize %s n %lld signed %d", KN[k], (long long)n, y_signed);
    }
    free(x), free(back), free(want_back);
}

/* QADD: the AVX-512 kernel == the twin, within one step of the float graph
 * (dequantize, add, relu, quantize) computed here with the reference kernels
 * and equal to it off rounding ties (the kernels round as ONNX Runtime's). */
static void qadd_case(int64_t n, int sgn, int relu)
{
    uint8_t a[1000], b[1000], want[1000], got[1000], twin[1000];
    float fa[1000], fb[1000];
    for (int64_t i = 0; i < n; i++) a[i] = (uint8_t)(i * 37 + 11), b[i] = (uint8_t)(i * 91 + 5);
    const pz_qadd_args q = {.sa = 0.031f, .sb = 0.047f, .sc = 0.05f, .za = sgn ? -3 : 120,
                            .zb = sgn ? 7 : 131, .zc = sgn ? -10 : 100, .sgn = sgn, .relu = relu};
    const pz_qdq_kernels *sc = pz_qdq_for(PZ_ISA_SCALAR);
    sc->dequantize(n, a, sgn, q.sa, q.za, fa);
    sc->dequantize(n, b, sgn, q.sb, q.zb, fb);
    for (int64_t i = 0; i < n; i++) {
        fa[i] += fb[i];
        if (relu && fa[i] < 0) fa[i] = 0;
    }
    sc->quantize(n, fa, q.sc, q.zc, sgn, want);
    const pz_qdq_kernels *ks[3] = {sc, pz_qdq_for(PZ_ISA_AVX512), pz_qdq_for(PZ_ISA_AVX2)};
    for (int k = 0; k < 3; k++) {
        memset(got, 0xa5, sizeof got);
        ks[k]->add(n, &q, a, b, got);
        if (!k) memcpy(twin, got, sizeof got);
        else checkf(!memcmp(got, twin, (size_t)n + 1), "qadd %s n %lld: not the twin's bits",
                    KN[k], (long long)n);
        int far = 0, off = 0;
        for (int64_t i = 0; i < n; i++) {
            const int d = sgn ? (int8_t)got[i] - (int8_t)want[i] : got[i] - want[i];
            far += d > 1 || d < -1, off += d != 0;
        }
        checkf(!far && off * 100 <= n && got[n] == 0xa5, "qadd %s n %lld signed %d relu %d",
               KN[k], (long long)n, sgn, relu);
    }
}

/* A tie the float graph rounds down and ONNX Runtime 1.17 and 1.30 round up
 * (MobileNetV2's features.10.add, quantized from the zoo): 128, not 127. */
static void qadd_tie(void)
{
    const pz_qadd_args q = {.sa = 0.082226306f, .sb = 0.06908773f, .sc = 0.08532773f,
                            .za = 129, .zb = 114, .zc = 126};
    uint8_t a[17], b[17], got[3][17];
    memset(a, 144, sizeof a), memset(b, 98, sizeof b);
    pz_qdq_for(PZ_ISA_SCALAR)->add(17, &q, a, b, got[0]);
    pz_qdq_for(PZ_ISA_AVX512)->add(17, &q, a, b, got[1]);
    pz_qdq_for(PZ_ISA_AVX2)->add(17, &q, a, b, got[2]);
    for (int k = 0; k < 3; k++)
        checkf(got[k][0] == 128 && got[k][16] == 128, "qadd tie %s: %d", KN[k], got[k][0]);
}

/* Scales whose ratios overflow: every sum NaN, which the twin takes to 0
 * and then clamps (Relu: C's zero point); the SIMD kernels the same bits,
 * whole vectors and tail. */
static void qadd_nan(void)
{
    uint8_t a[40], b[40], got[3][40];
    for (int i = 0; i < 40; i++) a[i] = (uint8_t)(i * 3 + 1), b[i] = (uint8_t)(i * 13 + 1);
    for (int v = 0; v < 4; v++) {
        const pz_qadd_args q = {.sa = 3e38f, .sb = 0.5f, .sc = 1e-30f, .za = 3, .zb = 1,
                                .zc = v & 1 ? -20 : 100, .sgn = v & 1, .relu = v >> 1};
        pz_qdq_for(PZ_ISA_SCALAR)->add(37, &q, a, b, got[0]);
        pz_qdq_for(PZ_ISA_AVX512)->add(37, &q, a, b, got[1]);
        pz_qdq_for(PZ_ISA_AVX2)->add(37, &q, a, b, got[2]);
        const int want = q.relu && q.zc > 0 ? q.zc : 0;
        for (int k = 0; k < 3; k++)
            checkf(!memcmp(got[k], got[0], 37) && got[0][0] == (uint8_t)want &&
                   got[0][36] == (uint8_t)want, "qadd NaN %s signed %d relu %d: %d", KN[k],
                   q.sgn, q.relu, got[k][0]);
    }
}

static void layout_bytes(void)
{
    const int64_t xd[4] = {2, 21, 3, 5}, n = 2 * 21 * 15;
    pz_tensor t = {.dtype = PZ_U8, .rank = 4, .dims = {2, 21, 3, 5}};
    uint8_t x[2 * 21 * 15], y[2 * 21 * 15], blk[2 * 32 * 15];
    for (int64_t i = 0; i < n; i++) x[i] = (uint8_t)(i * 7 + 3);
    CHECK(pz_layout_bytes(&t, 16) == sizeof blk);
    for (int w = 0; w < 3; w++) pz_layout_convert(PZ_ISA_AVX512, PZ_U8, xd, 0, 16, x, blk, w, 3);
    /* channel 17 of image 1, pixel (2, 4): block 1, lane 1 */
    CHECK(blk[((1 * 2 + 1) * 15 + 2 * 5 + 4) * 16 + 1] == x[(1 * 21 + 17) * 15 + 14]);
    for (int w = 0; w < 2; w++) pz_layout_convert(PZ_ISA_AVX512, PZ_I8, xd, 16, 0, blk, y, w, 2);
    CHECK(!memcmp(x, y, sizeof x));
}

int main(void)
{
    for (int s = 0; s < 2; s++) {
        qdq_case(1, s, 0.1f, s ? -3 : 7);
        qdq_case(15, s, 0.02f, s ? 0 : 128);
        qdq_case(1000, s, 0.0173f, s ? 5 : 100);
        qdq_case(33, s, 3.0f, s ? -128 : 255);
    }
    for (int s = 0; s < 2; s++)
        for (int r = 0; r < 2; r++) qadd_case(s ? 999 : 17, s, r), qadd_case(s ? 17 : 999, s, r);
    qadd_tie();
    qadd_nan();
    layout_bytes();
    return test_summary("rt_qdq");
}
