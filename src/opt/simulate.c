/* simulate.c - the many-core model and the strategies on it (simulate.h). */
#include "simulate.h"

#include <string.h>

#include "halo.h"
#include "opt.h"
#include "opt_internal.h"

double sim_sync_us(const sim_target *t, int mp)
{
    return mp <= 1 ? 0 : t->sync2_us * (mp - 1);
}

/* ---- the model -------------------------------------------------------------- */

typedef struct {
    const ir_model *m;
    const sim_target *t;
    pz_layer_features *f;
    unsigned char *fusible;   /* [n]: the runtime runs it inside a fused run */
    unsigned char *wino;      /* [n]: its GEMMs are Winograd's (dense or sparse) */
    double *kept;             /* [n]: the share of its MACs and weights its kernel runs */
    int weights_in_l3;        /* all the model's weights stay in L3 between runs */
    const int *mp_list;
    int n_mp, unit;
} sim_ctx;

static void ctx_init(sim_ctx *c, const ir_model *m, const sim_target *t)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    c->t = t;
    c->f = opt_features(m);
    c->fusible = pz_xcalloc((size_t)(m->n_layers ? m->n_layers : 1), 1);
    c->wino = pz_xcalloc((size_t)(m->n_layers ? m->n_layers : 1), 1);
    c->kept = pz_xmalloc((size_t)(m->n_layers ? m->n_layers : 1) * sizeof(double));
    double w = 0;
    for (int l = 0; l < m->n_layers; l++) {
        /* what runs: a sparse layer (the sparsity knob) its sparse kernel,
         * direct or Winograd, on the MACs of the blocks it keeps */
        int64_t b, z, macs, sk;
        const char *algo = "";
        c->wino[l] = m->layers[l].algo == IR_ALGO_WINOGRAD;
        c->kept[l] = 1.0;
        if (opt_sparsity_count(m, l, &b, &z, &macs, &sk, &algo) && macs > 0) {
            c->wino[l] = !strcmp(algo, "winograd");
            c->kept[l] = 1.0 - (double)sk / (double)macs;
        }
        c->fusible[l] =
            halo_layer_row_local(m, l, NULL, 0) && m->layers[l].algo != IR_ALGO_WINOGRAD;
        w += 4.0 * (double)c->f[l].params;
    }
    c->weights_in_l3 = w <= t->l3_bytes;
}

static void ctx_free(sim_ctx *c)
{
    free(c->f);
    free(c->fusible);
    free(c->wino);
    free(c->kept);
}

/* Bandwidth (bytes/s) of mp cores reading and writing activations of
 * `bytes` in all: their L2s, else the L3, else DRAM. */
static double act_bw(const sim_target *t, double bytes, int mp)
{
    if (bytes <= mp * t->l2_bytes) return mp * t->bw_l2 * 1e9;
    if (bytes <= t->l3_bytes) return mp * t->bw_l3 * 1e9;
    double d = mp * t->bw_dram;
    return (d < t->bw_dram_max ? d : t->bw_dram_max) * 1e9;
}

/* Bandwidth (bytes/s) of mp cores reading weights: from L3 when all the
 * model's weights stay there between runs (in_l3), else from DRAM. */
static double weight_bw(const sim_target *t, int in_l3, int mp)
{
    if (in_l3) return mp * t->bw_l3 * 1e9;
    double d = mp * t->bw_dram;
    return (d < t->bw_dram_max ? d : t->bw_dram_max) * 1e9;
}

/* A layer of features f alone on mp cores, seconds (wino: a Winograd conv). */
static double features_s(const sim_target *t, const pz_layer_features *f, int wino, int in_l3,
                         int mp)
{
    double ops = wino ? f->ops / SIM_WINOGRAD_GAIN : f->ops;
    double comp = (f->is_conv_fc ? t->t0_us * 1e-6 : 0) + ops / (mp * t->peak_gflops * 1e9);
    double act = (double)(f->bytes_in + f->bytes_out), w = 4.0 * (double)f->params;
    double mem = act / act_bw(t, act, mp) + w / weight_bw(t, in_l3, mp);
    return (comp > mem ? comp : mem) + sim_sync_us(t, mp) * 1e-6;
}

