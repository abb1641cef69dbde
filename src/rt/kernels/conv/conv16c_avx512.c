/* conv16c_avx512.c - the NCHW16c convolution's AVX-512 micro-kernels.
 *
 * A tile: RW output pixels x RM blocks of 16 output channels in RW*RM ZMM
 * accumulators (at most 28: 14x2, 14x1, 9x3, 6x4, leaving registers for the
 * RM weight vectors and one broadcast). Each q step loads RM weight vectors,
 * broadcasts the RW input values and does RW*RM FMAs: 16 loads for 28 FMAs at
 * 14x2, under the two loads a cycle that feed two FMAs a cycle. The loops over
 * pixels and blocks are unrolled with constant bounds, so the accumulator
 * array lives in registers (the generated code has no spill in the q loop).
 * Two-row tiles (uk2_*: RW pixels in each of two output rows, RM <= 2, RW <= 7)
 * serve outputs 7 pixels wide. The epilogue (residual, clamp, tail mask) goes
 * in whole-tile steps, each condition tested once. A "half" tile (HALF)
 * keeps its last block, at most 8 valid lanes, in YMM registers (same sums,
 * same order: bitwise the same lanes; lanes 8..15 stored as zeros). See
 * conv16c.h for the interface and conv16c_drive.c for the driver.
 *
 * A short-K tile (1x1, K = 16..32: MobileNetV2's expands) is bound by its
 * epilogue, not its set-up: the clamp (2 ops on the FMA ports for each 16
 * FMAs of an accumulator), the stores and the bias copies each take a few
 * points, and where the output outgrows L2 the stores cost most. What
 * costs there is each output line entering L1 (its fill and a dirty
 * eviction), not the stores' latency: output prefetches gave nothing, nor
 * did a first q step made from the bias or unrolled q loops
 * (bench/RESULTS.md, 'conv16c AVX-512: short-K tiles').
 */
#include <math.h>

#include "rt/kernels/conv/conv16c.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define UNROLL _Pragma("GCC unroll 32")

/* The epilogue of a tile, accumulator by accumulator: each goes through
 * its residual and clamp and out to memory before the next, in this order.
 * A ZMM store costs FMA throughput whatever else runs (about 2 cycles on
 * Zen 4), so a tile with few q steps is bound by its stores; they go best
 * spread out and from the start of the epilogue (bench/RESULTS.md,
 * 'conv16c AVX-512: epilogue'). gcc's own schedule of the same intrinsics
 * groups the 27 max, then the min and the stores, and with any barrier
 * between the accumulators it computes all 27 addresses first and spills
 * them; hence the inline asm, with each store's offset an immediate on one
 * base register per output block.
 * Bitwise: max(lo, v) keeps a NaN and a -0 in v, as the reference's
 * v < lo ? lo : v does (the grouped steps below give lo for both).
 * Only where gcc optimizes: clang checks an "i" operand before it unrolls
 * the loop, and gcc without -O does not unroll. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#define EPI_FAST 1
/* Where the offset is not a constant after unrolling (gcc -O1 with UBSan,
 * which checks the j * 64 before the loop is unrolled), the same steps in
 * intrinsics: max(lo, v) and min(hi, v) return v on a NaN, as the asm does. */
#define EPI_PLAIN(V, LO, HI, YB, OFF)                                                     \
    _mm512_storeu_ps((float *)((char *)(YB) + (OFF)),                                     \
                     _mm512_min_ps((HI), _mm512_max_ps((LO), (V))))
#define EPI_STORE(V, LO, HI, YB, OFF)                                                     \
    do {                                                                                  \
        __m512 v_ = (V);                                                                  \
        if (!__builtin_constant_p(OFF)) {                                                 \
            EPI_PLAIN(v_, LO, HI, YB, OFF);                                               \
            break;                                                                        \
        }                                                                                 \
        __asm__ volatile("vmaxps %[v], %[l], %[v]\n\tvminps %[v], %[h], %[v]\n\t"          \
                         "vmovups %[v], %c[o](%[y])"                                      \
                         : [v] "+v"(v_)                                                   \
                         : [l] "v"(LO), [h] "v"(HI), [y] "r"(YB), [o] "i"(OFF)            \
                         : "memory");                                                     \
    } while (0)
