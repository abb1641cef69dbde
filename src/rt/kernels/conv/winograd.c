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
#include <string.h>

#include "rt/kernels/conv/winograd.h"

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

/* The whole-image order (pz_winograd_drive): where U is read again for
 * each panel and that traffic outweighs a round trip of the whole image's
 * V and M through L3, each worker transforms the whole image, then runs
 * the points outermost: point xi's slice of V (C x T floats) stays in L2
 * while the worker's groups pass over it, and U is read once. The scratch
 * it takes (V and the worker's M for the whole image) is capped: at twice
 * the cap, a large layer gains a little at 1 thread and loses at 2, each
 * worker transforming the whole image (bench/RESULTS.md, 'winograd:
 * whole-image order'). */
#define WHOLE_MAX_BYTES (8 * 1024 * 1024)

static int64_t whole_groups(int64_t m, int nth)
{
    return cdiv(cdiv(cdiv(m, 16), PZ_WINO_RM), nth < 1 ? 1 : nth);
}

/* floats of V and of a worker's M for the whole image of T tiles */
static int64_t whole_v(int64_t c, int64_t T)
{
    return (int64_t)PZ_WINO_NPT * cdiv(c, 16) * T * 16;
}

static int64_t whole_m(int64_t m, int64_t T, int nth)
{
    return (int64_t)PZ_WINO_NPT * whole_groups(m, nth) * PZ_WINO_RM * T * 16;
}

static int64_t image_tiles(const pz_conv16c_desc *d)
{
    return cdiv(d->oh, PZ_WINO_TILE) * cdiv(d->ow, PZ_WINO_TILE);
}

static int64_t u_bytes_of(int64_t c, int64_t m)
{
    return (int64_t)PZ_WINO_NPT * cdiv(c, 16) * 16 * cdiv(m, 16) * 16 * (int64_t)sizeof(float);
}

static int whole_order(int64_t c, int64_t m, int64_t T, int nth)
{
    const int64_t npan = cdiv(T, panel_tiles_c(c));
    const int64_t vm = (whole_v(c, T) + whole_m(m, T, nth)) * (int64_t)sizeof(float);
    return npan > 1 && vm <= WHOLE_MAX_BYTES && (npan - 1) * u_bytes_of(c, m) > 2 * vm;
}

static int whole_image(const pz_conv16c_desc *d, int nth)
{
    return whole_order(d->c, d->m, image_tiles(d), nth);
}

/* The rule (see winograd.h). Time in units of FLOPs at the conv kernels'
 * rate: the direct conv does 2 * 9 * C * M * OH * OW; Winograd does
 * 2 * 36 * C * M * tiles in its GEMMs and reads U (36 * C * M floats) from
 * memory once, and in the panel order again from L3 for each further panel
 * (in the whole-image order the image's V and M go to L3 and back instead;
 * the transforms themselves are small beside these). A byte from memory
 * costs the time of PZ_WINO_MEM_FLOPS FLOPs, one from L3 of
 * PZ_WINO_L3_FLOPS: the kernels' FLOP rate at 1 thread over one core's
 * memory (L3) bandwidth, as measured on one host (bench/RESULTS.md,
 * 'winograd: cost constants'); at 2 threads the rates double together. The
 * order counted is the one at 1 thread, so the choice is the same for every
 * MP. */
#define PZ_WINO_MEM_FLOPS 14
#define PZ_WINO_L3_FLOPS 7

int pz_winograd_pays(int64_t c, int64_t m, int64_t oh, int64_t ow)
{
    if (c < 1 || m < 1 || oh < 1 || ow < 1) return 0;
    const int64_t T = cdiv(oh, PZ_WINO_TILE) * cdiv(ow, PZ_WINO_TILE);
    const double u_bytes = (double)u_bytes_of(c, m);
    double again;   /* bytes through L3 besides U's first read */
    if (whole_order(c, m, T, 1))
        again = 2.0 * (double)(whole_v(c, T) + whole_m(m, T, 1)) * sizeof(float);
    else
        again = (double)(cdiv(T, panel_tiles_c(c)) - 1) * u_bytes;
    const double direct = 2.0 * 9 * (double)c * (double)m * (double)oh * (double)ow;
    const double wino = 2.0 * PZ_WINO_NPT * (double)c * (double)m * (double)T +
                        u_bytes * PZ_WINO_MEM_FLOPS + again * PZ_WINO_L3_FLOPS;
    return wino < direct;
}

