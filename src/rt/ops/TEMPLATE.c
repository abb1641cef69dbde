/* TEMPLATE.c - start a new runtime layer kind here (this file is not built
 * into the runtime; tests/unit/op_templates.c compiles and runs it).
 *   1. Copy to src/rt/ops/<sym>.c and rename `template` throughout.
 *   2. Add X(KIND, <sym>) at the end of PZ_OP_KINDS in src/rt/pz_op_kinds.h:
 *      that makes PZ_OP_KIND, its extern and its slot in pz_rt_ops[].
 *   3. Its params struct goes to pz_rt.h (generated programs fill it), its
 *      reference kernel to src/rt/kernels/<family>/<sym>_ref.c, declared in
 *      kernels.h. They are here only so that this file stands alone.
 *   4. The compiler side: src/ops/TEMPLATE.c, whose lower names PZ_OP_KIND.
 * prepare: checks dtypes and shapes (errors a user can act on), plans.
 * run:     worker ith of nth does its share; no allocation, no logging.
 * The descriptor also tells the compiler how to print the params
 * (PZ_OP_PARAMS and a field table) and whether the layer is row-local
 * (row_rule; NULL: it never is, no band splits over it). */
#include "rt/ops/ops.h"

/* (pz_rt.h) Y = alpha * X. */
typedef struct {
    float alpha;
} pz_template_params;

/* (rt/kernels/<family>/template_ref.c) The reference kernel: pure, sizes and
 * pointers in, worker ith of nth takes its slice of the n elements. */
static void pz_f32_template__ref(const pz_template_params *p, const float *restrict x,
                                 float *restrict y, int64_t n, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) y[i] = p->alpha * x[i];
}

static int template_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (x->dtype != PZ_F32)
        return pz_layer_fail(l, err, n, "X has type %s, expected float32", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (pz_numel(x) != pz_numel(y))
        return pz_layer_fail(l, err, n, "X has %lld elements, Y %lld", (long long)pz_numel(x),
                             (long long)pz_numel(y));
    return 0;
}

static void template_run(const pz_layer *l, int ith, int nth)
{
    pz_f32_template__ref(l->params, l->in[0]->data, l->out[0]->data, pz_numel(l->in[0]), ith,
                         nth);
}

/* Every field of the params, or the code generator leaves it zero. */
static const pz_param_field template_fields[] = {
    PZ_FIELD(pz_template_params, alpha, PZ_F_F32),
};

const pz_rt_op pz_rt_op_template = {
    .name = "TEMPLATE", PZ_OP_PARAMS(pz_template_params, template_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = template_prepare, .run = template_run,
    .row_rule = pz_row_rule_elementwise,   /* output row r reads input row r */
};
