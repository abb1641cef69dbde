/* conv.c - the CONV layer: X, W, B?, Z?, S? -> Y = act(conv(X, W) + B + Z),
 * S the M slopes of a PRELU act (constant). */
#include "rt/kernels/fast.h"
#include "rt/kernels/conv/conv16c_bf16.h"
#include "rt/kernels/conv/conv8x2.h"
#include "rt/kernels/conv/conv_frames.h"
#include "rt/kernels/dwconv/dwconvk16c.h"
#include "rt/kernels/conv/spconv16c.h"
#include "rt/kernels/conv/winograd.h"
#include "rt/ops/mask_out.h"
#include "rt/ops/ops.h"
#include "rt/rows.h"

/* The kernel chosen at compile time (prepare), fastest first:
 *   FAST     2-D, group 1, W constant: pz_fast conv2d on NCHWxc in, NCHW16c
 *            out, weights and bias packed here (any kernel, stride, pads);
 *            on AVX-512, a 1x1 conv to 8 mod 16 channels (MobileNetV2's
 *            24) takes conv8x2.h's kernel instead, which the same calls
 *            run (its own packing): no idle lanes (PZ_CONV8X2=0 in the
 *            environment keeps conv2d);
 *   DW       depthwise 3x3 (group == C == M): dwconv3x3 on NCHW16c;
 *   DWK      depthwise of any other kernel (5x5, dilated): dwconvk16c.h;
 *   GROUPED  2-D, 1 < group, not depthwise 3x3: conv2d once per (image,
 *            super-group) on that super-group's run of 16-channel blocks. A
 *            super-group is the fewest consecutive groups (k) whose input
 *            and output channels both fill whole blocks (k = 1 when C/G and
 *            M/G are multiples of 16; 2 for RegNet's 8 channels per group)
 *            and its weights are block-diagonal, zero between its groups:
 *            k times the MACs the groups need, at the direct conv's speed
 *            (k <= GROUP_MAX_K; the last super-group may hold fewer groups);
 *   WINO     3x3 stride 1 (a FAST conv) where Winograd F(4x4, 3x3) pays:
 *            enough output tiles and not too many weights (see use_winograd);
 *            the run options' winograd = 0 (PZ_WINOGRAD=0) keeps every
 *            layer direct, 1 takes Winograd wherever it applies;
 *   SPARSE   the sparsity knob set (pz_conv_params.sparsity != 0) on a 2-D
 *            group-1 conv over 16-channel blocks: spconv16c.h skips the
 *            all-zero 16x16 weight blocks (before any other choice); with
 *            algo SPARSE_WINOGRAD where Winograd applies (or the run
 *            options' winograd = 1), the sparse Winograd (winograd.h,
 *            pz_spwino_plan) skips the all-zero 16x16x9 blocks instead;
 *   FRAMES   1-D and 3-D: conv_frames.h, a conv2d per output frame (depthwise:
 *            a 2-D call per frame and tap; 1-D over 64 taps: conv_im2col.h);
 *   REF      the reference kernel on plain NCHW (everything else, and
 *            the ISA capped to ref).
 * In a bf16 block (l->prec), FAST (not conv8x2) and WINO take their bf16
 * kernels (conv16c_bf16.h: weights in bf16, fp32 sums), at any ISA, where
 * pz_conv16c_bf16_ok holds for FAST; the others stay fp32.
 * The residual Z and the activation go into the kernel's epilogue. A bool
 * Y (a fused comparison, mask_out.h): FAST, WINO, DW, DWK and GROUPED
 * without Z in tiles of rows (conv_run_window), REF and FRAMES through a
 * whole float copy (mask_init). The choice is pz_conv_query_make
 * (rt/rows.h), which prepare takes and the compiler asks (the halo count,
 * Winograd's eligibility): one rule. */
typedef void (*conv_fn)(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                        const float *x, const float *w, const float *b, const float *z,
                        float *y, int ith, int nth);