#define EPI_STORE_Z(V, LO, HI, YB, ZB, OFF)                                               \
    do {                                                                                  \
        __m512 v_ = (V);                                                                  \
        if (!__builtin_constant_p(OFF)) {                                                 \
            v_ = _mm512_add_ps(v_, _mm512_loadu_ps((const float *)((const char *)(ZB) + (OFF)))); \
            EPI_PLAIN(v_, LO, HI, YB, OFF);                                               \
            break;                                                                        \
        }                                                                                 \
        __asm__ volatile("vaddps %c[o](%[z]), %[v], %[v]\n\t"                              \
                         "vmaxps %[v], %[l], %[v]\n\tvminps %[v], %[h], %[v]\n\t"          \
                         "vmovups %[v], %c[o](%[y])"                                      \
                         : [v] "+v"(v_)                                                   \
                         : [l] "v"(LO), [h] "v"(HI), [y] "r"(YB), [z] "r"(ZB), [o] "i"(OFF) \
                         : "memory");                                                     \
    } while (0)
#else
#define EPI_FAST 0
#endif

/* One q step of a tile: RM weight vectors, RW * ROWS broadcasts, their FMAs.
 * With HALF, the last block (at most 8 valid lanes) goes in YMM registers:
 * its weights are the first 8 floats of the block, its broadcast the low
 * half of the ZMM one (the same products, summed in the same order). */
#define Q_STEP(q, J0, J1)                                                                       \
    do {                                                                                   \
        __m512 wv[4];                                                                      \
        __m256 wh = _mm256_setzero_ps();                                                   \
        UNROLL for (int r = 0; r < RM - HALF; r++)                                         \
            wv[r] = _mm512_loadu_ps(wr + r * ws_mb + (q) * 16);                            \
        if (HALF) wh = _mm256_loadu_ps(wr + (RM - 1) * ws_mb + (q) * 16);                  \
        /* the weights a later call will read from beyond L2, at the pace     \
         * of conv16c.h, into L1 too (T0: bench/RESULTS.md, 'conv16c:        \
         * weight prefetch hint') */                                                       \
        if (PF && pfn > 0 && (q) % PZ_CONV16C_PF_EVERY == 0) {                             \
            /* the k-chunked order's next chunk: a line of each block, into \
             * L2 (the chunk in use fills L1; T0 and T2 do no better) */       \
            if (pfs) {                                                                     \
                UNROLL for (int r = 0; r < RM; r++)                                        \
                    _mm_prefetch((const char *)(pf + r * pfs), _MM_HINT_T1);              \
            } else {                                                                       \
                _mm_prefetch((const char *)pf, _MM_HINT_T0);                               \
            }                                                                              \
            pf += 16;                                                                      \
            pfn--;                                                                         \
        }                                                                                  \
        UNROLL for (int rr = 0; rr < ROWS; rr++)                                           \
            UNROLL for (int j = (J0); j < (J1); j++) {                                     \
                const float xs = (rr ? xr1 : xr)[j * ps + (q)];                            \
                if (RM > HALF) {                                                           \
                    __m512 xv = _mm512_set1_ps(xs);                                        \
                    UNROLL for (int r = 0; r < RM - HALF; r++)                             \
                        acc[rr * RW + j][r] = _mm512_fmadd_ps(xv, wv[r], acc[rr * RW + j][r]); \
                    if (HALF)                                                              \
                        acch[rr * RW + j] = _mm256_fmadd_ps(_mm512_castps512_ps256(xv), wh, \
                                                            acch[rr * RW + j]);            \
                } else {                                                                   \
                    acch[rr * RW + j] =                                                    \
                        _mm256_fmadd_ps(_mm256_set1_ps(xs), wh, acch[rr * RW + j]);        \
                }                                                                          \
            }                                                                              \
    } while (0)

