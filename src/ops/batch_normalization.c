/* batch_normalization.c - BatchNormalization, inference form:
 *   Y = (X - mean) / sqrt(var + epsilon) * scale + B
 *   X [N, C, D1..Dk], scale, B, mean, var [C] -> Y [N, C, D1..Dk]
 * Before opset 9, spatial=0 gives the statistics one value per activation:
 * scale, B, mean and var are then [C, D1..Dk].
 * Training (training_mode=1, opset 14+): X is normalised with its own
 * per-channel mean and population variance (over N and the spatial dims),
 * and the optional outputs running_mean, running_var [C] are
 *   running_mean = mean * momentum + batch_mean * (1 - momentum)
 * and likewise for var (the ONNX reference's _batchnorm_training_mode).
 * Before opset 14 the training outputs a model may declare (running/saved
 * mean and var, opset 7+) get the statistics' shape but are not computed.
 * Opset < 7 attributes is_test and consumed_inputs are accepted and ignored. */
#include <math.h>

#include "op.h"

typedef struct {
    float epsilon;
    float momentum;
    int64_t spatial;    /* 1: statistics per channel; 0: per activation */
    int64_t training;   /* training_mode */
} batch_normalization_params;

static pz_status batch_normalization_parse(const ir_graph *g, const ir_node *n, void *params,
                                           pz_err *err)
{
    batch_normalization_params *p = params;
    int64_t ignored_i, consumed[16];
    int cnt;
    if (op_attr_float(n, "epsilon", 1e-5f, &p->epsilon, err)) return err->code;
    if (!(p->epsilon >= 0) || !isfinite(p->epsilon))
        return op_err_attr(err, n, "epsilon", "must be a finite number >= 0");
    if (op_attr_float(n, "momentum", 0.9f, &p->momentum, err)) return err->code;
    if (!isfinite(p->momentum))
        return op_err_attr(err, n, "momentum", "must be a finite number");
    p->spatial = 1;
    if (g->opset < 9 && op_attr_int(n, "spatial", 1, &p->spatial, err)) return err->code;
    if (p->spatial != 0 && p->spatial != 1)
        return op_err_attr(err, n, "spatial", "is %lld, must be 0 or 1", (long long)p->spatial);
    if (op_attr_int(n, "is_test", 0, &ignored_i, err)) return err->code;
    if (op_attr_ints(n, "consumed_inputs", consumed, 16, &cnt, err)) return err->code;
    p->training = 0;
    if (op_attr_int(n, "training_mode", 0, &p->training, err)) return err->code;
    if (p->training != 0 && p->training != 1)
        return op_err_attr(err, n, "training_mode", "is %lld, must be 0 or 1",
                           (long long)p->training);
    if (p->training && n->n_out > 3)
        return op_err(err, n, "has %d outputs; in training mode (opset 14+) there are at most 3 "
                      "(Y, running_mean, running_var)", n->n_out);
    return PZ_OK;
}

static pz_status batch_normalization_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    static const char *names[] = {"X", "scale", "B", "mean", "var"};
    batch_normalization_params *p = n->params;
    const ir_tensor *in[5];
    for (int i = 0; i < 5; i++)
        if (!(in[i] = op_in(g, n, i))) return op_err(err, n, "input %s is missing", names[i]);
    const ir_tensor *x = in[0];
    if (x->rank < 2) return op_err(err, n, "input X has rank %d, expected at least 2 ([N, C, ...])",
                                   x->rank);
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "X must be a floating-point tensor, got %s", ir_dtype_name(x->dtype));
    /* statistics: [C], or [C, D1..Dk] when spatial=0 */
    int srank = p->spatial ? 1 : x->rank - 1;
    for (int i = 1; i < 5; i++) {
        const ir_tensor *t = in[i];
        int ok = t->rank == srank && ir_dtype_is_float(t->dtype);
        for (int d = 0; ok && d < srank; d++) ok = t->dims[d] == x->dims[1 + d];
        if (!ok) {
            char sx[128], st[128];
            return op_err(err, n, "%s (%s %s) must be a %s float tensor matching X %s", names[i],
                          ir_dtype_name(t->dtype), ir_shape_str(t, st, sizeof st),
                          p->spatial ? "1-D" : "[C, D1, ...]", ir_shape_str(x, sx, sizeof sx));
        }
    }
    op_same_as(g, n, 0, 0);
    for (int k = 1; k < n->n_out; k++) op_same_as(g, n, k, 3);
    return PZ_OK;
}

/* Whether anything reads value vid at run time: a graph output or a node input. */
static int value_read(const ir_graph *g, int vid)
{
    if (g->values[vid].is_output) return 1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_in; k++)
            if (g->nodes[i].in[k] == vid) return 1;
    return 0;
}

/* BATCHNORM: X, scale, B, mean, var -> Y. The training outputs (running and
 * saved statistics, opset < 14) are not computed: refused if anything reads
 * them and they were not folded to constants. */
static pz_status batch_normalization_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                           pz_err *err)
{
    const batch_normalization_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!p->spatial && x->rank > 2)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): spatial=0 (statistics per "
                       "activation) is not supported by the runtime", n->name, n->op_type);
    if (p->training) {
        if (!p->spatial)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): training_mode=1 with "
                           "spatial=0 is not supported", n->name, n->op_type);
        pz_bn_params bp = {.epsilon = p->epsilon, .training = 1, .momentum = p->momentum};
        op_lowered_init(out, n, PZ_OP_BATCHNORM, &bp, sizeof bp);
        out->n_in = 5;
        return PZ_OK;   /* Y, and running_mean, running_var where the model has them */
    }
    for (int k = 1; k < n->n_out; k++) {
        int vid = n->out[k];
        if (vid >= 0 && !g->values[vid].t.data && value_read(g, vid))
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): output %d (\"%s\", a "
                           "training statistic) is used, but only inference (output 0) is "
                           "supported", n->name, n->op_type, k, g->values[vid].name);
    }
    pz_bn_params bp = {.epsilon = p->epsilon, .act = op_act(n)};
    op_lowered_init(out, n, PZ_OP_BATCHNORM, &bp, sizeof bp);
    out->n_in = 5;
    out->n_out = 1;
    return PZ_OK;
}

const op_def op_batch_normalization = {
    .name = "BatchNormalization",
    .min_in = 5, .max_in = 5, .min_out = 1, .max_out = 5,
    .params_size = sizeof(batch_normalization_params),
    .parse = batch_normalization_parse,
    .infer = batch_normalization_infer,
    .lower = batch_normalization_lower,
    .takes_act = 1,
};
