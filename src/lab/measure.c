/* measure.c - timing schedules on this machine: the model is built into a
 * runtime net with the schedule's blocks and MPs (gen_net_build, exactly
 * what `paleozoic run` executes), run once to warm up, then `repeat` times
 * with the runtime's profiler on; the medians of the whole run and of each
 * block are kept. Inputs are seeded uniform values (timing does not depend
 * on them). Nothing here knows which kernels the runtime uses. */
#include <math.h>
#include <string.h>

#include "../util/progress.h"
#include "../gen/net_build.h"
#include "../util/util.h"
#include "lab.h"

struct lab_meter {
    ir_model *m;
    int cores, repeat, builds;
    ir_precision prec;      /* lab_meter_precision: set on every block built */
    ir_weights weights;
    void **in, **out;
    int n_in, n_out;
};

lab_meter *lab_meter_new(ir_model *m, int cores, int repeat)
{
    lab_meter *mt = pz_xcalloc(1, sizeof *mt);
    const ir_graph *g = m->g;
    mt->m = m;
    mt->cores = cores;
    mt->repeat = repeat < 1 ? 1 : repeat;
    mt->n_in = g->n_inputs;
    mt->n_out = g->n_outputs;
    mt->in = pz_xcalloc((size_t)(mt->n_in + 1), sizeof(void *));
    mt->out = pz_xcalloc((size_t)(mt->n_out + 1), sizeof(void *));
    uint32_t s = 12345;
    for (int i = 0; i < mt->n_in; i++) {
        ir_tensor t = g->values[g->inputs[i]].t;
        size_t nb = 0;
        pz_err e = {0};
        ir_tensor_bytes(&t, &nb, "input", &e);
        mt->in[i] = pz_xcalloc(nb ? nb : 1, 1);
        if (t.dtype == IR_F32)
            for (size_t k = 0; k < nb / 4; k++) {
                s = s * 1664525u + 1013904223u;   /* LCG: uniform in [-1, 1) */
                ((float *)mt->in[i])[k] = (float)((double)(s >> 8) / 8388608.0 - 1.0);
            }
    }
    for (int i = 0; i < mt->n_out; i++) {
        size_t nb = 0;
        pz_err e = {0};
        ir_tensor_bytes(&g->values[g->outputs[i]].t, &nb, "output", &e);
        mt->out[i] = pz_xcalloc(nb ? nb : 1, 1);
    }
    return mt;
}

void lab_meter_free(lab_meter *mt)
{
    if (!mt) return;
    for (int i = 0; i < mt->n_in; i++) free(mt->in[i]);
    for (int i = 0; i < mt->n_out; i++) free(mt->out[i]);
    free(mt->in);
    free(mt->out);
    free(mt);
}

void lab_meter_precision(lab_meter *mt, ir_precision prec, ir_weights weights)
{
    mt->prec = prec;
    mt->weights = weights;
}

int lab_meter_builds(const lab_meter *mt)
{
    return mt->builds;
}

static int build(lab_meter *mt, const int *sizes, const int *mps, int n, gen_net *gn, pz_err *err)
{
    if (ir_model_partition(mt->m, sizes, mps, n, mt->cores, err)) return -1;
    for (int b = 0; b < mt->m->n_blocks; b++) {
        mt->m->blocks[b].precision = mt->prec;
        mt->m->blocks[b].weights = mt->prec == IR_PREC_FP32 ? mt->weights : IR_WEIGHTS_FP32;
    }
    for (int l = 0; l < mt->m->n_layers; l++) mt->m->layers[l].precision = mt->prec;
    if (gen_net_build(mt->m, mt->cores, gn, err)) return -1;
    mt->builds++;
    pz_net_profile(gn->net, 1);
    pz_net_run(gn->net, (const void *const *)mt->in, mt->out);   /* warm-up */
    return 0;
}

double lab_meter_schedule(lab_meter *mt, const int *sizes, const int *mps, int n,
                          double *block_ms, pz_err *err)
{
    gen_net gn = {0};
    if (build(mt, sizes, mps, n, &gn, err)) return -1;
    int r = mt->repeat, nb = pz_net_n_blocks(gn.net);
    double *tot = pz_xmalloc((size_t)r * sizeof *tot);
    double *blk = pz_xmalloc((size_t)r * (size_t)(nb ? nb : 1) * sizeof *blk);
    for (int k = 0; k < r; k++) {
        pz_net_run(gn.net, (const void *const *)mt->in, mt->out);
        tot[k] = (double)pz_net_run_ns(gn.net) * 1e-6;
        for (int b = 0; b < nb; b++) blk[(size_t)b * r + k] = (double)pz_net_block_info(gn.net, b, NULL, NULL, NULL) * 1e-6;
    }
    double med = util_median(tot, r);
    /* the runtime's blocks are the schedule's, in order (pass-through output
     * copies, if any, come after them) */
    if (block_ms)
        for (int b = 0; b < n; b++) block_ms[b] = b < nb ? util_median(blk + (size_t)b * r, r) : NAN;
    free(tot);
    free(blk);
    gen_net_free(&gn);
    pz_progress_step(1);   /* one schedule timed: the unit of the searches' progress */
    return med;
}

/* Bytes of constant data: a net may keep a packed copy of its weights. */
static double weight_bytes(const ir_model *m)
{
    double b = 0;
    for (int v = 0; v < m->g->n_values; v++)
        if (m->g->values[v].t.data) b += (double)m->g->values[v].t.nbytes;
    return b;
}