/* The MP model (DLFusion Eq. 5) of the simulated target, fitted as
 * characterize fits this machine's: conv layers swept over channels, size
 * and kernel (bytes of fp32, weights in L3), each layer's best MP in the
 * model over the powers of 2 up to the cores (and the cores), then least
 * squares log2 MP = alpha log2 C + beta log2 ops + gamma. */
static void fit_mp_model(const sim_target *t, pz_machine *mc)
{
    static const int CH[] = {16, 32, 64, 128, 256, 512, 1024}, HW[] = {7, 14, 28, 56, 112}, KS[] = {1, 3};
    enum { NP = 7 * 5 * 2 };
    double x[NP * 3], y[NP], b[3] = {0, 0, 0};
    int n = 0;
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 2; k++, n++) {
                pz_layer_features f = {0};
                double c = CH[i], hw = HW[j], ks = KS[k];
                f.is_conv_fc = 1;
                f.macs = (int64_t)(hw * hw * ks * ks * c * c);
                f.ops = 2.0 * (double)f.macs;
                f.bytes_in = f.bytes_out = (int64_t)(4 * c * hw * hw);
                f.params = (int64_t)(ks * ks * c * c + c);
                int best = 1;
                double best_s = INFINITY;
                for (int mp = 1;; mp = mp * 2 > t->cores && mp < t->cores ? t->cores : mp * 2) {
                    double s = features_s(t, &f, 0, 1, mp);
                    if (s < best_s) best_s = s, best = mp;
                    if (mp >= t->cores) break;
                }
                x[n * 3] = log2(c);
                x[n * 3 + 1] = log2(f.ops);
                x[n * 3 + 2] = 1;
                y[n] = log2(best);
            }
    if (lab_lstsq(x, y, n, 3, b)) b[0] = b[1] = b[2] = 0;
    mc->mp_alpha = b[0];
    mc->mp_beta = b[1];
    mc->mp_gamma = b[2];
}

void sim_target_make(const pz_machine *pf, const lab_manycore *pr, int cores, sim_target *t)
{
    memset(t, 0, sizeof *t);
    t->cores = cores < 1 ? 1 : cores;
    t->host_cores = pr->host_cores;
    t->peak_gflops = pf->peak_gflops > 0 ? pf->peak_gflops : 10;
    t->opcount_critical = pf->opcount_critical;
    /* lab/critical.c: OpCount_critical = (0.85 / 0.15) * t0 * peak */
    t->t0_us = pf->opcount_critical * 0.15 / 0.85 / (t->peak_gflops * 1e9) * 1e6;
    t->l2_bytes = pr->l2_bytes;
    t->l3_measured = t->cores <= pr->host_cores;
    t->l3_bytes = t->l3_measured ? pr->l3_bytes : SIM_L3_PER_CORE * t->cores;
    t->bw_l2 = pr->bw_l2;
    t->bw_l3 = pr->bw_l3;
    t->bw_dram = pr->bw_dram;
    t->bw_dram_max = SIM_DRAM_MAX_GBS;
    t->sync2_us = pr->sync_us[2];
    /* what the strategies read: the profile's core, N of them, and the MP
     * model of the simulated target (the profile's was fitted on this
     * machine's cores and says nothing of more) */
    t->machine = *pf;
    t->machine.cores = t->cores;
    t->machine.peak_gflops = t->peak_gflops;
    fit_mp_model(t, &t->machine);
}

/* A layer alone on mp cores, seconds. */
static double layer_s(const sim_ctx *c, int l, int mp)
{
    pz_layer_features f = c->f[l];
    f.ops *= c->kept[l];
    f.params = (int64_t)((double)f.params * c->kept[l]);
    return features_s(c->t, &f, c->wino[l], c->weights_in_l3, mp);
}

