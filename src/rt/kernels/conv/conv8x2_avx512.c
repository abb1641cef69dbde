/* conv8x2_avx512.c - the AVX-512 tiles of the 1x1 convolution in lanes of
 * 8 output x 2 input channels (see conv8x2.h; the driver is conv8x2.c).
 *
 * A tile: RW pixels x GC groups of 8 channels in RW*GC ZMM accumulators
 * (9 x 3 = 27, 14 x 2, 14 x 1). Per pair of input channels: GC weight loads,
 * RW 64-bit broadcasts of the pixels' two inputs (vbroadcastsd from memory,
 * a plain load), RW*GC FMAs. At the end each output block is the sum of the
 * even and the odd lanes of two groups' registers (two vpermt2ps and an
 * add), or of one group's with zeros in lanes 8..15 (the last of 3 groups).
 */
#include "rt/kernels/conv/conv8x2.h"

#ifndef PZ_SCALAR
#include <immintrin.h>
#include <string.h>

#include "rt/kernels/kernels.h"

#define UNROLL _Pragma("GCC unroll 32")

#define PAIR_STEP(p)                                                                   \
    do {                                                                               \
        __m512 wv[3];                                                                  \
        UNROLL for (int g = 0; g < GC; g++) wv[g] = _mm512_loadu_ps(wr + ((p) * GC + g) * 16); \
        UNROLL for (int j = 0; j < RW; j++) {                                          \
            double x2;   /* the pair's two floats, one 64-bit broadcast */            \
            memcpy(&x2, xr + j * 16 + 2 * (p), sizeof x2);                             \
            const __m512 xv = _mm512_castpd_ps(_mm512_set1_pd(x2));                    \
            UNROLL for (int g = 0; g < GC; g++)                                        \
                acc[j][g] = _mm512_fmadd_ps(xv, wv[g], acc[j][g]);                     \
        }                                                                              \
    } while (0)

/* The block's input lines PZ_C8X2_PF_TILES tiles ahead (the same pixels'
 * lines of the tiles to come), into L1: the input is one stream per input
 * block, read once, and MobileNetV2's 24-channel projects at 56x56 (1.8 MB
 * of input) read it from beyond L2, where the hardware prefetchers leave the
 * FMAs waiting. The output lines are not prefetched, nor does the direct
 * conv's tile prefetch its input this way: both ran slower
 * (bench/RESULTS.md, 'conv8x2: input prefetch'). Past the end of the
 * worker's pixels the lines are another block's, or none: a prefetch never
 * faults. */
#define PREFETCH_AHEAD()                                                               \
    UNROLL for (int j = 0; j < RW; j++)                                                \
        _mm_prefetch((const char *)(xr + (PZ_C8X2_PF_TILES * RW + j) * 16), _MM_HINT_T0)

static const int32_t PERM_EVEN[16] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
static const int32_t PERM_ODD[16] = {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};

PZ_ALWAYS_INLINE void tile(const pz_c8x2_args *a, const int GC, const int RW)
{
    const int64_t xs_cb = a->xs_cb, ys = a->ys_mb;
    const int ncb = a->ncb, np_last = a->np_last;
    const float *x = a->x, *z = a->z;
    float *y = a->y;
    for (int t = 0; t < a->ntile; t++) {
        __m512 acc[14][3];
        UNROLL for (int g = 0; g < GC; g++) {
            const __m512 bv = _mm512_loadu_ps(a->bias + g * 16);
            UNROLL for (int j = 0; j < RW; j++) acc[j][g] = bv;
        }
        const float *xr = x, *wr = a->w;
        /* whole blocks: 8 pairs each, then the last. The pair loop unrolls
         * by 2, not 8: unrolled 8 times, gcc keeps accumulators on the
         * stack over the pairs (bench/RESULTS.md, 'conv8x2: unroll') */
        for (int cb = 0; cb < ncb - 1; cb++) {
            PREFETCH_AHEAD();
            _Pragma("GCC unroll 2") for (int p = 0; p < 8; p++) PAIR_STEP(p);
            xr += xs_cb;
            wr += 8 * GC * 16;
        }
        PREFETCH_AHEAD();
        for (int p = 0; p < np_last; p++) PAIR_STEP(p);

        /* the epilogue's constants made here, after the sums, from memory
         * (the asm keeps gcc from hoisting them out of the tile loop): made
         * once for all tiles, they held four registers over the pair loop */
        __asm__ volatile("" ::: "memory");
        const __m512i ie = _mm512_loadu_si512(PERM_EVEN), io = _mm512_loadu_si512(PERM_ODD);
        const __m512 lo = _mm512_set1_ps(a->lo), hi = _mm512_set1_ps(a->hi);
        UNROLL for (int j = 0; j < RW; j++)
            UNROLL for (int blk = 0; blk < (GC + 1) / 2; blk++) {
                __m512 v;
                if (2 * blk + 1 < GC)
                    v = _mm512_add_ps(_mm512_permutex2var_ps(acc[j][2 * blk], ie, acc[j][2 * blk + 1]),
                                      _mm512_permutex2var_ps(acc[j][2 * blk], io, acc[j][2 * blk + 1]));
                else
                    v = _mm512_add_ps(_mm512_maskz_permutexvar_ps(0xff, ie, acc[j][2 * blk]),
                                      _mm512_maskz_permutexvar_ps(0xff, io, acc[j][2 * blk]));
                if (z) v = _mm512_add_ps(v, _mm512_loadu_ps(z + blk * ys + j * 16));
                if (a->act) v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
                /* a lone group: lanes 8..15 are past M, zero whatever the clip */
                if (2 * blk + 1 == GC) v = _mm512_maskz_mov_ps(0xff, v);
                _mm512_storeu_ps(y + blk * ys + j * 16, v);
            }
        x += RW * 16;
        y += RW * 16;
        if (z) z += RW * 16;
    }
}

/* t<gc>_<rw>: the instances */
#define T(GC, RW) \
    static void t##GC##_##RW(const pz_c8x2_args *a) { tile(a, GC, RW); }
#define T1TO9(GC) T(GC, 1) T(GC, 2) T(GC, 3) T(GC, 4) T(GC, 5) T(GC, 6) T(GC, 7) T(GC, 8) T(GC, 9)
#define T1TO14(GC) T1TO9(GC) T(GC, 10) T(GC, 11) T(GC, 12) T(GC, 13) T(GC, 14)
T1TO14(1)
T1TO14(2)
T1TO9(3)

#define R9(GC) NULL, t##GC##_1, t##GC##_2, t##GC##_3, t##GC##_4, t##GC##_5, t##GC##_6, \
    t##GC##_7, t##GC##_8, t##GC##_9
#define R14(GC) R9(GC), t##GC##_10, t##GC##_11, t##GC##_12, t##GC##_13, t##GC##_14
static void (*const TABLE[4][15])(const pz_c8x2_args *) = {{NULL}, {R14(1)}, {R14(2)}, {R9(3)}};

static void tile_avx512(const pz_c8x2_args *a, int gc, int rw)
{
    TABLE[gc][rw](a);
}

static const pz_c8x2_isa AVX512 = {.tile = tile_avx512, .rwmax = {0, 14, 14, 9}};

void pz_f32_conv1x1_8x2_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                        const float *restrict w, const float *restrict b,
                                        const float *restrict z, float *restrict y, int ith,
                                        int nth)
{
    pz_conv8x2_drive(d, &AVX512, x, w, b, z, y, ith, nth);
}

#endif
