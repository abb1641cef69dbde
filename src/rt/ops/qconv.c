/* qconv.c - the QCONV layer: ConvInteger (X, W, x_zero_point?,
 * w_zero_point? -> Y int32) and QLinearConv (x, x_scale, x_zero_point, w,
 * w_scale, w_zero_point, y_scale, y_zero_point, B? -> y of y_zero_point's
 * type): X, W int8/uint8, geometry in pz_qconv_params. Kernels:
 *   FAST  QLinearConv, 2-D, group 1, constant int8 W with zero points 0,
 *         constant float32 scales and zero points (x's and y's per tensor):
 *         the int8 direct conv on NCHW16c bytes (qconv16c.h: VNNI, or its
 *         scalar twin at PZ_ISA_SCALAR / without VNNI), act as its clamp;
 *   DW    the same conditions for a depthwise conv (group == C == M): the
 *         int8 depthwise kernel (qdwconv16c.h: AVX512-VNNI for 3x3, AVX-512,
 *         AVX2, scalar twin);
 *   DYN   ConvInteger, 2-D, group 1, constant W and w_zero_point, X's zero
 *         point any tensor (DynamicQuantizeLinear's, read as the layer
 *         runs): im2col and the int8 GEMM, int32 out (qconv_dyn.h);
 *   GDYN  the same for group > 1 (depthwise included): the direct int32
 *         sums on NCHW rows (qgconv_dyn.h: AVX-512, AVX2, scalar twin);
 *   REF   everything else, and PZ_ISA_REF: qconv_ref.c on plain NCHW.
 * A ConvInteger the qdyn pass folded (passes/qdyn.c) has inputs 4-6:
 * x_scale (read at run time), w_scale, bias?, act none or Relu, float32 Y:
 * DYN and GDYN write it in their epilogues, REF's int32 sums go to float32 in place
 * (qdyn_out.h).
 * A residual (inputs 9-13, pz_qconv_params): FAST adds it in its epilogue
 * (qconv16c.h, zsum); REF runs QADD's kernel over the share of y each
 * worker wrote; DW does not take one (the qdq pass fuses group 1 only). */
#include "rt/kernels/quant/qconv.h"
#include "rt/kernels/quant/qconv16c.h"
#include "rt/kernels/quant/qconv_dyn.h"
#include "rt/kernels/quant/qdq.h"
#include "rt/kernels/quant/qdwconv16c.h"
#include "rt/kernels/quant/qgconv_dyn.h"
#include "rt/ops/ops.h"

typedef struct {
    pz_qconv_desc d;                  /* the reference's (first: run passes it) */
    pz_qconv16c_plan *plan;           /* FAST, or NULL */
    pz_qdwconv16c_plan *dwplan;       /* DW, or NULL */
    pz_qconv_dyn *dyn;                /* DYN, or NULL */
    pz_qgconv_dyn *gdyn;              /* GDYN, or NULL */
} qconv_state;

static bool q8(int dt)
{
    return dt == PZ_U8 || dt == PZ_I8;
}

/* A zero point or scale: one element, or one per output channel (*per 1). */
static bool per_m(const pz_tensor *t, int64_t M, int *per)
{
    *per = 0;
    if (!t || pz_numel(t) == 1) return true;
    *per = 1;
    return t->rank == 1 && t->dims[0] == M;
}

/* The residual's QADD arguments (inputs 9-13; has_sum checked them). */
static pz_qadd_args sum_args(const pz_layer *l)
{
    const pz_qconv_params *p = l->params;
    const float ys = *(const float *)l->in[6]->data, zs = *(const float *)l->in[10]->data;
    const int32_t yz = pz_zp8(pz_in(l, 7)), zz = pz_zp8(pz_in(l, 11));
    return (pz_qadd_args){.sa = p->z_b ? zs : ys, .za = p->z_b ? zz : yz,
                          .sb = p->z_b ? ys : zs, .zb = p->z_b ? yz : zz,
                          .sc = *(const float *)l->in[12]->data, .zc = pz_zp8(pz_in(l, 13)),
                          .sgn = l->out[0]->dtype == PZ_I8,
                          .relu = p->act.kind == PZ_ACT_RELU};
}