typedef enum {
    CONV_REF, CONV_FAST, CONV_DW, CONV_DWK, CONV_GROUPED, CONV_WINO, CONV_SPARSE, CONV_SPWINO,
    CONV_FRAMES
} conv_path;
typedef struct {
    conv_path path;
    conv_fn ref;
    pz_conv16c_fn fast;          /* conv2d or dwconv3x3 of the chosen ISA */
    pz_winograd_fn wino;         /* WINO */
    pz_spconv_plan *sp;          /* SPARSE */
    pz_spwino_plan *spw;         /* SPWINO */
    pz_conv_frames *fr;          /* FRAMES */
    pz_conv16c_desc d;           /* GROUPED: one full super-group of one image */
    pz_conv16c_desc flat;        /* FAST with sub: the stride-1 conv over the subsample */
    int sub;                     /* FAST: a strided 1x1 run as subsample + flat conv */
    int row_step;                /* row ranges in units of this many rows; 0: none
                                  * (pz_conv_query_make: the rule fuse.c and the
                                  * compiler's halo count read) */
    pz_conv16c_desc d_last;      /* GROUPED: the last super-group (fewer groups, or d) */
    float *wp, *bp;              /* packed weights and bias (64-byte aligned) */
    float *slope;                /* PRELU: the M slopes (the act copies point here) */
    int64_t groups;              /* GROUPED: super-groups */
    int64_t wp_group;            /* GROUPED: floats of packed weights per super-group */
    int64_t x_group, y_group;    /* GROUPED: floats of one super-group's blocks in X, Y */
    int64_t x_image, y_image;    /* GROUPED: floats of one image in X, Y */
    pz_mask_out *mask;           /* a bool Y (mask_out.h), or NULL */
    int64_t mask_rows;           /* its tiles' output rows (0: a whole float copy) */
    int64_t mask_gran;           /* their windows start at multiples of this many rows */
    size_t mask_scratch;         /* WINO: bytes of one worker's rows scratch */
    char kname[48];              /* the kernel's name with the bool's way */
    int64_t xplan[PZ_MAX_RANK];  /* X's dims at prepare (a dynamic region: N may be less) */
} conv_state;

static int choose_fast(pz_layer *l, conv_state *st, pz_isa isa);
static int mask_init(pz_layer *l, conv_state *st);

static int conv_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *b = pz_in(l, 2), *z = pz_in(l, 3);
    const pz_tensor *y = pz_out(l, 0);
    if (!x || !w || !y) return pz_layer_fail(l, err, n, "needs X, W and Y");
    const pz_conv_params *p = l->params;
    if (p->act.kind < PZ_ACT_NONE || p->act.kind >= PZ_ACT_COUNT_)
        return pz_layer_fail(l, err, n, "activation %d is not fused into a conv", (int)p->act.kind);
    /* the sparse kernels' epilogue is a clamp */
    if (p->sparsity != 0 && !pz_act_is_clamp(p->act.kind))
        return pz_layer_fail(l, err, n, "the sparsity knob with activation %d: the sparse "
                             "kernels fuse only Relu and Clip", (int)p->act.kind);
    const int mask = pz_mask_out_check(l, &p->act, y->rank >= 2 ? y->dims[1] : 0, err, n);
    if (mask < 0) return 1;
    if (pz_layer_want_dtype(l, err, n, "X", x, PZ_F32) ||
        pz_layer_want_dtype(l, err, n, "W", w, PZ_F32) ||
        (!mask && pz_layer_want_dtype(l, err, n, "Y", y, PZ_F32)) ||
        (b && pz_layer_want_dtype(l, err, n, "B", b, PZ_F32)) ||
        (z && pz_layer_want_dtype(l, err, n, "Z", z, PZ_F32)))
        return 1;
    if (pz_conv_check_geometry(l, err, n, false)) return 1;
    if (b && pz_numel(b) != y->dims[1])
        return pz_layer_fail(l, err, n, "B has %lld elements, expected %lld",
                             (long long)pz_numel(b), (long long)y->dims[1]);
    if (z && pz_layer_want_same_shape(l, err, n, "Z", z, y)) return 1;
    const pz_tensor *s = pz_in(l, 4);
    if (p->act.kind == PZ_ACT_PRELU &&
        (!s || s->dtype != PZ_F32 || !s->data || pz_numel(s) != y->dims[1]))
        return pz_layer_fail(l, err, n, "PRELU needs input 4: %lld constant float32 slopes",
                             (long long)y->dims[1]);

    conv_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    st->path = CONV_REF;
    st->ref = pz_f32_conv__ref;
    memcpy(st->xplan, x->dims, sizeof st->xplan);
    l->kernel = "reference";
    pz_isa isa = l->isa;
    /* the fast kernels need the weights (and bias) at compile, to pack them;
     * in a dynamic region, planned sizes (a run-time allocated input has
     * neither scratch nor layout conversions: check_rt_alloc) */
    if (isa != PZ_ISA_REF && w->data && (!b || b->data) && !l->rt_alloc &&
        choose_fast(l, st, isa))
        return pz_layer_fail(l, err, n, "out of memory (packed weights)");
    if (p->act.kind == PZ_ACT_PRELU) {   /* every descriptor's act reads them */
        size_t bytes = (size_t)y->dims[1] * sizeof(float);
        if (!(st->slope = malloc(bytes ? bytes : 1))) return pz_layer_fail(l, err, n, "out of memory");
        memcpy(st->slope, s->data, bytes);
        st->d.act.slope = st->flat.act.slope = st->d_last.act.slope = st->slope;
        if (st->fr) st->fr->d.act.slope = st->slope;
    }
    if (mask && mask_init(l, st)) return pz_layer_fail(l, err, n, "out of memory (bool output)");
    return 0;
}