PZ_ALWAYS_INLINE void uk_tile(const pz_conv16c_uk_args *a, const float *restrict x,
                              float *restrict y, const float *restrict z,
                              const float **pfp, int64_t *pfnp, const int RW, const int RM,
                              const int PS, const int ROWS, const int PF, const int HALF,
                              const int LB, const int RB)
{
    const float *pf = *pfp;
    int64_t pfn = *pfnp;
    const int64_t pfs = a->pf_stride;
    const int64_t ps = PS ? PS : a->ps;
    const float *restrict w = a->w;
    const int64_t xs_cb = a->xs_cb, xs_h = a->xs_h, ws_mb = a->ws_mb, ws_cb = a->ws_cb;
    const int64_t ws_h = a->ws_h, ys = a->ys_mb, xs_row = a->xs_row, ys_row = a->ys_row;
    const int ncb = a->ncb, nkh = a->nkh, nq = a->nq, nq_last = a->nq_last;
    /* pixel j of row rr: accumulators acc[rr*RW + j] (and acch[rr*RW + j], the
     * half last block), input at rr*xs_row + j*ps, output at rr*ys_row + j*16 */
    const int RF = RM - HALF;   /* blocks in ZMM registers */
    const int64_t yh = (RM - 1) * ys;   /* the half block's output */
    __m512 acc[14][4];
    __m256 acch[14];

    if (a->init) {
        UNROLL for (int r = 0; r < RF; r++) {
            __m512 bv = a->bias ? _mm512_loadu_ps(a->bias + 16 * r) : _mm512_setzero_ps();
            UNROLL for (int j = 0; j < RW * ROWS; j++) acc[j][r] = bv;
        }
        if (HALF) {
            __m256 bv = a->bias ? _mm256_loadu_ps(a->bias + 16 * (RM - 1)) : _mm256_setzero_ps();
            UNROLL for (int j = 0; j < RW * ROWS; j++) acch[j] = bv;
        }
    } else {
        UNROLL for (int r = 0; r < RF; r++)
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++)
                    acc[rr * RW + j][r] = _mm512_loadu_ps(y + r * ys + rr * ys_row + j * 16);
        if (HALF)
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++)
                    acch[rr * RW + j] = _mm256_loadu_ps(y + yh + rr * ys_row + j * 16);
    }

    /* the runs of q steps, (cb, kh) in order, as one loop with the pointers
     * stepped: around nested loops over cb and kh (nkh often 1) the
     * compiler spills their state about the q loop, which tells in a 1x1
     * conv with 16 output channels (bench/RESULTS.md, 'conv16c AVX-512:
     * q loop') */
    const float *xr = x, *wr = w;
    const int nrun = ncb * nkh;
    /* one run (a 1x1 conv over at most 16 input channels: MobileNetV2's
     * 16->96 expand) straight, without the run loop's bookkeeping
     * (bench/RESULTS.md, 'conv16c AVX-512: epilogue') */
    if (nrun == 1 && !LB && !RB) {
        const float *xr1 = xr + (ROWS > 1 ? xs_row : 0);
        for (int q = 0; q < nq_last; q++) Q_STEP(q, 0, RW);
    } else
    for (int i = 0, kh = 0; i < nrun; i++) {
        const int nqc = i >= nrun - nkh ? nq_last : nq;
        const float *xr1 = xr + (ROWS > 1 ? xs_row : 0);
        if (LB || RB) {
            /* a border tile of a 3-wide kernel: tap kw = 0 skips the
             * first pixel (LB), tap 2 the last (RB); nq = 3 * cblk and
             * nq_last == nq (run_tiles) */
            const int nk = nq / 3;
            for (int q = 0; q < nk; q++) Q_STEP(q, LB, RW);
            for (int q = nk; q < 2 * nk; q++) Q_STEP(q, 0, RW);
            for (int q = 2 * nk; q < 3 * nk; q++) Q_STEP(q, 0, RW - RB);
        } else {
            for (int q = 0; q < nqc; q++) Q_STEP(q, 0, RW);
        }
        if (++kh < nkh) {
            xr += xs_h;
            wr += ws_h;
        } else {
            kh = 0;
            xr += xs_cb - (nkh - 1) * xs_h;
            wr += ws_cb - (nkh - 1) * ws_h;
        }
    }
    *pfp = pf;
    *pfnp = pfn;
    /* the output's (and residual's) addresses from here on, after the q
     * loop: else gcc computes the tile's store addresses (y + r*ys + j*16)
     * at the top of the tile, and those that outnumber the free registers
     * (14 at 14x2) go to the stack and back each tile (bench/RESULTS.md,
     * 'conv16c AVX-512: store addresses'). The loop's last input pointer
     * as an input ties the asm to the loop's end. */
    __asm__("" : "+r"(y), "+r"(z) : "r"(xr));

    if (!a->fin) {
        UNROLL for (int r = 0; r < RF; r++)
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++)
                    _mm512_storeu_ps(y + r * ys + rr * ys_row + j * 16, acc[rr * RW + j][r]);
        /* a half block: zeros in lanes 8..15, as a full tile's pass leaves them */
        if (HALF)
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++)
                    _mm512_storeu_ps(y + yh + rr * ys_row + j * 16,
                                     _mm512_zextps256_ps512(acch[rr * RW + j]));
        return;
    }
