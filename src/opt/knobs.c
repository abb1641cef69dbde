/* knobs.c - the knobs that shape a lowered model after its passes: the
 * strategy (or its target profile), the precision, the weight storage and
 * the sparsity. The CLI applies them (src/cli/prepare.c, cli_lower), and so
 * does a built program that plans a sequence of another length at run time
 * (src/gen/replan.c), from the build's knobs written into the program
 * (opt_knobs_format): one rule for both, so a replanned net is the build's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "opt_internal.h"

void opt_knobs_weights(const opt_knobs *k, ir_model *m)
{
    if (!k->weights) return;
    ir_weights w = !strcmp(k->weights, "fp16") ? IR_WEIGHTS_FP16 : IR_WEIGHTS_FP32;
    for (int i = 0; i < m->n_blocks; i++)
        m->blocks[i].weights = m->blocks[i].precision == IR_PREC_FP32 ? w : IR_WEIGHTS_FP32;
}

/* The precision on every block (a schedule's own "precision" keys give it
 * per block when none is given; int8-dynamic: the blocks' "int8"; int8
 * quantized the model itself before it was loaded), then the weights on
 * every fp32 block (a bf16 block stores bf16). */
void opt_knobs_precision(const opt_knobs *k, ir_model *m)
{
    ir_precision pr = IR_PREC_FP32;
    if (k->precision && !strcmp(k->precision, "bf16")) pr = IR_PREC_BF16;
    if (k->precision && !strcmp(k->precision, "int8-dynamic")) pr = IR_PREC_INT8;
    if (pr != IR_PREC_FP32) {
        for (int i = 0; i < m->n_blocks; i++) m->blocks[i].precision = pr;
        for (int l = 0; l < m->n_layers; l++) m->layers[l].precision = pr;
    }
    opt_knobs_weights(k, m);
}

/* The sparsity before the strategy: the measured strategies (best, dp,
 * oracle, lab_meter) then time their candidates as they will run, on the
 * pruned weights and the sparse kernels, not dense. The layers that take it
 * are those that will (one block a layer with the precision and weights
 * the blocks get after the strategy: opt_sparsity_applies reads them). */
static pz_status sparsity_early(const opt_knobs *k, ir_model *m, pz_err *err)
{
    if (!k->has_sparsity || !m->n_layers) return PZ_OK;
    int *sizes = pz_xmalloc((size_t)m->n_layers * sizeof(int));
    int *mps = pz_xmalloc((size_t)m->n_layers * sizeof(int));
    int nb = opt_each_layer(m->n_layers, 1, sizes, mps);
    pz_status st = ir_model_partition(m, sizes, mps, nb, 1, err);
    free(sizes);
    free(mps);
    if (st) return st;
    opt_knobs_precision(k, m);
    if (opt_sparsity_set_all(m, k->sparsity, err)) return err->code;
    return opt_sparsity_prune(m, err);
}

pz_status opt_knobs_strategy(const opt_knobs *k, ir_model *m, int cores, pz_err *err)
{
    if (sparsity_early(k, m, err)) return err->code;
    return opt_apply_strategy(m, k->strategy ? k->strategy : OPT_DEFAULT_STRATEGY, k->target,
                              cores, err);
}

pz_status opt_knobs_finish(const opt_knobs *k, ir_model *m, pz_err *err)
{
    opt_knobs_precision(k, m);
    /* every layer with a sparse kernel (without it, a schedule's "sparsity"
     * keys); then the weights are pruned (again, after sparsity_early:
     * pruning twice to R is pruning once) */
    if (k->has_sparsity && opt_sparsity_set_all(m, k->sparsity, err)) return err->code;
    return opt_sparsity_prune(m, err);
}

/* ---- the knobs as text: "key=value" lines ---------------------------------- */

int opt_knobs_format(const opt_knobs *k, char *buf, size_t n)
{
    int w = snprintf(buf, n, "strategy=%s\n", k->strategy ? k->strategy : OPT_DEFAULT_STRATEGY);
    const char *keys[] = {"target", "precision", "weights", "schedule"};
    const char *vals[] = {k->target, k->precision, k->weights, k->schedule};
    for (int i = 0; i < 4; i++)
        if (vals[i] && w >= 0 && (size_t)w < n)
            w += snprintf(buf + w, n - (size_t)w, "%s=%s\n", keys[i], vals[i]);
    if (k->has_sparsity && w >= 0 && (size_t)w < n)
        w += snprintf(buf + w, n - (size_t)w, "sparsity=%.9g\n", (double)k->sparsity);
    if (w >= 0 && (size_t)w < n)
        w += snprintf(buf + w, n - (size_t)w, "concat=%d\nbatch=%lld\n", k->concat,
                      (long long)k->batch);
    return w;
}

pz_status opt_knobs_parse(char *text, opt_knobs *k, pz_err *err)
{
    memset(k, 0, sizeof *k);
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        char *eq = strchr(line, '=');
        if (!eq) return pz_fail(err, PZ_ERR_INPUT, "the build's knobs: \"%s\" is no key=value", line);
        *eq = 0;
        const char *v = eq + 1;
        if (!strcmp(line, "strategy")) k->strategy = v;
        else if (!strcmp(line, "target")) k->target = v;
        else if (!strcmp(line, "precision")) k->precision = v;
        else if (!strcmp(line, "weights")) k->weights = v;
        else if (!strcmp(line, "schedule")) k->schedule = v;
        else if (!strcmp(line, "sparsity")) k->has_sparsity = 1, k->sparsity = strtof(v, NULL);
        else if (!strcmp(line, "concat")) k->concat = atoi(v);
        else if (!strcmp(line, "batch")) k->batch = strtoll(v, NULL, 10);
        else return pz_fail(err, PZ_ERR_INPUT, "the build's knobs: unknown key \"%s\"", line);
    }
    return PZ_OK;
}