/* A bool Y, plain: FAST, WINO, DW, DWK and GROUPED (no Z, rank 4) in tiles
 * of rows, the most whose NCHW16c floats fit PZ_MASK_TILE_BYTES, whole
 * multiples of the kernel's row step (Winograd's 4-row tiles, the conv2d's
 * row pairs), each a row window of conv_run_window (the same sums as a
 * whole-layer run, so the same bits; Winograd takes a rows scratch per
 * worker). A float copy, whole: REF and FRAMES (plain, no row windows),
 * SPARSE and SPWINO (never: their epilogue is a clamp). Returns 1 when out
 * of memory. */
static int mask_init(pz_layer *l, conv_state *st)
{
    const pz_tensor *y = pz_out(l, 0);
    const conv_path pa = st->path;
    int64_t gran = st->row_step > 1 ? st->row_step : 1, rows = 0;
    /* NCHW16c floats of one output row of every image and block */
    const int64_t plane =
        y->dims[0] * ((y->dims[1] + 15) / 16) * 16 * (y->rank == 4 ? y->dims[3] : 1);
    if (pa == CONV_GROUPED) {   /* both descriptors' pairs start at even rows */
        const int a = pz_conv16c_row_step(&st->d, l->isa);
        const int b = pz_conv16c_row_step(&st->d_last, l->isa);
        gran = a > b ? a : b;
    }
    if ((pa == CONV_FAST || pa == CONV_WINO || pa == CONV_DW || pa == CONV_DWK ||
         pa == CONV_GROUPED) && !pz_in(l, 3) && y->rank == 4 && y->dims[2] > 0 && !l->dyn) {
        const int64_t most = (y->dims[2] + gran - 1) / gran * gran;
        rows = (int64_t)(PZ_MASK_TILE_BYTES / sizeof(float)) / (plane ? plane : 1) / gran * gran;
        rows = rows < gran ? gran : rows > most ? most : rows;
    }
    const int64_t whole = pa == CONV_REF || pa == CONV_FRAMES ? pz_numel(y) : plane * y->dims[2];
    /* the fast kernels leave out the act: SELECT with both branches 1 y
     * gives y's bits, and a pass less (the store compares) */
    st->d.act.kind = st->flat.act.kind = st->d_last.act.kind = PZ_ACT_NONE;
    if (st->fr) st->fr->d.act.kind = PZ_ACT_NONE;
    st->mask_rows = rows;
    st->mask_gran = gran;
    st->mask = pz_mask_out_new(l, &((const pz_conv_params *)l->params)->act, y->dims[1],
                               rows * plane, rows ? 0 : whole);
    if (rows && pa == CONV_WINO) {   /* run_window's scratch, one per worker */
        st->mask_scratch = (l->row_scratch_bytes + PZ_ALIGN - 1) / PZ_ALIGN * PZ_ALIGN;
        l->scratch_bytes = st->mask_scratch * (size_t)(l->nth > 1 ? l->nth : 1);
    }
    snprintf(st->kname, sizeof st->kname, "%s%s", l->kernel ? l->kernel : "reference",
             rows ? ", bool tiles" : ", bool from a float copy");
    l->kernel = st->kname;
    l->out_cblk[0] = 0;
    return !st->mask;
}

static float *alloc_floats(const pz_layer *l, int64_t count)
{
    size_t bytes = ((size_t)(count > 0 ? count : 1) * sizeof(float) + 63) / 64 * 64;
    return pz_alloc_big(bytes, l->opts->hugepages);
}

/* The GROUPED path (see the top): sets st->path to CONV_GROUPED, the
 * descriptors, strides and packed weights and bias, when a super-group of at
 * most GROUP_MAX_K groups exists. Returns 1 only when out of memory. */
static int grouped_init(const pz_layer *l, conv_state *st, const pz_conv_params *p,
                        const int64_t *xdims, const int64_t *ydims, const float *w,
                        const float *bias)
{
    int64_t G = p->group, cg = xdims[1] / G, mg = ydims[1] / G, K = (int64_t)p->kernel[0] * p->kernel[1];
    int64_t kg = pz_conv_grouped_k(p, xdims, ydims);
    if (!kg) return 0;
    int64_t nsg = (G + kg - 1) / kg, last = G - (nsg - 1) * kg;
    /* one super-group of one image is a group-1 conv of kg*cg -> kg*mg
     * channels, reading 16-channel blocks (the last one's may be partial) */
    pz_conv_params pg = *p;
    pg.group = 1;
    int64_t xd[4] = {1, kg * cg, xdims[2], xdims[3]}, yd[4] = {1, kg * mg, ydims[2], ydims[3]};
    int64_t xl[4] = {1, last * cg, xdims[2], xdims[3]}, yl[4] = {1, last * mg, ydims[2], ydims[3]};
    if (pz_conv16c_init(&st->d, &pg, xd, yd) || pz_conv16c_init(&st->d_last, &pg, xl, yl))
        return 0;
    st->d.cblk = st->d_last.cblk = 16;   /* the input is blocked whatever its channels */
    st->groups = nsg;
    st->wp_group = pz_conv16c_weights_size(&st->d);
    st->x_group = kg * cg * xdims[2] * xdims[3];   /* whole blocks of H*W*16 */
    st->y_group = kg * mg * ydims[2] * ydims[3];
    st->x_image = (xdims[1] + 15) / 16 * 16 * xdims[2] * xdims[3];
    st->y_image = (ydims[1] + 15) / 16 * 16 * ydims[2] * ydims[3];
    st->wp = alloc_floats(l, st->wp_group * nsg);
    st->bp = alloc_floats(l, pz_pack_bias16_size(ydims[1]));
    /* a super-group's dense weights: block-diagonal, zero between groups */
    float *dense = calloc((size_t)(kg * mg * kg * cg * K), sizeof(float));
    if (!st->wp || !st->bp || !dense) {
        free(dense);
        return 1;
    }
    for (int64_t sg = 0; sg < nsg; sg++) {
        int64_t ng = sg + 1 < nsg ? kg : last, sc = ng * cg;
        memset(dense, 0, (size_t)(kg * mg * kg * cg * K) * sizeof(float));
        for (int64_t gi = 0; gi < ng; gi++)
            for (int64_t o = 0; o < mg; o++)
                memcpy(dense + ((gi * mg + o) * sc + gi * cg) * K,
                       w + ((sg * kg + gi) * mg + o) * cg * K, (size_t)(cg * K) * sizeof(float));
        pz_conv16c_pack_weights(sg + 1 < nsg ? &st->d : &st->d_last, dense,
                                st->wp + sg * st->wp_group);
    }
    free(dense);
    pz_pack_bias16(ydims[1], bias, st->bp);
    st->path = CONV_GROUPED;
    return 0;
}

