/* matmul_ref.c - reference MatMul with numpy batch broadcasting. */
#include "rt/kernels/kernels.h"

#define TILE_N 64   /* columns per unit of work */

void pz_matmul_batch_offsets(const pz_matmul_shape *s, int64_t bi, int64_t *oa, int64_t *ob)
{
    *oa = *ob = 0;
    for (int i = s->nb - 1; i >= 0; i--) {
        int64_t c = bi % s->bdims[i];
        bi /= s->bdims[i];
        *oa += c * s->sa[i];
        *ob += c * s->sb[i];
    }
}

void pz_f32_matmul__ref(const pz_matmul_shape *s, const float *a, const float *b, float *y,
                        int ith, int nth)
{
    const int64_t M = s->M, N = s->N, K = s->K, tiles = (N + TILE_N - 1) / TILE_N;
    const int64_t batches = pz_prod(s->bdims, s->nb);

    /* one unit of work = TILE_N columns of one row of one batch */
    int64_t lo, hi;
    pz_split(batches * M * tiles, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t bi = u / (M * tiles), m = u / tiles % M, n0 = u % tiles * TILE_N;
        int64_t nn = N - n0 < TILE_N ? N - n0 : TILE_N, oa, ob;
        pz_matmul_batch_offsets(s, bi, &oa, &ob);
        const float *ar = a + oa + m * K, *bm = b + ob;
        float acc[TILE_N] = {0};
        for (int64_t k = 0; k < K; k++) pz_axpy_f32(nn, ar[k], bm + k * N + n0, acc);
        memcpy(y + (bi * M + m) * N + n0, acc, (size_t)nn * sizeof(float));
    }
}

void pz_any_matmul__ref(const pz_matmul_shape *s, int dtype, const void *a, const void *b,
                        void *y, int ith, int nth)
{
    const int64_t M = s->M, N = s->N, K = s->K;
    const int64_t batches = pz_prod(s->bdims, s->nb);

    int64_t lo, hi;
    pz_split(batches * M * N, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t bi = u / (M * N), m = u / N % M, n = u % N, oa, ob;
        pz_matmul_batch_offsets(s, bi, &oa, &ob);
        double acc = 0;
        for (int64_t k = 0; k < K; k++)
            acc += pz_load_f64(a, dtype, oa + m * K + k) * pz_load_f64(b, dtype, ob + k * N + n);
        pz_store_f64(y, dtype, u, acc);
    }
}
