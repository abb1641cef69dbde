/* concat_auto.c - `--concat auto`: the concatenation knob chosen by
 * measurement. The graph goes through the passes twice, with the
 * concatenation pass and without; when it merges nothing the answer is off
 * and nothing is timed. Otherwise both models run here, each as fixed-mp
 * (every layer a block on all the cores), alternately, and the knob is on
 * when the median of the paired on/off ratios is below 1: the merged layers
 * compute the same bits, so speed alone decides, and only this machine
 * tells whether one wider layer beats its branches (issue 43). */
#include <stdlib.h>
#include <string.h>

#include "../lab/lab.h"
#include "../ops/op_infer.h"
#include "../ops/op_lower.h"
#include "../passes/passes.h"
#include "../util/progress.h"
#include "../util/util.h"
#include "cli.h"

/* rounds of the pair: each costs two runs of each model */
#define CONCAT_AUTO_ROUNDS 11

static ir_precision prec_of(const cli_knobs *k)
{
    if (k->precision && !strcmp(k->precision, "bf16")) return IR_PREC_BF16;
    if (k->precision && !strcmp(k->precision, "int8-dynamic")) return IR_PREC_INT8;
    return IR_PREC_FP32;
}

/* The passes on a copy of g with concatenation on (on = 1) or off; the
 * copy is inferred again (a clone does not carry the nodes' params). */
static ir_graph *passed(const ir_graph *g, int on, passes_stats *ps, pz_err *err)
{
    ir_graph *c = ir_graph_clone(g);
    passes_opts po = {0};
    po.concat = on;
    if (ir_infer(c, err) || passes_run_stats(c, &po, ps, err)) {
        ir_graph_free(c);
        return NULL;
    }
    return c;
}

pz_status cli_concat_auto(const ir_graph *g, const cli_knobs *k, int *on, pz_err *err)
{
    *on = 0;
    passes_stats son, soff;
    ir_graph *gon = passed(g, 1, &son, err);
    if (!gon) return err->code;
    if (son.concat_groups == 0) {
        ir_graph_free(gon);
        pz_progress_note("concat auto: the concatenation pass merges nothing here: off\n");
        return PZ_OK;
    }
    ir_graph *goff = passed(g, 0, &soff, err);
    if (!goff) {
        ir_graph_free(gon);
        return err->code;
    }
    ir_model *mon = ir_model_lower(gon), *moff = ir_model_lower(goff);
    int cores = cli_threads(k), rc = 0;
    const ir_weights w = k->weights && !strcmp(k->weights, "fp16") ? IR_WEIGHTS_FP16 : IR_WEIGHTS_FP32;
    lab_meter *a = lab_meter_new(mon, cores, 1), *b = lab_meter_new(moff, cores, 1);
    lab_meter_precision(a, prec_of(k), w);
    lab_meter_precision(b, prec_of(k), w);
    double ta[CONCAT_AUTO_ROUNDS], tb[CONCAT_AUTO_ROUNDS], r[CONCAT_AUTO_ROUNDS];
    rc = lab_meter_pair(a, b, CONCAT_AUTO_ROUNDS, ta, tb, err);
    if (!rc) {
        for (int i = 0; i < CONCAT_AUTO_ROUNDS; i++) r[i] = ta[i] / tb[i];
        double ratio = util_median(r, CONCAT_AUTO_ROUNDS);
        *on = ratio < 1.0;
        pz_progress_note("concat auto: %d merged layers (from %d); on %.3f ms, off %.3f ms "
                         "(medians of %d rounds, paired on/off %.4f): %s\n",
                         son.concat_groups, son.concat_layers,
                         util_median(ta, CONCAT_AUTO_ROUNDS), util_median(tb, CONCAT_AUTO_ROUNDS),
                         CONCAT_AUTO_ROUNDS, ratio, *on ? "on" : "off");
    }
    lab_meter_free(a);
    lab_meter_free(b);
    ir_model_free(mon);
    ir_model_free(moff);
    ir_graph_free(gon);
    ir_graph_free(goff);
    return rc ? err->code : PZ_OK;
}