/* The sparse path's algorithm: Winograd where the layer's algo asks for
 * it (the optimizer's rule, pz_spwino_pays, with the pruned weights) and
 * Winograd applies; the run options' winograd 0/1 override every layer. */
static bool use_spwino(const pz_conv16c_desc *d, pz_conv_algo algo, pz_isa isa,
                       const pz_run_options *o)
{
    if (!pz_conv_winograd_applies(d, isa)) return false;
    if (o->winograd == 0 || o->winograd == 1) return o->winograd == 1;
    return algo == PZ_CONV_SPARSE_WINOGRAD;
}

static int spwino_init(pz_layer *l, conv_state *st, const pz_conv16c_desc *d, const float *w,
                       const float *bias)
{
    st->spw = calloc(1, sizeof *st->spw);
    st->bp = alloc_floats(l, pz_pack_bias16_size(d->m));
    if (!st->spw || !st->bp || pz_spwino_plan_make(st->spw, d, w, l->isa)) return 1;
    pz_pack_bias16(d->m, bias, st->bp);
    st->path = CONV_SPWINO;
    st->d = *d;
    l->kernel = "sparse winograd";
    l->packed_in |= 1u << 1;
    l->scratch_bytes = (size_t)pz_winograd_scratch_size(d, l->nth) * sizeof(float);
    l->scratch_run_only = 1;
    l->in_cblk[0] = 16;
    if (pz_in(l, 3)) l->in_cblk[3] = 16;
    l->out_cblk[0] = 16;
    return 0;
}

/* Takes the fast path pz_conv_query_make chooses: packs, and sets the
 * layouts the kernel reads and writes. Returns 1 only when out of memory
 * (a shape no fast kernel takes leaves the reference path). */
