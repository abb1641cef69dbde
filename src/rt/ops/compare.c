/* compare.c - the COMPARE layer: Y (bool) = A func B, A and B broadcast
 * (numpy) to Y's shape: Equal, Less, LessOrEqual, Greater, GreaterOrEqual
 * on one numeric type (Equal also bool and string), And, Or, Xor on bool. */
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

typedef struct {
    pz_bcast bc;
    pz_compare_fn fast;  /* float32, int32, int64 unless PZ_ISA=ref: the CPU's
                          * kernel; NULL: the reference */
} compare_state;

static const char *const COMPARE_FUNC[] = {"PZ_CMP_EQ", "PZ_CMP_LT",  "PZ_CMP_LE",
                                           "PZ_CMP_GT", "PZ_CMP_GE",  "PZ_CMP_AND",
                                           "PZ_CMP_OR", "PZ_CMP_XOR"};
_Static_assert(PZ_RT_LEN(COMPARE_FUNC) == PZ_CMP_COUNT_, "a name for each pz_compare_func");

static int compare_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_compare_params *p = l->params;
    const pz_tensor *a = pz_in(l, 0), *b = pz_in(l, 1), *y = pz_out(l, 0);
    char ba[96], bb[96], by[96];
    if (!a || !b || !y) return pz_layer_fail(l, err, n, "needs A, B and Y");
    if (p->func < 0 || p->func >= PZ_CMP_COUNT_)
        return pz_layer_fail(l, err, n, "unknown function %d", (int)p->func);
    if (a->dtype != b->dtype)
        return pz_layer_fail(l, err, n, "A has type %s, B %s: they must agree",
                             pz_dtype_name(a->dtype), pz_dtype_name(b->dtype));
    bool logic = p->func >= PZ_CMP_AND;
    bool ok = logic ? a->dtype == PZ_BOOL
                    : pz_dtype_is_float(a->dtype) || pz_dtype_is_int(a->dtype) ||
                          ((a->dtype == PZ_BOOL || a->dtype == PZ_STRING) && p->func == PZ_CMP_EQ);
    if (!ok)
        return pz_layer_fail(l, err, n, "%s on type %s is not supported", COMPARE_FUNC[p->func],
                             pz_dtype_name(a->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, PZ_BOOL)) return 1;
    compare_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    if (l->isa != PZ_ISA_REF && pz_num_compare_fast_takes(p->func, a->dtype)) {
        st->fast = pz_fast_kernels_for(l->isa)->compare;
        /* for profiles: the ISA's kernel, or the plain-C twin's */
        l->kernel = st->fast == pz_num_compare__fast ? "fast" : pz_fast_kernels_for(l->isa)->name;
    }
    /* a dynamic region's planned dims are bounds: the run's must broadcast */
    if (pz_bcast_init(&st->bc, a->rank, a->dims, b->rank, b->dims, y->rank, y->dims) && !l->dyn)
        return pz_layer_fail(l, err, n, "A %s and B %s do not broadcast to Y %s",
                             pz_shape_str(a, ba, sizeof ba), pz_shape_str(b, bb, sizeof bb),
                             pz_shape_str(y, by, sizeof by));
    return 0;
}

static void compare_run(const pz_layer *l, int ith, int nth)
{
    const pz_compare_params *p = l->params;
    const compare_state *st = l->state;
    const pz_tensor *a = l->in[0], *b = l->in[1], *y = l->out[0];
    compare_state now;   /* a dynamic region: the broadcast of the run's dims */
    if (l->dyn) {
        now = *st;
        if (pz_numel(y) == 0 ||
            pz_bcast_init(&now.bc, a->rank, a->dims, b->rank, b->dims, y->rank, y->dims))
            return;   /* nothing, or A and B do not broadcast (ONNX Runtime fails) */
        st = &now;
    }
    if (st->fast)
        st->fast(p->func, a->dtype, &st->bc, a->data, b->data, l->out[0]->data, ith, nth);
    else
        pz_any_compare__ref(p->func, a->dtype, &st->bc, a->data, b->data, l->out[0]->data, ith,
                            nth);
}

static const pz_param_field compare_fields[] = {
    PZ_FIELD_ENUM(pz_compare_params, func, COMPARE_FUNC),
};

const pz_rt_op pz_rt_op_compare = {
    .name = "COMPARE", PZ_OP_PARAMS(pz_compare_params, compare_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = compare_prepare, .run = compare_run,
    .row_rule = pz_row_rule_elementwise, .run_shape = pz_run_shape_bcast,
};
