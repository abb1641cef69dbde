/* cmd_bench.c - `paleozoic bench MODEL.onnx... [--strategies all|S1,S2,...]
 * [--json] [--svg FILE] [--threads N] [--repeat N] [--target T] [knobs]`:
 * DLFusion Fig. 10 on this machine. For each model, each strategy chooses
 * its schedule (its search timed), then all the schedules are run
 * interleaved (round robin, --repeat rounds, default 10) and compared by
 * median latency; speed-ups are over `none` (always measured). A strategy
 * faster than `oracle` beyond the timing noise (opt_beats_oracle, on the
 * paired runs) is marked "!" in the table and "beats_oracle" in the JSON.
 * The oracle chooses last, its seeds the schedules the others chose, so
 * that its space contains every strategy benched (issue 45).
 * --svg draws the speed-ups as grouped bars, one group per model. */
#include <string.h>

#include "../util/progress.h"
#include "../opt/opt.h"
#include "../opt/opt_internal.h"
#include "../util/json.h"
#include "../lab/svg.h"
#include "cli.h"

#define MAX_STRAT 32
#define MAX_MODELS 32

typedef struct {
    const char *name;
    double search_s, ms, speedup;
    int batch;                 /* the model's batch (--batch): images per run */
    int n_blocks;
    int *sizes, *mps;
    int beats_oracle;          /* faster than oracle beyond noise (opt_beats_oracle) */
    double vs_oracle, noise;   /* median ratio of paired runs to oracle's; the noise; NAN: no oracle */
    char error[1024];
} result;

/* "all", or names separated by commas; a piece with '=' and no ':' is an
 * option of the previous strategy ("oracle:budget=60,repeat=5"). */
static int parse_list(char *list, const char **out, int *n)
{
    *n = 0;
    if (!strcmp(list, "all")) {
        for (int i = 0; i < OPT_N_STRATEGIES; i++) out[(*n)++] = OPT_STRATEGIES[i];
        return 0;
    }
    char *save = NULL, *prev_end = NULL;
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strchr(t, '=') && !strchr(t, ':') && *n > 0 && prev_end) {
            *prev_end = ',';   /* glue back to the previous piece */
        } else {
            if (*n == MAX_STRAT) return -1;
            out[(*n)++] = t;
        }
        prev_end = t + strlen(t);
    }
    return *n ? 0 : -1;
}

static void print_blocks(FILE *f, const result *r)
{
    for (int b = 0; b < r->n_blocks; b++) fprintf(f, "%s%d@%d", b ? " " : "", r->sizes[b], r->mps[b]);
}

static int is_oracle(const char *name)
{
    return !strncmp(name, "oracle", 6) && (!name[6] || name[6] == ':');
}

/* The oracle bounds every strategy: one that beats it beyond the timing
 * noise is flagged (the oracle's search missed a schedule). runs: [i *
 * rounds + k] for the i-th timed strategy, res[idx[i]]. */
static void flag_oracle(result *res, const int *idx, int n_ok, const double *runs, int rounds)
{
    int o = -1;
    for (int i = 0; i < n_ok; i++)
        if (is_oracle(res[idx[i]].name)) o = i;
    if (o < 0) return;
    for (int i = 0; i < n_ok; i++) {
        result *r = &res[idx[i]];
        int beats = opt_beats_oracle(runs + (size_t)i * rounds, runs + (size_t)o * rounds, rounds,
                                     &r->vs_oracle, &r->noise);
        r->beats_oracle = i != o && beats;
    }
}