/* A fused run of fusible layers [first, first + count), count >= 2, on mp
 * cores, seconds: layer by layer (within a strip the layers run one after
 * another), each max(compute, memory); the run's input and output, and a
 * residual from outside, at the level that holds them, the intermediates
 * at the L2's bandwidth when they stay there, the weights read by every
 * core (bands) or a share each (channels). */
static double run_s(const sim_ctx *c, int first, int count, int mp)
{
    const sim_target *t = c->t;
    const pz_layer_features *f = c->f;
    int last = first + count - 1;
    double macs = 0, w = 0, inter = 0, ext = 0;
    for (int l = first; l <= last; l++) {
        macs += (double)f[l].macs;
        w += 4.0 * (double)f[l].params;
        if (l < last) inter += (double)f[l].bytes_out;
    }
    int bands = 1;
    halo_report r = {0};
    if (mp > 1) {
        halo_block(c->m, first, count, mp, &r);
        /* the runtime's auto split: bands up to 30% redundant MACs */
        if (!r.row_local || (double)r.redundant_macs > 0.3 * macs) bands = 0;
    }
    double inter_bw = (w <= t->l2_bytes / 2 ? t->bw_l2 : t->bw_l3) * 1e9 * mp;
    double wbw = weight_bw(t, c->weights_in_l3, mp), s = 0;
    for (int l = first; l <= last; l++) {
        double red = bands && r.layers ? (double)r.layers[l - first].redundant_macs : 0;
        double comp = (f[l].is_conv_fc ? t->t0_us * 1e-6 : 0) +
                      2.0 * ((double)f[l].macs + red) / (mp * t->peak_gflops * 1e9);
        /* what the layer reads beyond its predecessor's output comes from
         * outside the run (the run's input, a residual) */
        double in_ext = l == first ? (double)f[l].bytes_in
                        : f[l].bytes_in > f[l - 1].bytes_out ? (double)(f[l].bytes_in - f[l - 1].bytes_out) : 0;
        double in_int = l == first ? 0 : (double)f[l].bytes_in - in_ext;
        double out_ext = l == last ? (double)f[l].bytes_out : 0;
        double out_int = l == last ? 0 : (double)f[l].bytes_out;
        double wl = 4.0 * (double)f[l].params * (bands ? mp : 1);
        ext = in_ext + out_ext;
        double mem = ext / act_bw(t, ext, mp) + (in_int + out_int) / inter_bw + wl / wbw;
        s += comp > mem ? comp : mem;
    }
    halo_report_free(&r);
    /* channels: a barrier per layer per strip; strips of the last layer's
     * rows sized so that a strip's rows of every layer fit half an L2 (the
     * runtime's auto strip, rt/fuse.c, in outline) */
    double strips = ceil((inter + (double)f[last].bytes_out) / (t->l2_bytes / 2));
    double rows = f[last].out_h > 0 ? (double)f[last].out_h : 1;
    if (strips > rows) strips = rows;
    if (strips < 1) strips = 1;
    double syncs = bands ? 1 : count * strips;
    return s + syncs * sim_sync_us(t, mp) * 1e-6;
}

/* A block: its fusible runs fused, the other layers alone, seconds. */
static double block_s(const sim_ctx *c, int first, int count, int mp)
{
    double s = 0;
    for (int l = first; l < first + count;) {
        int e = l;
        while (e < first + count && c->fusible[e]) e++;
        if (e - l >= 2) {
            s += run_s(c, l, e - l, mp);
            l = e;
        } else {
            s += layer_s(c, l, mp);
            l++;
        }
    }
    return s;
}

static double schedule_s(const sim_ctx *c, const int *sizes, const int *mps, int nb)
{
    double s = 0;
    for (int b = 0, first = 0; b < nb; first += sizes[b++]) s += block_s(c, first, sizes[b], mps[b]);
    return s;
}

