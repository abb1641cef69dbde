/* cast.c - the CAST layer: X to Y's element type (pz_cast_params: how to
 * round into the float8 types; zero is ONNX's default). */
#include "rt/kernels/bcast_fast.h"
#include "rt/ops/ops.h"

static int cast_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_numel(x) != pz_numel(y))
        return pz_layer_fail(l, err, n, "X has %lld elements, Y %lld", (long long)pz_numel(x),
                             (long long)pz_numel(y));
    const pz_cast_params *p = l->params;
    if ((unsigned)p->round > PZ_ROUND_NEAREST)
        return pz_layer_fail(l, err, n, "round mode %d is not one of up, down, nearest",
                             (int)p->round);
    return 0;
}

static void cast_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0], *y = l->out[0];
    /* masks and bytes to float32 and back: the plain-C twin (PZ_ISA=ref: the reference) */
    if (l->isa != PZ_ISA_REF && pz_any_cast_fast_takes(x->dtype, y->dtype)) {
        pz_any_cast__fast(x->dtype, x->data, y->dtype, y->data, pz_numel(x), ith, nth);
        return;
    }
    pz_any_cast__ref(l->params, x->dtype, x->data, y->dtype, y->data, pz_numel(x), ith, nth);
}

static const char *const CAST_ROUND[] = {"PZ_ROUND_UP", "PZ_ROUND_DOWN", "PZ_ROUND_NEAREST"};
static const pz_param_field cast_fields[] = {
    PZ_FIELD(pz_cast_params, nosat, PZ_F_INT), PZ_FIELD_ENUM(pz_cast_params, round, CAST_ROUND),
};
static const pz_cast_params cast_defaults;   /* saturate, round up */

const pz_rt_op pz_rt_op_cast = {
    .name = "CAST", PZ_OP_PARAMS(pz_cast_params, cast_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = cast_prepare, .run = cast_run,
    .run_shape = pz_run_shape_same,
    .defaults = &cast_defaults, .row_rule = pz_row_rule_elementwise,
};
