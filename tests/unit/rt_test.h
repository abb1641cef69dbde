/* rt_test.h - what the runtime's kernel tests (tests/unit/rt_*.c) share:
 * seeded random data, NaN-filled buffers (an element a kernel leaves
 * unwritten shows as NaN), the normalised error against a reference, and
 * the fast kernels of every ISA this CPU and build have. Includes
 * test_check.h (check, test_summary). Static definitions, like it: include
 * it once, from the test's .c.
 *
 *     #include "rt_test.h"
 *
 *     const pz_fast_kernels *ks[3];
 *     int n_ks = fast_kernels_here(ks);
 *     float *x = new_rand(n), *y = new_nan(n);
 *     ks[i]->conv2d(&d, x, ...);
 *     check(nerr(y, yref, yref, n) <= 1e-5, what);
 *
 * The data come from one LCG whose state is rng: a test that wants other
 * numbers, or the same ones again, sets rng before it draws.
 */
#ifndef PZ_TESTS_RT_TEST_H
#define PZ_TESTS_RT_TEST_H

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/pz_io.h"
#include "rt/kernels/fast.h"
#include "test_check.h"

/* The run options with the ISA capped to isa ("ref", "scalar", "avx2",
 * "avx512"), the rest the defaults: what PZ_ISA=isa gives a program. */
static inline pz_run_options rt_options_isa(const char *isa)
{
    pz_run_options o = PZ_RUN_OPTIONS_DEFAULT;
    o.isa = !strcmp(isa, "ref") ? PZ_RUN_ISA_REF
          : !strcmp(isa, "scalar") ? PZ_RUN_ISA_SCALAR
          : !strcmp(isa, "avx2") ? PZ_RUN_ISA_AVX2 : PZ_RUN_ISA_AVX512;
    return o;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

/* Uniform in [-1, 1): 24 random bits of the LCG's high half. */
static inline float frand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng >> 40) & 0xffffff) / (float)0x800000 - 1.0f;
}

/* n floats from frand() (malloc'd, at least one; the caller frees). */
static inline float *new_rand(int64_t n)
{
    float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    for (int64_t i = 0; i < n; i++) p[i] = frand();
    return p;
}

static inline void fill_nan(float *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++) p[i] = NAN;
}

/* n NaNs (malloc'd, at least one; the caller frees). */
static inline float *new_nan(int64_t n)
{
    float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    fill_nan(p, n);
    return p;
}

/* The reference conv's output (*yref) and its pre-activation output
 * (*yscale, the scale of nerr), both new, of n floats. */
/* A conv's operands in the 16-channel blocked layout: x [N, c, h, w], z
 * (NULL: none) [N, m, oh, ow] and the bias b (NULL: none) of m channels,
 * each in a new buffer (NULL when not given) the caller frees. */
static inline void conv_pack16(int64_t N, int64_t c, int64_t h, int64_t w, int64_t m, int64_t oh,
                               int64_t ow, const float *x, const float *z, const float *b,
                               float **x16, float **z16, float **bp)
{
    *x16 = new_nan(pz_nchwxc_size(N, c, h, w, 16));
    *z16 = z ? new_nan(pz_nchwxc_size(N, m, oh, ow, 16)) : NULL;
    *bp = b ? new_nan(pz_pack_bias16_size(m)) : NULL;
    pz_f32_nchw_to_nchwxc(N, c, h, w, 16, x, *x16, 0, 1);
    if (z) pz_f32_nchw_to_nchwxc(N, m, oh, ow, 16, z, *z16, 0, 1);
    if (b) pz_pack_bias16(m, b, *bp);
}

static inline void conv_reference(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                                  const float *x, const float *w, const float *b,
                                  const float *z, int64_t n, float **yref, float **yscale)
{
    *yref = new_nan(n);
    *yscale = new_nan(n);
    pz_f32_conv__ref(p, xd, yd, x, w, b, z, *yref, 0, 1);
    pz_conv_params pn = *p;
    pn.act.kind = PZ_ACT_NONE;
    pz_f32_conv__ref(&pn, xd, yd, x, w, b, z, *yscale, 0, 1);
}

