/* qmatmul.c - the QMATMUL layer: MatMulInteger (A, B, a_zero_point?,
 * b_zero_point? -> Y int32) and QLinearMatMul (a, a_scale, a_zero_point,
 * b, b_scale, b_zero_point, y_scale, y_zero_point -> y of y_zero_point's
 * type): numpy matmul shapes, 8- and 16-bit integers. Kernels:
 *   DYN  MatMulInteger, 8-bit A (any batch dims) and a constant 2-D B with
 *        a constant b_zero_point, A's zero point one element of any tensor
 *        (DynamicQuantizeLinear's, read as the layer runs): the int8 GEMM,
 *        int32 out (qmatmul_dyn.h); QLinearMatMul the same way with 8-bit
 *        y, the sums requantized as the reference does (the scales' factor
 *        per column computed by each worker as the layer runs);
 *   REF  everything else, and PZ_ISA_REF: qmatmul_ref.c.
 * A MatMulInteger the qdyn pass folded (passes/qdyn.c) has inputs 4-6:
 * a_scale (read at run time), b_scale, bias? (one or one per column), act
 * none or Relu, float32 Y: DYN writes it in its epilogue, REF's int32
 * sums go to float32 in place (qdyn_out.h). */
#include "rt/kernels/quant/qmatmul_dyn.h"
#include "rt/ops/ops.h"

typedef struct {
    pz_qmatmul_desc d;   /* the reference's (first: run passes it) */
    pz_qmm_dyn *dyn;     /* DYN, or NULL */
} qmatmul_state;

static bool qint(int dt)
{
    return dt == PZ_U8 || dt == PZ_I8 || dt == PZ_U16 || dt == PZ_I16;
}

/* A zero point (or scale) t: one element, or `len` along the last axis of
 * A (rows: len M) or B (columns: len N); *per 1 for the latter. */
static bool qvec(const pz_tensor *t, int64_t len, int *per)
{
    *per = 0;
    if (!t || pz_numel(t) == 1) return true;
    *per = 1;
    return pz_numel(t) == len;
}

static bool q8(int dt)
{
    return dt == PZ_U8 || dt == PZ_I8;
}

/* A MatMulInteger with the qdyn pass's float32 output stage. */
static bool has_fout(const pz_layer *l)
{
    const pz_qmatmul_params *p = l->params;
    return p->func == PZ_QMM_INTEGER && l->n_in > 4 && pz_in(l, 4);
}

/* a worker's factors: N doubles, 64-byte aligned */
static size_t mult_bytes(int64_t n)
{
    return (size_t)((n * 8 + 63) / 64 * 64);
}

/* DYN where it applies (prepare's checks done); nothing when it does not. */
static int plan_dyn(pz_layer *l, qmatmul_state *st)
{
    const bool ql = ((const pz_qmatmul_params *)l->params)->func == PZ_QMM_QLINEAR;
    const int ib = ql ? 3 : 1;   /* B's input */
    const pz_tensor *a = pz_in(l, 0), *b = pz_in(l, ib), *bz = pz_in(l, ql ? 5 : 3);
    const pz_tensor *y = pz_out(l, 0);
    if (ql && !q8(y->dtype)) return 0;
    const pz_matmul_shape *s = &st->d.s;
    if (l->isa == PZ_ISA_REF || !q8(a->dtype) || !q8(b->dtype) || b->rank != 2 || !b->data ||
        (bz && !bz->data) || st->d.azp_row || s->K < 1 || pz_numel(a) % s->K)
        return 0;
    const pz_qmm_dyn_desc d = {.rows = pz_numel(a) / s->K, .n = s->N, .k = s->K,
                               .a_signed = a->dtype == PZ_I8, .b_signed = b->dtype == PZ_I8,
                               .novnni = l->opts->novnni};
    if (d.rows * d.n != pz_numel(y)) return 0;
    char why[200];
    st->dyn = pz_qmm_dyn_new(&d, l->isa, b->data, bz ? bz->data : NULL, st->d.bzp_col, why,
                             sizeof why);
    if (!st->dyn) return 0;   /* a shape it does not take: the reference */
    l->packed_in |= 1u << ib;
    /* QLinearMatMul: a block's sums, then the factor per column */
    if (ql) l->scratch_bytes = (pz_qmm_dyn_scratch(st->dyn) + mult_bytes(s->N)) * (size_t)l->nth;
    static const char *const NAMES[] = {"dyn_scalar", "dyn_avx2", "dyn_avxvnni", "dyn_vnni"};
    l->kernel = NAMES[pz_qmm_dyn_kernel(st->dyn)];
    return 0;
}