static bool has_sum(const pz_layer *l)
{
    return l->n_in > 9 && pz_in(l, 9);
}

/* A ConvInteger with the qdyn pass's float32 output stage. */
static bool has_fout(const pz_layer *l)
{
    const pz_qconv_params *p = l->params;
    return p->func == PZ_QCONV_INTEGER && l->n_in > 4 && pz_in(l, 4);
}

/* The FAST kernel where it applies (prepare's checks done); 0 also when it
 * does not (the reference runs). */
static int plan_fast(pz_layer *l, qconv_state *st, char *err, size_t n)
{
    const pz_qconv_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *xs = pz_in(l, 1), *xz = pz_in(l, 2), *w = pz_in(l, 3);
    const pz_tensor *ws = pz_in(l, 4), *wz = pz_in(l, 5), *ys = pz_in(l, 6), *yz = pz_in(l, 7);
    const pz_tensor *b = pz_in(l, 8), *y = pz_out(l, 0);
    const bool dw = p->group > 1 && p->group == st->d.C && p->group == st->d.M;
    const bool sum = has_sum(l);
    if (l->isa == PZ_ISA_REF || (sum && dw) || p->func != PZ_QCONV_QLINEAR || p->nsp != 2 ||
        (p->group != 1 && !dw) ||
        w->dtype != PZ_I8 || !w->data || st->d.ts != PZ_F32 || !xs->data || !ws->data ||
        !ys->data || (xz && !xz->data) || (yz && !yz->data) || (wz && !wz->data) ||
        (b && !b->data))
        return 0;
    const int64_t M = st->d.M;
    for (int64_t i = 0; wz && i < pz_numel(wz); i++)
        if (((const int8_t *)wz->data)[i]) return 0;
    float *wsc = malloc((size_t)M * sizeof *wsc);
    if (!wsc) return pz_layer_fail(l, err, n, "out of memory");
    for (int64_t m = 0; m < M; m++) wsc[m] = ((const float *)ws->data)[st->d.ws_per_m ? m : 0];
    const float fys = *(const float *)ys->data;
    const int32_t y_zp = pz_zp8(yz);
    int32_t lo, hi;
    const pz_act none = {.kind = PZ_ACT_NONE};   /* with a residual, act is the sum's */
    pz_q8_act_bounds(sum ? &none : &p->act, y->dtype == PZ_I8, fys, y_zp, &lo, &hi);
    pz_qconv16c_desc d = {
        .n = st->d.N, .c = st->d.C, .m = M, .ih = x->dims[2], .iw = x->dims[3],
        .oh = y->dims[2], .ow = y->dims[3], .kh = (int)p->kernel[0], .kw = (int)p->kernel[1],
        .sh = (int)p->stride[0], .sw = (int)p->stride[1], .dh = (int)p->dilation[0],
        .dw = (int)p->dilation[1], .pt = (int)p->pad_begin[0], .pl = (int)p->pad_begin[1],
        .x_signed = x->dtype == PZ_I8, .y_signed = y->dtype == PZ_I8, .x_zp = pz_zp8(xz),
        .y_zp = y_zp, .lo = lo, .hi = hi, .novnni = l->opts->novnni};
    if (sum) {
        const pz_qadd_args q = sum_args(l);
        d.zsum = 1, d.z_b = p->z_b, d.z_relu = q.relu;
        d.z_scale = *(const float *)l->in[10]->data, d.z_zp = pz_zp8(pz_in(l, 11));
        d.s_scale = q.sc, d.s_zp = q.zc;
    }
    char why[200];
    if (dw)
        st->dwplan = pz_qdwconv16c_plan_new(&d, l->isa, w->data, b ? b->data : NULL,
                                            *(const float *)xs->data, wsc, fys, why, sizeof why);
    else
        st->plan = pz_qconv16c_plan_new(&d, l->isa, w->data, b ? b->data : NULL,
                                        *(const float *)xs->data, wsc, fys, why, sizeof why);
    free(wsc);
    if (!st->plan && !st->dwplan) return 0;   /* a shape or value it does not take: the reference */
    l->in_cblk[0] = l->out_cblk[0] = 16;
    if (sum) l->in_cblk[9] = 16;
    l->packed_in |= 1u << 3;
    if (dw) l->kernel = st->dwplan->w16 ? "dw16c_vnni"
                        : l->isa == PZ_ISA_AVX512 ? "dw16c_avx512"
                        : l->isa == PZ_ISA_AVX2 ? "dw16c_avx2"
                                                : "dw16c_scalar";
    else {
        const pz_q8_kernel k = pz_qconv16c_plan_kernel(st->plan);
        l->kernel = k == PZ_Q8_VNNI      ? "vnni16c"
                    : k == PZ_Q8_AVXVNNI ? "avxvnni16c"
                    : k == PZ_Q8_AVX2    ? "avx2_16c"
                                         : "scalar16c";
    }
    return 0;
}

