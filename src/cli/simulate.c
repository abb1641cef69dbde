/* simulate.c - `--simulate-cores` of tune and space: the strategies choose
 * schedules for a simulated N-core target and the many-core model
 * (src/opt/simulate.h) predicts their times; space lays the strategies of
 * DLFusion Table III side by side at each N (Fig. 10 in simulation, --svg). */
#include <string.h>

#include "../lab/svg.h"
#include "../opt/opt_internal.h"
#include "../opt/schedule.h"
#include "../opt/simulate.h"
#include "cli.h"

int cli_simulate_parse(const char *cmd, const char *s, int *cores, int cap)
{
    int n = 0;
    const char *p = s;
    while (p && *p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || v < 1 || v > SIM_MAX_CORES || n == cap) {
            cli_usage("%s: --simulate-cores wants %s of 1 to %d cores, not \"%s\"", cmd,
                      cap > 1 ? "a comma-separated list (at most 8)" : "a whole number",
                      SIM_MAX_CORES, s);
            return -1;
        }
        cores[n++] = (int)v;
        p = *end ? end + 1 : end;
        if (*end && !*p) n = cap + 1;   /* a trailing comma */
    }
    if (n < 1 || n > cap) {
        cli_usage("%s: --simulate-cores wants %s of 1 to %d cores, not \"%s\"", cmd,
                  cap > 1 ? "a comma-separated list (at most 8)" : "a whole number", SIM_MAX_CORES,
                  s ? s : "");
        return -1;
    }
    return n;
}

/* Loads and lowers the model with no strategy (the simulation sets it), or
 * with k's --schedule, its MPs up to max_mp. */
static pz_status load_plain(const char *model, const cli_knobs *k, int max_mp, ir_graph **g,
                            ir_model **m, pz_err *err)
{
    cli_knobs plain = *k;
    plain.strategy = k->schedule ? NULL : "none";
    plain.target = NULL;
    plain.threads = max_mp;
    if (cli_load(model, &plain, NULL, 0, g, err)) return err->code;
    return cli_lower(*g, &plain, m, err);
}

static pz_status make_target(const cli_knobs *k, int cores, const lab_manycore *probe,
                             sim_target *t, pz_err *err)
{
    pz_machine pf;
    if (lab_profile_load(k->target, cores, &pf, err)) return err->code;
    sim_target_make(&pf, probe, cores, t);
    return PZ_OK;
}

static void print_cache(int cached, const lab_manycore *probe, const char *path)
{
    if (cached < 0) {
        printf("  the measured figures (bandwidth, fork-join) were measured now on a busy machine "
               "(%s) and not cached: this run uses them, the next measures again\n", probe->noisy);
        fprintf(stderr, "paleozoic: warning: the many-core probes were not quiet (%s): nothing is "
                "cached\n", probe->noisy);
        return;
    }
    printf("  the measured figures (bandwidth, fork-join) %s %s (delete it to measure again)\n",
           cached ? "come from" : "were measured now and cached in", path);
}

#define SIM_KNOBS (CLI_K_SHAPE | CLI_K_STRATEGY | CLI_K_TARGET | CLI_K_CONCAT)
#define SIM_WHY "the simulation takes the model's shape knobs, --strategy and --target " \
                "(the cores are --simulate-cores; fp32 only)"

int cli_tune_simulate(const char *model, const char *out, cli_knobs *k, int cores)
{
    if (cli_knobs_check(k, "tune --simulate-cores", SIM_KNOBS, SIM_WHY)) return 2;
    pz_err err = {0};
    ir_graph *g = NULL;
    ir_model *m = NULL;
    int rc = 0;
    lab_manycore probe;
    sim_target t;
    double ms = -1;
    char cache[4096] = "";
    int cached = 0;
    if (!load_plain(model, k, 0, &g, &m, &err)) {
        cached = lab_manycore_load(&probe, cache, sizeof cache);
        if (!make_target(k, cores, &probe, &t, &err))
            ms = sim_apply_strategy(m, k->strategy, &t, &err);
    }
    if (ms < 0 || sched_write_file(m, k->strategy, out, &err)) {
        rc = cli_fail(&err);
    } else {
        sim_print_assumptions(stdout, &t, "  ");
        print_cache(cached, &probe, cache);
        printf("tune: %s: strategy %s on %d simulated cores: %d layers in %d blocks, predicted "
               "%.3f ms; wrote %s\n", model, k->strategy, cores, m->n_layers, m->n_blocks, ms, out);
    }
    ir_model_free(m);
    ir_graph_free(g);
    return rc;
}

/* Table III and ours, in the order of bench --strategies all. */
static const char *const STRATS[] = {"none", "fixed-mp", "dynamic-mp", "fuse-all",
                                     "fusion-fixed-mp", "dlfusion", "dlfusion:paper", "oracle", "dp"};
enum { N_STRATS = (int)PZ_ARRAY_LEN(STRATS) };

