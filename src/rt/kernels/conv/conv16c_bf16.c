/* conv16c_bf16.c - the bf16 convolutions' packing, choice of kernel and
 * scalar twins (conv16c_bf16.h): the direct conv's micro-kernels as plain
 * loops under the fp32 driver, and Winograd's bf16 steps. Each output sums,
 * per q pair, the odd product then the even one, as vdpbf16ps does; bf16
 * products are exact in fp32, so only the sums round. */
#include <math.h>

#include "rt/kernels/conv/conv16c_bf16.h"
#include "rt/kernels/gemm/gemm_bf16.h"

int pz_conv16c_bf16_ok(const pz_conv16c_desc *d)
{
    return d->cblk == 16 && d->c % 2 == 0 &&
           13 * (int64_t)d->sw * 16 + (int64_t)d->kw * d->dw * 16 <= PZ_CONV16C_BF16_SPAN;
}

void pz_conv16c_bf16_convert(const pz_conv16c_desc *d, float *wp)
{
    /* q steps of 16 lanes, pair by pair: pair P's bf16 (bytes [64P, 64P +
     * 64)) lies at or before its own floats, so reading a pair whole before
     * writing it never overwrites a float not yet read */
    const int64_t pairs = pz_conv16c_weights_size(d) / 32;
    uint16_t *o = (uint16_t *)wp;
    for (int64_t p = 0; p < pairs; p++) {
        float t[32];
        memcpy(t, wp + p * 32, sizeof t);
        for (int l = 0; l < 16; l++)
            for (int e = 0; e < 2; e++) o[p * 32 + l * 2 + e] = pz_bf16_round(t[e * 16 + l]);
    }
}

pz_conv16c_fn pz_conv16c_bf16_for(pz_isa isa)
{
#if !defined(PZ_SCALAR) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (isa == PZ_ISA_AVX512 && __builtin_cpu_supports("avx512bf16"))
        return pz_f32_conv2d_nchw16c_bf16__avx512bf16;
#endif
    (void)isa;
    return pz_f32_conv2d_nchw16c_bf16__scalar;
}

/* ---- the direct conv's scalar micro-kernels -------------------------------- */

/* One tile (conv16c.h): RW pixels of ROWS rows x RM blocks of 16. */
static void sk_tile(const pz_conv16c_uk_args *a, const float *x, float *y, const float *z,
                    int RW, int RM, int ROWS)
{
    const int64_t ps = a->ps, ys = a->ys_mb, ys_row = a->ys_row;
    float acc[28][4][16];   /* [rr * RW + j][r][lane] */
    for (int rr = 0; rr < ROWS; rr++)
        for (int j = 0; j < RW; j++)
            for (int r = 0; r < RM; r++)
                for (int l = 0; l < 16; l++)
                    acc[rr * RW + j][r][l] =
                        a->init ? (a->bias ? a->bias[16 * r + l] : 0.0f)
                                : y[r * ys + rr * ys_row + j * 16 + l];
    const float *xr = x;
    const uint16_t *wr = (const uint16_t *)a->w0 + (a->w - a->w0);
    const int nrun = a->ncb * a->nkh;
    for (int i = 0, kh = 0; i < nrun; i++) {
        const int nqc = i >= nrun - a->nkh ? a->nq_last : a->nq;
        const int64_t span = (RW - 1) * ps + nqc;
        uint16_t xb[2][PZ_CONV16C_BF16_SPAN];
        for (int rr = 0; rr < ROWS; rr++)
            for (int64_t e = 0; e < span; e++) xb[rr][e] = pz_bf16_round(xr[rr * a->xs_row + e]);
        for (int qp = 0; qp < nqc / 2; qp++)
            for (int r = 0; r < RM; r++) {
                const uint16_t *wq = wr + r * a->ws_mb + qp * 32;
                for (int rr = 0; rr < ROWS; rr++)
                    for (int j = 0; j < RW; j++) {
                        const float x0 = pz_bf16_float(xb[rr][j * ps + 2 * qp]);
                        const float x1 = pz_bf16_float(xb[rr][j * ps + 2 * qp + 1]);
                        float *ac = acc[rr * RW + j][r];
                        for (int l = 0; l < 16; l++) {
                            ac[l] += x1 * pz_bf16_float(wq[2 * l + 1]);
                            ac[l] += x0 * pz_bf16_float(wq[2 * l]);
                        }
                    }
            }
        if (++kh < a->nkh) {
            xr += a->xs_h;
            wr += a->ws_h;
        } else {
            kh = 0;
            xr += a->xs_cb - (a->nkh - 1) * a->xs_h;
            wr += a->ws_cb - (a->nkh - 1) * a->ws_h;
        }
    }
    /* the epilogue as the AVX-512 kernel's: max(v, lo) and min(v, hi) give
     * their second operand when unordered */
    const float lo = a->act ? a->lo : -INFINITY, hi = a->act == 1 ? a->hi : INFINITY;
    for (int rr = 0; rr < ROWS; rr++)
        for (int j = 0; j < RW; j++)
            for (int r = 0; r < RM; r++)
                for (int l = 0; l < 16; l++) {
                    const int64_t o = r * ys + rr * ys_row + j * 16 + l;
                    float v = acc[rr * RW + j][r][l];
                    if (a->fin) {
                        if (z) v += z[o];
                        v = v > lo ? v : lo;
                        v = v < hi ? v : hi;
                        if (r == a->tail_r && !(a->tail >> l & 1u)) v = 0.0f;
                    }
                    y[o] = v;
                }
}

