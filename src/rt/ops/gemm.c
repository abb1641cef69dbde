/* gemm.c - the GEMM layer: A, B, C?, Z?, S? -> Y = act(alpha * A' B' + beta
 * * C + Z). Z (input 3, a residual the epilogue pass fused, of Y's shape)
 * needs the packed paths: a constant B and A not transposed (at
 * PZ_ISA=scalar the packed GEMM's scalar twin). S (input 4): act PRELU's N
 * slopes, one per column of Y (every path takes them). A bool Y (a fused
 * comparison, mask_out.h): the packed fp32 and bf16 GEMMs in tiles of
 * rows, every other path through a whole float copy. */
#include "rt/kernels/fast.h"
#include "rt/kernels/gemm/gemm_bf16.h"
#include "rt/kernels/gemm/gemm_f16w.h"
#include "rt/kernels/gemm/spgemm.h"
#include "rt/kernels/quant/qgemm_dyn.h"
#include "rt/ops/mask_out.h"
#include "rt/ops/ops.h"

/* With a constant B (a FC layer's weights) and A not transposed, the fast
 * GEMM runs on B packed here (alpha folded in); M == 1 (batch 1) takes its
 * GEMV path, which streams the packed weights once, split over the workers
 * by 32-column panels. In a bf16 block (l->prec) B is packed in bf16 and
 * the bf16 GEMM runs (gemm_bf16.h), at any ISA; in an f16w block (--weights
 * fp16) B is packed in fp16 and the fp16-weight GEMM runs (gemm_f16w.h), at
 * any ISA; in an int8 block B is quantized per column and A per row as the
 * layer runs (qgemm_dyn.h). With a B computed at run
 * time, neither transposed and alpha 1, the fast GEMM reads B in place
 * (g.ldb). Otherwise the reference. The sparsity knob set (p->sparsity) on
 * a constant B in fp32: the block-sparse GEMM (spgemm.h), at any ISA. */
typedef struct {
    int64_t M, N, K;
    int64_t csm, csn;   /* C's strides in Y's [M, N] index space (0 = broadcast) */
    float *bp;          /* packed B, or NULL */
    bool rtb;           /* run-time B read in place by the fast GEMM */
    pz_gemm_fn fn;
    uint16_t *bp16;     /* B packed in bf16 (a bf16 block), or NULL */
    pz_gemm_bf16_fn fn16;
    uint16_t *bph;      /* B packed in fp16 (an f16w block), or NULL */
    pz_gemm_f16w_fn fnh;
    pz_qdyn *q8;        /* B in int8 (an int8 block), or NULL */
    pz_spgemm_plan *sp; /* B's non-zero blocks (the sparsity knob), or NULL */
    float *slope;       /* PRELU's N slopes (input 4), or NULL */
    pz_gemm_desc g;     /* g.c is set at run */
    pz_mask_out *mask;  /* a bool Y (mask_out.h), or NULL */
    char kname[48];     /* the kernel's name with the bool's way */
} gemm_state;

