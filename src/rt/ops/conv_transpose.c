/* conv_transpose.c - the CONV_TRANSPOSE layer: X, W, B? -> Y. */
#include "rt/kernels/conv/deconv_frames.h"
#include "rt/kernels/conv/deconv_phases.h"
#include "rt/kernels/twins_fast.h"
#include "rt/ops/ops.h"

/* the layer's state: its kernel, chosen at prepare; a 1-D or 2-D one with
 * constant weights as stride-1 convs per output phase (deconv_phases.h,
 * profile kernel "phases"), a 3-D one as a 2-D one per output frame
 * (deconv_frames.h, "phases frames") */
typedef void (*ct_fn)(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                      const float *x, const float *w, const float *b, float *y, int ith, int nth);
typedef struct {
    ct_fn fn;
    pz_deconv_phases *ph;
    pz_deconv_frames *fr;
    int64_t xplan[PZ_MAX_RANK];   /* X's dims at prepare (a dynamic region: N may be less) */
} ct_state;

static int conv_transpose_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *b = pz_in(l, 2), *y = pz_out(l, 0);
    if (!x || !w || !y) return pz_layer_fail(l, err, n, "needs X, W and Y");
    if (pz_layer_want_clamp_act(l, err, n, &((const pz_conv_params *)l->params)->act) ||
        pz_layer_want_dtype(l, err, n, "X", x, PZ_F32) ||
        pz_layer_want_dtype(l, err, n, "W", w, PZ_F32) ||
        pz_layer_want_dtype(l, err, n, "Y", y, PZ_F32) ||
        (b && pz_layer_want_dtype(l, err, n, "B", b, PZ_F32)))
        return 1;
    if (pz_conv_check_geometry(l, err, n, true)) return 1;
    if (b && pz_numel(b) != y->dims[1])
        return pz_layer_fail(l, err, n, "B has %lld elements, expected %lld",
                             (long long)pz_numel(b), (long long)y->dims[1]);
    /* the kernel, a plan-time choice: the fast twin where it takes (PZ_ISA=ref
     * keeps the reference) */
    ct_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    memcpy(st->xplan, x->dims, sizeof st->xplan);
    ct_fn *fn = &st->fn;
    *fn = pz_f32_conv_transpose__ref;
    /* in a dynamic region the phases and frames run the run's images (at
     * most the plan's) */
    if (l->isa != PZ_ISA_REF && w->data && (!b || b->data) &&
        pz_deconv_phases_takes(l->params, x->rank, x->dims, y->dims)) {
        if (pz_deconv_phases_make(&st->ph, l->params, x->dims, y->dims, w->data,
                                  b ? b->data : NULL, l->isa))
            return pz_layer_fail(l, err, n, "out of memory (packed weights)");
        l->scratch_bytes = pz_deconv_phases_scratch_bytes(st->ph);
        l->scratch_run_only = 1;
        l->kernel = "phases";
        return 0;
    }
    if (l->isa != PZ_ISA_REF && w->data && (!b || b->data) &&
        pz_deconv_frames_takes(l->params, x->rank, x->dims, y->dims)) {
        if (pz_deconv_frames_make(&st->fr, l->params, x->dims, y->dims, w->data,
                                  b ? b->data : NULL, l->isa))
            return pz_layer_fail(l, err, n, "out of memory (packed weights)");
        l->scratch_bytes = pz_deconv_frames_scratch_bytes(st->fr);
        l->scratch_run_only = 1;
        l->kernel = "phases frames";
        return 0;
    }
    if (l->isa != PZ_ISA_REF && pz_conv_transpose_fast_takes(l->params, x->dims, y->dims))
        *fn = pz_f32_conv_transpose__fast;
#ifndef PZ_SCALAR
    if (*fn == pz_f32_conv_transpose__fast && l->isa == PZ_ISA_AVX512)
        *fn = pz_f32_conv_transpose__fast_avx512;
#endif
    return 0;
}

static void conv_transpose_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *b = pz_in(l, 2);
    const ct_state *st = l->state;
    if (l->run_err && l->run_err[0]) return;   /* run_shape's: Y stays empty */
    if (st->ph) {
        const pz_deconv_phases *f = st->ph;
        pz_deconv_phases now;   /* a dynamic region: the run's images */
        if (l->dyn) now = *f, now.n = l->in[0]->dims[0], f = &now;
        pz_deconv_phases_run(f, l->in[0]->data, l->out[0]->data, l->scratch, ith, nth);
        return;
    }
    if (st->fr) {
        pz_deconv_frames_run(st->fr, l->in[0]->dims[0], l->in[0]->data, l->out[0]->data,
                             l->scratch, ith, nth);
        return;
    }
    st->fn(l->params, l->in[0]->dims, l->out[0]->dims, l->in[0]->data,
                               l->in[1]->data, b ? b->data : NULL, l->out[0]->data, ith, nth);
}

static void conv_transpose_run_shape(const pz_layer *l)
{
    pz_conv_run_shape(l, ((const ct_state *)l->state)->xplan);
}

static void conv_transpose_release(pz_layer *l)
{
    pz_deconv_phases_free(((ct_state *)l->state)->ph);
    pz_deconv_frames_free(((ct_state *)l->state)->fr);
}

const pz_rt_op pz_rt_op_conv_transpose = {
    .name = "CONV_TRANSPOSE", PZ_OP_PARAMS(pz_conv_params, pz_conv_fields),
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = conv_transpose_prepare, .run = conv_transpose_run,
    .release = conv_transpose_release, .run_shape = conv_transpose_run_shape,
};