/* DYN where it applies (prepare's checks done); 0 also when it does not. */
static int plan_dyn(pz_layer *l, qconv_state *st, char *err, size_t n)
{
    const pz_qconv_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *wz = pz_in(l, 3), *y = pz_out(l, 0);
    if (l->isa == PZ_ISA_REF || p->nsp != 2 || !w->data || (wz && !wz->data)) return 0;
    const pz_qconv_dyn_desc d = {
        .n = st->d.N, .c = st->d.C, .m = st->d.M, .ih = x->dims[2], .iw = x->dims[3],
        .oh = y->dims[2], .ow = y->dims[3], .kh = (int)p->kernel[0], .kw = (int)p->kernel[1],
        .sh = (int)p->stride[0], .sw = (int)p->stride[1], .dh = (int)p->dilation[0],
        .dw = (int)p->dilation[1], .pt = (int)p->pad_begin[0], .pl = (int)p->pad_begin[1],
        .x_signed = x->dtype == PZ_I8, .w_signed = w->dtype == PZ_I8,
        .novnni = l->opts->novnni};
    char why[200];
    if (p->group != 1) {
        st->gdyn = pz_qgconv_dyn_new(&d, p->group, l->isa, w->data, wz ? wz->data : NULL,
                                     st->d.wzp_per_m, why, sizeof why);
        if (!st->gdyn) return 0;   /* the reference */
        l->scratch_bytes = pz_qgconv_dyn_scratch(st->gdyn, l->nth);
        l->packed_in |= 1u << 1;
        const pz_isa gi = pz_qgconv_dyn_isa(st->gdyn);
        l->kernel = gi == PZ_ISA_AVX512 ? "gdyn_avx512" : gi == PZ_ISA_AVX2 ? "gdyn_avx2"
                                                                          : "gdyn_scalar";
        return 0;
    }
    st->dyn = pz_qconv_dyn_new(&d, l->isa, w->data, wz ? wz->data : NULL, st->d.wzp_per_m, why,
                               sizeof why);
    if (!st->dyn) return 0;   /* a shape it does not take: the reference */
    l->scratch_bytes = pz_qconv_dyn_scratch(st->dyn, l->nth);
    l->packed_in |= 1u << 1;
    static const char *const NAMES[] = {"dyn_scalar", "dyn_avx2", "dyn_avxvnni", "dyn_vnni"};
    l->kernel = NAMES[pz_qconv_dyn_kernel(st->dyn)];
    (void)err, (void)n;
    return 0;
}

static void qconv_release(pz_layer *l)
{
    qconv_state *st = l->state;
    if (st)
        pz_qconv16c_plan_free(st->plan), pz_qdwconv16c_plan_free(st->dwplan),
            pz_qconv_dyn_free(st->dyn), pz_qgconv_dyn_free(st->gdyn);
}

/* A residual: Z of Y's type and shape; its scale, the sum's scale constant
 * float32 scalars, the zero points constant scalars of Y's type; act none
 * or Relu (on the sum). */