static int choose_fast(pz_layer *l, conv_state *st, pz_isa isa)
{
    const pz_conv_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *b = pz_in(l, 2), *z = pz_in(l, 3);
    const pz_tensor *y = pz_out(l, 0);
    const pz_fast_kernels *k = pz_fast_kernels_for(isa);
    const float *bias = b ? b->data : NULL;
    pz_conv_query q;
    pz_conv16c_desc d;
    /* a dynamic region: every path's work follows the run's N (conv_exec),
     * its scratch and plan sized for the planned N, a bound */
    pz_conv_query_opts(p, x->rank, x->dims, y->dims, l->in_have[0] == 16, 1, isa, l->opts, &q);
    d = q.d;
    st->row_step = q.row_step;
    switch (q.path) {
    case PZ_CONV_PATH_REF:
        return 0;
    case PZ_CONV_PATH_FRAMES:   /* 1-D, 3-D: plain in and out */
        if (pz_conv_frames_make(&st->fr, p, x->rank, x->dims, y->dims, w->data, bias, isa,
                                l->opts->hugepages))
            return 1;
        st->path = CONV_FRAMES;
        l->kernel = q.kernel;
        l->packed_in |= 1u << 1;
        l->scratch_bytes = pz_conv_frames_scratch_bytes(st->fr, z != NULL);
        l->scratch_run_only = 1;
        return 0;
    case PZ_CONV_PATH_SPARSE:
        if (use_spwino(&d, p->algo, isa, l->opts)) return spwino_init(l, st, &d, w->data, bias);
        st->sp = calloc(1, sizeof *st->sp);
        st->bp = alloc_floats(l, pz_pack_bias16_size(d.m));
        if (!st->sp || !st->bp || pz_spconv_plan_make(st->sp, &d, w->data, isa)) return 1;
        pz_pack_bias16(d.m, bias, st->bp);
        st->path = CONV_SPARSE;
        l->kernel = q.kernel;
        l->packed_in |= 1u << 1;
        l->scratch_bytes = (size_t)(pz_spconv_scratch_size(st->sp) * (l->nth < 1 ? 1 : l->nth)) *
                           sizeof(float);
        l->scratch_run_only = 1;
        st->d = d;
        l->in_cblk[0] = 16;
        if (z) l->in_cblk[3] = 16;
        l->out_cblk[0] = 16;
        return 0;
    case PZ_CONV_PATH_WINOGRAD:
        st->wp = alloc_floats(l, pz_winograd_weights_size(&d));
        st->bp = alloc_floats(l, pz_pack_bias16_size(d.m));
        if (!st->wp || !st->bp) return 1;
        pz_winograd_pack_weights(&d, w->data, st->wp);
        pz_pack_bias16(d.m, bias, st->bp);
        st->path = CONV_WINO;
        l->kernel = q.kernel;
        l->packed_in |= 1u << 1;
        st->wino = pz_winograd_kernel_for(isa);
        if (l->prec == PZ_PREC_BF16) {
            pz_winograd_bf16_convert(&d, st->wp);
            st->wino = pz_winograd_bf16_for(isa);
            l->kernel = "winograd bf16";
        }
        l->scratch_bytes = (size_t)pz_winograd_scratch_size(&d, l->nth) * sizeof(float);
        /* row ranges (fused runs) take a scratch of their own per worker */
        l->scratch_run_only = 1;
        l->row_scratch_bytes = (size_t)pz_winograd_rows_scratch_size(&d, 1) * sizeof(float);
        l->row_scratch_row = (size_t)pz_winograd_rows_scratch_per_row(&d) * sizeof(float);
        l->row_weight_bytes = (size_t)pz_winograd_weights_size(&d) * sizeof(float);
        st->d = d;
        l->in_cblk[0] = 16;
        if (z) l->in_cblk[3] = 16;
        l->out_cblk[0] = 16;
        return 0;
    case PZ_CONV_PATH_DIRECT:
    case PZ_CONV_PATH_DIRECT8X2:
    case PZ_CONV_PATH_DIRECT_SUB: {
        bool by8 = q.path == PZ_CONV_PATH_DIRECT8X2;
        st->wp = alloc_floats(l, by8 ? pz_conv8x2_weights_size(&d) : pz_conv16c_weights_size(&d));
        st->bp = alloc_floats(l, pz_pack_bias16_size(d.m));
        if (!st->wp || !st->bp) return 1;
        if (by8) pz_conv8x2_pack_weights(&d, w->data, st->wp);
        else pz_conv16c_pack_weights(&d, w->data, st->wp);
        pz_pack_bias16(d.m, bias, st->bp);
        st->path = CONV_FAST;
        st->fast = by8 ? pz_conv8x2_pick(&d, isa) : k->conv2d;
        l->kernel = q.kernel;
        l->packed_in |= 1u << 1;
        /* a strided 1x1 conv: whole-layer runs subsample the input into
         * each worker's scratch and run the flat conv over it; row ranges
         * (fused runs) keep the strided conv, with the same bits */
        if (q.path == PZ_CONV_PATH_DIRECT_SUB) {
            pz_conv16c_subsample_plan(&d, &st->flat);
            st->sub = 1;
            /* each worker's scratch: the subsampled input */
            l->scratch_bytes =
                (size_t)(pz_subsample16c_size(&d) * (l->nth < 1 ? 1 : l->nth)) * sizeof(float);
            l->scratch_run_only = 1;
        }
        if (l->prec == PZ_PREC_BF16 && !by8 && pz_conv16c_bf16_ok(&d) &&
            (!st->sub || pz_conv16c_bf16_ok(&st->flat))) {
            pz_conv16c_bf16_convert(&d, st->wp);
            st->fast = pz_conv16c_bf16_for(isa);
            l->kernel = st->sub ? "direct sub bf16" : "direct bf16";
        }
        break;
    }
    case PZ_CONV_PATH_DW:
        st->wp = alloc_floats(l, pz_dw16c_weights_size(d.c));
        st->bp = alloc_floats(l, pz_pack_bias16_size(d.m));
        if (!st->wp || !st->bp) return 1;
        pz_dw16c_pack_weights(d.c, w->data, st->wp);
        pz_pack_bias16(d.m, bias, st->bp);
        st->path = CONV_DW;
        l->kernel = q.kernel;
        l->packed_in |= 1u << 1;
        st->fast = k->dwconv3x3;
        break;
    case PZ_CONV_PATH_DWK:
        st->wp = alloc_floats(l, pz_dwk16c_weights_size(&d));
        st->bp = alloc_floats(l, pz_pack_bias16_size(d.m));
        if (!st->wp || !st->bp) return 1;
        pz_dwk16c_pack_weights(&d, w->data, st->wp);
        pz_pack_bias16(d.m, bias, st->bp);
        st->path = CONV_DWK;
        l->kernel = q.kernel;
        l->packed_in |= 1u << 1;
        st->fast = pz_dwconvk16c_kernel_for(isa);
        break;
    case PZ_CONV_PATH_GROUPED:
        if (grouped_init(l, st, p, x->dims, y->dims, w->data, bias)) return 1;
        if (st->path != CONV_GROUPED) return 0;
        l->kernel = q.kernel;
        l->packed_in |= 1u << 1;
        st->fast = k->conv2d;
        d = st->d;
        break;
    }
    st->d = d;
    l->in_cblk[0] = st->path == CONV_FAST ? d.cblk : 16;
    if (z) l->in_cblk[3] = 16;
    l->out_cblk[0] = 16;
    return 0;
}