/* max |a - b| / max |scale| (NaN in a or b: infinity). scale is usually the
 * reference, or the reference before its activation: a Clip would otherwise
 * shrink the scale below that of the sums whose rounding is measured. */
static inline double nerr(const float *a, const float *b, const float *scale, int64_t n)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(a[i]) || isnan(b[i])) return INFINITY;
        double e = fabs((double)a[i] - b[i]);
        if (e > d) d = e;
        if (fabs(scale[i]) > m) m = fabs(scale[i]);
    }
    return m > 0 ? d / m : d;
}

/* A run over the first N - 1 of N images (a dynamic region's): part, filled
 * with NaN before, equals whole (the run of all N) on those images' floats
 * bitwise, and its last image is untouched. ny: floats of all N images. */
static inline bool first_images_only(const float *whole, const float *part, int64_t ny,
                                     int64_t N)
{
    const int64_t k = ny / N * (N - 1);
    return memcmp(whole, part, (size_t)k * sizeof *whole) == 0 && isnan(part[k]) &&
           isnan(part[ny - 1]);
}

/* Whether this CPU runs the AVX2 (with FMA) and the AVX-512 (F, BW, DQ, VL)
 * kernels; false in a PZ_SCALAR build, which has none. Unlike pz_cpu_isa(),
 * PZ_ISA does not cap it: a test runs every kernel it can. */
static inline bool cpu_has_avx2(void)
{
#ifndef PZ_SCALAR
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

static inline bool cpu_has_avx512(void)
{
#ifndef PZ_SCALAR
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
}

/* The kernel tables of every ISA this CPU and build have, scalar first, then
 * AVX2 and AVX-512: k[0..n), n (1 to 3) returned. */
static inline int fast_kernels_here(const pz_fast_kernels *k[3])
{
    int n = 0;
    k[n++] = pz_fast_kernels_for(PZ_ISA_SCALAR);
    if (cpu_has_avx2()) k[n++] = pz_fast_kernels_for(PZ_ISA_AVX2);
    if (cpu_has_avx512()) k[n++] = pz_fast_kernels_for(PZ_ISA_AVX512);
    return n;
}

/* The broadcasts the element-wise kernel tests sweep, Y [3, n]: mode 0 A
 * and B [3, n]; 1 B a scalar; 2 A a scalar; 3 A [3, 1] vs B [1, n]; 4 A
 * [3, n] vs B [3, 1] (along the last axis); 5 A read with stride 2 (A holds
 * 6n elements, B 3n). */
enum { BCAST_MODES = 6 };
static inline void bcast_mode(int mode, int64_t n, pz_bcast *bc)
{
    const int64_t yd[2] = {3, n}, ad[2] = {3, mode == 3 ? 1 : n};
    const int64_t bd[2] = {mode == 3 ? 1 : 3, mode == 4 ? 1 : n};
    CHECK(pz_bcast_init(bc, mode == 2 ? 0 : 2, ad, mode == 1 ? 0 : 2,
                        mode == 3 || mode == 4 ? bd : yd, 2, yd) == 0);
    if (mode == 5) {
        bc->rank = 2;
        bc->dims[0] = 3, bc->dims[1] = n;
        bc->sa[0] = 2 * n, bc->sa[1] = 2, bc->sb[0] = n, bc->sb[1] = 1;
    }
}

/* fn(ctx, ith, nth) on nth (at most 8) threads at once, joined: a kernel's
 * barriers and splits as the runtime's workers run them. */
typedef void (*rt_work_fn)(void *ctx, int ith, int nth);
typedef struct {
    rt_work_fn fn;
    void *ctx;
    int ith, nth;
} rt_worker;

static inline void *rt_worker_main(void *arg)
{
    rt_worker *w = arg;
    w->fn(w->ctx, w->ith, w->nth);
    return NULL;
}

static inline void rt_run_threads(rt_work_fn fn, void *ctx, int nth)
{
    pthread_t th[8];
    rt_worker ws[8];
    for (int i = 0; i < nth && i < 8; i++) {
        ws[i] = (rt_worker){fn, ctx, i, nth};
        pthread_create(&th[i], NULL, rt_worker_main, &ws[i]);
    }
    for (int i = 0; i < nth && i < 8; i++) pthread_join(th[i], NULL);
}

#endif