static int check_sum(pz_layer *l, char *err, size_t n)
{
    const pz_qconv_params *p = l->params;
    const pz_tensor *z = pz_in(l, 9), *y = pz_out(l, 0);
    if (z->dtype != y->dtype || z->rank != y->rank)
        return pz_layer_fail(l, err, n, "the residual Z must have Y's type and shape");
    for (int d = 0; d < y->rank; d++)
        if (z->dims[d] != y->dims[d])
            return pz_layer_fail(l, err, n, "the residual Z must have Y's type and shape");
    for (int k = 10; k < 14; k++) {
        const pz_tensor *t = pz_in(l, k);
        const int want = k == 11 || k == 13 ? (int)y->dtype : PZ_F32;
        if (k == 13 && !t) continue;
        if (!t || (int)t->dtype != want || pz_numel(t) != 1 || !t->data)
            return pz_layer_fail(l, err, n, "residual input %d must be a constant %s scalar", k,
                                 pz_dtype_name(want));
    }
    if (p->act.kind != PZ_ACT_NONE && p->act.kind != PZ_ACT_RELU)
        return pz_layer_fail(l, err, n, "act %d with a residual: only Relu", (int)p->act.kind);
    return 0;
}

static int qconv_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_qconv_params *p = l->params;
    const bool ql = p->func == PZ_QCONV_QLINEAR;
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, ql ? 3 : 1), *y = pz_out(l, 0);
    const pz_tensor *xz = pz_in(l, 2), *wz = pz_in(l, ql ? 5 : 3);
    if (p->func != PZ_QCONV_INTEGER && !ql)
        return pz_layer_fail(l, err, n, "unknown function %d", (int)p->func);
    if (!x || !w || !y) return pz_layer_fail(l, err, n, "needs X, W and Y");
    if (p->act.kind != PZ_ACT_NONE && (!ql || !pz_act_is_clamp(p->act.kind)) &&
        !(has_fout(l) && p->act.kind == PZ_ACT_RELU))
        return pz_layer_fail(l, err, n, "act %d: only QLinearConv takes one, Relu or Clip, and "
                             "a ConvInteger with float output Relu", (int)p->act.kind);
    if (!q8(x->dtype) || !q8(w->dtype))
        return pz_layer_fail(l, err, n, "X (%s) and W (%s) must be int8 or uint8",
                             pz_dtype_name(x->dtype), pz_dtype_name(w->dtype));
    if (p->nsp < 1 || p->nsp > PZ_MAX_SPATIAL || x->rank != p->nsp + 2 || w->rank != x->rank ||
        y->rank != x->rank)
        return pz_layer_fail(l, err, n, "X, W and Y must have rank %d", p->nsp + 2);
    const int64_t M = w->dims[0];
    if (p->group < 1 || x->dims[1] % p->group || M % p->group ||
        w->dims[1] != x->dims[1] / p->group || y->dims[0] != x->dims[0] || y->dims[1] != M)
        return pz_layer_fail(l, err, n, "channels: X %lld, W [%lld, %lld], Y %lld, group %lld",
                             (long long)x->dims[1], (long long)M, (long long)w->dims[1],
                             (long long)y->dims[1], (long long)p->group);
    qconv_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    pz_qconv_desc *d = &st->d;
    d->tx = x->dtype, d->tw = w->dtype, d->ty = y->dtype;
    d->N = x->dims[0], d->C = x->dims[1], d->M = M;
    for (int s = 0; s < p->nsp; s++) {
        const int64_t ext = p->dilation[s] * (p->kernel[s] - 1) + 1;
        const int64_t want = (x->dims[2 + s] + p->pad_begin[s] + p->pad_end[s] - ext) /
                             p->stride[s] + 1;
        if (p->kernel[s] != w->dims[2 + s] || p->stride[s] < 1 || p->dilation[s] < 1 ||
            y->dims[2 + s] != want)
            return pz_layer_fail(l, err, n, "spatial dim %d: kernel, stride, dilation or Y's "
                                 "size do not match", s);
        d->xsp[s] = x->dims[2 + s], d->ysp[s] = y->dims[2 + s];
    }
    if ((xz && (xz->dtype != x->dtype || pz_numel(xz) != 1)) ||
        (wz && (wz->dtype != w->dtype || !per_m(wz, M, &d->wzp_per_m))))
        return pz_layer_fail(l, err, n, "zero points: X's one of its type, W's one or one per "
                             "output channel of its type");
    if (!ql && l->n_in > 7) return pz_layer_fail(l, err, n, "ConvInteger takes 2 to 7 inputs");
    if (has_fout(l)) {
        if (pz_qdyn_out_check(l, 4, M, err, n)) return 1;
        d->ty = PZ_I32;   /* the reference's sums, then float32 in place */
        return plan_dyn(l, st, err, n);
    }
    if (!ql) return pz_layer_want_dtype(l, err, n, "Y", y, PZ_I32) || plan_dyn(l, st, err, n);
    const pz_tensor *xs = pz_in(l, 1), *ws = pz_in(l, 4), *ys = pz_in(l, 6), *yz = pz_in(l, 7);
    const pz_tensor *b = pz_in(l, 8);
    if (!xs || !ws || !ys) return pz_layer_fail(l, err, n, "needs x_scale, w_scale and y_scale");
    d->ts = xs->dtype;
    if (!pz_dtype_is_float(d->ts) || ws->dtype != d->ts || ys->dtype != d->ts ||
        pz_numel(xs) != 1 || pz_numel(ys) != 1 || !per_m(ws, M, &d->ws_per_m))
        return pz_layer_fail(l, err, n, "scales: one float type, x's and y's one element, w's "
                             "one or one per output channel");
    if (!q8(y->dtype) || (yz && (yz->dtype != y->dtype || pz_numel(yz) != 1)))
        return pz_layer_fail(l, err, n, "y must be int8 or uint8, y_zero_point one of it");
    if (b && (b->dtype != PZ_I32 || b->rank != 1 || b->dims[0] != M))
        return pz_layer_fail(l, err, n, "B must be int32 [%lld]", (long long)M);
    if (has_sum(l) && check_sum(l, err, n)) return 1;
    return plan_fast(l, st, err, n);
}

