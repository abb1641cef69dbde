/* spconv16c_avx512.c - the block-sparse conv's row kernel on AVX-512
 * (spconv16c.h): tiles of up to RW pixels of one output block held in
 * registers, each block's 16 input channels as 16 broadcast FMAs a pixel.
 * The order of the scalar twin (spconv16c_scalar.c), so the same bits. */
#ifndef PZ_SCALAR   /* a PZ_SCALAR build has no vector kernels */
#include <immintrin.h>

#include "rt/kernels/conv/spconv16c.h"

#define RW 28
/* The packed weights lie in list order, output block after output block:
 * each block step prefetches (into L2) the block this many ahead, the next
 * output block's first ones near the end of a list. A layer's weights come
 * back from memory on every run (they outgrow the caches); the first tile
 * of a list would otherwise wait on each 4 KiB page, where the hardware
 * prefetchers stop. Beyond the last block it reads nothing (a prefetch
 * does not fault). */
#define PF_AHEAD 8
/* A list of fewer blocks (few FMAs a pixel, bound by its epilogue and its
 * output: ResNet-50's 1x1s of 64 to 256 input channels at 75%) takes tiles
 * of RW / 2 pixels and no prefetch (its weights are a few KiB): the wide
 * tiles and the prefetches measured 5-15% slower there. */
#define SHORT_LIST 8

/* ps: the pixel stride, a constant for the drivers' 16 (pixels one after
 * the other) so the broadcasts take fixed displacements; 0: a->ps */
static inline __attribute__((always_inline)) void tile(const pz_sprow_args *a, int64_t j0,
                                                       const int rw, const int64_t psc,
                                                       __m512 lo, __m512 hi, __mmask16 keep,
                                                       const int pf)
{
    const int64_t ps = psc ? psc : a->ps;
    __m512 acc[RW];
    const __m512 b0 = _mm512_loadu_ps(a->bias);
#pragma GCC unroll 28
    for (int j = 0; j < rw; j++) acc[j] = b0;
    for (int b = 0; b < a->nb; b++) {
        const float *xp = a->x[b] + j0 * ps, *wp = a->w[b];
#pragma GCC unroll 2
        for (int ic = 0; ic < 16; ic++) {
            __m512 w = _mm512_load_ps(wp + ic * 16);
            if (pf) _mm_prefetch((const char *)(wp + PF_AHEAD * 256 + ic * 16), _MM_HINT_T1);
#pragma GCC unroll 28
            for (int j = 0; j < rw; j++)
                acc[j] = _mm512_fmadd_ps(_mm512_set1_ps(xp[j * ps + ic]), w, acc[j]);
        }
    }
#pragma GCC unroll 28
    for (int j = 0; j < rw; j++) {
        int64_t o = (j0 + j) * 16;
        if (a->vw) {
            int64_t v = a->vp0 + j0 + j;
            if (v % a->vw >= a->ow) continue;
            o = (v / a->vw * a->ow + v % a->vw) * 16;
        }
        __m512 z = a->z ? _mm512_loadu_ps(a->z + o) : _mm512_setzero_ps();
        __m512 v = _mm512_add_ps(acc[j], z);
        /* the twin's v < lo ? lo : v, then v > hi ? hi : v (the second
         * operand is returned on ties and NaN) */
        if (a->act->kind != PZ_ACT_NONE) v = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
        _mm512_storeu_ps(a->y + o, _mm512_maskz_mov_ps(keep, v));
    }
}

/* tiles of rw pixels at stride psc (see tile) */
static inline __attribute__((always_inline)) void tile_w(const pz_sprow_args *a, int64_t j,
                                                         int rw, const int64_t psc, __m512 lo,
                                                         __m512 hi, __mmask16 keep, int pf)
{
    switch (rw) {
#define PZ_SP_CASE(n) case n: tile(a, j, n, psc, lo, hi, keep, pf); break;
    PZ_SP_CASE(28) PZ_SP_CASE(27) PZ_SP_CASE(26) PZ_SP_CASE(25)
    PZ_SP_CASE(24) PZ_SP_CASE(23) PZ_SP_CASE(22) PZ_SP_CASE(21) PZ_SP_CASE(20) PZ_SP_CASE(19)
    PZ_SP_CASE(18) PZ_SP_CASE(17) PZ_SP_CASE(16) PZ_SP_CASE(15) PZ_SP_CASE(14) PZ_SP_CASE(13)
    PZ_SP_CASE(12) PZ_SP_CASE(11) PZ_SP_CASE(10) PZ_SP_CASE(9) PZ_SP_CASE(8) PZ_SP_CASE(7)
    PZ_SP_CASE(6) PZ_SP_CASE(5) PZ_SP_CASE(4) PZ_SP_CASE(3) PZ_SP_CASE(2) PZ_SP_CASE(1)
#undef PZ_SP_CASE
    default: break;
    }
}

/* The row in balanced tiles (no narrow last tile: its FMA chains would wait
 * on their latency). */
static inline __attribute__((always_inline)) void row(const pz_sprow_args *a, const int64_t psc,
                                                      __m512 lo, __m512 hi, __mmask16 keep)
{
    const int pf = a->nb >= SHORT_LIST;
    const int64_t rmax = pf ? RW : RW / 2;
    int64_t nt = (a->npix + rmax - 1) / rmax, j = 0;
    for (int64_t t = 0; t < nt; t++) {
        int rw = (int)((a->npix - j) / (nt - t));
        tile_w(a, j, rw, psc, lo, hi, keep, pf);
        j += rw;
    }
}

void pz_f32_sprow16c__avx512(const pz_sprow_args *a)
{
    float l = a->act->kind == PZ_ACT_CLIP ? a->act->lo : 0.0f;
    float h = a->act->kind == PZ_ACT_CLIP ? a->act->hi : __builtin_inff();
    __m512 lo = _mm512_set1_ps(l), hi = _mm512_set1_ps(h);
    int64_t valid = a->m - a->c0;
    __mmask16 keep = valid >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (valid > 0 ? valid : 0)) - 1);
    if (a->ps == 16) row(a, 16, lo, hi, keep);
    else row(a, 0, lo, hi, keep);
}
#endif
