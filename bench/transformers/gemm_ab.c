/* gemm_ab.c - the AVX-512 packed GEMM of an older commit (old_gemm: its
 * gemm.c and gemm_avx512.c built with renamed symbols by gemm_ab.sh)
 * against this tree's, alternated in one process on the four GEMMs of a
 * transformer encoder layer (Q/K/V 768->2304, attention out 768->768, FFN1
 * 768->3072 with GELU, FFN2 3072->768) at M tokens, in net order. Each
 * GEMM's packed weights are cycled over 8 copies (226 MB in all), so that
 * they come from L3 or memory as in a net. 1 thread: timed by the thread's
 * CPU time; 2: wall time, worker 1 on a second thread. Prints the median of
 * the best quarter of the calls (a call hit by another process is slower,
 * never faster), ms, each GEMM and their sum, old then new; and whether the
 * two gave the same bits.
 *
 *   gemm_ab M THREADS [CALLS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/kernels/fast.h"

void old_gemm(const pz_gemm_desc *g, const float *restrict a, const float *restrict bp,
              float *restrict y, int ith, int nth);
typedef void (*gemm_fn)(const pz_gemm_desc *, const float *, const float *, float *, int, int);

#define COPIES 8
#define NG 4

typedef struct {
    gemm_fn f;
    const pz_gemm_desc *g;
    const float *a, *bp;
    float *y;
} job;

static double now_ms(int threads)
{
    struct timespec t;
    clock_gettime(threads > 1 ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static void *worker1(void *p)
{
    const job *j = p;
    j->f(j->g, j->a, j->bp, j->y, 1, 2);
    return NULL;
}

static float *rnd(size_t n)
{
    float *p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "gemm_ab: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) p[i] = (float)(rand() % 1000 - 500) * 1e-3f;
    return p;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gemm_ab M THREADS [CALLS]\n");
        return 2;
    }
    const int M = atoi(argv[1]), TH = atoi(argv[2]), CALLS = argc > 3 ? atoi(argv[3]) : 300;
    if (M < 1 || TH < 1 || TH > 2 || CALLS < 20) {
        fprintf(stderr, "gemm_ab: M >= 1, THREADS 1 or 2, CALLS >= 20\n");
        return 2;
    }
    static const int K[NG] = {768, 768, 768, 3072}, N[NG] = {2304, 768, 3072, 768};
    static const char *NAME[NG] = {"qkv", "out", "ffn1", "ffn2"};
    float *bp[NG][COPIES], *a[NG], *y[2][NG], *bias[NG];
    for (int s = 0; s < NG; s++) {
        float *b = rnd((size_t)K[s] * N[s]);
        for (int c = 0; c < COPIES; c++) {
            bp[s][c] = rnd((size_t)pz_gemm_packed_b_size(K[s], N[s]));
            pz_gemm_pack_b(K[s], N[s], b, 0, 1.0f, bp[s][c]);
        }
        free(b);
        a[s] = rnd((size_t)M * K[s]);
        y[0][s] = rnd((size_t)M * N[s]);
        y[1][s] = rnd((size_t)M * N[s]);
        bias[s] = rnd((size_t)N[s]);
    }
    const gemm_fn F[2] = {old_gemm, pz_f32_gemm_packed__avx512};
    double *t = malloc(sizeof(double) * 2 * NG * CALLS);
    for (int it = 0; it < CALLS; it++)
        for (int v = 0; v < 2; v++)
            for (int s = 0; s < NG; s++) {
                pz_gemm_desc g = {.m = M, .n = N[s], .k = K[s], .lda = K[s], .ldy = N[s],
                                  .c = bias[s], .csm = 0, .csn = 1, .beta = 1.0f,
                                  .act = {.kind = s == 2 ? PZ_ACT_GELU : PZ_ACT_NONE}};
                const float *b = bp[s][it % COPIES];
                double t0 = now_ms(TH);
                if (TH > 1) {
                    job j = {F[v], &g, a[s], b, y[v][s]};
                    pthread_t th;
                    if (pthread_create(&th, NULL, worker1, &j)) return 1;
                    F[v](&g, a[s], b, y[v][s], 0, 2);
                    pthread_join(th, NULL);
                } else {
                    F[v](&g, a[s], b, y[v][s], 0, 1);
                }
                t[(v * NG + s) * CALLS + it] = now_ms(TH) - t0;
            }
    for (int v = 0; v < 2; v++) {
        double sum = 0;
        printf("M %d threads %d %s:", M, TH, v ? "new" : "old");
        for (int s = 0; s < NG; s++) {
            double *ts = t + (v * NG + s) * CALLS;
            qsort(ts, CALLS, sizeof(double), cmp_d);
            double q = ts[CALLS / 8];   /* the median of the best quarter */
            sum += q;
            printf(" %s %.3f", NAME[s], q);
        }
        printf(" sum %.3f ms\n", sum);
    }
    int same = 1;
    for (int s = 0; s < NG; s++)
        same &= !memcmp(y[0][s], y[1][s], sizeof(float) * (size_t)M * N[s]);
    printf("outputs %s\n", same ? "bitwise equal" : "DIFFER");
    return same ? 0 : 1;
}