/* The sparse rule (winograd.h), in the same units: a vector instruction's
 * issue slot counted as the 32 FLOPs of one 16-lane FMA. The sparse direct
 * conv runs FMAs over its planes' rows (OW + 2 pixels computed a row for
 * OW kept) for the one-tap blocks with a weight, its kept weights streamed
 * once; the sparse Winograd runs the GEMMs' FMAs for the 16 x 16 blocks
 * with a weight, its kept U streamed (and again from L3 per panel as
 * dense), and its dense transforms: per tile and input block the 6x6 input
 * transform, 12 one-dimensional passes of 28 adds and multiplies
 * (winograd_avx512.c: in_1d) and 36 stores; per tile and output block the
 * output transform, 10 passes of 14 and the epilogue of 16 pixels (bias,
 * residual, clamp, store: 6 each) after 36 loads. These are counts of the
 * kernels' code, not timings: `best` measures. */
#define WINO_IN_OPS (12 * 28 + 36)
#define WINO_OUT_OPS (10 * 14 + 16 * 6 + 36)
#define WINO_OP_FLOPS 32.0

static double spwino_transforms(int64_t c, int64_t m, int64_t T)
{
    return WINO_OP_FLOPS * (double)T *
           ((double)cdiv(c, 16) * WINO_IN_OPS + (double)cdiv(m, 16) * WINO_OUT_OPS);
}

static double spwino_cost(int64_t c, int64_t m, int64_t oh, int64_t ow, double blk_nz)
{
    const int64_t T = cdiv(oh, PZ_WINO_TILE) * cdiv(ow, PZ_WINO_TILE);
    const double u_bytes = (double)u_bytes_of(c, m) * blk_nz;
    double again = 0;
    if (!whole_order(c, m, T, 1)) again = (double)(cdiv(T, panel_tiles_c(c)) - 1) * u_bytes;
    return 2.0 * PZ_WINO_NPT * (double)c * (double)m * (double)T * blk_nz +
           spwino_transforms(c, m, T) + u_bytes * PZ_WINO_MEM_FLOPS + again * PZ_WINO_L3_FLOPS;
}

int pz_spwino_pays(int64_t c, int64_t m, int64_t oh, int64_t ow, double tap_nz, double blk_nz)
{
    if (c < 1 || m < 1 || oh < 1 || ow < 1) return 0;
    const double direct = 2.0 * 9 * (double)c * (double)m * (double)oh * (double)(ow + 2) * tap_nz +
                          9.0 * (double)c * (double)m * sizeof(float) * tap_nz * PZ_WINO_MEM_FLOPS;
    return spwino_cost(c, m, oh, ow, blk_nz) < direct;
}

double pz_spwino_transform_share(int64_t c, int64_t m, int64_t oh, int64_t ow, double blk_nz)
{
    if (c < 1 || m < 1 || oh < 1 || ow < 1) return 0;
    const int64_t T = cdiv(oh, PZ_WINO_TILE) * cdiv(ow, PZ_WINO_TILE);
    return spwino_transforms(c, m, T) / spwino_cost(c, m, oh, ow, blk_nz);
}

int pz_winograd_whole_image(const pz_conv16c_desc *d, int nth)
{
    return whole_image(d, nth);
}

/* One worker's slice in the panel order, rounded up to 64 bytes. */
static int64_t panel_floats(const pz_conv16c_desc *d)
{
    int64_t cb = cdiv(d->c, 16);
    return cdiv((int64_t)PZ_WINO_NPT * 16 * panel_tiles(d) * (cb + PZ_WINO_RM) + 36 * 16, 16) * 16;
}