static void conv_release(pz_layer *l)
{
    conv_state *st = l->state;
    free(st->wp);
    free(st->bp);
    free(st->slope);
    pz_mask_out_free(st->mask);
    if (st->sp) pz_spconv_plan_free(st->sp);
    free(st->sp);
    if (st->spw) pz_spwino_plan_free(st->spw);
    free(st->spw);
    pz_conv_frames_free(st->fr);
}

bool pz_conv_reads_whole(const pz_layer *l)
{
    const conv_state *st = l->kind == PZ_OP_CONV ? l->state : NULL;
    return st && !st->sub && (st->path == CONV_FAST || st->path == CONV_DW || st->path == CONV_DWK);
}

/* The chosen path over X x into y (Y, or a bool Y's float copy). */
static void conv_exec(const pz_layer *l, const conv_state *st, const float *x, float *y, int ith,
                      int nth)
{
    const pz_tensor *b = pz_in(l, 2), *z = pz_in(l, 3);
    const float *zd = z ? z->data : NULL;
    /* the run's images (a dynamic region's N, at most the plan's) */
    pz_conv16c_desc d = st->d, flat = st->flat;
    d.n = flat.n = l->in[0]->dims[0];
    switch (st->path) {
    case CONV_FAST:
    case CONV_DW:
    case CONV_DWK:
        if (st->sub) {   /* FAST only: the subsample, then the flat conv over it */
            float *xs = (float *)l->scratch + ith * pz_subsample16c_size(&st->d);
            pz_subsample16c(&d, x, xs);
            st->fast(&flat, xs, st->wp, st->bp, zd, y, ith, nth);
        } else {
            st->fast(&d, x, st->wp, st->bp, zd, y, ith, nth);
        }
        break;
    case CONV_WINO:
        st->wino(&d, x, st->wp, st->bp, zd, y, l->scratch, ith, nth);
        break;
    case CONV_SPWINO:
        pz_spwino_run(st->spw, d.n, x, st->bp, zd, y, l->scratch, ith, nth);
        break;
    case CONV_FRAMES:
        pz_conv_frames_run(st->fr, d.n, x, zd, y, l->scratch, ith, nth);
        break;
    case CONV_SPARSE:
        pz_spconv_run(st->sp, d.n, x, st->bp, zd, y,
                      (float *)l->scratch + ith * pz_spconv_scratch_size(st->sp), ith, nth);
        break;
    case CONV_GROUPED:
        /* each call splits its rows over the workers; calls follow each
         * other, so every worker is in the same call at once */
        for (int64_t i = 0; i < l->out[0]->dims[0]; i++)
            for (int64_t g = 0; g < st->groups; g++) {
                int64_t yo = i * st->y_image + g * st->y_group;
                pz_conv16c_desc dg = g + 1 < st->groups ? st->d : st->d_last;
                if (st->slope) dg.act.slope = st->slope + g * st->d.m;   /* as the bias */
                st->fast(&dg,
                         x + i * st->x_image + g * st->x_group, st->wp + g * st->wp_group,
                         st->bp + g * st->d.m, zd ? zd + yo : NULL, y + yo, ith, nth);
            }
        break;
    default: {
        pz_conv_params pr = *(const pz_conv_params *)l->params;
        pr.act.slope = st->slope;
        st->ref(&pr, l->in[0]->dims, l->out[0]->dims, x, l->in[1]->data,
                b ? b->data : NULL, zd, y, ith, nth);
        break;
    }
    }
}

static void conv_run(const pz_layer *l, int ith, int nth)
{
    const conv_state *st = l->state;
    const float *x = l->in[0]->data;
    if (l->x_gather) {   /* its input gathered into this worker's scratch (inplace.c) */
        float *xs = (float *)((char *)l->scratch + (size_t)ith * (l->scratch_bytes / (size_t)(l->nth > 1 ? l->nth : 1)));
        pz_chg_run_into(l->x_gather, xs);
        x = xs;
    }
    if (!st->mask) {
        conv_exec(l, st, x, l->out[0]->data, ith, nth);
        return;
    }
    if (st->mask_rows) {
        pz_mask_conv_tiles(st->mask, l, x, st->mask_rows, st->mask_gran, l->scratch,
                           st->mask_scratch, ith, nth);
        return;
    }
    /* a whole float copy, then each worker's share of rows (or elements) */
    conv_exec(l, st, x, st->mask->buf, ith, nth);
    const pz_tensor *y = l->out[0];
    const int64_t m = y->dims[1], inner = m && y->dims[0] ? pz_numel(y) / y->dims[0] / m : 1;
    pz_mask_whole_store(st->mask, y, st->path != CONV_REF && st->path != CONV_FRAMES, inner, m,
                        ith, nth);
}