static int bench_model(const char *path, cli_knobs *k, const char **strat, int n_strat, int cores,
                       int rounds, result *res, pz_err *err)
{
    ir_graph *g = NULL;
    ir_model *m = NULL;
    int rc = -1;
    cli_knobs k0 = *k;
    k0.strategy = "none";
    k0.target = NULL;   /* checked once in cmd_bench; the strategies below read it */
    if (cli_load(path, &k0, NULL, 0, &g, err) || cli_lower(g, &k0, &m, err)) goto out;
    int n = m->n_layers;
    pz_progress_begin("bench: strategies", n_strat);
    /* the oracles last: the others' schedules are their seeds */
    int order[MAX_STRAT + 1], n_order = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int s = 0; s < n_strat; s++)
            if (is_oracle(strat[s]) == pass) order[n_order++] = s;
    opt_schedule given[OPT_ORACLE_GIVEN_MAX];
    int n_given = 0;
    for (int oi = 0; oi < n_order; oi++) {
        int s = order[oi];
        result *r = &res[s];
        memset(r, 0, sizeof *r);
        r->name = strat[s];
        r->ms = r->speedup = r->vs_oracle = r->noise = NAN;
        r->batch = k->batch > 1 ? (int)k->batch : 1;
        r->sizes = pz_xmalloc((size_t)(n + 1) * sizeof(int));
        r->mps = pz_xmalloc((size_t)(n + 1) * sizeof(int));
        pz_progress_note("bench: %s: strategy %s\n", path, strat[s]);
        pz_progress_detail(strat[s]);
        pz_err e = {0};
        double t0 = util_now_s();
        int orc = is_oracle(strat[s]);
        if (opt_apply_strategy_given(m, strat[s], k->target, cores, orc ? given : NULL,
                                     orc ? n_given : 0, &e)) {
            pz_fail(err, e.code, "bench: %s: %s", path, e.msg);
            pz_progress_end();
            goto out;
        }
        r->search_s = util_now_s() - t0;
        r->n_blocks = m->n_blocks;
        for (int b = 0; b < m->n_blocks; b++) r->sizes[b] = m->blocks[b].count, r->mps[b] = m->blocks[b].mp;
        if (!orc && n_given < OPT_ORACLE_GIVEN_MAX)
            given[n_given++] = (opt_schedule){r->name, r->n_blocks, r->sizes, r->mps};
        pz_progress_step(1);
    }
    pz_progress_end();
    /* time every schedule that was found, interleaved */
    const int *sz[MAX_STRAT], *mp[MAX_STRAT];
    int nb[MAX_STRAT], idx[MAX_STRAT], n_ok = 0;
    double med[MAX_STRAT];
    for (int s = 0; s < n_strat; s++)
        if (!res[s].error[0]) sz[n_ok] = res[s].sizes, mp[n_ok] = res[s].mps, nb[n_ok] = res[s].n_blocks, idx[n_ok++] = s;
    pz_progress_note("bench: %s: timing %d schedules, %d rounds, interleaved\n", path, n_ok, rounds);
    lab_meter *mt = lab_meter_new(m, cores, 1);
    lab_meter_precision(mt, k->precision && !strcmp(k->precision, "bf16") ? IR_PREC_BF16 : IR_PREC_FP32,
                        k->weights && !strcmp(k->weights, "fp16") ? IR_WEIGHTS_FP16 : IR_WEIGHTS_FP32);
    double *runs = pz_xmalloc((size_t)(n_ok ? n_ok : 1) * (size_t)rounds * sizeof *runs);
    int bad = lab_meter_interleaved_runs(mt, n_ok, sz, mp, nb, rounds, med, NULL, runs, err);
    lab_meter_free(mt);
    if (!bad) {
        for (int i = 0; i < n_ok; i++) res[idx[i]].ms = med[i];
        for (int s = 0; s < n_strat; s++) res[s].speedup = res[0].ms / res[s].ms;
        flag_oracle(res, idx, n_ok, runs, rounds);
        rc = 0;
    }
    free(runs);
out:
    ir_model_free(m);
    ir_graph_free(g);
    return rc;
}

static const result *find(const result *res, int n, const char *prefix)
{
    size_t l = strlen(prefix);
    for (int s = 0; s < n; s++)
        if (!strncmp(res[s].name, prefix, l) && (res[s].name[l] == 0 || res[s].name[l] == ':') && !res[s].error[0])
            return &res[s];
    return NULL;
}