/* One worker's slice, rounded up to 64 bytes. */
static int64_t worker_floats(const pz_conv16c_desc *d, int nth)
{
    int64_t f = panel_floats(d);
    if (whole_image(d, nth)) {
        const int64_t T = image_tiles(d);
        f = whole_v(d->c, T) + whole_m(d->m, T, nth) + 36 * 16;
    }
    return cdiv(f, 16) * 16;
}

int64_t pz_winograd_scratch_size(const pz_conv16c_desc *d, int nth)
{
    return worker_floats(d, nth) * (nth < 1 ? 1 : nth);
}

/* One worker's slice for row ranges: the panel order's, or the whole-image
 * order's for all tiles at 1 worker when the layer takes that order (a
 * range of fewer tiles, or on more workers, needs no more). */
static int64_t rows_floats(const pz_conv16c_desc *d)
{
    const int64_t T = image_tiles(d), p = panel_floats(d);
    if (!whole_image(d, 1)) return p;
    const int64_t w = cdiv(whole_v(d->c, T) + whole_m(d->m, T, 1) + 36 * 16, 16) * 16;
    return w > p ? w : p;
}

int64_t pz_winograd_rows_scratch_size(const pz_conv16c_desc *d, int nth)
{
    return rows_floats(d) * (nth < 1 ? 1 : nth);
}

int64_t pz_winograd_rows_scratch_per_row(const pz_conv16c_desc *d)
{
    /* a tile row of TW tiles covers PZ_WINO_TILE output rows */
    return cdiv((int64_t)PZ_WINO_NPT * 16 * (cdiv(d->c, 16) + PZ_WINO_RM) * cdiv(d->ow, PZ_WINO_TILE),
                PZ_WINO_TILE);
}

/* Where the planes of x and y hold which rows: x input rows [xb, xb + xr),
 * y (and z) output rows [yb, yb + yr); all rows (0, H, 0, OH) but in a
 * fused run's row windows (d->r1 > 0 with d->xr > 0). */
typedef struct {
    int64_t xb, xr, yb, yr;
} wino_view;

static wino_view view_of(const pz_conv16c_desc *d)
{
    if (d->r1 > 0 && d->xr > 0) return (wino_view){d->xb, d->xr, d->yb, d->yr};
    return (wino_view){0, d->h, 0, d->oh};
}

/* The 6x6 patch at input (ih0, iw0) of one channel block, zeros outside the
 * input, into p [6][6][16]; xc holds rows from xb. Row by row: the columns
 * inside the input copied at once, the rest zeroed (a border tile's patch
 * is built per input block: with few tiles a large share of the work). */
static void gather_patch(const float *xc, int64_t xb, int64_t H, int64_t W, int64_t ih0,
                         int64_t iw0, float *restrict p)
{
    const int64_t s0 = iw0 < 0 ? -iw0 : 0, s1 = W - iw0 < 6 ? W - iw0 : 6;
    for (int r = 0; r < 6; r++) {
        const int64_t ih = ih0 + r;
        float *dst = p + r * 6 * 16;
        if (ih < 0 || ih >= H || s1 <= s0) {
            memset(dst, 0, 6 * 16 * sizeof(float));
            continue;
        }
        memset(dst, 0, (size_t)s0 * 16 * sizeof(float));
        memcpy(dst + s0 * 16, xc + ((ih - xb) * W + iw0 + s0) * 16,
               (size_t)(s1 - s0) * 16 * sizeof(float));
        memset(dst + s1 * 16, 0, (size_t)(6 - s1) * 16 * sizeof(float));
    }
}

/* Panels of T tiles (at most PT each). Workers take ranges of units (panel,
 * group), so with fewer panels than workers every worker transforms the
 * whole panel's input for its own groups. Where each worker can have a
 * register block of tiles to itself and U is small (re-read whole by each
 * worker), the tiles go in nth panels instead (ResNet-18's 128 -> 128 convs
 * at 28x28; bench/RESULTS.md, 'winograd: panels'). The sums of each output
 * do not depend on the panels: bitwise the same results. */
