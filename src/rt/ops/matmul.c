/* matmul.c - the MATMUL layer: numpy matmul of A and B. A 1-D A is a row
 * [1, K], a 1-D B a column [K, 1]; the output's shape (from the compiler)
 * drops those dims, which does not change its elements' order. With a
 * fused epilogue (the passes' MatMul -> Add(bias) -> Relu | Clip | Gelu:
 * a third input C of N floats, added along the last axis, and/or an
 * activation; a fourth input Z of Y's shape, a residual, added before the
 * activation; a fifth S, act PRELU's N slopes, one per column of Y) B must
 * be a constant 2-D float32, and the packed GEMM does it all as it writes Y
 * (at PZ_ISA=scalar too, by its scalar twin). A bool Y (a fused
 * comparison, mask_out.h): the packed fp32 and bf16 GEMMs in tiles of
 * rows, every other path through a whole float copy. */
#include "rt/kernels/fast.h"
#include "rt/kernels/gemm/gemm_bf16.h"
#include "rt/kernels/gemm/gemm_f16w.h"
#include "rt/kernels/gemm/spgemm.h"
#include "rt/kernels/quant/qgemm_dyn.h"
#include "rt/ops/mask_out.h"
#include "rt/ops/ops.h"

/* float32 with a constant 2-D B (a linear layer's weights): the batch of A
 * folds into M (A's rows are contiguous, and so are Y's) and the fast GEMM
 * runs on B packed here (in a bf16 block, l->prec: B in bf16 and the bf16
 * GEMM, gemm_bf16.h, at any ISA; in an f16w block: B in fp16 and the
 * fp16-weight GEMM, gemm_f16w.h; in an int8 block: B in int8, A quantized
 * per row as the layer runs, qgemm_dyn.h). float32 with any other B (attention's
 * Q K^T and P V, both computed at run time): the fast GEMM batch by batch,
 * B read in place (pz_f32_matmul_gemm). Otherwise the reference (no
 * epilogue). The sparsity knob set (p->sparsity) on a constant 2-D B in an
 * fp32 block: the block-sparse GEMM (spgemm.h), at any ISA. */
typedef struct {
    pz_matmul_shape s;
    float *bp;          /* packed B, or NULL */
    bool rtb;           /* run-time B on the fast GEMM (bp NULL) */
    pz_gemm_fn fn;
    uint16_t *bp16;     /* B packed in bf16 (a bf16 block), or NULL */
    pz_gemm_bf16_fn fn16;
    uint16_t *bph;      /* B packed in fp16 (an f16w block), or NULL */
    pz_gemm_f16w_fn fnh;
    pz_qdyn *q8;        /* B in int8 (an int8 block), or NULL */
    pz_spgemm_plan *sp; /* B's non-zero blocks (the sparsity knob), or NULL */
    float *slope;       /* PRELU's N slopes (input 4), or NULL */
    pz_gemm_desc g;
    pz_mask_out *mask;  /* a bool Y (mask_out.h), or NULL */
    char kname[48];     /* the kernel's name with the bool's way */
} matmul_state;

/* numpy matmul's shape of A times B (1-D A a row, 1-D B a column; batch
 * dims broadcast); 0 when they multiply, -1 when not. QMATMUL shares it. */
int pz_matmul_shape_init(pz_matmul_shape *s, const pz_tensor *a, const pz_tensor *b)
{
    s->M = a->rank == 1 ? 1 : a->dims[a->rank - 2];
    s->K = a->dims[a->rank - 1];
    s->N = b->rank == 1 ? 1 : b->dims[b->rank - 1];
    int64_t kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
    /* batch dims: broadcast of A's and B's leading dims, right-aligned */
    int na = a->rank > 2 ? a->rank - 2 : 0, nb = b->rank > 2 ? b->rank - 2 : 0;
    s->nb = na > nb ? na : nb;
    int64_t stride_a = s->M * s->K, stride_b = s->K * s->N;
    bool ok = kb == s->K;
    for (int i = s->nb - 1; i >= 0; i--) {
        int ia = i - (s->nb - na), ib = i - (s->nb - nb);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1) ok = false;
        s->bdims[i] = da == 1 ? db : da;   /* a 0 against a 1 broadcasts to 0 */
        s->sa[i] = da == 1 ? 0 : stride_a;
        s->sb[i] = db == 1 ? 0 : stride_b;
        stride_a *= da;
        stride_b *= db;
    }
    return ok ? 0 : -1;
}