#if EPI_FAST
    if (!HALF && a->tail_r < 0) {
        /* each accumulator through the whole epilogue and out (see EPI_FAST);
         * act 0 and 2 clamp to infinite bounds, which changes no value */
        const __m512 lo = _mm512_set1_ps(a->act ? a->lo : -INFINITY);
        const __m512 hi = _mm512_set1_ps(a->act == 1 ? a->hi : INFINITY);
        if (z) {
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++)
                    UNROLL for (int r = 0; r < RF; r++) {
                        const int64_t o = r * ys + rr * ys_row;
                        EPI_STORE_Z(acc[rr * RW + j][r], lo, hi, y + o, z + o, j * 64);
                    }
        } else {
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++)
                    UNROLL for (int r = 0; r < RF; r++)
                        EPI_STORE(acc[rr * RW + j][r], lo, hi, y + r * ys + rr * ys_row, j * 64);
        }
        return;
    }
#endif
    /* the epilogue in steps over the register tile, each step's condition
     * tested once */
    if (z) {
        UNROLL for (int r = 0; r < RF; r++)
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++)
                    acc[rr * RW + j][r] = _mm512_add_ps(
                        acc[rr * RW + j][r], _mm512_loadu_ps(z + r * ys + rr * ys_row + j * 16));
        if (HALF)
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++)
                    acch[rr * RW + j] = _mm256_add_ps(
                        acch[rr * RW + j], _mm256_loadu_ps(z + yh + rr * ys_row + j * 16));
    }
    if (a->act == 2) {
        /* a ReLU: max alone (each op of the epilogue takes an FMA port) */
        const __m512 lo = _mm512_set1_ps(a->lo);
        UNROLL for (int r = 0; r < RF; r++)
            UNROLL for (int j = 0; j < RW * ROWS; j++) acc[j][r] = _mm512_max_ps(acc[j][r], lo);
        if (HALF)
            UNROLL for (int j = 0; j < RW * ROWS; j++)
                acch[j] = _mm256_max_ps(acch[j], _mm512_castps512_ps256(lo));
    } else if (a->act) {
        const __m512 lo = _mm512_set1_ps(a->lo), hi = _mm512_set1_ps(a->hi);
        UNROLL for (int r = 0; r < RF; r++)
            UNROLL for (int j = 0; j < RW * ROWS; j++)
                acc[j][r] = _mm512_min_ps(_mm512_max_ps(acc[j][r], lo), hi);
        if (HALF)
            UNROLL for (int j = 0; j < RW * ROWS; j++)
                acch[j] = _mm256_min_ps(_mm256_max_ps(acch[j], _mm512_castps512_ps256(lo)),
                                        _mm512_castps512_ps256(hi));
    }
    if (a->tail_r >= 0) {
        const __mmask16 tail = (__mmask16)a->tail;
        UNROLL for (int r = 0; r < RF; r++)
            if (r == a->tail_r)
                UNROLL for (int j = 0; j < RW * ROWS; j++)
                    acc[j][r] = _mm512_maskz_mov_ps(tail, acc[j][r]);
        if (HALF)
            UNROLL for (int j = 0; j < RW * ROWS; j++)
                acch[j] = _mm256_maskz_mov_ps((__mmask8)tail, acch[j]);
    }
    UNROLL for (int r = 0; r < RF; r++)
        UNROLL for (int rr = 0; rr < ROWS; rr++)
            UNROLL for (int j = 0; j < RW; j++)
                _mm512_storeu_ps(y + r * ys + rr * ys_row + j * 16, acc[rr * RW + j][r]);
    /* the half block: its 8 lanes, then zeros in the padding lanes 8..15 */
    if (HALF)
        UNROLL for (int rr = 0; rr < ROWS; rr++)
            UNROLL for (int j = 0; j < RW; j++)
                _mm512_storeu_ps(y + yh + rr * ys_row + j * 16,
                                 _mm512_zextps256_ps512(acch[rr * RW + j]));
}