static int64_t panels(const pz_conv16c_desc *d, int64_t T, int64_t PT, int nth)
{
    const int64_t npan = cdiv(T, PT);
    const int64_t u_bytes = pz_winograd_weights_size(d) * (int64_t)sizeof(float);
    if (npan < nth && T >= (int64_t)nth * PZ_WINO_TB && u_bytes <= (int64_t)4 << 20) return nth;
    return npan;
}

/* Transforms tiles [t0, t0 + nt) of image n into V [36][CB][nt][16] (the
 * sparse Winograd: only the input blocks a GEMM reads, sp->cb_used). A
 * tile reads only rows its outputs' windows read, and those of the input
 * are in the view (a fused run's window holds them; rows past the input are
 * zeros, as unfused). */
static void transform_tiles(const pz_conv16c_desc *d, const pz_wino_isa *isa,
                            const pz_spwino_plan *sp, const float *restrict x, int64_t n,
                            int64_t t0, int64_t nt, float *restrict V, float *restrict P)
{
    const wino_view vw = view_of(d);
    const int64_t H = d->h, W = d->w, CB = cdiv(d->c, 16), TW = cdiv(d->ow, 4);
    const int64_t vs = CB * nt * 16;   /* stride between points */
    /* tiles innermost: each point's stores go to consecutive lines */
    for (int64_t cb = 0; cb < CB; cb++)
        for (int64_t j = 0; j < nt && (!sp || sp->cb_used[cb]); j++) {
            const int64_t t = t0 + j, ih0 = t / TW * 4 - d->pt, iw0 = t % TW * 4 - d->pl;
            const int inside = ih0 >= 0 && ih0 + 6 <= H && iw0 >= 0 && iw0 + 6 <= W;
            const float *xc = x + (n * CB + cb) * vw.xr * W * 16;
            float *v = V + (cb * nt + j) * 16;
            if (inside) {
                isa->in(xc + ((ih0 - vw.xb) * W + iw0) * 16, W * 16, v, vs);
            } else {
                gather_patch(xc, vw.xb, H, W, ih0, iw0, P);
                isa->in(P, 6 * 16, v, vs);
            }
        }
}

/* The output transform of blocks [mb0, mb0 + rm) for tiles [t0, t0 + nt) of
 * image n, from M [36][rm][nt][16] (ms floats between points), or from
 * zeros where Mb is NULL (a sparse group with no weight: what its GEMMs
 * would have stored, so the same bits). */
static void finish_tiles(const pz_conv16c_desc *d, const pz_wino_isa *isa, const float *Mb,
                         int64_t ms, const float *restrict b, const float *restrict z,
                         float *restrict y, int64_t n, int64_t mb0, int rm, int64_t t0, int64_t nt)
{
    const wino_view vw = view_of(d);
    const int64_t OH = d->oh, OW = d->ow, MB = cdiv(d->m, 16), TW = cdiv(OW, 4);
    const int tail_m = d->m % 16 ? (int)(d->m % 16) : 16;
    for (int r = 0; r < rm; r++) {
        const int64_t mb = mb0 + r;
        const int tail = mb == MB - 1 ? tail_m : 16;
        for (int64_t j = 0; j < nt; j++) {
            const int64_t t = t0 + j, oh0 = t / TW * 4, ow0 = t % TW * 4;
            const int64_t yoff = ((n * MB + mb) * vw.yr + oh0 - vw.yb) * OW * 16 + ow0 * 16;
            static const float ZEROS[16] = {0};
            isa->out(Mb ? Mb + (r * nt + j) * 16 : ZEROS, Mb ? ms : 0, b ? b + mb * 16 : NULL,
                     z ? z + yoff : NULL,
                     y + yoff, OW * 16, (int)min64(4, OH - oh0), (int)min64(4, OW - ow0),
                     &d->act, tail);
        }
    }
}