static void qconv_run(const pz_layer *l, int ith, int nth)
{
    const pz_qconv_params *p = l->params;
    const qconv_state *st = l->state;
    if (st->plan) {
        pz_qconv16c_run(st->plan, l->in[0]->data, has_sum(l) ? l->in[9]->data : NULL,
                        l->out[0]->data, ith, nth);
        return;
    }
    if (st->dwplan) {
        pz_qdwconv16c_run(st->dwplan, l->in[0]->data, l->out[0]->data, ith, nth);
        return;
    }
    if (st->dyn || st->gdyn) {
        const pz_tensor *xz = pz_in(l, 2);
        const int32_t zx = !xz ? 0 : xz->dtype == PZ_I8 ? *(const int8_t *)xz->data
                                                         : *(const uint8_t *)xz->data;
        pz_qdyn_out o;
        if (has_fout(l)) pz_qdyn_out_of(l, 4, st->d.M, p->act, &o);
        if (st->gdyn)
            pz_qgconv_dyn_run(st->gdyn, l->in[0]->data, zx, has_fout(l) ? &o : NULL,
                              l->out[0]->data, l->scratch, ith, nth);
        else
            pz_qconv_dyn_run(st->dyn, l->in[0]->data, zx, has_fout(l) ? &o : NULL,
                             l->out[0]->data, l->scratch, ith, nth);
        return;
    }
    const bool ql = p->func == PZ_QCONV_QLINEAR;
    const pz_tensor *xz = pz_in(l, 2), *wz = pz_in(l, ql ? 5 : 3);
    pz_qconv_args a = {xz ? xz->data : NULL, wz ? wz->data : NULL, NULL, NULL, NULL, NULL, NULL};
    if (ql) {
        const pz_tensor *yz = pz_in(l, 7), *b = pz_in(l, 8);
        a.xs = l->in[1]->data, a.ws = l->in[4]->data, a.ys = l->in[6]->data;
        a.yzp = yz ? yz->data : NULL;
        a.b = b ? b->data : NULL;
    }
    if (!has_sum(l)) {
        pz_qconv_params pc = *p;
        if (has_fout(l)) pc.act.kind = PZ_ACT_NONE;   /* the output stage's */
        pz_any_qconv__ref(&pc, &st->d, l->in[0]->data, l->in[ql ? 3 : 1]->data, &a,
                          l->out[0]->data, ith, nth);
        if (has_fout(l)) {
            /* the elements this worker wrote (the reference's split) */
            pz_qdyn_out o;
            pz_qdyn_out_of(l, 4, st->d.M, p->act, &o);
            const int64_t M = st->d.M, nm = st->d.N * M;
            const int64_t inner = nm ? pz_numel(l->out[0]) / nm : 1;
            int64_t lo, hi;
            pz_split(pz_numel(l->out[0]), ith, nth, &lo, &hi);
            pz_qdyn_out_inplace(&o, l->out[0]->data, lo, hi, inner, M);
        }
        return;
    }
    /* a residual: the conv without act, then QADD over the elements this
     * worker wrote (the reference's split of the plain NCHW output) */
    pz_qconv_params pc = *p;
    pc.act.kind = PZ_ACT_NONE;
    pz_any_qconv__ref(&pc, &st->d, l->in[0]->data, l->in[3]->data, &a, l->out[0]->data, ith,
                      nth);
    const pz_qadd_args q = sum_args(l);
    int64_t lo, hi;
    pz_split(pz_numel(l->out[0]), ith, nth, &lo, &hi);
    char *y = (char *)l->out[0]->data + lo;
    const char *z = (const char *)l->in[9]->data + lo;
    pz_qdq_for(l->isa)->add(hi - lo, &q, p->z_b ? z : y, p->z_b ? y : z, y);
}