static int gemm_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_gemm_params *p = l->params;
    const pz_tensor *a = pz_in(l, 0), *b = pz_in(l, 1), *c = pz_in(l, 2), *y = pz_out(l, 0);
    const pz_tensor *z = pz_in(l, 3);
    char ba[96], bb[96], bc[96], by[96];
    if (!a || !b || !y) return pz_layer_fail(l, err, n, "needs A, B and Y");
    const int mask = pz_mask_out_check(l, &p->act, b->rank == 2 ? b->dims[p->trans_b ? 0 : 1] : 0,
                                       err, n);
    if (mask < 0) return 1;
    if (pz_layer_want_dtype(l, err, n, "A", a, PZ_F32) ||
        pz_layer_want_dtype(l, err, n, "B", b, PZ_F32) ||
        (!mask && pz_layer_want_dtype(l, err, n, "Y", y, PZ_F32)) ||
        (c && pz_layer_want_dtype(l, err, n, "C", c, PZ_F32)) ||
        (z && pz_layer_want_dtype(l, err, n, "Z", z, PZ_F32)))
        return 1;
    if (a->rank != 2 || b->rank != 2 || y->rank != 2)
        return pz_layer_fail(l, err, n, "A %s, B %s, Y %s: expected matrices",
                             pz_shape_str(a, ba, sizeof ba), pz_shape_str(b, bb, sizeof bb),
                             pz_shape_str(y, by, sizeof by));
    gemm_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    st->M = p->trans_a ? a->dims[1] : a->dims[0];
    st->K = p->trans_a ? a->dims[0] : a->dims[1];
    st->N = p->trans_b ? b->dims[0] : b->dims[1];
    int64_t kb = p->trans_b ? b->dims[1] : b->dims[0];
    if (kb != st->K || y->dims[0] != st->M || y->dims[1] != st->N)
        return pz_layer_fail(l, err, n, "A %s%s, B %s%s, Y %s do not agree",
                             pz_shape_str(a, ba, sizeof ba), p->trans_a ? " (transposed)" : "",
                             pz_shape_str(b, bb, sizeof bb), p->trans_b ? " (transposed)" : "",
                             pz_shape_str(y, by, sizeof by));
    if (c) {
        /* C broadcasts unidirectionally to [M, N] */
        int64_t cm = c->rank == 2 ? c->dims[0] : 1, cn = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
        if (c->rank > 2 || (cm != 1 && cm != st->M) || (cn != 1 && cn != st->N))
            return pz_layer_fail(l, err, n, "C %s does not broadcast to Y %s",
                                 pz_shape_str(c, bc, sizeof bc), pz_shape_str(y, by, sizeof by));
        st->csm = cm == 1 ? 0 : cn;
        st->csn = cn == 1 ? 0 : 1;
    }
    pz_isa isa = l->isa;
    const int fast_shape = !p->trans_a && b->data && st->M > 0 && st->N > 0;
    if (z && (!fast_shape || pz_numel(z) != st->M * st->N || z->dims[z->rank - 1] != st->N))
        return pz_layer_fail(l, err, n, "a fused residual Z %s needs Y's shape %s, a constant "
                             "B and A not transposed", pz_shape_str(z, bc, sizeof bc),
                             pz_shape_str(y, by, sizeof by));
    if (p->act.kind == PZ_ACT_PRELU && pz_layer_prelu_slopes(l, err, n, st->N, &st->slope))
        return 1;
    st->g = (pz_gemm_desc){.m = st->M, .n = st->N, .k = st->K, .lda = st->K, .ldy = st->N,
                           .csm = st->csm, .csn = st->csn, .beta = p->beta, .act = p->act};
    st->g.act.slope = st->slope;
    if (p->sparsity != 0 && fast_shape && l->prec == PZ_PREC_FP32) {
        st->sp = calloc(1, sizeof *st->sp);
        if (!st->sp ||
            pz_spgemm_plan_make(st->sp, st->K, st->N, b->data, p->trans_b, p->alpha, isa))
            return pz_layer_fail(l, err, n, "out of memory (sparse B)");
        l->packed_in |= 1u << 1;
        l->kernel = "sparse";
    } else if (l->prec == PZ_PREC_BF16 && fast_shape) {
        size_t bytes = (size_t)pz_gemm_bf16_packed_size(st->K, st->N) * sizeof(uint16_t);
        st->bp16 = pz_alloc_big((bytes + 63) / 64 * 64, l->opts->hugepages);
        if (!st->bp16) return pz_layer_fail(l, err, n, "out of memory (packed B)");
        pz_gemm_bf16_pack_b(st->K, st->N, b->data, p->trans_b, p->alpha, st->bp16);
        l->packed_in |= 1u << 1;
        st->fn16 = pz_gemm_bf16_for(isa);
        l->kernel = "bf16";
    } else if (l->prec == PZ_PREC_I8DYN && fast_shape) {
        char e[160];
        st->q8 = pz_qdyn_new(st->M, st->N, st->K, b->data, p->trans_b, p->alpha, isa,
                             l->opts->novnni, e, sizeof e);
        if (!st->q8) return pz_layer_fail(l, err, n, "%s", e);
        l->scratch_bytes = pz_qdyn_scratch(st->q8, l->nth);
        l->packed_in |= 1u << 1;
        l->kernel = pz_qdyn_kernel(st->q8);
    } else if (l->prec == PZ_PREC_F16W && fast_shape) {
        size_t bytes = (size_t)pz_gemm_f16w_packed_size(st->K, st->N) * sizeof(uint16_t);
        st->bph = pz_alloc_big((bytes + 63) / 64 * 64, l->opts->hugepages);
        if (!st->bph) return pz_layer_fail(l, err, n, "out of memory (packed B)");
        pz_gemm_f16w_pack_b(st->K, st->N, b->data, p->trans_b, p->alpha, st->bph);
        l->packed_in |= 1u << 1;
        st->fnh = pz_gemm_f16w_for(isa);
        l->kernel = "f16w";
    } else if ((isa != PZ_ISA_REF || z) && fast_shape) {
        size_t bytes = ((size_t)pz_gemm_packed_b_size(st->K, st->N) * sizeof(float) + 63) / 64 * 64;
        st->bp = pz_alloc_big(bytes, l->opts->hugepages);
        if (!st->bp) return pz_layer_fail(l, err, n, "out of memory (packed B)");
        pz_gemm_pack_b(st->K, st->N, b->data, p->trans_b, p->alpha, st->bp);
        l->packed_in |= 1u << 1;   /* B is read from the packed copy only */
        st->fn = pz_fast_kernels_for(isa)->gemm;
    } else if (isa != PZ_ISA_REF && !p->trans_a && !p->trans_b && p->alpha == 1.0f &&
               st->M > 0 && st->N > 0) {
        st->rtb = true;
        st->fn = pz_fast_kernels_for(isa)->gemm;
        st->g.ldb = st->N;
    }
    if (mask) st->g.act.kind = PZ_ACT_NONE;   /* SELECT, both branches 1 y: y's bits */
    if (mask && pz_mask_gemm_init(l, &st->mask, &p->act, (st->bp || st->bp16) && !z, st->N,
                                  pz_numel(y), st->kname, sizeof st->kname))
        return pz_layer_fail(l, err, n, "out of memory (bool output)");
    return 0;
}