static void qmatmul_release(pz_layer *l)
{
    qmatmul_state *st = l->state;
    if (st) pz_qmm_dyn_free(st->dyn);
}

static int qmatmul_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_qmatmul_params *p = l->params;
    const bool ql = p->func == PZ_QMM_QLINEAR;
    const pz_tensor *a = pz_in(l, 0), *b = pz_in(l, ql ? 3 : 1), *y = pz_out(l, 0);
    const pz_tensor *az = pz_in(l, 2), *bz = pz_in(l, ql ? 5 : 3);
    if (!a || !b || !y) return pz_layer_fail(l, err, n, "needs A, B and Y");
    if (!qint(a->dtype) || !qint(b->dtype))
        return pz_layer_fail(l, err, n, "A (%s) and B (%s) must be 8- or 16-bit integers",
                             pz_dtype_name(a->dtype), pz_dtype_name(b->dtype));
    if (a->rank < 1 || b->rank < 1) return pz_layer_fail(l, err, n, "A and B must have rank >= 1");
    qmatmul_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    pz_qmatmul_desc *d = &st->d;
    if (pz_matmul_shape_init(&d->s, a, b) ||
        pz_numel(y) != pz_prod(d->s.bdims, d->s.nb) * d->s.M * d->s.N)
        return pz_layer_fail(l, err, n, "A and B do not multiply into Y");
    d->ta = a->dtype, d->tb = b->dtype, d->ty = y->dtype;
    if ((az && az->dtype != a->dtype) || (bz && bz->dtype != b->dtype))
        return pz_layer_fail(l, err, n, "zero points must have A's and B's types");
    if (!qvec(az, d->s.M, &d->azp_row) || !qvec(bz, d->s.N, &d->bzp_col))
        return pz_layer_fail(l, err, n, "zero points: one element, or per row of A, per column of B");
    if (p->act.kind != PZ_ACT_NONE && !(has_fout(l) && p->act.kind == PZ_ACT_RELU))
        return pz_layer_fail(l, err, n, "act %d: only a MatMulInteger with float output takes "
                             "one, Relu", (int)p->act.kind);
    if (!ql && l->n_in > 7) return pz_layer_fail(l, err, n, "MatMulInteger takes 2 to 7 inputs");
    if (has_fout(l)) {
        if (pz_qdyn_out_check(l, 4, d->s.N, err, n)) return 1;
        d->ty = PZ_I32;   /* the reference's sums, then float32 in place */
        return plan_dyn(l, st);
    }
    if (!ql) return pz_layer_want_dtype(l, err, n, "Y", y, PZ_I32) || plan_dyn(l, st);
    const pz_tensor *as = pz_in(l, 1), *bs = pz_in(l, 4), *ys = pz_in(l, 6), *yz = pz_in(l, 7);
    if (!as || !bs || !ys) return pz_layer_fail(l, err, n, "needs a_scale, b_scale and y_scale");
    d->ts = as->dtype;
    if (!pz_dtype_is_float(d->ts) || bs->dtype != d->ts || ys->dtype != d->ts)
        return pz_layer_fail(l, err, n, "scales must be one float type");
    if (!qint(y->dtype) || (yz && (yz->dtype != y->dtype || pz_numel(yz) != 1)))
        return pz_layer_fail(l, err, n, "y must be an 8- or 16-bit integer, y_zero_point one of it");
    if (pz_numel(as) != 1 || d->azp_row || pz_numel(ys) != 1 || !qvec(bs, d->s.N, &d->bs_col))
        return pz_layer_fail(l, err, n, "a and y are quantised per tensor, b per tensor or column");
    return plan_dyn(l, st);
}

/* QLinearMatMul on DYN: the reference's factor per column (qmatmul_ref.c:
 * a_scale * b_scale, then / y_scale, each rounded to the scales' type) in
 * the worker's scratch, then the GEMM and the requantization. */