static int matmul_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_matmul_params *p = l->params;
    const pz_tensor *a = pz_in(l, 0), *b = pz_in(l, 1), *c = pz_in(l, 2), *y = pz_out(l, 0);
    const pz_tensor *z = pz_in(l, 3);
    char ba[96], bb[96], by[96];
    if (!a || !b || !y) return pz_layer_fail(l, err, n, "needs A, B and Y");
    const bool epi = c || z || p->act.kind != PZ_ACT_NONE;
    if (p->act.kind < PZ_ACT_NONE || p->act.kind >= PZ_ACT_COUNT_)
        return pz_layer_fail(l, err, n, "unknown activation %d", (int)p->act.kind);
    if (!pz_dtype_is_float(a->dtype) && !pz_dtype_is_int(a->dtype))
        return pz_layer_fail(l, err, n, "A has type %s", pz_dtype_name(a->dtype));
    const int mask = pz_mask_out_check(l, &p->act, b->rank == 1 ? 1 : b->dims[b->rank - 1], err, n);
    if (mask < 0) return 1;
    if (pz_layer_want_dtype(l, err, n, "B", b, a->dtype) ||
        (!mask && pz_layer_want_dtype(l, err, n, "Y", y, a->dtype)))
        return 1;
    if (mask && l->dyn)
        return pz_layer_fail(l, err, n, "a bool Y (a fused comparison) in a region of "
                             "run-time shapes");
    if (a->rank < 1 || b->rank < 1)
        return pz_layer_fail(l, err, n, "A and B must have rank >= 1");

    matmul_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    pz_matmul_shape *s = &st->s;
    /* a dynamic region: A's planned K is a bound, B's the one a run may
     * have (run_shape checks); a packed B keeps its own K rows */
    pz_tensor ak = *a;
    if (l->dyn) ak.dims[a->rank - 1] = b->dims[b->rank == 1 ? 0 : b->rank - 2];
    bool ok = pz_matmul_shape_init(s, &ak, b) == 0;
    if (!ok || pz_numel(y) != pz_prod(s->bdims, s->nb) * s->M * s->N)
        return pz_layer_fail(l, err, n, "A %s and B %s do not multiply into Y %s",
                             pz_shape_str(a, ba, sizeof ba), pz_shape_str(b, bb, sizeof bb),
                             pz_shape_str(y, by, sizeof by));
    pz_isa isa = l->isa;
    const bool fast = a->dtype == PZ_F32 && b->rank == 2 && b->data && s->N > 0 && s->K > 0;
    if (epi && !fast)
        return pz_layer_fail(l, err, n, "a fused bias, residual or activation needs a "
                             "constant 2-D float32 B and K, N > 0");
    if (z && pz_layer_want_dtype(l, err, n, "Z", z, PZ_F32)) return 1;
    if (z && (z->rank != y->rank || pz_numel(z) != pz_numel(y) || z->dims[z->rank - 1] != s->N))
        return pz_layer_fail(l, err, n, "the residual Z %s must have Y's shape %s",
                             pz_shape_str(z, ba, sizeof ba), pz_shape_str(y, by, sizeof by));
    if (c && pz_layer_want_dtype(l, err, n, "C", c, PZ_F32)) return 1;
    if (c && (pz_numel(c) != s->N || c->rank < 1 || c->dims[c->rank - 1] != s->N || !c->data))
        return pz_layer_fail(l, err, n, "C must be %lld constant floats along the last axis",
                             (long long)s->N);
    if (p->act.kind == PZ_ACT_PRELU && pz_layer_prelu_slopes(l, err, n, s->N, &st->slope))
        return 1;
    if (p->sparsity != 0 && fast && l->prec == PZ_PREC_FP32) {
        st->sp = calloc(1, sizeof *st->sp);
        if (!st->sp || pz_spgemm_plan_make(st->sp, s->K, s->N, b->data, 0, 1.0f, isa))
            return pz_layer_fail(l, err, n, "out of memory (sparse B)");
        l->packed_in |= 1u << 1;
        l->kernel = "sparse";
        st->g = (pz_gemm_desc){.m = pz_numel(a) / s->K, .n = s->N, .k = s->K, .lda = s->K,
                               .ldy = s->N, .c = c ? c->data : NULL, .csm = 0, .csn = 1,
                               .beta = 1.0f, .act = p->act};
    } else if (l->prec == PZ_PREC_BF16 && fast) {
        size_t bytes = (size_t)pz_gemm_bf16_packed_size(s->K, s->N) * sizeof(uint16_t);
        st->bp16 = pz_alloc_big((bytes + 63) / 64 * 64, l->opts->hugepages);
        if (!st->bp16) return pz_layer_fail(l, err, n, "out of memory (packed B)");
        pz_gemm_bf16_pack_b(s->K, s->N, b->data, 0, 1.0f, st->bp16);
        l->packed_in |= 1u << 1;
        st->fn16 = pz_gemm_bf16_for(isa);
        l->kernel = "bf16";
        st->g = (pz_gemm_desc){.m = pz_numel(a) / s->K, .n = s->N, .k = s->K, .lda = s->K,
                               .ldy = s->N, .c = c ? c->data : NULL, .csm = 0, .csn = 1,
                               .beta = 1.0f, .act = p->act};
    } else if (l->prec == PZ_PREC_I8DYN && fast) {
        char e[160];
        int64_t rows = pz_numel(a) / s->K;   /* every batch's M rows */
        st->q8 = pz_qdyn_new(rows, s->N, s->K, b->data, 0, 1.0f, isa, l->opts->novnni, e,
                             sizeof e);
        if (!st->q8) return pz_layer_fail(l, err, n, "%s", e);
        l->scratch_bytes = pz_qdyn_scratch(st->q8, l->nth);
        l->packed_in |= 1u << 1;
        l->kernel = pz_qdyn_kernel(st->q8);
        st->g = (pz_gemm_desc){.m = rows, .n = s->N, .k = s->K, .lda = s->K, .ldy = s->N,
                               .c = c ? c->data : NULL, .csm = 0, .csn = 1, .beta = 1.0f,
                               .act = p->act};
    } else if (l->prec == PZ_PREC_F16W && fast) {
        size_t bytes = (size_t)pz_gemm_f16w_packed_size(s->K, s->N) * sizeof(uint16_t);
        st->bph = pz_alloc_big((bytes + 63) / 64 * 64, l->opts->hugepages);
        if (!st->bph) return pz_layer_fail(l, err, n, "out of memory (packed B)");
        pz_gemm_f16w_pack_b(s->K, s->N, b->data, 0, 1.0f, st->bph);
        l->packed_in |= 1u << 1;
        st->fnh = pz_gemm_f16w_for(isa);
        l->kernel = "f16w";
        st->g = (pz_gemm_desc){.m = pz_numel(a) / s->K, .n = s->N, .k = s->K, .lda = s->K,
                               .ldy = s->N, .c = c ? c->data : NULL, .csm = 0, .csn = 1,
                               .beta = 1.0f, .act = p->act};
    } else if ((isa != PZ_ISA_REF || epi) && fast) {
        int64_t rows = pz_numel(a) / s->K;   /* every batch's M rows */
        size_t bytes = ((size_t)pz_gemm_packed_b_size(s->K, s->N) * sizeof(float) + 63) / 64 * 64;
        st->bp = pz_alloc_big(bytes, l->opts->hugepages);
        if (!st->bp) return pz_layer_fail(l, err, n, "out of memory (packed B)");
        pz_gemm_pack_b(s->K, s->N, b->data, 0, 1.0f, st->bp);
        l->packed_in |= 1u << 1;   /* B is read from the packed copy only */
        st->fn = pz_fast_kernels_for(isa)->gemm;
        st->g = (pz_gemm_desc){.m = rows, .n = s->N, .k = s->K, .lda = s->K, .ldy = s->N,
                               .c = c ? c->data : NULL, .csm = 0, .csn = 1, .beta = 1.0f,
                               .act = p->act};
    } else if (isa != PZ_ISA_REF && a->dtype == PZ_F32) {
        st->rtb = true;
        st->fn = pz_fast_kernels_for(isa)->gemm;
    }
    st->g.act.slope = st->slope;   /* an epilogue: one of the packed paths set g */
    if (mask) st->g.act.kind = PZ_ACT_NONE;   /* SELECT, both branches 1 y: y's bits */
    if (mask && pz_mask_gemm_init(l, &st->mask, &p->act, (st->bp || st->bp16) && !z, s->N,
                                  pz_numel(y), st->kname, sizeof st->kname))
        return pz_layer_fail(l, err, n, "out of memory (bool output)");
    return 0;
}