double sim_schedule_ms(const ir_model *m, const sim_target *t, const int *sizes, const int *mps,
                       int n_blocks)
{
    sim_ctx c;
    ctx_init(&c, m, t);
    double ms = schedule_s(&c, sizes, mps, n_blocks) * 1e3;
    ctx_free(&c);
    return ms;
}

/* ---- the assumptions ---------------------------------------------------------- */

void sim_print_assumptions(FILE *o, const sim_target *t, const char *p)
{
    fprintf(o, "%ssimulated target: %d cores, each this machine's (%d online): peak %.1f GFLOP/s "
            "(profile), a conv/FC layer's fixed time t0 %.2f us (OpCount_critical %.3g)\n",
            p, t->cores, t->host_cores, t->peak_gflops, t->t0_us, t->opcount_critical);
    fprintf(o, "%scaches: L2 %.2f MiB a core (this machine's); L3 %.1f MiB shared (%s)\n", p,
            t->l2_bytes / 1048576, t->l3_bytes / 1048576,
            t->l3_measured ? "this machine's" : "assumed 1.875 MiB a core");
    fprintf(o, "%sbandwidth a core, measured (memcpy): L2 %.1f, L3 %.1f, DRAM %.1f GB/s; L2 and L3 "
            "scale with the cores, DRAM up to %.0f GB/s in all (assumed)\n",
            p, t->bw_l2, t->bw_l3, t->bw_dram, t->bw_dram_max);
    fprintf(o, "%sfork-join and barrier: %.2f us at 2 workers (measured), assumed (MP-1) x that: "
            "%.1f us at %d\n", p, t->sync2_us, sim_sync_us(t, t->cores), t->cores);
    fprintf(o, "%sthe strategies' MP model (Eq. 5), fitted on the model's best MPs of conv layers "
            "(its fit at each N is printed with N): log2 MP = %.3f log2 C + %.3f log2 ops + %.3f "
            "at %d; OpCount_critical the profile's\n", p,
            t->machine.mp_alpha, t->machine.mp_beta, t->machine.mp_gamma, t->cores);
    fprintf(o, "%sa layer: max(t0 + ops/(MP x peak), bytes/bandwidth) + fork-join; a fused block: "
            "bands with halo MACs (halo.c), weights read by every core, intermediates in L2 "
            "when the weights take at most half of it; Winograd ops / %.1f (assumed)\n",
            p, SIM_WINOGRAD_GAIN);
}

void sim_assumptions_line(const sim_target *t, char *buf, size_t size)
{
    snprintf(buf, size, "Model: N x this machine's core (peak %.0f GFLOP/s, t0 %.1f us, L2 %.1f MiB); "
             "L3 %s; copy GB/s a core L2 %.0f, L3 %.0f, DRAM %.0f (DRAM at most %.0f in all); "
             "fork-join %.2f us x (MP-1); halo from halo.c; Winograd ops / %.0f",
             t->peak_gflops, t->t0_us, t->l2_bytes / 1048576,
             t->l3_measured ? "this machine's" : "1.875 MiB a core", t->bw_l2, t->bw_l3,
             t->bw_dram, t->bw_dram_max, t->sync2_us, SIM_WINOGRAD_GAIN);
}

/* ---- the strategies on the model ---------------------------------------------- */

/* opt_block_cost_fn: the block's least predicted time over the MP list;
 * blocks that do not start on the unit are never used (INFINITY). */
static double model_cost(void *ctx, int start, int size, int *mp)
{
    sim_ctx *c = ctx;
    if (start % c->unit) return INFINITY;
    double best = INFINITY;
    for (int j = 0; j < c->n_mp; j++) {
        double s = block_s(c, start, size, c->mp_list[j]);
        if (s < best) best = s, *mp = c->mp_list[j];
    }
    return best;
}

