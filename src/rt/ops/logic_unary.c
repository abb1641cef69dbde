/* logic_unary.c - the LOGIC_UNARY layer: Not (bool), BitwiseNot (an integer
 * type, kept), IsNaN and IsInf (a float type -> bool), element by element. */
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

static const char *const LOGIC_UNARY_FUNC[] = {"PZ_LU_NOT", "PZ_LU_BITNOT", "PZ_LU_ISNAN",
                                                "PZ_LU_ISINF"};
_Static_assert(PZ_RT_LEN(LOGIC_UNARY_FUNC) == PZ_LU_COUNT_, "a name for each function");

static int logic_unary_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_logic_unary_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (p->func < 0 || p->func >= PZ_LU_COUNT_)
        return pz_layer_fail(l, err, n, "unknown function %d", (int)p->func);
    bool ok = p->func == PZ_LU_NOT      ? x->dtype == PZ_BOOL
              : p->func == PZ_LU_BITNOT ? pz_dtype_is_int(x->dtype)
                                        : pz_dtype_is_float(x->dtype);
    if (!ok)
        return pz_layer_fail(l, err, n, "%s on type %s is not supported",
                             LOGIC_UNARY_FUNC[p->func], pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, p->func == PZ_LU_BITNOT ? x->dtype : PZ_BOOL))
        return 1;
    if (pz_numel(x) != pz_numel(y))
        return pz_layer_fail(l, err, n, "X has %lld elements, Y %lld", (long long)pz_numel(x),
                             (long long)pz_numel(y));
    return 0;
}

static void logic_unary_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    const pz_logic_unary_params *p = l->params;
    /* BitwiseNot: the vectorized twin, off at PZ_ISA=ref */
    if (p->func == PZ_LU_BITNOT && l->isa != PZ_ISA_REF && pz_bitnot_fast_takes(x->dtype)) {
        pz_bitnot__fast(x->dtype, x->data, l->out[0]->data, pz_numel(x), ith, nth);
        return;
    }
    pz_any_logic_unary__ref(l->params, x->dtype, x->data, l->out[0]->data, pz_numel(x), ith,
                            nth);
}

static const pz_param_field logic_unary_fields[] = {
    PZ_FIELD_ENUM(pz_logic_unary_params, func, LOGIC_UNARY_FUNC),
    PZ_FIELD(pz_logic_unary_params, detect_pos, PZ_F_INT),
    PZ_FIELD(pz_logic_unary_params, detect_neg, PZ_F_INT),
};

const pz_rt_op pz_rt_op_logic_unary = {
    .name = "LOGIC_UNARY", PZ_OP_PARAMS(pz_logic_unary_params, logic_unary_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = logic_unary_prepare, .run = logic_unary_run,
    .row_rule = pz_row_rule_elementwise, .run_shape = pz_run_shape_same,   /* numel at run */
};
