/* cmd_space.c - `paleozoic space MODEL.onnx [--cores N] [knobs]` and
 * `paleozoic space --layers N [--cores N]`: the size of the knob space,
 * Paleozoic Eq. 3 (DLFusion Eq. 4), for this machine's cores (or --cores)
 * and for the papers' 32 MLU-100 cores. n is the layer count of the lowered
 * model (after the graph passes fold BatchNorm and fuse activations).
 * `paleozoic space MODEL.onnx --simulate-cores N[,N...] [--svg FILE]`: the
 * schedules the strategies choose for N simulated cores and their predicted
 * speed-ups (simulate.c). */
#include <string.h>

#include "../opt/opt_internal.h"
#include "../rt/pz_rt.h"
#include "cli.h"

static void print_space(int n, int cores)
{
    char a[64], b[64];
    opt_space_format(opt_space_log10(n, cores), a, sizeof a);
    opt_space_format(opt_space_log10(n, 32), b, sizeof b);
    printf("knob space (Paleozoic Eq. 3) for n=%d layers: %s with %d cores; %s with the papers' 32 cores\n",
           n, a, cores, b);
}

int cmd_space(int argc, char **argv)
{
    const char *model = NULL;
    int cores = 0, layers = 0, sim[8], n_sim = 0;
    const char *svg = NULL;
    cli_knobs k = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--simulate-cores")) {
            n_sim = cli_simulate_parse("space", i + 1 < argc ? argv[++i] : NULL, sim, 8);
            if (n_sim < 0) return 2;
            continue;
        }
        if (!strcmp(a, "--svg")) {
            if (i + 1 >= argc) return cli_usage("space: --svg needs a file");
            svg = argv[++i];
            continue;
        }
        if (!strcmp(a, "--cores") || !strcmp(a, "--layers")) {
            char *end;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end || v < 1 || v > 100000)
                return cli_usage("space: %s wants a positive integer", a);
            *(!strcmp(a, "--cores") ? &cores : &layers) = (int)v;
            i++;
            continue;
        }
        int r = cli_knob(argc, argv, &i, &k);
        if (r < 0) return 2;
        if (r) continue;
        if (a[0] == '-') return cli_usage("space: unknown option %s", a);
        if (model) return cli_usage("space: one model at a time");
        model = a;
    }
    if (cli_knobs_check(&k, "space", model ? CLI_K_SHAPE | CLI_K_CONCAT | (n_sim ? CLI_K_TARGET | CLI_K_SCHEDULE : 0) : 0,
                        model ? "space counts the schedules of the model's layers over --cores N "
                                "(of the knobs it takes only --input-shape, --batch and --concat)"
                              : "with --layers N there is no model"))
        return 2;
    if (!model == !layers)
        return cli_usage("usage: paleozoic space MODEL.onnx [--cores N | --simulate-cores N[,N...] "
                         "[--svg FILE]] | paleozoic space --layers N [--cores N]");
    if (svg && !n_sim) return cli_usage("space: --svg draws the simulation: give --simulate-cores");
    if (n_sim && (cores || layers))
        return cli_usage("space: --simulate-cores takes a model and no %s",
                         cores ? "--cores (it sets the cores)" : "--layers");
    if (n_sim) return cli_space_simulate(model, &k, sim, n_sim, svg);
    if (!cores) cores = pz_cpu_count();
    if (layers) {
        print_space(layers, cores);
        return 0;
    }
    pz_err err = {0};
    ir_graph *g = NULL;
    ir_model *m = NULL;
    int rc = 0;
    k.strategy = "none";
    if (cli_load(model, &k, NULL, 0, &g, &err) || cli_lower(g, &k, &m, &err)) {
        rc = cli_fail(&err);
    } else {
        printf("model %s: %d layers after lowering\n", model, m->n_layers);
        print_space(m->n_layers, cores);
    }
    ir_model_free(m);
    ir_graph_free(g);
    return rc;
}
