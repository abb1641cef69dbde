/* cmd_tune.c - `paleozoic tune MODEL.onnx --strategy S -o SCHEDULE.json
 * [--threads N] [--target T] [knobs]`: runs the strategy (on all online
 * cores unless --threads) and writes the schedule it chose, atomically
 * (sched_write_file: a temporary name, renamed), so a failed or interrupted
 * tune leaves no half-written file. With --simulate-cores N the strategy
 * chooses for a simulated N-core target and the predicted time is printed
 * (simulate.c). With --throughput IPS the batch too: the smallest batch
 * reaching IPS images/s, measured (tune_batch.c). */
#include <stdlib.h>
#include <string.h>

#include "../opt/opt_internal.h"
#include "../opt/schedule.h"
#include "cli.h"

int cmd_tune(int argc, char **argv)
{
    const char *model = NULL, *out = NULL;
    cli_knobs k = {0};
    int sim = 0, max_b = 32, max_given = 0;
    double ips = 0;
    for (int i = 1; i < argc; i++) {
        int r = cli_knob(argc, argv, &i, &k);
        if (r < 0) return 2;
        if (r) continue;
        const char *a = argv[i];
        if (!strcmp(a, "-o")) {
            if (i + 1 >= argc) return cli_usage("tune: -o needs a value");
            out = argv[++i];
        } else if (!strcmp(a, "--throughput") || !strcmp(a, "--max-batch")) {
            const char *v = i + 1 < argc ? argv[++i] : NULL;
            char *end = NULL;
            double x = v ? strtod(v, &end) : 0;
            if (!v || end == v || *end || !(x > 0) || (a[2] == 'm' && (x != (int)x || x > 4096)))
                return cli_usage("tune: %s %s: expected a positive %s", a, v ? v : "(none)",
                                 a[2] == 'm' ? "whole number up to 4096" : "number (images/s)");
            if (a[2] == 'm') max_b = (int)x, max_given = 1;
            else ips = x;
        } else if (!strcmp(a, "--simulate-cores")) {
            if (cli_simulate_parse("tune", i + 1 < argc ? argv[++i] : NULL, &sim, 1) < 0) return 2;
        } else if (a[0] == '-') {
            return cli_usage("tune: unknown option %s", a);
        } else if (!model) {
            model = a;
        } else {
            return cli_usage("tune: one model at a time");
        }
    }
    if (!model || !out || !k.strategy)
        return cli_usage("usage: paleozoic tune MODEL.onnx --strategy S -o SCHEDULE.json [--threads N | --simulate-cores N] [--target T] [--throughput IPS [--max-batch N]]");
    if (k.schedule) return cli_usage("tune: --schedule makes no sense here (tune writes one)");
    if (max_given && ips <= 0) return cli_usage("tune: --max-batch goes with --throughput");
    if (sim && ips > 0) return cli_usage("tune: --throughput is measured: not with --simulate-cores");
    if (sim) return cli_tune_simulate(model, out, &k, sim);
    if (ips > 0) {
        if (k.batch) return cli_usage("tune: --throughput chooses the batch: give it without --batch");
        return cli_tune_throughput(model, out, &k, ips, max_b);
    }
    pz_err err = {0};
    ir_graph *g = NULL;
    ir_model *m = NULL;
    int rc = 0;
    double t0 = util_now_s();
    if (cli_load(model, &k, NULL, 0, &g, &err) || cli_lower(g, &k, &m, &err) ||
        sched_write_file(m, k.strategy, out, &err)) {
        rc = cli_fail(&err);
    } else {
        printf("tune: %s: strategy %s on %d cores: %d layers in %d blocks (%.1f s); wrote %s\n",
               model, k.strategy, cli_threads(&k), m->n_layers, m->n_blocks, util_now_s() - t0, out);
    }
    ir_model_free(m);
    ir_graph_free(g);
    return rc;
}