static void sk_body(const pz_conv16c_uk_args *a, int RW, int RM, int ROWS)
{
    const float *x = a->x, *z = a->z;
    float *y = a->y;
    for (int t = 0; t < a->ntile; t++) {
        sk_tile(a, x, y, z, RW, RM, ROWS);
        x += RW * a->ps;
        y += RW * 16;
        if (z) z += RW * 16;
    }
}

#define SK(RM, RW) \
    static void sk_##RM##_##RW(const pz_conv16c_uk_args *a) { sk_body(a, RW, RM, 1); }
#define SK2(RM, RW) \
    static void sk2_##RM##_##RW(const pz_conv16c_uk_args *a) { sk_body(a, RW, RM, 2); }
#include "rt/kernels/conv/conv16c_bf16_tiles.h"

/* the same tiles as the AVX-512 set, so the driver plans the same calls */
const pz_conv16c_ukset pz_conv16c_ukset__bf16scalar = {
    .max_rm = 4, .rwmax = {0, 14, 14, 9, 6}, .pick = sk_pick, .rw2max = 7, .pick2 = sk_pick2,
    .act16c = pz_f32_act16c__scalar,
};

void pz_f32_conv2d_nchw16c_bf16__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                        const float *restrict w, const float *restrict b,
                                        const float *restrict z, float *restrict y, int ith,
                                        int nth)
{
    pz_conv16c_drive(d, &pz_conv16c_ukset__bf16scalar, x, w, b, z, y, ith, nth);
}

/* ---- Winograd ------------------------------------------------------------- */

void pz_winograd_bf16_convert(const pz_conv16c_desc *d, float *u)
{
    const int64_t CB = (d->c + 15) / 16, MB = (d->m + 15) / 16;
    for (int64_t g = 0; g * PZ_WINO_RM < MB; g++) {
        const int rm = MB - g * PZ_WINO_RM < PZ_WINO_RM ? (int)(MB - g * PZ_WINO_RM) : PZ_WINO_RM;
        float *ug = u + g * PZ_WINO_NPT * CB * 16 * PZ_WINO_RM * 16;
        /* each [16 c][rm][16 m] chunk into [8][rm][16][2] in its first half */
        for (int64_t k = 0; k < PZ_WINO_NPT * CB; k++) {
            float t[16 * PZ_WINO_RM * 16];
            float *ch = ug + k * 16 * rm * 16;
            memcpy(t, ch, sizeof(float) * 16 * (size_t)rm * 16);
            uint16_t *o = (uint16_t *)ch;
            for (int c = 0; c < 16; c++)
                for (int r = 0; r < rm; r++)
                    for (int l = 0; l < 16; l++)
                        o[(((c / 2) * rm + r) * 16 + l) * 2 + c % 2] =
                            pz_bf16_round(t[(c * rm + r) * 16 + l]);
        }
    }
}

pz_winograd_fn pz_winograd_bf16_for(pz_isa isa)
{
#if !defined(PZ_SCALAR) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (isa == PZ_ISA_AVX512 && __builtin_cpu_supports("avx512bf16"))
        return pz_f32_conv3x3_winograd_bf16__avx512bf16;
#endif
    (void)isa;
    return pz_f32_conv3x3_winograd_bf16__scalar;
}

/* the fp32 input transform, then each point's 16 values to bf16 in place */
static void wb_in(const float *x, int64_t rs, float *v, int64_t vs)
{
    pz_wino_isa__scalar.in(x, rs, v, vs);
    for (int xi = 0; xi < PZ_WINO_NPT; xi++) {
        float t[16];
        memcpy(t, v + xi * vs, sizeof t);
        uint16_t *o = (uint16_t *)(v + xi * vs);
        for (int l = 0; l < 16; l++) o[l] = pz_bf16_round(t[l]);
    }
}

static void wb_gemm(const pz_wino_gemm_args *a)
{
    for (int r = 0; r < a->rm; r++)
        for (int j = 0; j < a->nt; j++) {
            float acc[16] = {0};
            for (int cb = 0; cb < a->ncb; cb++) {
                const uint16_t *v = (const uint16_t *)(a->v + cb * a->vs_cb + j * 16);
                const uint16_t *u = (const uint16_t *)(a->u + cb * a->us_cb);
                for (int qp = 0; qp < 8; qp++) {
                    const float x0 = pz_bf16_float(v[2 * qp]), x1 = pz_bf16_float(v[2 * qp + 1]);
                    const uint16_t *uq = u + (qp * a->rm + r) * 32;
                    for (int l = 0; l < 16; l++) {
                        acc[l] += x1 * pz_bf16_float(uq[2 * l + 1]);
                        acc[l] += x0 * pz_bf16_float(uq[2 * l]);
                    }
                }
            }
            for (int l = 0; l < 16; l++) a->m[r * a->ms_mb + j * 16 + l] = acc[l];
        }
}

static void wb_out(const float *m, int64_t ms, const float *b, const float *z, float *y,
                   int64_t ys, int nh, int nw, const pz_act *act, int tail)
{
    pz_wino_isa__scalar.out(m, ms, b, z, y, ys, nh, nw, act, tail);
}

static const pz_wino_isa WB_SCALAR = {.in = wb_in, .gemm = wb_gemm, .out = wb_out};

void pz_f32_conv3x3_winograd_bf16__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                          const float *restrict u, const float *restrict b,
                                          const float *restrict z, float *restrict y,
                                          float *restrict scratch, int ith, int nth)
{
    pz_winograd_drive(d, &WB_SCALAR, x, u, b, z, y, scratch, ith, nth);
}
