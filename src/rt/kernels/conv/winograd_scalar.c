/* winograd_scalar.c - the plain-C steps of Winograd F(4x4, 3x3) (see
 * winograd.h and winograd.c): the twin the AVX-512 version is tested
 * against, and what a PZ_SCALAR=1 build runs. Each step works lane by lane
 * over the 16 channels of a block, with the same formulas (and so the same
 * rounding order of the transforms) as winograd_avx512.c.
 */
#include "rt/kernels/conv/winograd.h"

/* B' d for one column of 6 values (rows of B' in winograd.c) */
static void in_1d(const float d[6], float r[6])
{
    r[0] = 4.0f * d[0] - 5.0f * d[2] + d[4];
    r[1] = -4.0f * d[1] - 4.0f * d[2] + d[3] + d[4];
    r[2] = 4.0f * d[1] - 4.0f * d[2] - d[3] + d[4];
    r[3] = -2.0f * d[1] - d[2] + 2.0f * d[3] + d[4];
    r[4] = 2.0f * d[1] - d[2] - 2.0f * d[3] + d[4];
    r[5] = 4.0f * d[1] - 5.0f * d[3] + d[5];
}

/* A' m for one column of 6 values */
static void out_1d(const float m[6], float o[4])
{
    o[0] = m[0] + m[1] + m[2] + m[3] + m[4];
    o[1] = m[1] - m[2] + 2.0f * m[3] - 2.0f * m[4];
    o[2] = m[1] + m[2] + 4.0f * m[3] + 4.0f * m[4];
    o[3] = m[1] - m[2] + 8.0f * m[3] - 8.0f * m[4] + m[5];
}

static void wino_in(const float *x, int64_t rs, float *v, int64_t vs)
{
    for (int l = 0; l < 16; l++) {
        float t[6][6];   /* t[i][s] = (B' d)[i][s]: over rows first */
        for (int s = 0; s < 6; s++) {
            float col[6], r[6];
            for (int h = 0; h < 6; h++) col[h] = x[h * rs + s * 16 + l];
            in_1d(col, r);
            for (int i = 0; i < 6; i++) t[i][s] = r[i];
        }
        for (int i = 0; i < 6; i++) {
            float r[6];
            in_1d(t[i], r);
            for (int j = 0; j < 6; j++) v[(i * 6 + j) * vs + l] = r[j];
        }
    }
}

static void wino_gemm(const pz_wino_gemm_args *a)
{
    for (int r = 0; r < a->rm; r++)
        for (int j = 0; j < a->nt; j++) {
            float acc[16] = {0};
            if (!a->ent) {
                for (int cb = 0; cb < a->ncb; cb++) {
                    const float *v = a->v + cb * a->vs_cb + j * 16;
                    const float *u = a->u + r * 16 + cb * a->us_cb;
                    for (int q = 0; q < 16; q++)
                        for (int l = 0; l < 16; l++) acc[l] += v[q] * u[q * a->us_q + l];
                }
            } else {
                /* the listed blocks, each [16 q][nr][16]: this output
                 * block's where its mask bit is set */
                const float *u = a->u;
                for (int e = 0; e < a->nent; e++) {
                    const int mask = a->ent[e] & 3, nr = mask == 3 ? 2 : 1;
                    const float *v = a->v + (a->ent[e] >> 2) * a->vs_cb + j * 16;
                    if (mask >> r & 1) {
                        const float *ur = u + (mask == 3 ? r : 0) * 16;
                        for (int q = 0; q < 16; q++)
                            for (int l = 0; l < 16; l++) acc[l] += v[q] * ur[q * nr * 16 + l];
                    }
                    u += 16 * nr * 16;
                }
            }
            for (int l = 0; l < 16; l++) a->m[r * a->ms_mb + j * 16 + l] = acc[l];
        }
}

static void wino_out(const float *m, int64_t ms, const float *b, const float *z, float *y,
                     int64_t ys, int nh, int nw, const pz_act *act, int tail)
{
    for (int l = 0; l < 16; l++) {
        float t[4][6];   /* t[a][j] = (A' M)[a][j] */
        for (int j = 0; j < 6; j++) {
            float col[6], o[4];
            for (int i = 0; i < 6; i++) col[i] = m[(i * 6 + j) * ms + l];
            out_1d(col, o);
            for (int p = 0; p < 4; p++) t[p][j] = o[p];
        }
        for (int p = 0; p < nh; p++) {
            float o[4];
            out_1d(t[p], o);
            for (int q = 0; q < nw; q++) {
                float v = o[q] + (b ? b[l] : 0.0f);
                if (z) v += z[p * ys + q * 16 + l];
                v = pz_act_f32(act, v);
                y[p * ys + q * 16 + l] = l < tail ? v : 0.0f;
            }
        }
    }
}

const pz_wino_isa pz_wino_isa__scalar = {.in = wino_in, .gemm = wino_gemm, .out = wino_out};

void pz_f32_conv3x3_winograd_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                             const float *restrict u, const float *restrict b,
                                             const float *restrict z, float *restrict y,
                                             float *restrict scratch, int ith, int nth)
{
    pz_winograd_drive(d, &pz_wino_isa__scalar, x, u, b, z, y, scratch, ith, nth);
}