/* Row ranges (fused F-Blocks): FAST through the kernel's row window (pairs of
 * rows stay pairs where the kernel uses two-row tiles: granularity 2), DW one 16-channel
 * block of one image at a time as a conv of r1 - r0 output rows over the
 * input rows from the first one they read (the same taps, so the same bits);
 * WINO by whole rows of its 4x4 tiles (granularity 4), the tiles of the
 * whole layer (the same sums, so the same bits). */
static int conv_rows(const pz_layer *l)
{
    const conv_state *st = l->state;
    /* the kernel's own rule (pz_conv_query_make: two-row tiles on AVX-512
     * for narrow outputs), which the compiler's halo count asks too */
    /* a bool Y, a dynamic region: whole layers */
    if (!st || l->out[0]->rank != 4 || st->mask || l->dyn) return 0;
    return st->row_step;
}

/* GROUPED's rows [r0, r1) in windows: each super-group's conv2d as FAST's
 * (the image's and super-group's offsets in rows of the windows). */
static void grouped_window(const pz_layer *l, const conv_state *st, const float *x, pz_rowwin xw,
                           const float *z, float *y, pz_rowwin yw, int64_t r0, int64_t r1,
                           int ith, int nth)
{
    const int64_t h = st->d.h, oh = st->d.oh;
    for (int64_t i = 0; i < l->out[0]->dims[0]; i++)
        for (int64_t g = 0; g < st->groups; g++) {
            const int64_t yo = i * st->y_image / oh * yw.rows + g * st->y_group / oh * yw.rows;
            pz_conv16c_desc dg = g + 1 < st->groups ? st->d : st->d_last;
            if (st->slope) dg.act.slope = st->slope + g * st->d.m;   /* as the bias */
            dg.h = xw.rows;
            dg.pt = (int)(dg.pt + xw.base - yw.base * dg.sh);
            dg.oh = yw.rows;
            dg.r0 = r0 - yw.base;
            dg.r1 = r1 - yw.base;
            st->fast(&dg, x + (i * st->x_image + g * st->x_group) / h * xw.rows,
                     st->wp + g * st->wp_group, st->bp + g * st->d.m, z ? z + yo : NULL, y + yo,
                     ith, nth);
        }
}

/* Output rows [r0, r1) with X and Y (and Z, laid out like Y) held in row
 * windows (rt/fuse.h): FAST sees each buffer as a tensor of its window's
 * rows, shifted (output row r - yw.base of that view reads input rows from
 * (r - yw.base) * sh - pt', pt' = pt + xw.base - yw.base * sh; the view's
 * rows outside [0, xw.rows) count as padding, which fuse.c makes true: a
 * window holds every row its readers read, and ends at or before the
 * input's last row), GROUPED each super-group so. DW and DWK go one
 * 16-channel block of one image at a time as a conv of r1 - r0 output rows
 * over the input rows from the first one they read. Either way the same taps
 * in the same order, so the same bits. (DWK and GROUPED: for a bool Y's
 * tiles only; conv_rows offers no fused ranges for them.) */
static void conv_run_window(const pz_layer *l, const void *const *in, pz_rowwin xw, void *out,
                            pz_rowwin yw, int64_t r0, int64_t r1, void *scratch, int ith, int nth)
{
    const conv_state *st = l->state;
    const float *x = in[0], *z = pz_in(l, 3) ? in[3] : NULL;
    float *y = out;
    if (r1 <= r0) return;
    if (st->path == CONV_WINO) {
        /* whole tile rows of the layer's tiling (rows: PZ_WINO_TILE), the
         * windows as row offsets: the tiles of a whole-layer run */
        PZ_RT_ASSERT(scratch && r0 % PZ_WINO_TILE == 0);
        pz_conv16c_desc d = st->d;
        d.r0 = r0;
        d.r1 = r1;
        d.xb = xw.base, d.xr = xw.rows, d.yb = yw.base, d.yr = yw.rows;
        st->wino(&d, x, st->wp, st->bp, z, y, scratch, ith, nth);
        return;
    }
    if (st->path == CONV_FAST) {
        pz_conv16c_desc d = st->d;
        d.h = xw.rows;
        d.pt = (int)(d.pt + xw.base - yw.base * d.sh);
        d.oh = yw.rows;
        d.r0 = r0 - yw.base;
        d.r1 = r1 - yw.base;
        st->fast(&d, x, st->wp, st->bp, z, y, ith, nth);
        return;
    }
    if (st->path == CONV_GROUPED) {
        grouped_window(l, st, x, xw, z, y, yw, r0, r1, ith, nth);
        return;
    }
    const pz_conv16c_desc *d = &st->d;
    const int64_t wblk = (int64_t)d->kh * d->kw * 16;   /* a block's packed weights */
    int64_t cb = (d->c + 15) / 16, ish = r0 * d->sh - d->pt;
    if (ish < 0) ish = 0;
    pz_conv16c_desc s = *d;
    s.n = 1;
    s.oh = r1 - r0;
    s.h = d->h - ish;
    s.pt = (int)(d->pt - r0 * d->sh + ish);
    for (int64_t i = 0; i < d->n; i++)
        for (int64_t bc = 0; bc < cb; bc++) {
            s.c = s.m = d->c - bc * 16 < 16 ? d->c - bc * 16 : 16;
            if (st->slope) s.act.slope = st->slope + bc * 16;   /* the block's first */
            int64_t yo = ((i * cb + bc) * yw.rows + r0 - yw.base) * d->ow * 16;
            int64_t xo = ((i * cb + bc) * xw.rows + ish - xw.base) * d->w * 16;
            st->fast(&s, x + xo, st->wp + bc * wblk, st->bp + bc * 16, z ? z + yo : NULL,
                     y + yo, ith, nth);
        }
}

