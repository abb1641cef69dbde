/* qgemm.c - the QGEMM layer: QGemm (A, a_scale, a_zero_point, B, b_scale,
 * b_zero_point, C?, y_scale?, y_zero_point? -> Y), pz_qgemm_params: the int8
 * GEMM of qgemm.h, planned here with B packed (VNNI, or its scalar twin at
 * PZ_ISA_SCALAR and PZ_ISA_REF, which is the reference: the two give the
 * same bits). What the plan does not take (a nonzero b zero point, ...) is
 * refused with its reason. */
#include "rt/kernels/quant/qdq.h"
#include "rt/kernels/quant/qgemm.h"
#include "rt/ops/ops.h"

static bool const_scalar(const pz_tensor *t, int dt)
{
    return !t || (t->dtype == dt && pz_numel(t) == 1 && t->data);
}

static int qgemm_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_qgemm_params *p = l->params;
    const pz_tensor *a = pz_in(l, 0), *sa = pz_in(l, 1), *za = pz_in(l, 2), *b = pz_in(l, 3);
    const pz_tensor *sb = pz_in(l, 4), *zb = pz_in(l, 5), *c = pz_in(l, 6), *sy = pz_in(l, 7);
    const pz_tensor *zy = pz_in(l, 8), *y = pz_out(l, 0);
    if (!a || !sa || !b || !sb || !y) return pz_layer_fail(l, err, n, "needs A, a_scale, B, b_scale and Y");
    if ((a->dtype != PZ_U8 && a->dtype != PZ_I8) || a->rank != 2 || b->dtype != PZ_I8 ||
        b->rank != 2 || !b->data)
        return pz_layer_fail(l, err, n, "A must be uint8/int8 [M, K], B a constant int8 matrix");
    const int64_t M = a->dims[0], K = a->dims[1], N = b->dims[1 - p->trans_b];
    if (b->dims[p->trans_b] != K || y->rank != 2 || y->dims[0] != M || y->dims[1] != N)
        return pz_layer_fail(l, err, n, "A [%lld, %lld], B and Y do not make a GEMM",
                             (long long)M, (long long)K);
    if (!const_scalar(sa, PZ_F32) || !const_scalar(za, a->dtype) || !sb->data ||
        sb->dtype != PZ_F32 || (pz_numel(sb) != 1 && pz_numel(sb) != N) ||
        !const_scalar(sy, PZ_F32) || (zy && (!sy || !zy->data || pz_numel(zy) != 1)))
        return pz_layer_fail(l, err, n, "scales and zero points must be constants: float32 "
                             "scales (b's one or one per column), scalar zero points");
    if (c && (c->dtype != PZ_I32 || pz_numel(c) != N || !c->data))
        return pz_layer_fail(l, err, n, "C must be a constant int32 [%lld]", (long long)N);
    if (zb && (zb->dtype != PZ_I8 || !zb->data))
        return pz_layer_fail(l, err, n, "b_zero_point must be a constant int8");
    for (int64_t i = 0; zb && i < pz_numel(zb); i++)
        if (((const int8_t *)zb->data)[i])
            return pz_layer_fail(l, err, n, "b_zero_point: only zeros (symmetric weights)");
    const int out_f32 = sy == NULL;
    if (out_f32 ? y->dtype != PZ_F32 : y->dtype != (zy ? zy->dtype : PZ_U8))
        return pz_layer_fail(l, err, n, "Y has type %s", pz_dtype_name(y->dtype));
    if (p->act.kind != PZ_ACT_NONE && (out_f32 || !pz_act_is_clamp(p->act.kind)))
        return pz_layer_fail(l, err, n, "act %d: Relu or Clip, on a requantized Y only",
                             (int)p->act.kind);
    float *bsc = malloc((size_t)N * sizeof *bsc);
    if (!bsc) return pz_layer_fail(l, err, n, "out of memory");
    for (int64_t i = 0; i < N; i++) bsc[i] = ((const float *)sb->data)[pz_numel(sb) > 1 ? i : 0];
    pz_qgemm_desc d = {.m = M, .n = N, .k = K, .a_signed = a->dtype == PZ_I8,
                       .y_signed = y->dtype == PZ_I8, .a_zp = pz_zp8(za), .out_f32 = out_f32,
                       .y_zp = pz_zp8(zy), .novnni = l->opts->novnni};
    const float fys = sy ? *(const float *)sy->data : 1.0f;
    pz_q8_act_bounds(&p->act, d.y_signed, fys, d.y_zp, &d.lo, &d.hi);
    char why[200];
    pz_qgemm_plan *plan = pz_qgemm_plan_new(&d, l->isa == PZ_ISA_REF ? PZ_ISA_SCALAR : l->isa,
                                            b->data, p->trans_b, c ? c->data : NULL,
                                            *(const float *)sa->data, bsc, fys, why, sizeof why);
    free(bsc);
    if (!plan) return pz_layer_fail(l, err, n, "%s", why);
    l->state = plan;
    l->packed_in |= 1u << 3;
    l->kernel = pz_q8_kernel_name(pz_qgemm_plan_kernel(plan));
    return 0;
}

static void qgemm_run(const pz_layer *l, int ith, int nth)
{
    pz_qgemm_run(l->state, l->in[0]->data, l->in[0]->dims[1], l->out[0]->data,
                 l->out[0]->dims[1], ith, nth);
}

static void qgemm_release(pz_layer *l)
{
    pz_qgemm_plan_free(l->state);
    l->state = NULL;   /* the plan is freed here, not by the net's free() */
}

static const pz_param_field qgemm_fields[] = {
    PZ_FIELD(pz_qgemm_params, trans_b, PZ_F_INT),
    PZ_FIELD(pz_qgemm_params, act, PZ_F_ACT),
};

const pz_rt_op pz_rt_op_qgemm = {
    .name = "QGEMM", PZ_OP_PARAMS(pz_qgemm_params, qgemm_fields),
    .min_in = 6, .max_in = 9, .min_out = 1, .max_out = 1,
    .prepare = qgemm_prepare, .run = qgemm_run, .release = qgemm_release,
};