/* MPs from `list` up to cores, and cores itself; returns the count. */
static int mp_list(const int *list, int n, int cores, int *out)
{
    int k = 0, has = 0;
    for (int i = 0; i < n; i++)
        if (list[i] <= cores) out[k++] = list[i], has |= list[i] == cores;
    if (!has) out[k++] = cores;
    return k;
}

/* opt_predict_fn on a sim_ctx: the model's time of a block. */
static double sim_predict(void *ctx, int start, int size, int mp)
{
    return block_s(ctx, start, size, mp);
}

static const char *const SIMULATED[] = {"none", "fixed-mp", "dynamic-mp", "fuse-all",
                                        "fusion-fixed-mp", "dlfusion", "dlfusion:paper"};

/* DLFusion Table III 1-6 on the simulated machine (opt.c's dispatch, with
 * the target's pz_machine): the block count, or -1 (err set). */
static int simple_strategy(const char *name, const char *args, const sim_ctx *c, int n,
                           const sim_target *t, int *sizes, int *mps, pz_err *err)
{
    const pz_layer_features *f = c->f;
    int cores = t->cores;
    const int paper = !strcmp(name, "dlfusion") && args && !strcmp(args, "paper");
    if (args && strcmp(name, "fixed-mp") && !paper) {
        pz_fail(err, PZ_ERR_INPUT, "--strategy %s:%s: %s takes no options", name, args, name);
        return -1;
    }
    if (!strcmp(name, "none")) return opt_each_layer(n, 1, sizes, mps);
    if (!strcmp(name, "fixed-mp")) {
        int mp = cores;
        if (args) {
            char *e;
            long v = strtol(args, &e, 10);
            if (e == args || *e || v < 1 || v > cores) {
                pz_fail(err, PZ_ERR_INPUT, "--strategy fixed-mp:%s: the MP must be 1 to %d (the "
                        "simulated cores)", args, cores);
                return -1;
            }
            mp = (int)v;
        }
        return opt_each_layer(n, mp, sizes, mps);
    }
    if (!strcmp(name, "dynamic-mp")) return opt_dynamic_mp(f, n, &t->machine, sizes, mps);
    if (!strcmp(name, "fuse-all")) {
        sizes[0] = n, mps[0] = cores;
        return 1;
    }
    if (!strcmp(name, "dlfusion") && !paper) {
        /* the model is the simulated target's profile: it predicts each
         * layer's MP and each block's fusion (this machine's measured MPs
         * and fused-chain gains are of 2 cores, not of the target) */
        opt_predictor p = {sim_predict, (void *)c, 0};
        return opt_alg1_predicted(f, n, &t->machine, NULL, &p, sizes, mps);
    }
    return opt_alg1(f, n, &t->machine, !strcmp(name, "fusion-fixed-mp") ? cores : 0, sizes, mps);
}

