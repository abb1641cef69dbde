/* range.c - Range: start, start + delta, ... up to (not including) limit.
 *   start, limit, delta: scalars of one type (float, double, float16,
 *   bfloat16, int16, int32, int64) -> 1-D [max(ceil((limit - start) /
 *   delta), 0)] of that type.
 * The length depends on the values: constant inputs fold (exported shape
 * subgraphs: arange over a known size); inputs read at run time (a graph
 * input nothing binds) run as the RANGE layer, the output without a
 * compile-time bound (the net allocates it, rt/ops/range.c).
 * Integers are exact (int64); floats are start + i * delta in double,
 * rounded once to the output type. */
#include <math.h>

#include "fold.h"

#define RANGE_MAX_ELEMS ((int64_t)1 << 26)

static pz_status range_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    static const char *const names[3] = {"start", "limit", "delta"};
    const ir_tensor *t[3];
    for (int i = 0; i < 3; i++) {
        t[i] = op_in(g, n, i);
        if (!t[i]) return op_err(err, n, "input %s is missing", names[i]);
        if (ir_tensor_numel(t[i]) != 1)
            return op_err(err, n, "input %s must be a scalar, it has %lld elements", names[i],
                          (long long)ir_tensor_numel(t[i]));
        if (t[i]->dtype != t[0]->dtype)
            return op_err(err, n, "input %s has type %s, start %s: they must agree", names[i],
                          ir_dtype_name(t[i]->dtype), ir_dtype_name(t[0]->dtype));
    }
    int dt = t[0]->dtype;
    if (!ir_dtype_is_float(dt) && !ir_dtype_is_int(dt))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Range): type %s is not supported",
                       n->name, ir_dtype_name(dt));
    for (int i = 0; i < 3; i++) {
        if (t[i]->data) continue;
        if (g->rt_shapes) {
            /* read at run time (RANGE): no bound, the net allocates Y; [1] stands in */
            int64_t one = 1;
            op_set_out(g, n, 0, dt, 1, &one);
            op_set_rt_alloc(g, n, 0);
            return PZ_OK;
        }
        return op_need_const(err, g, n, i, names[i], "the output's length depends on it");
    }
    int64_t len;
    if (ir_dtype_is_int(dt)) {
        int64_t s = ir_load_i64(t[0]->data, dt, 0), l = ir_load_i64(t[1]->data, dt, 0),
                d = ir_load_i64(t[2]->data, dt, 0);
        if (d == 0) return op_err(err, n, "input delta is 0");
        /* ceil((l - s) / d) without overflow in l - s for the types up to int32;
         * int64 extremes are refused by the length bound below */
        double q = ceil(((double)l - (double)s) / (double)d);
        len = q > 0 ? (int64_t)fmin(q, (double)INT64_MAX / 2) : 0;
        if (len > RANGE_MAX_ELEMS) goto too_long;
        op_set_out(g, n, 0, dt, 1, &len);
        if (!op_out(g, n, 0)) return PZ_OK;
        char *out = pz_xmalloc((size_t)(len ? len : 1) * ir_dtype_size(dt));
        for (int64_t i = 0; i < len; i++) ir_store_i64(out, dt, (size_t)i, s + i * d);
        ir_value_take_data(g, n->out[0], out, (size_t)len * ir_dtype_size(dt));
        return PZ_OK;
    }
    double s = ir_load_f64(t[0]->data, dt, 0), l = ir_load_f64(t[1]->data, dt, 0),
           d = ir_load_f64(t[2]->data, dt, 0);
    if (d == 0 || !isfinite(s) || !isfinite(l) || !isfinite(d))
        return op_err(err, n, "start %g, limit %g, delta %g do not make a finite range", s, l, d);
    double q = ceil((l - s) / d);
    if (q > (double)RANGE_MAX_ELEMS) goto too_long;
    len = q > 0 ? (int64_t)q : 0;
    op_set_out(g, n, 0, dt, 1, &len);
    if (!op_out(g, n, 0)) return PZ_OK;
    char *out = pz_xmalloc((size_t)(len ? len : 1) * ir_dtype_size(dt));
    for (int64_t i = 0; i < len; i++) ir_store_f64(out, dt, (size_t)i, s + (double)i * d);
    ir_value_take_data(g, n->out[0], out, (size_t)len * ir_dtype_size(dt));
    return PZ_OK;
too_long:
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Range): the output would have more "
                   "than %lld elements, above what is computed at compile time", n->name,
                   (long long)RANGE_MAX_ELEMS);
}

static pz_status range_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_RANGE, NULL, 0);
    return PZ_OK;
}

const op_def op_range = {
    .name = "Range",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .infer = range_infer,
    .lower = range_lower,
};
