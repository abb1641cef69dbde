/* range.c - the RANGE layer: ONNX Range whose start, limit and delta
 * (scalars of Y's type) are read at run time; constant ones fold.
 * Y [max(ceil((limit - start) / delta), 0)] has no compile-time bound
 * (op_desc.h dyn_alloc): run_shape sets its length, the net allocates it.
 * Integers are exact (int64); floats are start + i * delta in double,
 * rounded once to Y's type, as the compiler folds them (ops/range.c). A
 * delta of 0 or a non-finite bound fails the run naming the layer, Y empty. */
#include <math.h>

#include "rt/elem.h"
#include "rt/ops/ops.h"

static int range_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *y = pz_out(l, 0);
    if (!y || y->rank != 1) return pz_layer_fail(l, err, n, "needs a 1-D Y");
    if (!pz_dtype_is_float(y->dtype) && !pz_dtype_is_int(y->dtype))
        return pz_layer_fail(l, err, n, "type %s is not supported", pz_dtype_name(y->dtype));
    for (int i = 0; i < 3; i++) {
        const pz_tensor *t = pz_in(l, i);
        if (!t || t->dtype != y->dtype || pz_numel(t) != 1)
            return pz_layer_fail(l, err, n, "input %d must be one element of Y's type", i);
    }
    return 0;
}

static void range_run_shape(const pz_layer *l)
{
    pz_tensor *y = l->out[0];
    const int dt = y->dtype;
    double s = pz_load_f64(l->in[0]->data, dt, 0), e = pz_load_f64(l->in[1]->data, dt, 0),
           d = pz_load_f64(l->in[2]->data, dt, 0);
    if (pz_dtype_is_int(dt)) {
        s = (double)(int64_t)pz_load_bits(l->in[0]->data, dt, 0);
        e = (double)(int64_t)pz_load_bits(l->in[1]->data, dt, 0);
        d = (double)(int64_t)pz_load_bits(l->in[2]->data, dt, 0);
    }
    y->dims[0] = 0;
    if (d == 0 || !isfinite(s) || !isfinite(e) || !isfinite(d)) {
        pz_layer_run_fail(l, "start %g, limit %g, delta %g do not make a finite range", s, e, d);
        return;
    }
    double q = ceil((e - s) / d);
    /* past 2^62 elements no buffer could hold it: the net refuses the size */
    y->dims[0] = q > 0 ? (int64_t)fmin(q, 4611686018427387904.0) : 0;
}

static void range_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *y = l->out[0];
    const int dt = y->dtype;
    int64_t lo, hi;
    pz_split(y->dims[0], ith, nth, &lo, &hi);
    if (pz_dtype_is_int(dt)) {
        const int64_t s = (int64_t)pz_load_bits(l->in[0]->data, dt, 0),
                      d = (int64_t)pz_load_bits(l->in[2]->data, dt, 0);
        /* unsigned: wraps as the type does, never a signed overflow */
        for (int64_t i = lo; i < hi; i++)
            pz_store_bits(y->data, dt, i, (uint64_t)s + (uint64_t)i * (uint64_t)d);
        return;
    }
    const double s = pz_load_f64(l->in[0]->data, dt, 0), d = pz_load_f64(l->in[2]->data, dt, 0);
    for (int64_t i = lo; i < hi; i++) pz_store_f64(y->data, dt, i, s + (double)i * d);
}

static int range_dyn_alloc(const pz_layer *l)
{
    return 1;
}

const pz_rt_op pz_rt_op_range = {
    .name = "RANGE",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = range_prepare, .run = range_run,
    .run_shape = range_run_shape, .dyn_alloc = range_dyn_alloc,
};
