/* unary.c - the UNARY layer: element-wise activation functions. */
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

typedef struct {
    void (*fn)(const pz_unary_params *p, int64_t n, int64_t c, int64_t hw,
               const float *restrict x, float *restrict y, int ith, int nth);
    int flat;                /* plain input: its elements as one block of 16 lanes */
} unary_state;

static int unary_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_unary_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_unary_supports(p->func, x->dtype))
        return pz_layer_fail(l, err, n, "function %d on type %s is not supported",
                             (int)p->func, pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (pz_numel(x) != pz_numel(y))
        return pz_layer_fail(l, err, n, "X has %lld elements, Y %lld", (long long)pz_numel(x),
                             (long long)pz_numel(y));
    /* a blocked input stays blocked (same shape: not a reshape in disguise),
     * through the CPU's kernel (chosen here, at compile); a dynamic region
     * (l->dyn) is plain: the flat path below, which takes numel at run time */
    if (!l->dyn && l->in_have[0] == 16 && x->dtype == PZ_F32 && y->rank == 4 &&
        !pz_layer_want_same_shape(l, NULL, 0, "Y", y, x)) {
        unary_state *st = calloc(1, sizeof *st);
        if (!st) return pz_layer_fail(l, err, n, "out of memory");
        pz_isa isa = l->isa;
        st->fn = pz_fast_kernels_for(isa == PZ_ISA_REF ? PZ_ISA_SCALAR : isa)->unary16c;
        l->state = st;
        l->in_cblk[0] = l->out_cblk[0] = 16;
    } else if ((l->isa == PZ_ISA_AVX512 || l->isa == PZ_ISA_AVX2) && x->dtype == PZ_F32 &&
               (pz_numel(x) > 0 || l->dyn)) {
        /* a plain float tensor (ConvNeXt's GELU on [1, 56, 56, 384]): the
         * same kernel over all of its elements, as one "block" of 16
         * channels and numel / 16 pixels, the last numel % 16 through a
         * vector of their own (unary_flat) */
        unary_state *st = calloc(1, sizeof *st);
        if (!st) return pz_layer_fail(l, err, n, "out of memory");
        st->fn = pz_fast_kernels_for(l->isa)->unary16c;
        st->flat = 1;
        l->state = st;
        l->kernel = "unary16c-flat";
    }
    return 0;
}

/* The flat path: this worker's share of the ceil(n / 16) vectors, the
 * whole ones in place, a last partial one copied into 16 lanes (zeros
 * after its n % 16 elements) and back: no read or write past n. */
static void unary_flat(const pz_layer *l, const float *x, float *y, int64_t n, int ith, int nth)
{
    const unary_state *st = l->state;
    const int64_t full = n / 16;
    int64_t lo, hi;
    pz_split((n + 15) / 16, ith, nth, &lo, &hi);
    const int64_t end = hi < full ? hi : full;
    if (end > lo) st->fn(l->params, 1, 16, end - lo, x + lo * 16, y + lo * 16, 0, 1);
    if (hi > full) {   /* the partial vector, which is this share's last */
        float t[16] = {0}, u[16];
        memcpy(t, x + full * 16, (size_t)(n - full * 16) * sizeof *t);
        st->fn(l->params, 1, 16, 1, t, u, 0, 1);
        memcpy(y + full * 16, u, (size_t)(n - full * 16) * sizeof *u);
    }
}

static void unary_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0], *y = l->out[0];
    const unary_state *st = l->state;
    if (l->in_cblk[0] == 16)
        st->fn(l->params, x->dims[0], x->dims[1], x->dims[2] * x->dims[3], x->data, y->data, ith,
               nth);
    else if (st && st->flat)
        unary_flat(l, x->data, y->data, pz_numel(x), ith, nth);
    else if (x->dtype == PZ_F32)
        pz_f32_unary__ref(l->params, x->data, y->data, pz_numel(x), ith, nth);
    else
        pz_any_unary__ref(l->params, x->dtype, x->data, y->data, pz_numel(x), ith, nth);
}

/* Row ranges (fused F-Blocks), blocked path: rows [r0, r1) of each
 * 16-channel plane are (r1 - r0) * W contiguous pixels. */
static int unary_rows(const pz_layer *l)
{
    return l->in_cblk[0] == 16 ? 1 : 0;
}

static void unary_run_rows(const pz_layer *l, const void *const *in, void *out, int64_t r0,
                           int64_t r1, int ith, int nth)
{
    const unary_state *st = l->state;
    const int64_t *yd = l->out[0]->dims, cb = (yd[1] + 15) / 16;
    for (int64_t i = 0; i < yd[0]; i++)
        for (int64_t bc = 0; bc < cb; bc++) {
            int64_t o = ((i * cb + bc) * yd[2] + r0) * yd[3] * 16;
            st->fn(l->params, 1, yd[1] - bc * 16 < 16 ? yd[1] - bc * 16 : 16, (r1 - r0) * yd[3],
                   (const float *)in[0] + o, (float *)out + o, ith, nth);
        }
}

/* The functions' enumerators, from the list PZ_UNARY_FUNCS. */
#define PZ_UN_NAME(F) "PZ_UN_" #F,
static const char *const UNARY_FUNC[] = {PZ_UNARY_FUNCS(PZ_UN_NAME)};
#undef PZ_UN_NAME
static const pz_param_field unary_fields[] = {
    PZ_FIELD_ENUM(pz_unary_params, func, UNARY_FUNC), PZ_FIELD(pz_unary_params, alpha, PZ_F_F32),
    PZ_FIELD(pz_unary_params, beta, PZ_F_F32), PZ_FIELD(pz_unary_params, gamma, PZ_F_F32),
};

const pz_rt_op pz_rt_op_unary = {
    .rows = unary_rows, .run_rows = unary_run_rows,
    .name = "UNARY", PZ_OP_PARAMS(pz_unary_params, unary_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = unary_prepare, .run = unary_run,
    .run_shape = pz_run_shape_same,   /* the flat and reference paths take numel at run time */
    .row_rule = pz_row_rule_elementwise,
};
