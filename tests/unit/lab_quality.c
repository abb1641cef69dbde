/* lab_quality.c - the trust in a target profile (src/lab/quality.h): the
 * machine record (this machine equals itself; each field that differs is
 * named; JSON written and read back), the verdict on a study (each of the
 * rule's witnesses, alone, makes a study not quiet; the tolerance follows
 * the probe's spread with the 2% floor), and the FMA probe on this machine
 * (a positive peak; one thread alone gets most of a core unless the
 * machine is busy, which it then says). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/characterize.h"
#include "lab/quality.h"
#include "util/json.h"

#include "test_check.h"

static void machine(void)
{
    lab_machine a, b;
    char why[256];
    lab_machine_read(&a);
    CHECK(a.cpu[0] && a.logical_cores >= 1 && a.isa[0]);
    b = a;
    CHECK(!lab_machine_differs(&a, &b, why, sizeof why));
    snprintf(b.cpu, sizeof b.cpu, "Other CPU");
    CHECK(lab_machine_differs(&a, &b, why, sizeof why) && strstr(why, "Other CPU"));
    b = a, b.logical_cores++;
    CHECK(lab_machine_differs(&a, &b, why, sizeof why) && strstr(why, "logical cores"));
    b = a, b.cache_kib[1] += 1;
    CHECK(lab_machine_differs(&a, &b, why, sizeof why) && strstr(why, "L2 cache"));
    b = a, snprintf(b.isa, sizeof b.isa, "avx2");
    CHECK(lab_machine_differs(&a, &b, why, sizeof why) && strstr(why, "instruction sets"));
    /* written into a profile and read back: the same machine */
    gen_text t = {0};
    gt_printf(&t, "{\n");
    lab_machine_json(&t, &a);
    gt_printf(&t, "\n}\n");
    json_value *root = NULL;
    pz_err err = {0};
    CHECK(json_parse(t.s, t.n, "record", &root, &err) == PZ_OK);
    if (root) {
        CHECK(lab_machine_parse(root, &b) == 0);
        CHECK(!lab_machine_differs(&a, &b, why, sizeof why));
        json_free(root);
    }
    free(t.s);
    CHECK(json_parse("{\"cores\": 2}", 12, "old", &root, &err) == PZ_OK);
    if (root) {
        CHECK(lab_machine_parse(root, &b) == -1);   /* an older profile: no record */
        json_free(root);
    }
}

static void verdict(void)
{
    lab_probe before = {2, 40, 1.0, 0.01}, after = before;
    lab_window w;
    memset(&w, 0, sizeof w);
    w.min_share = 1;   /* the probes during the study: no tick ran */
    double sp[5] = {0.01, 0.02, 0.01, 0.03, 0.01};
    lab_quality q = {0};
    lab_quality_judge(&q, &before, &after, &w, sp, 5);
    CHECK(q.quiet && !q.why[0]);
    CHECK(fabs(q.tol - 0.03) < 1e-12);   /* 3 x the probe's spread */
    CHECK(fabs(q.spread_median - 0.01) < 1e-12);
    before.spread = 0.001;
    lab_quality_judge(&q, &before, &after, &w, sp, 5);
    CHECK(fabs(q.tol - 0.02) < 1e-12);   /* never under the 2% floor */
    before.spread = 0.2;
    lab_quality_judge(&q, &before, &after, &w, sp, 5);
    CHECK(fabs(q.tol - 0.1) < 1e-12);   /* nor over 10% */
    before.spread = 0.001;
    after.share = 0.6;   /* another process on a core */
    lab_quality_judge(&q, &before, &after, &w, sp, 5);
    CHECK(!q.quiet && strstr(q.why, "60% of a core after"));
    after.share = 1, w.min_share = 0.7;   /* a load between the probes, seen by a tick */
    lab_quality_judge(&q, &before, &after, &w, sp, 5);
    CHECK(!q.quiet && strstr(q.why, "70% of a core during"));
    w.min_share = 1;
    after.share = 0.99, after.peak_gflops = 36;   /* the peak moved 10% */
    lab_quality_judge(&q, &before, &after, &w, sp, 5);
    CHECK(!q.quiet && strstr(q.why, "FMA peak"));
    after.peak_gflops = 40.4;   /* 1%: inside */
    lab_quality_judge(&q, &before, &after, &w, sp, 5);
    CHECK(q.quiet);
    w.steal = 0.05;
    lab_quality_judge(&q, &before, &after, &w, sp, 5);
    CHECK(!q.quiet && strstr(q.why, "stole"));
    w.steal = 0;
    double wide[3] = {0.2, 0.3, 0.25};   /* runs that moved 25%: a load between the probes */
    lab_quality_judge(&q, &before, &after, &w, wide, 3);
    CHECK(!q.quiet && strstr(q.why, "spread"));
    /* the JSON record parses and says what the verdict said */
    gen_text t = {0};
    gt_printf(&t, "{\n");
    lab_quality_json(&t, &q);
    gt_printf(&t, "\n}\n");
    json_value *root = NULL;
    pz_err err = {0};
    CHECK(json_parse(t.s, t.n, "quality", &root, &err) == PZ_OK);
    if (root) {
        const json_value *o = json_get(root, "quality"), *v = o ? json_get(o, "quiet") : NULL;
        CHECK(v && v->type == JSON_BOOL && v->b == 0);
        json_free(root);
    }
    free(t.s);
}

static void probe(void)
{
    lab_probe p;
    lab_probe_run(1, &p);
    CHECK(p.threads == 1 && p.peak_gflops > 0 && p.share > 0 && p.share <= 1.05);
    printf("lab_quality: FMA probe, one thread: %.1f GFLOP/s, %.2f of a core, spread %.3f\n", p.peak_gflops,
           p.share, p.spread);
}

/* The study's time limit grows with the MPs it times: 2 on 2 cores, 10 on
 * 16 (1-8, 12, 16), 13 on 64 (1-8, 12, 16, 24, 32, 64). */
static void study_limits(void)
{
    CHECK(lab_study_seconds(0, 1) == 9 && lab_study_seconds(0, 2) == 9);
    CHECK(lab_study_seconds(0, 16) == 45 && lab_study_seconds(1, 16) == 500);
    CHECK(lab_study_seconds(2, 4) == 2160 && lab_study_seconds(0, 64) == 58.5);
}

int main(void)
{
    study_limits();
    machine();
    verdict();
    probe();
    return test_summary("lab_quality");
}