/* ntile tiles along the row */
PZ_ALWAYS_INLINE void uk_body(const pz_conv16c_uk_args *a, const int RW, const int RM,
                              const int PS, const int ROWS, const int HALF, const int LB,
                              const int RB)
{
    const int64_t xt = RW * (PS ? PS : a->ps);
    const float *x = a->x, *z = a->z, *pf = a->pf;
    float *y = a->y;
    int64_t pfn = a->pf_n;
    for (int t = 0; t < a->ntile; t++) {
        /* two instances: the common one without the prefetch's test */
        if (pfn > 0) uk_tile(a, x, y, z, &pf, &pfn, RW, RM, PS, ROWS, 1, HALF, LB, RB);
        else uk_tile(a, x, y, z, &pf, &pfn, RW, RM, PS, ROWS, 0, HALF, LB, RB);
        x += xt;
        y += RW * 16;
        if (z) z += RW * 16;
    }
}

/* uk_<psk>_<rm>_<rw>: the instances; psk 0..3 for ps = 16, 32, 6, any */
#define UK(K, PSV, RM, RW) \
    static void uk_##K##_##RM##_##RW(const pz_conv16c_uk_args *a) { uk_body(a, RW, RM, PSV, 1, 0, 0, 0); }
/* two-row tiles: uk2_<psk>_<rm>_<rw> */
#define UK2(K, PSV, RM, RW) \
    static void uk2_##K##_##RM##_##RW(const pz_conv16c_uk_args *a) { uk_body(a, RW, RM, PSV, 2, 0, 0, 0); }
#define UK2_1TO7(K, PSV, RM) UK2(K, PSV, RM, 1) UK2(K, PSV, RM, 2) UK2(K, PSV, RM, 3) \
    UK2(K, PSV, RM, 4) UK2(K, PSV, RM, 5) UK2(K, PSV, RM, 6) UK2(K, PSV, RM, 7)
#define UK_1TO6(K, PSV, RM) UK(K, PSV, RM, 1) UK(K, PSV, RM, 2) UK(K, PSV, RM, 3) \
    UK(K, PSV, RM, 4) UK(K, PSV, RM, 5) UK(K, PSV, RM, 6)
#define UK_1TO9(K, PSV, RM) UK_1TO6(K, PSV, RM) UK(K, PSV, RM, 7) UK(K, PSV, RM, 8) \
    UK(K, PSV, RM, 9)
