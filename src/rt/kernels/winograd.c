/* winograd.c - Winograd F(4x4, 3x3): the weight transform (at compile time),
 * the sizes, the ISA-independent driver and the dispatch. The per-ISA steps
 * (input transform, the 36 GEMMs, output transform) are in
 * winograd_scalar.c and winograd_avx512.c; see winograd.h for the algorithm
 * and how the runtime calls it.
 *
 * The matrices, for interpolation points 0, 1, -1, 2, -2 and infinity:
 *
 *   B' = | 4  0 -5  0  1  0 |   G = |  1/4     0     0 |   A' = | 1  1  1  1  1  0 |
 *        | 0 -4 -4  1  1  0 |       | -1/6  -1/6  -1/6 |        | 0  1 -1  2 -2  0 |
 *        | 0  4 -4 -1  1  0 |       | -1/6   1/6  -1/6 |        | 0  1  1  4  4  0 |
 *        | 0 -2 -1  2  1  0 |       | 1/24  1/12   1/6 |        | 0  1 -1  8 -8  1 |
 *        | 0  2 -1 -2  1  0 |       | 1/24 -1/12   1/6 |
 *        | 0  4  0 -5  0  1 |       |    0     0     1 |
 *
 * Scratch of one worker (floats), for a panel of nt tiles (see panel_tiles):
 *   V  [36][CB][nt][16]   the transformed input of the panel
 *   M  [36][RM][nt][16]   the GEMM results of one group of RM output blocks
 *   P  [6][6][16]         a border tile's input patch, zero padded
 */
#include "rt/kernels/winograd.h"

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

int pz_winograd_ok(const pz_conv16c_desc *d)
{
    return d->kh == 3 && d->kw == 3 && d->sh == 1 && d->sw == 1 && d->dh == 1 && d->dw == 1 &&
           d->cblk == 16 && d->oh >= 1 && d->ow >= 1 && d->n >= 1 && d->c >= 1 && d->m >= 1;
}

int64_t pz_winograd_weights_size(const pz_conv16c_desc *d)
{
    return (int64_t)PZ_WINO_NPT * cdiv(d->m, 16) * cdiv(d->c, 16) * 256;
}

/* G as doubles: the transform is done in double and rounded once. */
static const double G[6][3] = {
    {1.0 / 4, 0, 0},
    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
    {1.0 / 24, 1.0 / 12, 1.0 / 6},
    {1.0 / 24, -1.0 / 12, 1.0 / 6},
    {0, 0, 1},
};

void pz_winograd_pack_weights(const pz_conv16c_desc *d, const float *restrict w,
                              float *restrict u)
{
    const int64_t C = d->c, M = d->m, CB = cdiv(C, 16), MB = cdiv(M, 16);
    for (int64_t i = 0; i < pz_winograd_weights_size(d); i++) u[i] = 0.0f;
    for (int64_t m = 0; m < M; m++)
        for (int64_t c = 0; c < C; c++) {
            const float *g = w + (m * C + c) * 9;
            double t[6][3];   /* G g */
            for (int i = 0; i < 6; i++)
                for (int k = 0; k < 3; k++)
                    t[i][k] = G[i][0] * g[0 * 3 + k] + G[i][1] * g[1 * 3 + k] + G[i][2] * g[2 * 3 + k];
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) {
                    double v = t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2];
                    /* U[g][xi][cb][c % 16][r][m % 16] of group g = mb / RM with
                     * rm blocks (RM, or fewer in the last group) */
                    int64_t xi = i * 6 + j, mb = m / 16, grp = mb / PZ_WINO_RM;
                    int64_t rm = min64(PZ_WINO_RM, MB - grp * PZ_WINO_RM);
                    int64_t gbase = grp * PZ_WINO_NPT * CB * 16 * PZ_WINO_RM * 16;
                    u[gbase + ((xi * CB + c / 16) * 16 + c % 16) * rm * 16 +
                      (mb % PZ_WINO_RM) * 16 + m % 16] = (float)v;
                }
        }
}

/* Tiles per panel: the tiles whose transformed input V (36 x C floats each)
 * is held at once, at most PANEL_BYTES (in L2 with room for U's slices), at
 * least one block of PZ_WINO_TB, and a whole number of blocks. */
#define PANEL_BYTES (1024 * 1024)

static int64_t panel_tiles_c(int64_t c)
{
    int64_t per_block = (int64_t)PZ_WINO_NPT * cdiv(c, 16) * 16 * PZ_WINO_TB * 4;
    int64_t nb = PANEL_BYTES / per_block;
    return (nb < 1 ? 1 : nb) * PZ_WINO_TB;
}

static int64_t panel_tiles(const pz_conv16c_desc *d)
{
    return panel_tiles_c(d->c);
}

