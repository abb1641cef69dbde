/* prepare.c - what every model-reading command does between the file and
 * the runtime: load (with the shape knobs), graph passes, lowering, and the
 * schedule knobs. */
#include <string.h>
#include <unistd.h>

#include "../opt/opt.h"
#include "../opt/schedule.h"
#include "../passes/passes.h"
#include "cli.h"

pz_status cli_load(const char *path, const cli_knobs *k, const ir_tensor *by_position,
                   int n_by_position, ir_graph **g, pz_err *err)
{
    onnx_load_opts opts;
    cli_knobs_to_opts(k, &opts);
    opts.by_position = by_position;
    opts.n_by_position = n_by_position;
    *g = NULL;
    if (onnx_load_file(path, &opts, g, err)) return err->code;
    return PZ_OK;
}

pz_status cli_lower(ir_graph *g, const cli_knobs *k, ir_model **m, pz_err *err)
{
    *m = NULL;
    if (passes_run(g, NULL, err)) return err->code;
    *m = ir_model_lower(g);
    int cores = cli_threads(k);
    if (k->schedule && k->strategy)
        return pz_fail(err, PZ_ERR_INPUT, "give --schedule or --strategy, not both");
    if (k->schedule) {
        sched s;
        memset(&s, 0, sizeof s);
        pz_status st = sched_load_file(k->schedule, &s, err);
        if (!st) st = sched_apply(&s, *m, cores, err);
        sched_free(&s);
        return st;
    }
    /* No strategy named: every layer alone on all --threads cores. */
    return opt_apply_strategy(*m, k->strategy ? k->strategy : "fixed-mp", k->target, cores, err);
}

/* --threads N; without it, every online core when a schedule or strategy
 * decides the MPs, else 1 (plain `run` is single-threaded by default). */
int cli_threads(const cli_knobs *k)
{
    if (k->threads) return k->threads;
    if (k->schedule || k->strategy) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? (int)n : 1;
    }
    return 1;
}