static void matmul_release(pz_layer *l)
{
    matmul_state *st = l->state;
    free(st->bp);
    free(st->bp16);
    free(st->bph);
    free(st->slope);
    pz_qdyn_free(st->q8);
    pz_mask_out_free(st->mask);
    if (st->sp) pz_spgemm_plan_free(st->sp);
    free(st->sp);
}

/* The chosen path into yd (Y, or a bool Y's float copy). */
static void matmul_exec(const pz_layer *l, void *yd, int ith, int nth)
{
    const pz_tensor *a = l->in[0], *b = l->in[1];
    const matmul_state *st = l->state;
    pz_gemm_desc g = st->g;
    if (pz_in(l, 3)) g.z = pz_in(l, 3)->data, g.ldz = st->s.N;   /* an activation: set at run */
    if (st->sp)
        pz_spgemm_run(st->sp, &g, a->data, yd, ith, nth);
    else if (st->q8)
        pz_qdyn_run(st->q8, &g, a->data, yd, l->scratch, ith, nth);
    else if (st->bp16)
        st->fn16(&g, a->data, st->bp16, yd, ith, nth);
    else if (st->bph)
        st->fnh(&g, a->data, st->bph, yd, ith, nth);
    else if (st->bp)
        st->fn(&g, a->data, st->bp, yd, ith, nth);
    else if (st->rtb)
        pz_f32_matmul_gemm(&st->s, st->fn, a->data, b->data, yd, ith, nth);
    else if (a->dtype == PZ_F32)
        pz_f32_matmul__ref(&st->s, a->data, b->data, yd, ith, nth);
    else
        pz_any_matmul__ref(&st->s, a->dtype, a->data, b->data, yd, ith, nth);
}

