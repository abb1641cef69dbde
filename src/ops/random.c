/* random.c - the random ops' shared parse, output and lowering (random.h). */
#include <math.h>

#include "random.h"

pz_status random_parse(const ir_node *n, int mode, random_op_params *p, pz_err *err)
{
    float seed = 0, a = 0, b = 1;
    const char *an = mode == PZ_RANDOM_UNIFORM ? "low" : "mean";
    const char *bn = mode == PZ_RANDOM_UNIFORM ? "high" : "scale";
    if (op_attr_float(n, "seed", 0, &seed, err) || op_attr_int(n, "dtype", 0, &p->dtype, err))
        return err->code;
    p->rt.mode = mode;
    p->rt.has_seed = op_attr(n, "seed") != NULL;
    p->rt.seed = seed;
    if (mode == PZ_RANDOM_MULTINOMIAL) {
        if (op_attr_int(n, "sample_size", 1, &p->sample_size, err)) return err->code;
        if (p->sample_size < 1)
            return op_err_attr(err, n, "sample_size", "is %lld, must be at least 1",
                               (long long)p->sample_size);
        return PZ_OK;
    }
    if (op_attr_float(n, an, 0, &a, err) || op_attr_float(n, bn, 1, &b, err)) return err->code;
    if (!isfinite(a) || !isfinite(b))
        return op_err_attr(err, n, isfinite(a) ? bn : an, "must be finite");
    if (mode == PZ_RANDOM_UNIFORM && !(a <= b))
        return op_err_attr(err, n, "high", "is %g, below low %g", (double)b, (double)a);
    p->rt.a = a;
    p->rt.b = b;
    return PZ_OK;
}

pz_status random_set_out(ir_graph *g, const ir_node *n, const random_op_params *p, int def,
                         int rank, const int64_t *dims, pz_err *err)
{
    const int dt = p->dtype ? (int)p->dtype : def;
    const int ok = p->rt.mode == PZ_RANDOM_MULTINOMIAL ? dt == IR_I32 || dt == IR_I64
                                                       : ir_dtype_is_float(dt);
    if (!ok)
        return op_err_attr(err, n, "dtype", "is %s, expected %s", ir_dtype_name(dt),
                           p->rt.mode == PZ_RANDOM_MULTINOMIAL ? "int32 or int64"
                                                               : "a float type");
    op_set_out(g, n, 0, dt, rank, dims);
    return PZ_OK;
}

pz_status random_lower_fill(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    (void)g, (void)err;
    const random_op_params *p = n->params;
    op_lowered_init(out, n, PZ_OP_RANDOM, &p->rt, sizeof p->rt);
    out->n_in = 0;
    return PZ_OK;
}

pz_status random_shape_attr(const ir_node *n, int64_t *dims, int *rank, pz_err *err)
{
    if (!op_attr(n, "shape")) return op_err_attr(err, n, "shape", "is required");
    if (op_attr_ints(n, "shape", dims, IR_MAX_RANK, rank, err)) return err->code;
    for (int d = 0; d < *rank; d++)
        if (dims[d] < 0) return op_err_attr(err, n, "shape", "has dim %d = %lld", d,
                                            (long long)dims[d]);
    return PZ_OK;
}

pz_status random_parse_uniform(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    (void)g;
    return random_parse(n, PZ_RANDOM_UNIFORM, params, err);
}

pz_status random_parse_normal(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    (void)g;
    return random_parse(n, PZ_RANDOM_NORMAL, params, err);
}

pz_status random_infer_shape(ir_graph *g, ir_node *n, pz_err *err)
{
    int64_t dims[IR_MAX_RANK];
    int rank;
    if (random_shape_attr(n, dims, &rank, err)) return err->code;
    return random_set_out(g, n, n->params, IR_F32, rank, dims, err);
}

pz_status random_infer_like(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    return random_set_out(g, n, n->params, x->dtype, x->rank, x->dims, err);
}