#define UK_1TO14(K, PSV, RM) UK_1TO9(K, PSV, RM) UK(K, PSV, RM, 10) UK(K, PSV, RM, 11) \
    UK(K, PSV, RM, 12) UK(K, PSV, RM, 13) UK(K, PSV, RM, 14)
#define UK_ALL(K, PSV) UK_1TO14(K, PSV, 1) UK_1TO14(K, PSV, 2) UK_1TO9(K, PSV, 3) \
    UK_1TO6(K, PSV, 4)

UK_ALL(0, 16)
UK_ALL(1, 32)
UK_ALL(2, 6)
UK_ALL(3, 0)
UK2_1TO7(0, 16, 1) UK2_1TO7(0, 16, 2)
UK2_1TO7(1, 32, 1) UK2_1TO7(1, 32, 2)
UK2_1TO7(3, 0, 1) UK2_1TO7(3, 0, 2)

#define ROW6(K, RM) NULL, uk_##K##_##RM##_1, uk_##K##_##RM##_2, uk_##K##_##RM##_3, \
    uk_##K##_##RM##_4, uk_##K##_##RM##_5, uk_##K##_##RM##_6
#define ROW9(K, RM) ROW6(K, RM), uk_##K##_##RM##_7, uk_##K##_##RM##_8, uk_##K##_##RM##_9
#define ROW14(K, RM) ROW9(K, RM), uk_##K##_##RM##_10, uk_##K##_##RM##_11, \
    uk_##K##_##RM##_12, uk_##K##_##RM##_13, uk_##K##_##RM##_14
#define TAB(K) {{NULL}, {ROW14(K, 1)}, {ROW14(K, 2)}, {ROW9(K, 3)}, {ROW6(K, 4)}}

static const pz_conv16c_uk TABLE[4][5][15] = {TAB(0), TAB(1), TAB(2), TAB(3)};

static pz_conv16c_uk pick(int psk, int rm, int rw)
{
    return TABLE[psk][rm][rw];
}

#define ROW7_2(K, RM) NULL, uk2_##K##_##RM##_1, uk2_##K##_##RM##_2, uk2_##K##_##RM##_3, \
    uk2_##K##_##RM##_4, uk2_##K##_##RM##_5, uk2_##K##_##RM##_6, uk2_##K##_##RM##_7
#define TAB2(K) {{NULL}, {ROW7_2(K, 1)}, {ROW7_2(K, 2)}}
/* psk 2 (ps == 6) has no two-row tiles: it takes the generic ones */
static const pz_conv16c_uk TABLE2[4][3][8] = {TAB2(0), TAB2(1), TAB2(3), TAB2(3)};

static pz_conv16c_uk pick2(int psk, int rm, int rw)
{
    return TABLE2[psk][rm][rw];
}

/* Tiles whose last block has at most 8 valid lanes in YMM registers:
 * uk_h_<psk>_<rm>_<rw>. Only the 14x2 tile of ps == 16 (MobileNetV2's
 * 24-channel projects: 1x1 flat, 14-pixel tiles): where a YMM FMA takes an
 * FMA slot as a ZMM one does, the gain is only in the half block's loads
 * (weights, residual). A lone half block (8 output channels) runs slower
 * in YMM than in ZMM, so rm 1 has none (bench/RESULTS.md, 'conv16c
 * AVX-512: half blocks'). */
#define UKH(K, PSV, RM, RW) \
    static void uk_h_##K##_##RM##_##RW(const pz_conv16c_uk_args *a) { uk_body(a, RW, RM, PSV, 1, 1, 0, 0); }
UKH(0, 16, 2, 14)

static pz_conv16c_uk pickh(int psk, int rm, int rw)
{
    return psk == 0 && rm == 2 && rw == 14 ? uk_h_0_2_14 : NULL;
}