/* The GEMMs of point xi for the group at ug (rm blocks) over nt tiles: V and
 * M of that point, in register blocks of at most TB tiles, balanced; the
 * point's U slice (C x 16 rm floats) is reused over the blocks.
 *
 * The slice at offset pf_next from this one (0: none), the one the driver
 * runs next, is prefetched into L2: its lines (as many as this slice has; a
 * next slice of fewer blocks is a bound only) spread evenly over the q
 * steps of every register block: the first block alone would ask for lines
 * several times faster than one core's memory stream gives them, leaving
 * the other blocks with none in flight. One slice ahead, into L2 (T1): two
 * ahead gain nothing, T0 and NTA lose (bench/RESULTS.md, 'winograd: U
 * prefetch'). */
typedef struct {
    const float *u;          /* the slice of one group at one point */
    int64_t floats;          /* its size */
    const int32_t *ent;      /* sparse: its entries (pz_wino_gemm_args), else NULL */
    int nent;
} wino_slice;

static void gemm_point(const pz_wino_isa *isa, const wino_slice *s, int64_t CB, int rm,
                       const float *Vx, float *Mx, int64_t nt, int64_t pf_next)
{
    pz_wino_gemm_args a = {
        .us_q = rm * 16, .us_cb = 16 * rm * 16, .vs_cb = nt * 16, .ms_mb = nt * 16,
        .ncb = (int)CB, .rm = rm, .ent = s->ent, .nent = s->nent,
    };
    a.u = s->u;
    const int64_t nsb = cdiv(nt, PZ_WINO_TB);
    const int64_t lines = s->floats / 16;   /* 64-byte lines of this slice */
    const int64_t qsteps = (s->ent ? s->nent : CB) * 16;
    a.pf_q = qsteps ? (int)cdiv(lines, nsb * qsteps) : 0;
    for (int64_t sb = 0; sb < nsb; sb++) {
        const int64_t j0 = sb * nt / nsb, j1 = (sb + 1) * nt / nsb;
        const int64_t l0 = lines * sb / nsb, l1 = lines * (sb + 1) / nsb;
        a.pf = pf_next ? a.u + pf_next + l0 * 16 : NULL;
        a.pf_n = pf_next ? l1 - l0 : 0;
        a.nt = (int)(j1 - j0);
        a.v = Vx + j0 * 16;
        a.m = Mx + j0 * 16;
        isa->gemm(&a);
    }
}

/* The offset in U (floats) of group g's slice of point xi. */
static int64_t u_slice(const pz_conv16c_desc *d, int64_t g, int xi)
{
    const int64_t CB = cdiv(d->c, 16), MB = cdiv(d->m, 16);
    const int64_t rm = min64(PZ_WINO_RM, MB - g * PZ_WINO_RM);
    return g * PZ_WINO_NPT * CB * 16 * PZ_WINO_RM * 16 + xi * CB * 16 * rm * 16;
}

/* 1 when group g of a sparse plan has no weight at all (no GEMM to run). */
static int group_empty(const pz_spwino_plan *sp, int64_t g)
{
    return sp && sp->e0[g + 1] == sp->e0[g];
}

/* Group g's slice of point xi: of the dense U at u, or of sp's. */
static wino_slice slice_of(const pz_conv16c_desc *d, const pz_spwino_plan *sp, const float *u,
                           int64_t g, int xi)
{
    if (!sp) {
        const int64_t CB = cdiv(d->c, 16), MB = cdiv(d->m, 16);
        const int64_t rm = min64(PZ_WINO_RM, MB - g * PZ_WINO_RM);
        return (wino_slice){u + u_slice(d, g, xi), CB * 16 * rm * 16, NULL, 0};
    }
    const int64_t f = (sp->uoff[g + 1] - sp->uoff[g]) / PZ_WINO_NPT;
    return (wino_slice){sp->u + sp->uoff[g] + xi * f, f, sp->ent + sp->e0[g],
                        (int)(sp->e0[g + 1] - sp->e0[g])};
}

/* The whole-image order (whole_image): this worker's groups [g0, g1) of
 * every image. V [36][CB][T][16]; M [36][blocks of g0..g1][T][16]. Each
 * output sums the same products in the same order as in the panel order:
 * the same bits. */