/* The rule (see winograd.h). Time in units of FLOPs at the conv kernels'
 * rate: the direct conv does 2 * 9 * C * M * OH * OW; Winograd does
 * 2 * 36 * C * M * tiles in its GEMMs and reads U (36 * C * M floats) once
 * from memory, the first panel, and again from L3 for each further panel
 * (the input and output transforms are small beside these). A byte from
 * memory costs the time of PZ_WINO_MEM_FLOPS FLOPs, one from L3 of
 * PZ_WINO_L3_FLOPS: at 1 thread here the kernels run at about 200 GFLOP/s,
 * one core reads memory at 14 GB/s (a 158 MB stream of ZMM loads) and L3
 * at about 30 (bench/kernels' streaming pass over an L3-sized working set);
 * at 2 threads the rates double together. */
#define PZ_WINO_MEM_FLOPS 14
#define PZ_WINO_L3_FLOPS 7

int pz_winograd_pays(int64_t c, int64_t m, int64_t oh, int64_t ow)
{
    if (c < 1 || m < 1 || oh < 1 || ow < 1) return 0;
    const double C = (double)c, M = (double)m;
    const double tiles = (double)(cdiv(oh, PZ_WINO_TILE) * cdiv(ow, PZ_WINO_TILE));
    const double panels = (double)cdiv((int64_t)tiles, panel_tiles_c(c));
    const double u_bytes = (double)PZ_WINO_NPT * (double)(cdiv(c, 16) * 16) *
                           (double)(cdiv(m, 16) * 16) * 4;
    const double direct = 2.0 * 9 * C * M * (double)oh * (double)ow;
    const double wino = 2.0 * PZ_WINO_NPT * C * M * tiles + u_bytes * PZ_WINO_MEM_FLOPS +
                        (panels - 1) * u_bytes * PZ_WINO_L3_FLOPS;
    return wino < direct;
}

/* One worker's slice, rounded up to 64 bytes. */
static int64_t worker_floats(const pz_conv16c_desc *d)
{
    int64_t cb = cdiv(d->c, 16);
    int64_t f = (int64_t)PZ_WINO_NPT * 16 * panel_tiles(d) * (cb + PZ_WINO_RM) + 36 * 16;
    return cdiv(f, 16) * 16;
}

int64_t pz_winograd_scratch_size(const pz_conv16c_desc *d, int nth)
{
    return worker_floats(d) * (nth < 1 ? 1 : nth);
}

/* The 6x6 patch at input (ih0, iw0) of one channel block, zeros outside,
 * into p [6][6][16]. */
static void gather_patch(const float *xc, int64_t H, int64_t W, int64_t ih0, int64_t iw0,
                         float *restrict p)
{
    for (int r = 0; r < 6; r++)
        for (int s = 0; s < 6; s++) {
            int64_t ih = ih0 + r, iw = iw0 + s;
            float *dst = p + (r * 6 + s) * 16;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) {
                for (int l = 0; l < 16; l++) dst[l] = 0.0f;
            } else {
                const float *src = xc + (ih * W + iw) * 16;
                for (int l = 0; l < 16; l++) dst[l] = src[l];
            }
        }
}

/* Panels of T tiles (at most PT each). Workers take ranges of units (panel,
 * group), so with fewer panels than workers every worker transforms the
 * whole panel's input for its own groups. Where each worker can have a
 * register block of tiles to itself and U is small (re-read whole by each
 * worker), the tiles go in nth panels instead: ResNet-18's 128 -> 128
 * convs at 28x28 (49 tiles, 2.4 MB of U) at 2 threads went from 0.282-0.352
 * to 0.220-0.295 ms each (four interleaved runs of the net). The sums of
 * each output do not depend on the panels: bitwise the same results. */
static int64_t panels(const pz_conv16c_desc *d, int64_t T, int64_t PT, int nth)
{
    const int64_t npan = cdiv(T, PT);
    const int64_t u_bytes = pz_winograd_weights_size(d) * (int64_t)sizeof(float);
    if (npan < nth && T >= (int64_t)nth * PZ_WINO_TB && u_bytes <= (int64_t)4 << 20) return nth;
    return npan;
}