static void matmul_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *y = l->out[0];
    const matmul_state *st = l->state;
    if (l->dyn && pz_numel(y) == 0) return;   /* nothing, or A and B did not multiply */
    if (!st->mask) {
        matmul_exec(l, y->data, ith, nth);
    } else if (st->mask->tile) {
        pz_mask_gemm_tiles(st->mask, &st->g, st->fn, st->fn16, l->in[0]->data,
                           st->bp16 ? (const void *)st->bp16 : st->bp, y->data, ith, nth);
    } else {
        matmul_exec(l, st->mask->buf, ith, nth);
        pz_mask_whole_store(st->mask, y, 0, 1, st->s.N, ith, nth);
    }
}

/* A dynamic region: Y is the broadcast batch dims, M (a 2-D or more A)
 * and N (a 2-D or more B) of the run's A and B; the shape and the packed
 * GEMM's rows are recomputed (the state is the layer's own: run_shape runs
 * alone, before run). A and B that do not multiply fail the run
 * (pz_layer_run_fail), Y empty. */
static void matmul_run_shape(const pz_layer *l)
{
    const pz_tensor *a = l->in[0], *b = l->in[1];
    pz_tensor *y = l->out[0];
    matmul_state *st = l->state;
    pz_matmul_shape *s = &st->s;
    const int ok = pz_matmul_shape_init(s, a, b) == 0;
    int r = 0;
    for (int i = 0; i < s->nb; i++) y->dims[r++] = s->bdims[i];
    if (a->rank > 1) y->dims[r++] = s->M;
    if (b->rank > 1) y->dims[r++] = s->N;
    y->rank = r;
    if (!ok) {
        if (r) y->dims[0] = 0;
        pz_layer_run_fail(l, "A and B do not multiply (K %lld)", (long long)s->K);
    }
    st->g.m = s->K ? pz_numel(a) / s->K : 0;   /* the packed paths' rows */
}

static const pz_param_field matmul_fields[] = {PZ_FIELD(pz_matmul_params, act, PZ_F_ACT),
                                               PZ_FIELD(pz_matmul_params, sparsity, PZ_F_F32)};
static const pz_matmul_params matmul_defaults;   /* no activation, dense */

static void matmul_set_sparsity(void *params, float ratio)
{
    ((pz_matmul_params *)params)->sparsity = ratio;
}

const pz_rt_op pz_rt_op_matmul = {
    .name = "MATMUL", PZ_OP_PARAMS(pz_matmul_params, matmul_fields),
    .min_in = 2, .max_in = 5, .min_out = 1, .max_out = 1,
    .prepare = matmul_prepare, .run = matmul_run, .release = matmul_release,
    .defaults = &matmul_defaults, .run_shape = matmul_run_shape,
    .set_sparsity = matmul_set_sparsity,
};