double sim_apply_strategy(ir_model *m, const char *spec, const sim_target *t, pz_err *err)
{
    char name[64];
    const char *colon = strchr(spec, ':');
    size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);
    snprintf(name, sizeof name, "%.*s", (int)(nl < 63 ? nl : 63), spec);
    int simple = 0, oracle = !strcmp(name, "oracle");
    for (size_t i = 0; i < PZ_ARRAY_LEN(SIMULATED); i++) simple |= !strcmp(name, SIMULATED[i]);
    if (!simple && !oracle && strcmp(name, "dp")) {
        pz_fail(err, PZ_ERR_INPUT, "--strategy %s is not simulated: it measures on this machine "
                "(with --simulate-cores: none, fixed-mp[:N], dynamic-mp, fuse-all, fusion-fixed-mp, "
                "dlfusion[:paper], oracle, dp)", spec);
        return -1;
    }
    if (colon && !simple) {
        pz_fail(err, PZ_ERR_INPUT, "--strategy %s: with --simulate-cores %s searches the model and "
                "takes no options", spec, name);
        return -1;
    }
    int n = m->n_layers;
    if (n == 0) return ir_model_partition(m, NULL, NULL, 0, t->cores, err) ? -1 : 0;
    opt_choose_algos(m);
    sim_ctx c;
    ctx_init(&c, m, t);
    int *sizes = pz_xmalloc((size_t)n * sizeof(int)), *mps = pz_xmalloc((size_t)n * sizeof(int));
    int nb = 0;
    double best_s = INFINITY;
    if (simple) {
        nb = simple_strategy(name, colon ? colon + 1 : NULL, &c, n, t, sizes, mps, err);
    } else {
        static const int ORACLE_MP[] = {1, 2, 4, 8, 12, 16, 24, 32};
        static const int DP_MP[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
        int mpl[16];
        c.mp_list = mpl;
        c.n_mp = oracle ? mp_list(ORACLE_MP, 8, t->cores, mpl) : mp_list(DP_MP, 10, t->cores, mpl);
        c.unit = oracle ? 4 : 1;
        if (oracle) {
            opt_candidate cand = {0, pz_xmalloc((size_t)n * sizeof(int)),
                                  pz_xmalloc((size_t)n * sizeof(int)), 0};
            if (opt_enumerate(n, 4, n < OPT_ORACLE_SMALL ? n : OPT_ORACLE_SMALL, n, model_cost, &c,
                              &cand, 1, NULL) == 1) {
                nb = cand.n_blocks;
                memcpy(sizes, cand.sizes, (size_t)nb * sizeof(int));
                memcpy(mps, cand.mps, (size_t)nb * sizeof(int));
                best_s = cand.cost;
            }
            free(cand.sizes);
            free(cand.mps);
            /* an oracle bounds (issue 45): no other strategy's schedule beats it
             * in the model, Table III's ... */
            int *s2 = pz_xmalloc((size_t)n * sizeof(int)), *m2 = pz_xmalloc((size_t)n * sizeof(int));
            for (size_t i = 0; i < PZ_ARRAY_LEN(SIMULATED); i++) {
                pz_err e2 = {0};
                const char *sp = SIMULATED[i], *col = strchr(sp, ':');
                char nm[32];
                snprintf(nm, sizeof nm, "%.*s", (int)(col ? col - sp : (long)strlen(sp)), sp);
                int nb2 = simple_strategy(nm, col ? col + 1 : NULL, &c, n, t, s2, m2, &e2);
                double o = nb2 > 0 ? schedule_s(&c, s2, m2, nb2) : INFINITY;
                if (o < best_s) {
                    nb = nb2, best_s = o;
                    memcpy(sizes, s2, (size_t)nb * sizeof(int));
                    memcpy(mps, m2, (size_t)nb * sizeof(int));
                }
            }
            /* ... and dp's, searched on the same model */
            c.n_mp = mp_list(DP_MP, 10, t->cores, mpl);
            c.unit = 1;
            double dp_s = INFINITY;
            int nb2 = opt_dp(n, 8, model_cost, &c, s2, m2, &dp_s);
            if (nb2 > 0 && dp_s < best_s) {
                nb = nb2, best_s = dp_s;
                memcpy(sizes, s2, (size_t)nb * sizeof(int));
                memcpy(mps, m2, (size_t)nb * sizeof(int));
            }
            free(s2);
            free(m2);
        } else {
            nb = opt_dp(n, 8, model_cost, &c, sizes, mps, &best_s);
        }
        if (nb <= 0) pz_fail(err, PZ_ERR_INTERNAL, "%s: no schedule found on the model", name);
    }
    double ms = -1;
    if (nb > 0 && !ir_model_partition(m, sizes, mps, nb, t->cores, err))
        ms = schedule_s(&c, sizes, mps, nb) * 1e3;
    ctx_free(&c);
    free(sizes);
    free(mps);
    return ms;
}
