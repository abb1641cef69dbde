/* qadd.c - the QADD layer: QLinearAdd (A, A_scale, A_zero_point?, B,
 * B_scale, B_zero_point?, C_scale, C_zero_point? -> C), pz_qadd_params.
 * Element-wise over equal shapes, so it reads and writes the layout its
 * inputs come in when both are NCHW16c (an int8 residual block's), else
 * plain; the kernels of qdq.h (AVX-512, scalar twin; the reference ISA
 * runs the twin). */
#include "rt/kernels/quant/qdq.h"
#include "rt/ops/ops.h"

typedef struct {
    pz_qadd_fn fn;
    int64_t n;                        /* elements in the layout chosen */
} qadd_state;

static int qadd_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_qadd_params *p = l->params;
    const pz_tensor *a = pz_in(l, 0), *b = pz_in(l, 3), *c = pz_out(l, 0);
    if (!a || !b || !c || !pz_in(l, 1) || !pz_in(l, 4) || !pz_in(l, 6))
        return pz_layer_fail(l, err, n, "needs A, A_scale, B, B_scale, C_scale and C");
    if ((a->dtype != PZ_U8 && a->dtype != PZ_I8) || b->dtype != a->dtype)
        return pz_layer_fail(l, err, n, "A (%s) and B (%s) must be one of uint8 and int8",
                             pz_dtype_name(a->dtype), pz_dtype_name(b->dtype));
    if (pz_layer_want_dtype(l, err, n, "C", c, a->dtype)) return 1;
    if (a->rank != b->rank || a->rank != c->rank)
        return pz_layer_fail(l, err, n, "A, B and C must have one shape");
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d] != b->dims[d] || a->dims[d] != c->dims[d])
            return pz_layer_fail(l, err, n, "A, B and C must have one shape");
    for (int k = 1; k < 8; k++) {
        const pz_tensor *t = pz_in(l, k);
        if (k == 3 || !t) continue;
        const int want = k % 3 == 2 || k == 7 ? a->dtype : PZ_F32;
        if (t->dtype != want || pz_numel(t) != 1 || !t->data)
            return pz_layer_fail(l, err, n, "input %d must be a constant %s scalar", k,
                                 pz_dtype_name(want));
    }
    if (p->act.kind != PZ_ACT_NONE && p->act.kind != PZ_ACT_RELU)
        return pz_layer_fail(l, err, n, "act %d: only Relu", (int)p->act.kind);
    qadd_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    st->fn = pz_qdq_for(l->isa)->add;
    const int cb = a->rank == 4 && l->in_have[0] == 16 && l->in_have[3] == 16 ? 16 : 0;
    l->in_cblk[0] = l->in_cblk[3] = l->out_cblk[0] = cb;
    st->n = (int64_t)pz_layout_bytes(a, cb);
    return 0;
}

/* The scales, zero points and activation, as the kernels take them. */
static pz_qadd_args qadd_args(const pz_layer *l)
{
    const pz_qadd_params *p = l->params;
    return (pz_qadd_args){
        .sa = *(const float *)l->in[1]->data, .sb = *(const float *)l->in[4]->data,
        .sc = *(const float *)l->in[6]->data, .za = pz_zp8(pz_in(l, 2)), .zb = pz_zp8(pz_in(l, 5)),
        .zc = pz_zp8(pz_in(l, 7)), .sgn = l->in[0]->dtype == PZ_I8,
        .relu = p->act.kind == PZ_ACT_RELU};
}

static void qadd_run(const pz_layer *l, int ith, int nth)
{
    const qadd_state *st = l->state;
    const pz_qadd_args q = qadd_args(l);
    int64_t lo, hi;
    pz_split(st->n, ith, nth, &lo, &hi);
    st->fn(hi - lo, &q, (const char *)l->in[0]->data + lo, (const char *)l->in[3]->data + lo,
           (char *)l->out[0]->data + lo);
}

/* Row ranges (fused F-Blocks): in the blocked layout, rows [r0, r1) of
 * every plane, element by element (the bits of run). */
static int qadd_rows(const pz_layer *l)
{
    return l->out_cblk[0] == 16 && l->out[0]->rank == 4 ? 1 : 0;
}

static void qadd_run_rows(const pz_layer *l, const void *const *in, void *out, int64_t r0,
                          int64_t r1, int ith, int nth)
{
    const qadd_state *st = l->state;
    const pz_qadd_args q = qadd_args(l);
    const int64_t *d = l->out[0]->dims, H = d[2], row = d[3] * 16;
    const int64_t planes = d[0] * ((d[1] + 15) / 16), nr = r1 - r0;
    if (nr <= 0) return;
    int64_t lo, hi;   /* units: one row of one plane */
    pz_split(planes * nr, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi;) {
        const int64_t pl = u / nr, r = r0 + u % nr;
        const int64_t k = nr - u % nr < hi - u ? nr - u % nr : hi - u;   /* rows of this plane */
        const int64_t off = (pl * H + r) * row;
        st->fn(k * row, &q, (const char *)in[0] + off, (const char *)in[3] + off,
               (char *)out + off);
        u += k;
    }
}

/* Element-wise: A and B row for row; the scales and zero points whatever the rows. */
static int qadd_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    if (l->in[0].rank != 4 || l->in[3].rank != 4) {
        m->why = "not a 4-D tensor";
        return 0;
    }
    for (int i = 1; i < l->n_in; i++)
        if (i != 3) m->in[i].kind = PZ_ROWS_NONE;
    return 1;
}

static const pz_param_field qadd_fields[] = {
    PZ_FIELD(pz_qadd_params, act, PZ_F_ACT),
};

const pz_rt_op pz_rt_op_qadd = {
    .name = "QADD", PZ_OP_PARAMS(pz_qadd_params, qadd_fields),
    .min_in = 7, .max_in = 8, .min_out = 1, .max_out = 1,
    .prepare = qadd_prepare, .run = qadd_run,
    .rows = qadd_rows, .run_rows = qadd_run_rows, .row_rule = qadd_row_rule,
};