static void gemm_release(pz_layer *l)
{
    gemm_state *st = l->state;
    free(st->bp);
    free(st->bp16);
    free(st->bph);
    free(st->slope);
    pz_qdyn_free(st->q8);
    pz_mask_out_free(st->mask);
    if (st->sp) pz_spgemm_plan_free(st->sp);
    free(st->sp);
}

/* The chosen path into y (Y, or a bool Y's float copy). */
static void gemm_exec(const pz_layer *l, float *y, int ith, int nth)
{
    const gemm_state *st = l->state;
    const pz_tensor *c = pz_in(l, 2);
    if (st->bp || st->bp16 || st->bph || st->rtb || st->q8 || st->sp) {
        pz_gemm_desc g = st->g;
        g.c = c ? c->data : NULL;
        if (pz_in(l, 3)) g.z = pz_in(l, 3)->data, g.ldz = st->N;
        if (st->sp) pz_spgemm_run(st->sp, &g, l->in[0]->data, y, ith, nth);
        else if (st->q8) pz_qdyn_run(st->q8, &g, l->in[0]->data, y, l->scratch, ith, nth);
        else if (st->bp16) st->fn16(&g, l->in[0]->data, st->bp16, y, ith, nth);
        else if (st->bph) st->fnh(&g, l->in[0]->data, st->bph, y, ith, nth);
        else st->fn(&g, l->in[0]->data, st->bp ? st->bp : l->in[1]->data, y, ith, nth);
        return;
    }
    pz_gemm_params p = *(const pz_gemm_params *)l->params;
    p.act.slope = st->slope;   /* the params never carry it */
    pz_f32_gemm__ref(&p, st->M, st->N, st->K, l->in[0]->data, l->in[1]->data,
                     c ? c->data : NULL, st->csm, st->csn, y, ith, nth);
}

static void gemm_run(const pz_layer *l, int ith, int nth)
{
    const gemm_state *st = l->state;
    const pz_tensor *c = pz_in(l, 2);
    if (!st->mask) {
        gemm_exec(l, l->out[0]->data, ith, nth);
    } else if (st->mask->tile) {
        pz_gemm_desc g = st->g;
        g.c = c ? c->data : NULL;
        pz_mask_gemm_tiles(st->mask, &g, st->fn, st->fn16, l->in[0]->data,
                           st->bp16 ? (const void *)st->bp16 : st->bp, l->out[0]->data, ith, nth);
    } else {
        gemm_exec(l, st->mask->buf, ith, nth);
        pz_mask_whole_store(st->mask, l->out[0], 0, 1, st->N, ith, nth);
    }
}

static const pz_param_field gemm_fields[] = {
    PZ_FIELD(pz_gemm_params, trans_a, PZ_F_INT), PZ_FIELD(pz_gemm_params, trans_b, PZ_F_INT),
    PZ_FIELD(pz_gemm_params, alpha, PZ_F_F32), PZ_FIELD(pz_gemm_params, beta, PZ_F_F32),
    PZ_FIELD(pz_gemm_params, act, PZ_F_ACT), PZ_FIELD(pz_gemm_params, sparsity, PZ_F_F32),
};

static void gemm_set_sparsity(void *params, float ratio)
{
    ((pz_gemm_params *)params)->sparsity = ratio;
}

const pz_rt_op pz_rt_op_gemm = {
    .name = "GEMM", PZ_OP_PARAMS(pz_gemm_params, gemm_fields),
    .min_in = 2, .max_in = 5, .min_out = 1, .max_out = 1,
    .prepare = gemm_prepare, .run = gemm_run, .release = gemm_release,
    .set_sparsity = gemm_set_sparsity,
};