/* Every layer a block of its own on all the meter's cores: the fixed-mp
 * schedule, the one the pair below times (the two models differ in their
 * layers, so a schedule of one does not fit the other). */
static int build_per_layer(lab_meter *mt, gen_net *gn, pz_err *err)
{
    int n = mt->m->n_layers, rc;
    int *sizes = pz_xmalloc((size_t)(n ? n : 1) * sizeof(int));
    int *mps = pz_xmalloc((size_t)(n ? n : 1) * sizeof(int));
    for (int l = 0; l < n; l++) sizes[l] = 1, mps[l] = mt->cores;
    rc = build(mt, sizes, mps, n, gn, err);
    free(sizes);
    free(mps);
    return rc;
}

int lab_meter_pair(lab_meter *a, lab_meter *b, int rounds, double *ta, double *tb, pz_err *err)
{
    gen_net ga = {0}, gb = {0};
    int rc = build_per_layer(a, &ga, err) || build_per_layer(b, &gb, err) ? -1 : 0;
    pz_progress_begin("timing concatenation on and off", rounds);
    /* alternating, each timed run after an untimed one of the same net (the
     * other net's run has pushed its weights out of the caches) */
    for (int k = 0; k < rounds && !rc; k++) {
        for (int i = 0; i < 2; i++) {
            lab_meter *mt = i ? b : a;
            gen_net *gn = i ? &gb : &ga;
            pz_net_run(gn->net, (const void *const *)mt->in, mt->out);
            pz_net_run(gn->net, (const void *const *)mt->in, mt->out);
            (i ? tb : ta)[k] = (double)pz_net_run_ns(gn->net) * 1e-6;
        }
        pz_progress_step(1);
    }
    pz_progress_end();
    if (ga.net) gen_net_free(&ga);
    if (gb.net) gen_net_free(&gb);
    return rc;
}

int lab_meter_interleaved(lab_meter *mt, int n_sched, const int *const *sizes,
                          const int *const *mps, const int *n_blocks, int rounds, double *med,
                          double *const *block_ms, pz_err *err)
{
    return lab_meter_interleaved_runs(mt, n_sched, sizes, mps, n_blocks, rounds, med, block_ms,
                                      NULL, err);
}

int lab_meter_interleaved_runs(lab_meter *mt, int n_sched, const int *const *sizes,
                               const int *const *mps, const int *n_blocks, int rounds, double *med,
                               double *const *block_ms, double *runs, pz_err *err)
{
    if (rounds < 1) rounds = 1;
    gen_net *gn = pz_xcalloc((size_t)(n_sched ? n_sched : 1), sizeof *gn);
    double *t = pz_xmalloc((size_t)n_sched * (size_t)rounds * sizeof *t);
    double **tb = pz_xcalloc((size_t)(n_sched ? n_sched : 1), sizeof *tb);
    if (block_ms)
        for (int i = 0; i < n_sched; i++)
            tb[i] = pz_xmalloc((size_t)(n_blocks[i] ? n_blocks[i] : 1) * (size_t)rounds * sizeof(double));
    int rc = 0;
    /* Runs go round robin (schedule 0, 1, ..., then again), so that slow
     * drifts of the machine's load hit every schedule alike; each timed run
     * follows an untimed one of the same net. The nets stay
     * built between rounds (each has its own arena and workers) unless
     * together they would hold more than 1.5 GB of weights; then each round
     * builds and warms each net again. */
    int keep = weight_bytes(mt->m) * n_sched < 1.5e9;
    char what[48];
    snprintf(what, sizeof what, "timing %d schedules", n_sched);
    pz_progress_begin(what, n_sched * rounds);
    for (int k = 0; k < rounds && !rc; k++)
        for (int i = 0; i < n_sched && !rc; i++) {
            if (!gn[i].net) {
                if (build(mt, sizes[i], mps[i], n_blocks[i], &gn[i], err)) {
                    rc = -1;
                    break;
                }
            } else {
                /* warm again: the nets run since this one last ran have
                 * pushed its weights out of the caches (nine ResNet-18
                 * schedules outgrow a 260 MB L3); a deployed net runs warm */
                pz_net_run(gn[i].net, (const void *const *)mt->in, mt->out);
            }
            pz_net_run(gn[i].net, (const void *const *)mt->in, mt->out);
            t[(size_t)i * rounds + k] = (double)pz_net_run_ns(gn[i].net) * 1e-6;
            if (runs) runs[(size_t)i * rounds + k] = t[(size_t)i * rounds + k];
            if (block_ms) {
                int nb = pz_net_n_blocks(gn[i].net);
                for (int b = 0; b < n_blocks[i]; b++)
                    tb[i][(size_t)b * rounds + k] =
                        b < nb ? (double)pz_net_block_info(gn[i].net, b, NULL, NULL, NULL) * 1e-6 : NAN;
            }
            if (!keep) gen_net_free(&gn[i]);
            pz_progress_step(1);
        }
    pz_progress_end();
    for (int i = 0; i < n_sched && !rc; i++) {
        med[i] = util_median(t + (size_t)i * rounds, rounds);
        if (block_ms)
            for (int b = 0; b < n_blocks[i]; b++) block_ms[i][b] = util_median(tb[i] + (size_t)b * rounds, rounds);
    }
    for (int i = 0; i < n_sched; i++) {
        if (gn[i].net) gen_net_free(&gn[i]);
        free(tb[i]);
    }
    free(tb);
    free(gn);
    free(t);
    return rc;
}