int cmd_bench(int argc, char **argv)
{
    const char *models[MAX_MODELS], *svg = NULL;
    int n_models = 0, json = 0, rounds = 10;
    char *list = NULL;
    cli_knobs k = {0};
    for (int i = 1; i < argc; i++) {
        int r = cli_knob(argc, argv, &i, &k);
        if (r < 0) return 2;
        if (r) continue;
        const char *a = argv[i];
        if ((!strcmp(a, "--strategies") || !strcmp(a, "--svg") || !strcmp(a, "--repeat")) && i + 1 >= argc)
            return cli_usage("bench: %s needs a value", a);
        if (!strcmp(a, "--strategies")) list = argv[++i];
        else if (!strcmp(a, "--svg")) svg = argv[++i];
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--repeat")) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 100000) return cli_usage("bench: --repeat wants a positive integer");
            rounds = (int)v;
        } else if (a[0] == '-') return cli_usage("bench: unknown option %s", a);
        else if (n_models == MAX_MODELS) return cli_usage("bench: at most %d models", MAX_MODELS);
        else models[n_models++] = a;
    }
    if (!n_models)
        return cli_usage("usage: paleozoic bench MODEL.onnx... [--strategies all|S1,S2] [--json] [--svg FILE] [--threads N] [--repeat N]");
    if (k.strategy || k.schedule) return cli_usage("bench: use --strategies, not --strategy or --schedule");
    /* none first: the baseline of every speed-up */
    char *copy = pz_xstrdup(list ? list : "all");
    const char *given[MAX_STRAT], *strat[MAX_STRAT + 1];
    int n_given, n_strat = 0;
    if (parse_list(copy, given, &n_given)) {
        free(copy);
        return cli_usage("bench: --strategies wants all or a comma-separated list of at most %d names", MAX_STRAT);
    }
    for (int i = 0; i < n_given; i++)
        if (cli_check_strategy_name(given[i])) {
            free(copy);
            return 2;
        }
    strat[n_strat++] = "none";
    for (int i = 0; i < n_given; i++)
        if (strcmp(given[i], "none")) strat[n_strat++] = given[i];
    int cores = cli_threads(&k);
    pz_err terr = {0};
    if (cli_check_target(&k, strat, n_strat, &terr)) {
        free(copy);
        return cli_fail(&terr);
    }
    result *res = pz_xcalloc((size_t)n_models * (size_t)n_strat, sizeof *res);
    int rc = 0, done = 0;
    pz_err err = {0};
    for (int mi = 0; mi < n_models; mi++, done++)
        if (bench_model(models[mi], &k, strat, n_strat, cores, rounds, res + (size_t)mi * n_strat, &err)) {
            rc = cli_fail(&err);
            break;
        }
    if (!rc && json) {
        printf("{\n  \"cores\": %d,\n  \"rounds\": %d,\n  \"models\": [\n", cores, rounds);
        for (int mi = 0; mi < done; mi++) {
            printf("    {\"model\": ");
            json_write_string(stdout, models[mi]);
            printf(",\n     \"strategies\": [\n");
            for (int s = 0; s < n_strat; s++) {
                const result *r = &res[(size_t)mi * n_strat + s];
                printf("       {\"name\": ");
                json_write_string(stdout, r->name);
                if (r->error[0]) {
                    printf(", \"error\": ");
                    json_write_string(stdout, r->error);
                } else {
                    printf(", \"median_ms\": %.4f, \"speedup\": %.4f, \"search_s\": %.3f, "
                           "\"batch\": %d, \"images_per_s\": %.2f, \"blocks\": [", r->ms,
                           r->speedup, r->search_s, r->batch, r->batch * 1000.0 / r->ms);
                    for (int b = 0; b < r->n_blocks; b++)
                        printf("%s{\"layers\": %d, \"mp\": %d}", b ? ", " : "", r->sizes[b], r->mps[b]);
                    printf("]");
                    if (!isnan(r->vs_oracle))
                        printf(", \"vs_oracle\": %.4f, \"noise\": %.4f, \"beats_oracle\": %s",
                               r->vs_oracle, r->noise, r->beats_oracle ? "true" : "false");
                }
                printf("}%s\n", s + 1 < n_strat ? "," : "");
            }
            printf("     ]}%s\n", mi + 1 < done ? "," : "");
        }
        printf("  ]\n}\n");
    } else if (!rc) {
        for (int mi = 0; mi < done; mi++) {
            const result *rs = res + (size_t)mi * n_strat;
            printf("%s (%d cores, median of %d interleaved runs; machine load affects all alike)\n",
                   models[mi], cores, rounds);
            /* at a batch above 1 (--batch N), images/s beside ms: throughput */
            int batch = rs[0].batch;
            if (batch > 1) printf("  batch %d: images/s = %d * 1000 / median ms\n", batch, batch);
            printf("  %-24s %10s %8s %9s %7s%s  blocks (layers@MP)\n", "strategy", "median ms", "speedup",
                   "search s", "blocks", batch > 1 ? "  images/s" : "");
            for (int s = 0; s < n_strat; s++) {
                const result *r = &rs[s];
                if (r->error[0]) {
                    printf("  %-24s failed: %s\n", r->name, r->error);
                    continue;
                }
                printf("  %-22s%s %10.3f %7.2fx %9.2f %7d  ", r->name, r->beats_oracle ? " !" : "  ", r->ms,
                       r->speedup, r->search_s, r->n_blocks);
                if (batch > 1) printf("%9.1f  ", r->batch * 1000.0 / r->ms);
                print_blocks(stdout, r);
                printf("\n");
            }
            const result *dl = find(rs, n_strat, "dlfusion"), *orc = find(rs, n_strat, "oracle"),
                         *dp = find(rs, n_strat, "dp");
            if (dl && orc)
                printf("  dlfusion: %.2fx over none, %+.1f%% against oracle\n", dl->speedup, (dl->ms / orc->ms - 1) * 100);
            if (dp && orc)
                printf("  dp (ours): %.2fx over none, %+.1f%% against oracle\n", dp->speedup, (dp->ms / orc->ms - 1) * 100);
            for (int s = 0; s < n_strat; s++)
                if (rs[s].beats_oracle)
                    printf("  ! %s beats oracle beyond noise: %.3f of its time in paired runs (noise "
                           "%.1f%%); the oracle's search missed its schedule\n", rs[s].name,
                           rs[s].vs_oracle, rs[s].noise * 100);
        }
    }
    if (!rc && svg) {
        const char **groups = pz_xcalloc((size_t)done + 1, sizeof(char *));
        for (int mi = 0; mi < done; mi++) {
            const char *b = strrchr(models[mi], '/');
            groups[mi] = b ? b + 1 : models[mi];
        }
        double *v = pz_xmalloc((size_t)done * n_strat * sizeof(double) + 1);
        for (int i = 0; i < done * n_strat; i++) v[i] = res[i].error[0] ? NAN : res[i].speedup;
        char title[128];
        snprintf(title, sizeof title, "Speed-up over none by strategy (%d cores; DLFusion Fig. 10)", cores);
        if (svg_write_bars(svg, title, "speed-up over none", groups, done, strat, n_strat, v, &err))
            rc = cli_fail(&err);
        free(v);
        free(groups);
    }
    for (int i = 0; i < n_models * n_strat; i++) free(res[i].sizes), free(res[i].mps);
    free(res);
    free(copy);
    return rc;
}
