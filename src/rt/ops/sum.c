/* sum.c - the SUM layer: Sum and Mean of 2 or more inputs of one float type,
 * each broadcast (numpy) to Y's shape, added left to right (then / count). */
#include "rt/ops/ops.h"

typedef struct {
    pz_bcast bc[PZ_MAX_IO];   /* input i against Y's shape */
} sum_state;

static int sum_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *y = pz_out(l, 0);
    char bx[96], by[96];
    if (!y || l->n_in < 1) return pz_layer_fail(l, err, n, "needs X0 and Y");
    if (l->n_in > PZ_MAX_IO)
        return pz_layer_fail(l, err, n, "%d inputs, at most %d", l->n_in, PZ_MAX_IO);
    if (!pz_dtype_is_float(y->dtype))
        return pz_layer_fail(l, err, n, "Y has type %s, expected a float type",
                             pz_dtype_name(y->dtype));
    sum_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    for (int i = 0; i < l->n_in; i++) {
        const pz_tensor *x = pz_in(l, i);
        if (!x) return pz_layer_fail(l, err, n, "input %d is missing", i);
        if (x->dtype != y->dtype)
            return pz_layer_fail(l, err, n, "X%d has type %s, Y %s: they must agree", i,
                                 pz_dtype_name(x->dtype), pz_dtype_name(y->dtype));
        if (pz_bcast_init(&st->bc[i], x->rank, x->dims, y->rank, y->dims, y->rank, y->dims))
            return pz_layer_fail(l, err, n, "X%d %s does not broadcast to Y %s", i,
                                 pz_shape_str(x, bx, sizeof bx), pz_shape_str(y, by, sizeof by));
    }
    return 0;
}

static void sum_run(const pz_layer *l, int ith, int nth)
{
    const pz_sum_params *p = l->params;
    const void *x[PZ_MAX_IO];
    for (int i = 0; i < l->n_in; i++) x[i] = l->in[i]->data;
    pz_any_sum__ref(p->mean, l->out[0]->dtype, l->n_in, ((const sum_state *)l->state)->bc, x,
                    l->out[0]->data, ith, nth);
}

static const pz_param_field sum_fields[] = {
    PZ_FIELD(pz_sum_params, mean, PZ_F_INT),
};

const pz_rt_op pz_rt_op_sum = {
    .name = "SUM", PZ_OP_PARAMS(pz_sum_params, sum_fields),
    .min_in = 1, .max_in = PZ_MAX_IO, .min_out = 1, .max_out = 1,
    .prepare = sum_prepare, .run = sum_run,
    .row_rule = pz_row_rule_elementwise,
};