static void drive_whole(const pz_conv16c_desc *d, const pz_wino_isa *isa,
                        const pz_spwino_plan *sp, const float *restrict x, const float *restrict u,
                        const float *restrict b, const float *restrict z, float *restrict y,
                        float *restrict ws, int64_t toff, int64_t T, int ith, int nth)
{
    const int64_t CB = cdiv(d->c, 16), MB = cdiv(d->m, 16);
    const int64_t ngrp = cdiv(MB, PZ_WINO_RM);
    int64_t g0, g1;
    pz_split(ngrp, ith, nth, &g0, &g1);
    if (g1 <= g0) return;
    const int64_t mb0 = g0 * PZ_WINO_RM, nmb = min64(MB, g1 * PZ_WINO_RM) - mb0;
    float *V = ws, *Mw = V + whole_v(d->c, T), *P = Mw + whole_m(d->m, T, nth);
    const int64_t vs = CB * T * 16, ms = nmb * T * 16;   /* strides between points */
    for (int64_t n = 0; n < d->n; n++) {
        transform_tiles(d, isa, sp, x, n, toff, T, V, P);
        for (int xi = 0; xi < PZ_WINO_NPT; xi++)
            for (int64_t g = g0; g < g1; g++) {
                const int rm = (int)min64(PZ_WINO_RM, MB - g * PZ_WINO_RM);
                if (group_empty(sp, g)) continue;
                /* in a net U comes from memory: prefetch the slice that
                 * runs next, the next group's of this point or the first
                 * group's of the next point */
                const wino_slice s = slice_of(d, sp, u, g, xi);
                int64_t pf = 0;
                if (g + 1 < g1) pf = slice_of(d, sp, u, g + 1, xi).u - s.u;
                else if (xi + 1 < PZ_WINO_NPT) pf = slice_of(d, sp, u, g0, xi + 1).u - s.u;
                gemm_point(isa, &s, CB, rm, V + xi * vs,
                           Mw + xi * ms + (g * PZ_WINO_RM - mb0) * T * 16, T, pf);
            }
        for (int64_t g = g0; g < g1; g++) {
            const int rm = (int)min64(PZ_WINO_RM, MB - g * PZ_WINO_RM);
            finish_tiles(d, isa, group_empty(sp, g) ? NULL : Mw + (g * PZ_WINO_RM - mb0) * T * 16,
                         ms, b, z, y, n,
                         g * PZ_WINO_RM, rm, toff, T);
        }
    }
}

/* The panel order over tiles [toff, toff + T) of every image; V: this
 * worker's slice of the scratch (panel_floats). */
static void drive_panels(const pz_conv16c_desc *d, const pz_wino_isa *isa,
                         const pz_spwino_plan *sp, const float *restrict x, const float *restrict u,
                         const float *restrict b, const float *restrict z, float *restrict y,
                         float *restrict V, int64_t toff, int64_t T, int ith, int nth)
{
    const int64_t CB = cdiv(d->c, 16), MB = cdiv(d->m, 16), PT = panel_tiles(d);
    const int64_t npan = panels(d, T, PT, nth), ngrp = cdiv(MB, PZ_WINO_RM);
    float *Mb = V + (int64_t)PZ_WINO_NPT * CB * PT * 16;
    float *P = Mb + (int64_t)PZ_WINO_NPT * PZ_WINO_RM * PT * 16;

    /* units (image, panel, group of RM output blocks), groups fastest:
     * consecutive units of a worker share the transformed input */
    int64_t lo, hi, cached = -1;
    pz_split(d->n * npan * ngrp, ith, nth, &lo, &hi);
    for (int64_t unit = lo; unit < hi; unit++) {
        const int64_t g = unit % ngrp, k = unit / ngrp % npan, n = unit / (ngrp * npan);
        /* panel k: tiles [t0, t0 + nt), balanced over the panels */
        const int64_t t0 = toff + k * T / npan, nt = toff + (k + 1) * T / npan - t0;
        if (n * npan + k != cached) {
            transform_tiles(d, isa, sp, x, n, t0, nt, V, P);
            cached = n * npan + k;
        }
        const int64_t mb0 = g * PZ_WINO_RM;
        const int rm = (int)min64(PZ_WINO_RM, MB - mb0);
        const int64_t ms = (int64_t)rm * nt * 16;   /* M [36][rm][nt][16]: stride between points */
        /* In a net U comes from memory (each layer's is read once per panel,
         * and a net's weights outgrow the caches). So each point prefetches
         * the next slice of U into L2 (gemm_point): the next point's, or
         * after the last point the next group's first, when this worker's
         * next unit is that group. Without it a conv takes about the sum of
         * its FMA time and its memory time (bench/RESULTS.md, 'winograd: U
         * prefetch'). */
        const int pf_next = unit + 1 < hi && g + 1 < ngrp;
        for (int xi = 0; xi < PZ_WINO_NPT && !group_empty(sp, g); xi++) {
            const wino_slice s = slice_of(d, sp, u, g, xi);
            int64_t pf = 0;   /* the group's next slice, or the next group's first */
            if (xi + 1 < PZ_WINO_NPT) pf = s.floats;
            else if (pf_next) pf = slice_of(d, sp, u, g + 1, 0).u - s.u;
            gemm_point(isa, &s, CB, rm, V + xi * CB * nt * 16, Mb + xi * ms, nt, pf);
        }
        finish_tiles(d, isa, group_empty(sp, g) ? NULL : Mb, ms, b, z, y, n, mb0, rm, t0, nt);
    }
}

