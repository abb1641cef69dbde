/* tune_batch.c - `tune --throughput IPS [--max-batch N]`: the batch chosen
 * for a throughput target (issue 43, item 1). Batches 1, 2, 4, ... up to N
 * (default 32) are each loaded (a static batch of 1 re-inferred, as --batch
 * does), lowered with the strategy and timed on this machine (the whole
 * net, median of 5 runs); the first whose images/s reach IPS is written to
 * the schedule (its top-level "batch"). The smallest such batch, because a
 * larger one only adds latency once the target is met. When none reaches
 * it: exit 2 naming the best throughput measured, nothing written. */
#include <stdio.h>
#include <stdlib.h>

#include "../lab/lab.h"
#include "../opt/schedule.h"
#include "../util/util.h"
#include "cli.h"

#define TUNE_BATCH_RUNS 5

/* The whole net of m, as its strategy partitioned it: median ms. */
static double time_model(ir_model *m, int cores, pz_err *err)
{
    int n = m->n_blocks;
    int *sizes = pz_xmalloc((size_t)(n ? n : 1) * sizeof(int));
    int *mps = pz_xmalloc((size_t)(n ? n : 1) * sizeof(int));
    for (int b = 0; b < n; b++) sizes[b] = m->blocks[b].count, mps[b] = m->blocks[b].mp;
    lab_meter *mt = lab_meter_new(m, cores, TUNE_BATCH_RUNS);
    double ms = lab_meter_schedule(mt, sizes, mps, n, NULL, err);
    lab_meter_free(mt);
    free(sizes);
    free(mps);
    return ms;
}

int cli_tune_throughput(const char *model, const char *out, cli_knobs *k, double ips, int max_b)
{
    pz_err err = {0};
    double best_ips = 0;
    int best_b = 0;
    for (int b = 1; b <= max_b; b *= 2) {
        cli_knobs kb = *k;
        kb.batch = b;
        ir_graph *g = NULL;
        ir_model *m = NULL;
        double ms = -1;
        if (cli_load(model, &kb, NULL, 0, &g, &err) || cli_lower(g, &kb, &m, &err) ||
            (ms = time_model(m, cli_threads(&kb), &err)) < 0) {
            ir_model_free(m);
            ir_graph_free(g);
            fprintf(stderr, "tune: at batch %d:\n", b);
            return cli_fail(&err);
        }
        double got = b * 1000.0 / ms;
        printf("tune: batch %d: %.3f ms, %.1f images/s\n", b, ms, got);
        if (got > best_ips) best_ips = got, best_b = b;
        if (got >= ips) {
            int rc = 0;
            if (sched_write_file(m, k->strategy, out, &err)) rc = cli_fail(&err);
            else
                printf("tune: %s: batch %d reaches %.1f images/s (target %.1f); wrote %s\n",
                       model, b, got, ips, out);
            ir_model_free(m);
            ir_graph_free(g);
            return rc;
        }
        ir_model_free(m);
        ir_graph_free(g);
    }
    pz_fail(&err, PZ_ERR_INPUT, "--throughput %.1f: not reached up to batch %d (--max-batch): the "
            "most was %.1f images/s at batch %d; nothing written", ips, max_b, best_ips, best_b);
    return cli_fail(&err);
}