/* Row ranges (fused F-Blocks, rt/fuse.c): FAST and DW compute any range of
 * output rows on whole tensors, the bits of run; REF does not. */
static int qconv_rows(const pz_layer *l)
{
    const qconv_state *st = l->state;
    return st && (st->plan || st->dwplan) ? 1 : 0;
}

static void qconv_run_rows(const pz_layer *l, const void *const *in, void *out, int64_t r0,
                           int64_t r1, int ith, int nth)
{
    const qconv_state *st = l->state;
    if (st->plan)
        pz_qconv16c_run_rows(st->plan, in[0], has_sum(l) ? in[9] : NULL, out, r0, r1, ith, nth);
    else pz_qdwconv16c_run_rows(st->dwplan, in[0], out, r0, r1, ith, nth);
}

/* Row-local for a 2-D conv: x through the window; the weights, scales, zero
 * points and bias whatever the rows. */
static int qconv_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    const pz_qconv_params *p = l->params;
    if (p->nsp != 2 || l->in[0].rank != 4 || l->out[0].rank != 4) {
        m->why = "not a 2-D convolution";
        return 0;
    }
    m->in[0] = (pz_row_input){.kind = PZ_ROWS_WINDOW, .kernel = p->kernel[0],
                              .stride = p->stride[0] > 0 ? p->stride[0] : 1, .pad = p->pad_begin[0],
                              .dilation = p->dilation[0] > 0 ? p->dilation[0] : 1};
    const int w = p->func == PZ_QCONV_QLINEAR ? 3 : 1;
    for (int i = 1; i < l->n_in; i++) m->in[i].kind = i == 9 ? PZ_ROWS_SAME : PZ_ROWS_NONE;
    /* per output row: every image, every output column, every weight */
    int64_t nw = 1;
    for (int k = 0; k < l->in[w].rank; k++) nw *= l->in[w].dims[k];
    m->macs_row = l->out[0].dims[0] * l->out[0].dims[3] * nw;
    return 1;
}

static const char *const QCONV_FUNC[] = {"PZ_QCONV_INTEGER", "PZ_QCONV_QLINEAR"};
static const pz_param_field qconv_fields[] = {
    PZ_FIELD_ENUM(pz_qconv_params, func, QCONV_FUNC),
    PZ_FIELD(pz_qconv_params, nsp, PZ_F_INT),
    PZ_FIELD(pz_qconv_params, group, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_qconv_params, kernel, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_qconv_params, stride, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_qconv_params, dilation, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_qconv_params, pad_begin, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_qconv_params, pad_end, PZ_F_I64),
    PZ_FIELD(pz_qconv_params, act, PZ_F_ACT),
    PZ_FIELD(pz_qconv_params, z_b, PZ_F_INT),
};

const pz_rt_op pz_rt_op_qconv = {
    .name = "QCONV", PZ_OP_PARAMS(pz_qconv_params, qconv_fields),
    .min_in = 2, .max_in = 14, .min_out = 1, .max_out = 1,
    .prepare = qconv_prepare, .run = qconv_run, .release = qconv_release,
    .rows = qconv_rows, .run_rows = qconv_run_rows, .row_rule = qconv_row_rule,
};