/* The blocks as "LAYERS@MP", runs of equal blocks as "LAYERS@MPxCOUNT". */
static void print_blocks(const ir_model *m)
{
    for (int b = 0; b < m->n_blocks;) {
        int e = b;
        while (e < m->n_blocks && m->blocks[e].count == m->blocks[b].count &&
               m->blocks[e].mp == m->blocks[b].mp)
            e++;
        printf(" %d@%d", m->blocks[b].count, m->blocks[b].mp);
        if (e - b > 1) printf("x%d", e - b);
        b = e;
    }
}

int cli_space_simulate(const char *model, cli_knobs *k, const int *cores, int n_cores,
                       const char *svg)
{
    if (cli_knobs_check(k, "space --simulate-cores", (SIM_KNOBS & ~CLI_K_STRATEGY) | CLI_K_SCHEDULE,
                        "space --simulate-cores predicts the strategies' schedules or a --schedule "
                        "FILE's (of the knobs it takes the shape knobs, --target and --schedule)"))
        return 2;
    if (k->schedule && svg) return cli_usage("space: --svg draws the strategies, not a --schedule");
    pz_err err = {0};
    ir_graph *g = NULL;
    ir_model *m = NULL;
    int max_mp = 0;
    for (int c = 0; c < n_cores; c++) max_mp = cores[c] > max_mp ? cores[c] : max_mp;
    if (load_plain(model, k, max_mp, &g, &m, &err)) {
        int rc = cli_fail(&err);
        ir_model_free(m);
        ir_graph_free(g);
        return rc;
    }
    lab_manycore probe;
    char cache[4096];
    int cached = lab_manycore_load(&probe, cache, sizeof cache);
    double *speed = pz_xmalloc((size_t)n_cores * N_STRATS * sizeof(double));
    char groups[8][32];
    const char *gp[8];
    sim_target t = {0};
    int rc = 0;
    printf("model %s: %d layers; predicted by the many-core model (not measured)\n", model,
           m->n_layers);
    for (int c = 0; c < n_cores && !rc; c++) {
        if (make_target(k, cores[c], &probe, &t, &err)) {
            rc = cli_fail(&err);
            break;
        }
        if (c == 0) {
            sim_print_assumptions(stdout, &t, "  ");
            print_cache(cached, &probe, cache);
        }
        if (k->schedule) {
            /* the file's blocks as they are: an MP above the cores is refused */
            int nb = m->n_blocks, *sz = pz_xmalloc((size_t)(nb ? nb : 1) * sizeof(int));
            int *mp = pz_xmalloc((size_t)(nb ? nb : 1) * sizeof(int)), over = 0;
            for (int b = 0; b < nb; b++) {
                sz[b] = m->blocks[b].count, mp[b] = m->blocks[b].mp;
                over |= mp[b] > cores[c];
            }
            if (over) {
                rc = cli_usage("space: %s has blocks of MP above %d: give --simulate-cores of at "
                               "least their MP", k->schedule, cores[c]);
            } else {
                printf("%d simulated cores: schedule %s (%d blocks): predicted %.3f ms\n", cores[c],
                       k->schedule, nb, sim_schedule_ms(m, &t, sz, mp, nb));
            }
            free(sz);
            free(mp);
            continue;
        }
        printf("%d simulated cores (fork-join %.1f us, L3 %.1f MiB, MP model %.3f %.3f %.3f):\n",
               cores[c], sim_sync_us(&t, cores[c]), t.l3_bytes / 1048576, t.machine.mp_alpha,
               t.machine.mp_beta, t.machine.mp_gamma);
        printf("  %-16s %12s %8s %7s  blocks (layers@MP, xCOUNT: repeated)\n", "strategy",
               "predicted ms", "speedup", "blocks");
        double none_ms = NAN;
        for (int s = 0; s < N_STRATS; s++) {
            double ms = sim_apply_strategy(m, STRATS[s], &t, &err);
            if (ms < 0) {
                rc = cli_fail(&err);
                break;
            }
            if (s == 0) none_ms = ms;
            speed[c * N_STRATS + s] = none_ms / ms;
            printf("  %-16s %12.3f %7.2fx %7d ", STRATS[s], ms, none_ms / ms, m->n_blocks);
            print_blocks(m);
            printf("\n");
        }
        snprintf(groups[c], sizeof groups[c], "%d cores", cores[c]);
        gp[c] = groups[c];
    }
    if (!rc && svg) {
        char title[256], cap[1024];
        const char *base = strrchr(model, '/');
        base = base ? base + 1 : model;
        const char *dot = strrchr(base, '.');
        snprintf(title, sizeof title, "%.*s: DLFusion Fig. 10 simulated, speed-up over none",
                 (int)(dot ? dot - base : (long)strlen(base)), base);
        sim_assumptions_line(&t, cap, sizeof cap);
        if (svg_write_bars_caption(svg, title, "predicted speed-up over none", cap, gp, n_cores,
                                   STRATS, N_STRATS, speed, &err))
            rc = cli_fail(&err);
        else
            printf("wrote %s\n", svg);
    }
    free(speed);
    ir_model_free(m);
    ir_graph_free(g);
    return rc;
}