/* Border tiles (conv16c_plan.c's plan_border and plan_edges): a 3-wide kernel
 * over a tile of RW pixels (or two rows of RW), every tap in one call, tap
 * 0 skipping the first pixel (LB) and tap 2 the last (RB). Instances:
 * ukb_<psk>_<lb><rb>_<rm>_<rw>_<rows>, for the shapes of the nets:
 *   - whole rows of the narrow stages: stride 1 with both borders (ps ==
 *     16: 3x3 pad 1 at 7x7, 13x13, 14x14), stride 2 with the left one (ps
 *     == 32: 3x3/2 pad 1 from an even width to 7 or 14);
 *   - the first and last 14-pixel tiles of wider rows: stride 1 (ps == 16)
 *     left and right, stride 2 (ps == 32) left, and the 3-channel stem at
 *     stride 2 (ps == 6) left.
 * Other shapes go by passes (NULL). */
#define UKB(K, PSV, LB, RB, RM, RW, ROWS) \
    static void ukb_##K##_##LB##RB##_##RM##_##RW##_##ROWS(const pz_conv16c_uk_args *a) \
    { uk_body(a, RW, RM, PSV, ROWS, 0, LB, RB); }
#define UKB_ROWS(K, PSV, LB, RB, RM) \
    UKB(K, PSV, LB, RB, RM, 7, 2) UKB(K, PSV, LB, RB, RM, 7, 1) \
    UKB(K, PSV, LB, RB, RM, 13, 1) UKB(K, PSV, LB, RB, RM, 14, 1)
UKB_ROWS(0, 16, 1, 1, 1) UKB_ROWS(0, 16, 1, 1, 2)
UKB_ROWS(1, 32, 1, 0, 1) UKB_ROWS(1, 32, 1, 0, 2)
UKB(0, 16, 1, 0, 2, 14, 1) UKB(0, 16, 0, 1, 2, 14, 1)
UKB(2, 6, 1, 0, 2, 14, 1)

typedef struct {
    signed char psk, lb, rb, rm, rw, rows;
    pz_conv16c_uk fn;
} ukb_entry;
#define E(K, LB, RB, RM, RW, ROWS) {K, LB, RB, RM, RW, ROWS, ukb_##K##_##LB##RB##_##RM##_##RW##_##ROWS}
#define E_ROWS(K, LB, RB, RM) E(K, LB, RB, RM, 7, 2), E(K, LB, RB, RM, 7, 1), \
    E(K, LB, RB, RM, 13, 1), E(K, LB, RB, RM, 14, 1)
static const ukb_entry TABLEB[] = {
    E_ROWS(0, 1, 1, 1), E_ROWS(0, 1, 1, 2), E_ROWS(1, 1, 0, 1), E_ROWS(1, 1, 0, 2),
    E(0, 1, 0, 2, 14, 1), E(0, 0, 1, 2, 14, 1), E(2, 1, 0, 2, 14, 1),
};
#undef E
#undef E_ROWS

static pz_conv16c_uk pickb(int psk, int rm, int rw, int rows, int lb, int rb)
{
    for (size_t i = 0; i < sizeof TABLEB / sizeof TABLEB[0]; i++) {
        const ukb_entry *e = &TABLEB[i];
        if (e->psk == psk && e->lb == lb && e->rb == rb && e->rm == rm && e->rw == rw &&
            e->rows == rows)
            return e->fn;
    }
    return NULL;
}

const pz_conv16c_ukset pz_conv16c_ukset__avx512 = {
    .max_rm = 4, .rwmax = {0, 14, 14, 9, 6}, .pick = pick, .rw2max = 7, .pick2 = pick2,
    .pickh = pickh, .pickb = pickb, .act16c = pz_f32_act16c__avx512,
};

void pz_f32_conv2d_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                   const float *restrict w, const float *restrict b,
                                   const float *restrict z, float *restrict y, int ith, int nth)
{
    pz_conv16c_drive(d, &pz_conv16c_ukset__avx512, x, w, b, z, y, ith, nth);
}

#endif