static void drive(const pz_conv16c_desc *d, const pz_wino_isa *isa, const pz_spwino_plan *sp,
                  const float *restrict x, const float *restrict u, const float *restrict b,
                  const float *restrict z, float *restrict y, float *restrict scratch, int ith,
                  int nth)
{
    const int64_t T = image_tiles(d), TW = cdiv(d->ow, PZ_WINO_TILE);
    if (d->r1 > 0) {
        /* output rows [r0, r1): the tile rows that cover them (r0 a multiple
         * of the tile: the tiles are the whole layer's), in the panel order;
         * each tile's sums do not depend on the panels: the same bits */
        const int64_t tr0 = d->r0 / PZ_WINO_TILE, tr1 = cdiv(min64(d->r1, d->oh), PZ_WINO_TILE);
        if (tr1 <= tr0) return;
        const int64_t Tr = (tr1 - tr0) * TW;
        float *ws = scratch + ith * rows_floats(d);
        /* the whole-image order where it pays for these tiles and fits the
         * slice (U read once instead of once per panel) */
        if (whole_order(d->c, d->m, Tr, nth) &&
            whole_v(d->c, Tr) + whole_m(d->m, Tr, nth) + 36 * 16 <= rows_floats(d))
            drive_whole(d, isa, sp, x, u, b, z, y, ws, tr0 * TW, Tr, ith, nth);
        else
            drive_panels(d, isa, sp, x, u, b, z, y, ws, tr0 * TW, Tr, ith, nth);
        return;
    }
    float *V = scratch + ith * worker_floats(d, nth);
    if (whole_image(d, nth)) {
        drive_whole(d, isa, sp, x, u, b, z, y, V, 0, T, ith, nth);
        return;
    }
    drive_panels(d, isa, sp, x, u, b, z, y, V, 0, T, ith, nth);
}

void pz_winograd_drive(const pz_conv16c_desc *d, const pz_wino_isa *isa,
                       const float *restrict x, const float *restrict u,
                       const float *restrict b, const float *restrict z, float *restrict y,
                       float *restrict scratch, int ith, int nth)
{
    drive(d, isa, NULL, x, u, b, z, y, scratch, ith, nth);
}

void pz_winograd_drive_sparse(const pz_spwino_plan *sp, int64_t n, const float *restrict x,
                              const float *restrict b, const float *restrict z,
                              float *restrict y, float *restrict scratch, int ith, int nth)
{
    pz_conv16c_desc d = sp->d;   /* the run's images: the work splits by image, */
    d.n = n;                     /* the scratch does not depend on them */
    drive(&d, sp->isa, sp, x, sp->u, b, z, y, scratch, ith, nth);
}

pz_winograd_fn pz_winograd_kernel_for(pz_isa isa)
{
    return pz_fast_kernels_for(isa)->winograd;
}