/* Whole tensors: windows of every row. (Winograd needs a scratch: fused
 * runs call run_window for it.) */
static void conv_run_rows(const pz_layer *l, const void *const *in, void *out, int64_t r0,
                          int64_t r1, int ith, int nth)
{
    pz_rowwin xw = {0, l->in[0]->dims[2]}, yw = {0, l->out[0]->dims[2]};
    conv_run_window(l, in, xw, out, yw, r0, r1, NULL, ith, nth);
}

/* Row-local: X through the window; W and B whatever the rows; the rows the
 * kernel prepare will choose computes together (pz_conv_query_make: its
 * ranges start and end at multiples of them). */
static int conv_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    const pz_conv_params *p = l->params;
    if (l->n_out > 0 && l->out[0].is_bool) {   /* whole layers (mask_out.h) */
        m->why = "writes a bool (a fused comparison)";
        return 0;
    }
    m->in[0] = (pz_row_input){.kind = PZ_ROWS_WINDOW, .kernel = p->kernel[0],
                              .stride = p->stride[0] > 0 ? p->stride[0] : 1, .pad = p->pad_begin[0],
                              .dilation = p->dilation[0] > 0 ? p->dilation[0] : 1};
    m->in[1].kind = PZ_ROWS_NONE;
    if (l->n_in > 2) m->in[2].kind = PZ_ROWS_NONE;
    if (l->n_in > 4) m->in[4].kind = PZ_ROWS_NONE;   /* PRELU's slopes */
    int w_const = l->in[1].is_const && (l->n_in < 3 || l->in[2].is_const);
    pz_conv_query q;
    pz_conv_query_make(p, l->in[0].rank, l->in[0].dims, l->out[0].dims, l->in[0].made_by_layer,
                       w_const, (pz_isa)l->isa, &q);
    if (q.row_step > 1) m->gran = q.row_step;
    /* per output row: every image, every output column, every weight */
    int64_t w = 1;
    for (int k = 0; k < l->in[1].rank; k++) w *= l->in[1].dims[k];
    m->macs_row = l->out[0].dims[0] * l->out[0].dims[l->out[0].rank - 1] * w;
    return 1;
}

static void conv_run_shape(const pz_layer *l)
{
    pz_conv_run_shape(l, ((const conv_state *)l->state)->xplan);
}

static void conv_set_algo(void *params, int algo)
{
    ((pz_conv_params *)params)->algo = (pz_conv_algo)algo;
}

/* The sparse kernels take priority over the algo knob (pz_conv_query_make):
 * a layer the optimizer left on Winograd (src/opt/sparsity.c: its sparse
 * rule) runs the sparse Winograd, any other the sparse direct conv; the
 * algo says which, so the generated C names what runs. */
static void conv_set_sparsity(void *params, float ratio)
{
    pz_conv_params *p = params;
    p->sparsity = ratio;
    if (ratio != 0)
        p->algo = p->algo == PZ_CONV_WINOGRAD ? PZ_CONV_SPARSE_WINOGRAD : PZ_CONV_SPARSE;
}

const pz_rt_op pz_rt_op_conv = {
    .rows = conv_rows, .run_rows = conv_run_rows, .run_window = conv_run_window,
    .name = "CONV", PZ_OP_PARAMS(pz_conv_params, pz_conv_fields),
    .min_in = 2, .max_in = 5, .min_out = 1, .max_out = 1,
    .prepare = conv_prepare, .run = conv_run, .release = conv_release,
    .row_rule = conv_row_rule, .set_algo = conv_set_algo, .set_sparsity = conv_set_sparsity,
    .run_shape = conv_run_shape,
};