static void run_q8(const pz_layer *l, const qmatmul_state *st, int32_t za, int ith, int nth)
{
    const pz_qmatmul_desc *d = &st->d;
    const pz_tensor *yz = pz_in(l, 7);
    const size_t gb = pz_qmm_dyn_scratch(st->dyn) * (size_t)nth;
    double *mult = (double *)((char *)l->scratch + gb + mult_bytes(d->s.N) * (size_t)ith);
    const void *as = l->in[1]->data, *bs = l->in[4]->data, *ys = l->in[6]->data;
    const int64_t nm = d->bs_col ? d->s.N : 1;
    for (int64_t c = 0; c < nm; c++)
        mult[c] = pz_round_to(d->ts, pz_round_to(d->ts, pz_ld(as, d->ts, 0) * pz_ld(bs, d->ts, c)) /
                                         pz_ld(ys, d->ts, 0));
    pz_qmm_requant r = {.mult = mult, .mult_per = d->bs_col, .y_signed = d->ty == PZ_I8,
                        .yzp = yz ? pz_load_f64(yz->data, d->ty, 0) : 0};
    pz_quant_range(d->ty, &r.lo, &r.hi);
    pz_qmm_dyn_run_q8(st->dyn, l->in[0]->data, za, &r, l->out[0]->data, l->scratch, ith, nth);
}

static void qmatmul_run(const pz_layer *l, int ith, int nth)
{
    const pz_qmatmul_params *p = l->params;
    const qmatmul_state *st = l->state;
    if (st->dyn) {
        const pz_tensor *az = pz_in(l, 2);
        const int32_t za = !az ? 0 : az->dtype == PZ_I8 ? *(const int8_t *)az->data
                                                        : *(const uint8_t *)az->data;
        if (p->func == PZ_QMM_QLINEAR) {
            run_q8(l, st, za, ith, nth);
            return;
        }
        pz_qdyn_out o;
        if (has_fout(l)) pz_qdyn_out_of(l, 4, st->d.s.N, p->act, &o);
        pz_qmm_dyn_run(st->dyn, l->in[0]->data, za, has_fout(l) ? &o : NULL, l->out[0]->data,
                       ith, nth);
        return;
    }
    if (p->func == PZ_QMM_INTEGER) {
        const pz_tensor *az = pz_in(l, 2), *bz = pz_in(l, 3);
        pz_any_qmatmul__ref(&st->d, l->in[0]->data, l->in[1]->data, az ? az->data : NULL,
                            bz ? bz->data : NULL, NULL, l->out[0]->data, ith, nth);
        if (has_fout(l)) {
            /* the elements this worker wrote (the reference's split) */
            pz_qdyn_out o;
            pz_qdyn_out_of(l, 4, st->d.s.N, p->act, &o);
            int64_t lo, hi;
            pz_split(pz_numel(l->out[0]), ith, nth, &lo, &hi);
            pz_qdyn_out_inplace(&o, l->out[0]->data, lo, hi, 1, st->d.s.N);
        }
        return;
    }
    const pz_tensor *az = pz_in(l, 2), *bz = pz_in(l, 5), *yz = pz_in(l, 7);
    const pz_qmatmul_scales q = {l->in[1]->data, l->in[4]->data, l->in[6]->data,
                                 yz ? yz->data : NULL};
    pz_any_qmatmul__ref(&st->d, l->in[0]->data, l->in[3]->data, az ? az->data : NULL,
                        bz ? bz->data : NULL, &q, l->out[0]->data, ith, nth);
}

static const pz_param_field qmatmul_fields[] = {
    PZ_FIELD(pz_qmatmul_params, func, PZ_F_INT),
    PZ_FIELD(pz_qmatmul_params, act, PZ_F_ACT),
};

const pz_rt_op pz_rt_op_qmatmul = {
    .name = "QMATMUL", PZ_OP_PARAMS(pz_qmatmul_params, qmatmul_fields),
    .min_in = 2, .max_in = 8, .min_out = 1, .max_out = 1,
    .prepare = qmatmul_prepare, .run = qmatmul_run, .release = qmatmul_release,
};
