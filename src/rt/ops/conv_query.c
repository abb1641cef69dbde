/* conv_query.c - which kernel a CONV layer runs (pz_conv_query, rt/rows.h):
 * the one rule that ops/conv.c's prepare takes and the compiler asks (the
 * halo count, Winograd's eligibility). The paths are described at the top
 * of ops/conv.c. */
#include <string.h>

#include "rt/kernels/fast.h"
#include "rt/kernels/conv/conv8x2.h"
#include "rt/kernels/conv/conv_frames.h"
#include "rt/kernels/conv/conv_im2col.h"
#include "rt/kernels/conv/spconv16c.h"
#include "rt/kernels/conv/winograd.h"
#include "rt/kernels/dwconv/dwconvk16c.h"
#include "rt/ops/ops.h"
#include "rt/rows.h"

/* The per-layer algorithm (pz_conv_params.algo, the optimizer's knob):
 * DIRECT never, WINOGRAD wherever F(4x4, 3x3) applies (3x3, stride 1,
 * dilation 1, group 1, AVX-512), AUTO by pz_winograd_pays (winograd.h), a
 * cost model also the optimizer's rule (src/opt/algo.c). The choice is the
 * same for every MP, so schedules do not change which kernel a layer uses.
 * The run options' winograd 0/1 (PZ_WINOGRAD) overrides every layer
 * (for benchmarks). */
int pz_conv_winograd_applies(const pz_conv16c_desc *d, pz_isa isa)
{
    /* Winograd's output transform has no channel for PRELU's slopes */
    return isa == PZ_ISA_AVX512 && d->act.kind != PZ_ACT_PRELU && pz_winograd_ok(d);
}

static bool use_winograd(const pz_conv16c_desc *d, pz_conv_algo algo, pz_isa isa,
                         const pz_run_options *o)
{
    if (!pz_conv_winograd_applies(d, isa)) return false;
    if (o->winograd == 0 || o->winograd == 1) return o->winograd == 1;
    if (algo != PZ_CONV_AUTO) return algo == PZ_CONV_WINOGRAD;
    return pz_winograd_pays(d->c, d->m, d->oh, d->ow);
}

/* Super-groups of more than this many groups waste too many MACs (k times
 * the groups' own): those convs stay on the reference kernel. */
#define GROUP_MAX_K 4

/* Groups per super-group of a GROUPED conv (see the top), 0 when no
 * super-group of at most GROUP_MAX_K groups fills whole blocks. */
int64_t pz_conv_grouped_k(const pz_conv_params *p, const int64_t *xdims, const int64_t *ydims)
{
    int64_t G = p->group, cg = xdims[1] / G, mg = ydims[1] / G, kg = 1;
    while (kg <= GROUP_MAX_K && ((kg * cg) % 16 || (kg * mg) % 16)) kg++;
    if (kg > GROUP_MAX_K) return 0;
    return kg > G ? G : kg;   /* G: one super-group of all groups (C or M under 16) */
}

pz_conv_path pz_conv_query_make(const pz_conv_params *p, int rank, const int64_t *xd,
                                const int64_t *yd, int x_blocked, int w_const, pz_isa isa,
                                pz_conv_query *q)
{
    return pz_conv_query_opts(p, rank, xd, yd, x_blocked, w_const, isa, NULL, q);
}

pz_conv_path pz_conv_query_opts(const pz_conv_params *p, int rank, const int64_t *xd,
                                const int64_t *yd, int x_blocked, int w_const, pz_isa isa,
                                const pz_run_options *opts, pz_conv_query *q)
{
    static const pz_run_options defaults = PZ_RUN_OPTIONS_DEFAULT;
    const pz_run_options *o = opts ? opts : &defaults;
    memset(q, 0, sizeof *q);
    q->path = PZ_CONV_PATH_REF;
    q->kernel = "reference";
    int64_t nx = 1, ny = 1;
    for (int j = 0; j < rank; j++) nx *= xd[j], ny *= yd[j];
    /* the fast kernels need the weights (and bias) at compile, to pack them */
    if (isa == PZ_ISA_REF || !w_const || nx == 0 || ny == 0) return q->path;
    if (rank != 4) {
        if (pz_conv_frames_takes(p, rank, xd, yd)) {
            q->path = PZ_CONV_PATH_FRAMES;
            q->kernel = pz_conv_im2col_takes(p, rank, xd, yd)    ? "im2col gemm"
                        : p->group == 1                        ? "direct frames"
                        : p->group == xd[1] && yd[1] == xd[1] ? "depthwise frames"
                                                              : "grouped frames";
        }
        return q->path;
    }
    pz_conv16c_desc d, flat;
    if (pz_conv16c_init(&d, p, xd, yd) == 0) {
        /* a blocked input is read as it is, even with few channels */
        if (x_blocked) d.cblk = 16;
        q->d = d;
        q->winograd_applies = pz_conv_winograd_applies(&d, isa);
        /* the 8x2 kernels' epilogue is a clamp */
        const int clamp = pz_act_is_clamp(p->act.kind);
        if (p->sparsity != 0 && pz_spconv_ok(&d)) {
            q->path = PZ_CONV_PATH_SPARSE;     /* no row ranges: scratch per layer */
            q->kernel = "sparse";
        } else if (use_winograd(&d, p->algo, isa, o)) {
            q->path = PZ_CONV_PATH_WINOGRAD;   /* row ranges: whole tile rows */
            q->kernel = "winograd";
            q->row_step = PZ_WINO_TILE;
        } else if (o->conv8x2 && clamp && pz_conv8x2_pick(&d, isa)) {
            q->path = PZ_CONV_PATH_DIRECT8X2;  /* pixels [r0*W, r1*W): any row */
            q->kernel = "direct 8x2";
            q->row_step = 1;
        } else {
            /* a strided 1x1 subsamples in whole-layer runs only; row ranges
             * keep the strided conv2d */
            int sub = o->subsample && pz_conv16c_subsample_plan(&d, &flat);
            q->path = sub ? PZ_CONV_PATH_DIRECT_SUB : PZ_CONV_PATH_DIRECT;
            q->kernel = sub ? "direct sub" : "direct";
            q->row_step = pz_conv16c_row_step(&d, isa);
        }
    } else if (pz_dwconv16c_init(&d, p, xd, yd) == 0) {
        q->path = PZ_CONV_PATH_DW;
        q->kernel = "depthwise";
        q->row_step = 1;
        q->d = d;
    } else if (pz_dwconvk16c_init(&d, p, xd, yd) == 0) {
        q->path = PZ_CONV_PATH_DWK;
        q->kernel = "depthwise kxk";
        q->d = d;
    } else if (p->group > 1 && p->nsp == 2 && pz_conv_grouped_k(p, xd, yd)) {
        q->path = PZ_CONV_PATH_GROUPED;
        q->kernel = "grouped";
    }
    return q->path;
}

