/* fill.c - the FILL layer: ONNX ConstantOfShape whose shape (input 0, int32
 * or int64, Y's rank values) is read at run time; a constant shape folds.
 * Y has no compile-time bound (op_desc.h dyn_alloc), or with params.bounded
 * is planned at one (its dims at compile): run_shape sets its dims from the
 * values, the net allocates it when unbounded, run writes `bits` (the value
 * as one element of Y's type) into every element. A negative dim, or one
 * above the bound, fails the run naming the layer, Y empty. */
#include <stdlib.h>
#include <string.h>

#include "rt/ops/ops.h"

static int fill_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *s = pz_in(l, 0), *y = pz_out(l, 0);
    if (!s || !y) return pz_layer_fail(l, err, n, "needs shape and Y");
    if (s->rank > 1 || (s->dtype != PZ_I64 && s->dtype != PZ_I32) || pz_numel(s) != y->rank)
        return pz_layer_fail(l, err, n, "shape must be %d int32 or int64 values (Y's rank)",
                             y->rank);
    size_t es = pz_dtype_size(y->dtype);
    if (es == 0 || es > sizeof(int64_t))
        return pz_layer_fail(l, err, n, "type %s is not supported", pz_dtype_name(y->dtype));
    const pz_fill_params *p = l->params;
    if (!p->bounded || l->rt_alloc) return 0;
    int64_t *bound = malloc((size_t)(y->rank ? y->rank : 1) * sizeof *bound);
    if (!bound) return pz_layer_fail(l, err, n, "out of memory");
    l->state = bound;   /* Y's planned dims */
    for (int k = 0; k < y->rank; k++) bound[k] = y->dims[k];
    return 0;
}

static void fill_run_shape(const pz_layer *l)
{
    pz_tensor *y = l->out[0];
    int64_t dims[PZ_MAX_RANK];
    if (pz_run_ints(l->in[0], dims, PZ_MAX_RANK) != y->rank) {
        pz_layer_run_fail(l, "shape is not Y's rank");
        if (y->rank) y->dims[0] = 0;
        return;
    }
    const int64_t *bound = l->state;
    for (int k = 0; k < y->rank; k++) {
        if (dims[k] < 0 || (bound && dims[k] > bound[k])) {
            if (dims[k] < 0) pz_layer_run_fail(l, "shape[%d] is %lld, negative", k, (long long)dims[k]);
            else pz_layer_run_fail(l, "shape[%d] is %lld, above the planned bound %lld", k,
                                   (long long)dims[k], (long long)bound[k]);
            if (y->rank) y->dims[0] = 0;
            return;
        }
    }
    for (int k = 0; k < y->rank; k++) y->dims[k] = dims[k];
}

static void fill_run(const pz_layer *l, int ith, int nth)
{
    const pz_fill_params *p = l->params;
    const pz_tensor *y = l->out[0];
    size_t es = pz_dtype_size(y->dtype);
    int64_t lo, hi;
    pz_split(pz_numel(y), ith, nth, &lo, &hi);
    unsigned char v[sizeof(int64_t)];
    memcpy(v, &p->bits, sizeof v);   /* little-endian: the element's bytes first */
    for (int64_t i = lo; i < hi; i++) memcpy((char *)y->data + (size_t)i * es, v, es);
}

/* Always in a dynamic region (Y's dims the run's); allocated then unless bounded. */
static int fill_dyn_self(const pz_layer *l)
{
    return 1;
}

static int fill_dyn_alloc(const pz_layer *l)
{
    return !((const pz_fill_params *)l->params)->bounded;
}

static const pz_param_field fill_fields[] = {
    PZ_FIELD(pz_fill_params, bits, PZ_F_I64),
    PZ_FIELD(pz_fill_params, bounded, PZ_F_INT),
};

const pz_rt_op pz_rt_op_fill = {
    .name = "FILL", PZ_OP_PARAMS(pz_fill_params, fill_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = fill_prepare, .run = fill_run,
    .run_shape = fill_run_shape, .dyn_self = fill_dyn_self, .dyn_alloc = fill_dyn_alloc,
};
