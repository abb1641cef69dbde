/* gemm_ref.c - reference Gemm: Y = act(alpha * A' B' + beta * C). */
#include "rt/kernels/kernels.h"

#define TILE_N 64   /* columns per unit of work */

void pz_f32_gemm__ref(const pz_gemm_params *p, int64_t M, int64_t N, int64_t K, const float *a,
                      const float *b, const float *c, int64_t csm, int64_t csn, float *y,
                      int ith, int nth)
{
    /* A' (M x K): element (m, k) at a[m*K + k], or a[k*M + m] when transposed;
     * B' (K x N): element (k, n) at b[k*N + n], or b[n*K + k] when transposed */
    const int64_t as_m = p->trans_a ? 1 : K, as_k = p->trans_a ? M : 1;
    const int64_t tiles = (N + TILE_N - 1) / TILE_N;

    /* one unit of work = TILE_N columns of one row */
    int64_t lo, hi;
    pz_split(M * tiles, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t m = u / tiles, n0 = u % tiles * TILE_N;
        int64_t nn = N - n0 < TILE_N ? N - n0 : TILE_N;
        float acc[TILE_N] = {0};
        if (!p->trans_b) {
            for (int64_t k = 0; k < K; k++)
                pz_axpy_f32(nn, a[m * as_m + k * as_k], b + k * N + n0, acc);
        } else if (!p->trans_a) {
            /* rows of A and B' columns are both contiguous: dot products */
            for (int64_t j = 0; j < nn; j++) acc[j] = pz_dot_f32(K, a + m * K, b + (n0 + j) * K);
        } else {
            for (int64_t j = 0; j < nn; j++) {
                const float *bc = b + (n0 + j) * K;
                float s = 0;
                for (int64_t k = 0; k < K; k++) s += a[m * as_m + k * as_k] * bc[k];
                acc[j] = s;
            }
        }
        float *yr = y + m * N + n0;
        for (int64_t j = 0; j < nn; j++) {
            float v = p->alpha * acc[j];
            if (c) v += p->beta * c[m * csm + (n0 + j) * csn];
            yr[j] = pz_act_c_f32(&p->act, v, n0 + j);   /* PRELU: a slope per column */
        }
    }
}