void pz_winograd_drive(const pz_conv16c_desc *d, const pz_wino_isa *isa,
                       const float *restrict x, const float *restrict u,
                       const float *restrict b, const float *restrict z, float *restrict y,
                       float *restrict scratch, int ith, int nth)
{
    const int64_t H = d->h, W = d->w, OH = d->oh, OW = d->ow;
    const int64_t CB = cdiv(d->c, 16), MB = cdiv(d->m, 16);
    const int64_t TW = cdiv(OW, 4), T = cdiv(OH, 4) * TW, PT = panel_tiles(d);
    const int64_t npan = panels(d, T, PT, nth), ngrp = cdiv(MB, PZ_WINO_RM);
    float *V = scratch + ith * worker_floats(d);
    float *Mb = V + (int64_t)PZ_WINO_NPT * CB * PT * 16;
    float *P = Mb + (int64_t)PZ_WINO_NPT * PZ_WINO_RM * PT * 16;
    const int tail_m = d->m % 16 ? (int)(d->m % 16) : 16;

    /* units (image, panel, group of RM output blocks), groups fastest:
     * consecutive units of a worker share the transformed input */
    int64_t lo, hi, cached = -1;
    pz_split(d->n * npan * ngrp, ith, nth, &lo, &hi);
    for (int64_t unit = lo; unit < hi; unit++) {
        const int64_t g = unit % ngrp, k = unit / ngrp % npan, n = unit / (ngrp * npan);
        /* panel k: tiles [t0, t0 + nt), balanced over the panels */
        const int64_t t0 = k * T / npan, nt = (k + 1) * T / npan - t0;
        if (n * npan + k != cached) {
            const int64_t vs = CB * nt * 16;   /* V [36][CB][nt][16]: stride between points */
            for (int64_t j = 0; j < nt; j++) {
                const int64_t t = t0 + j, ih0 = t / TW * 4 - d->pt, iw0 = t % TW * 4 - d->pl;
                const int inside = ih0 >= 0 && ih0 + 6 <= H && iw0 >= 0 && iw0 + 6 <= W;
                for (int64_t cb = 0; cb < CB; cb++) {
                    const float *xc = x + (n * CB + cb) * H * W * 16;
                    float *v = V + (cb * nt + j) * 16;
                    if (inside) {
                        isa->in(xc + (ih0 * W + iw0) * 16, W * 16, v, vs);
                    } else {
                        gather_patch(xc, H, W, ih0, iw0, P);
                        isa->in(P, 6 * 16, v, vs);
                    }
                }
            }
            cached = n * npan + k;
        }
        const int64_t mb0 = g * PZ_WINO_RM;
        const int rm = (int)min64(PZ_WINO_RM, MB - mb0);
        const int64_t ms = (int64_t)rm * nt * 16;   /* M [36][rm][nt][16]: stride between points */
        /* the panel in register blocks of at most TB tiles, balanced; each
         * point's U slice (C x 16 rm floats) is reused over the blocks */
        const int64_t nsb = cdiv(nt, PZ_WINO_TB);
        pz_wino_gemm_args a = {
            .us_q = rm * 16, .us_cb = 16 * rm * 16, .vs_cb = nt * 16, .ms_mb = nt * 16,
            .ncb = (int)CB, .rm = rm,
        };
        const float *ug = u + g * PZ_WINO_NPT * CB * 16 * PZ_WINO_RM * 16;   /* the group's U */
        /* In a net U comes from memory (each layer's is read once per panel,
         * and a net's weights outgrow the caches). So the first register
         * block of each point prefetches the next slice of U into L2: the
         * next point's, or after the last point the next group's first,
         * when this worker's next unit is that group. Without it a 256 ->
         * 256 conv at 14x14 (one panel, 9.4 MB of U) took about the sum of
         * its FMA time and its memory time: 1.35-1.89 ms from memory
         * against 0.77-1.32 from cache, 0.99-1.06 with it (in turn, the
         * weights flushed before each call; noisy host). A spread-out
         * variant (each block a share of the lines) measured no better. */
        const int pf_next = unit + 1 < hi && g + 1 < ngrp;
        for (int xi = 0; xi < PZ_WINO_NPT; xi++) {
            a.u = ug + xi * CB * a.us_cb;
            for (int64_t sb = 0; sb < nsb; sb++) {
                const int64_t j0 = sb * nt / nsb, j1 = (sb + 1) * nt / nsb;
                a.pf = sb == 0 && (xi + 1 < PZ_WINO_NPT || pf_next);
                a.nt = (int)(j1 - j0);
                a.v = V + xi * CB * nt * 16 + j0 * 16;
                a.m = Mb + xi * ms + j0 * 16;
                isa->gemm(&a);
            }
        }
        for (int r = 0; r < rm; r++) {
            const int64_t mb = mb0 + r;
            const int tail = mb == MB - 1 ? tail_m : 16;
            for (int64_t j = 0; j < nt; j++) {
                const int64_t t = t0 + j, oh0 = t / TW * 4, ow0 = t % TW * 4;
                const int64_t yoff = ((n * MB + mb) * OH + oh0) * OW * 16 + ow0 * 16;
                isa->out(Mb + (r * nt + j) * 16, ms, b ? b + mb * 16 : NULL, z ? z + yoff : NULL,
                         y + yoff, OW * 16, (int)min64(4, OH - oh0), (int)min64(4, OW - ow0),
                         &d->act, tail);
            }
        }
    }
}

pz_winograd_fn pz_winograd_kernel_for(pz_isa isa)
{
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX512) return pz_f32_conv3x3_winograd_nchw16c__avx512;
#endif
    (void)isa;
    return pz_f32_conv3x3_winograd_nchw16c__scalar;
}
