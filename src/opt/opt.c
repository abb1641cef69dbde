/* opt.c - strategy dispatch (see opt.h): parse the name and options, gather
 * the layer features and, when the strategy needs it, the target profile;
 * run the strategy; check and set its partition (ir_model_partition). */
#include "opt.h"

#include <string.h>

#include "opt_internal.h"

const char *const OPT_STRATEGIES[] = {"none", "fixed-mp", "dynamic-mp", "fuse-all",
                                      "fusion-fixed-mp", "dlfusion", "dlfusion:paper", "oracle", "dp",
                                      "best"};
const int OPT_N_STRATEGIES = (int)PZ_ARRAY_LEN(OPT_STRATEGIES);

#define KNOWN "none, fixed-mp[:N], dynamic-mp, fuse-all, fusion-fixed-mp, dlfusion[:paper], " \
              "oracle[:OPTS], dp[:OPTS], best[:OPTS], plugin:PATH.so[:ARGS]"

/* "budget=60,repeat=3,..." into o; an unknown key or bad value is an error. */
static pz_status parse_opts(const char *name, const char *s, opt_search_opts *o, pz_err *err)
{
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char kv[128];
        if (len >= sizeof kv) len = sizeof kv - 1;
        memcpy(kv, s, len);
        kv[len] = 0;
        char *eq = strchr(kv, '=');
        char *num_end = NULL;
        double v = eq ? strtod(eq + 1, &num_end) : 0;
        if (!eq || num_end == eq + 1 || *num_end || !isfinite(v) || v < 0 || v > 1e6)
            return pz_fail(err, PZ_ERR_INPUT, "--strategy %s: option \"%s\" wants KEY=NUMBER "
                           "(keys: budget, repeat, max-block, verify, quiet)", name, kv);
        *eq = 0;
        if (!strcmp(kv, "budget")) o->budget_s = v;
        else if (!strcmp(kv, "repeat") && v >= 1 && v <= 1000) o->repeat = (int)v;
        else if (!strcmp(kv, "max-block") && v >= 1) o->max_block = (int)v;
        else if (!strcmp(kv, "verify") && v >= 1 && v <= 16) o->verify = (int)v;
        else if (!strcmp(kv, "quiet")) o->quiet = v != 0;
        else
            return pz_fail(err, PZ_ERR_INPUT, "--strategy %s: unknown option or value out of range "
                           "\"%s=%s\" (budget>=0, repeat 1-1000, max-block>=1, verify 1-16, quiet)",
                           name, kv, eq + 1);
        s = end ? end + 1 : NULL;
    }
    return PZ_OK;
}

pz_status opt_apply_strategy(ir_model *m, const char *spec, const char *target, int cores,
                             pz_err *err)
{
    return opt_apply_strategy_given(m, spec, target, cores, NULL, 0, err);
}

pz_status opt_apply_strategy_given(ir_model *m, const char *spec, const char *target, int cores,
                                   const opt_schedule *given, int n_given, pz_err *err)
{
    if (cores < 1) cores = 1;
    int n = m->n_layers;
    if (n == 0) return ir_model_partition(m, NULL, NULL, 0, cores, err);
    char name[64];
    const char *colon = strchr(spec, ':'), *args = colon ? colon + 1 : NULL;
    size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);
    if (nl >= sizeof name) nl = sizeof name - 1;
    memcpy(name, spec, nl);
    name[nl] = 0;

    /* the algorithm of each layer first: measured strategies time it */
    opt_choose_algos(m);
    int *sizes = pz_xmalloc((size_t)n * sizeof(int)), *mps = pz_xmalloc((size_t)n * sizeof(int));
    pz_layer_features *f = opt_features(m);
    pz_machine mc = {0};
    mc.cores = cores;
    int nb = -1;
    int needs_profile = !strcmp(name, "dynamic-mp") || !strcmp(name, "dlfusion") ||
                        !strcmp(name, "fusion-fixed-mp") || !strcmp(name, "plugin");
    if (needs_profile && lab_profile_load(target, cores, &mc, err)) goto done;

    if (!strcmp(name, "none") || !strcmp(name, "fixed-mp")) {
        int mp = !strcmp(name, "none") ? 1 : cores;
        if (args && !strcmp(name, "fixed-mp")) {
            char *e;
            long v = strtol(args, &e, 10);
            if (*e || v < 1 || v > cores) {
                pz_fail(err, PZ_ERR_INPUT, "--strategy fixed-mp:%s: the MP must be 1 to %d (the "
                        "cores available)", args, cores);
                goto done;
            }
            mp = (int)v;
        } else if (args) {
            pz_fail(err, PZ_ERR_INPUT, "--strategy %s takes no options", spec);
            goto done;
        }
        nb = opt_each_layer(n, mp, sizes, mps);
    } else if (!strcmp(name, "plugin")) {
        if (!args || !*args) {
            pz_fail(err, PZ_ERR_INPUT, "--strategy plugin:PATH.so: no plug-in path given");
            goto done;
        }
        nb = opt_plugin_run(args, f, n, &mc, m, sizes, mps, err);
        if (nb < 0) goto done;
    } else if (!strcmp(name, "best")) {
        opt_search_opts o = {0, 7, 0, 0, 0};
        if (parse_opts(name, args, &o, err)) goto done;
        /* Algorithm 1 is one candidate when a profile loads (no measuring for one) */
        pz_err pe = {0};
        int have = lab_profile_load_cached(target, cores, &mc, &pe) == PZ_OK;
        lab_profile_tables t;
        if (!have || lab_profile_tables_load(target, &t, &pe)) memset(&t, 0, sizeof t);
        double t0 = util_now_s();
        nb = opt_best(m, f, cores, &mc, &t, have, &o, sizes, mps, err);
        lab_profile_tables_free(&t);
        if (nb <= 0) {
            if (!err->code) pz_fail(err, PZ_ERR_INTERNAL, "best: no schedule found");
            nb = -1;
            goto done;
        }
        if (!o.quiet) fprintf(stderr, "best: search took %.1f s\n", util_now_s() - t0);
    } else if (!strcmp(name, "oracle") || !strcmp(name, "dp")) {
        int oracle = !strcmp(name, "oracle");
        opt_search_opts o = {oracle ? 300 : 120, 3, 0, 4, 0};
        if (parse_opts(name, args, &o, err)) goto done;
        double t0 = util_now_s();
        if (oracle) {
            /* the profile strategies' schedules are among the oracle's
             * seeds when a profile is at hand (none is measured for it) */
            pz_err pe = {0};
            int have = lab_profile_load_cached(target, cores, &mc, &pe) == PZ_OK;
            lab_profile_tables t;
            if (!have || lab_profile_tables_load(target, &t, &pe)) memset(&t, 0, sizeof t);
            nb = opt_oracle(m, f, cores, have ? &mc : NULL, &t, given, n_given, &o, sizes, mps, err);
            lab_profile_tables_free(&t);
        } else {
            nb = opt_dp_measured(m, f, cores, &o, sizes, mps, err);
        }
        if (nb <= 0) {
            if (!err->code) pz_fail(err, PZ_ERR_INTERNAL, "%s: no schedule found", name);
            nb = -1;
            goto done;
        }
        if (!o.quiet) fprintf(stderr, "%s: search took %.1f s\n", name, util_now_s() - t0);
    } else if (!strcmp(name, "dlfusion")) {
        if (args && strcmp(args, "paper")) {
            pz_fail(err, PZ_ERR_INPUT, "--strategy %s: dlfusion takes no option but \"paper\" "
                    "(Algorithm 1 as published)", spec);
            goto done;
        }
        if (args) {
            nb = opt_alg1(f, n, &mc, 0, sizes, mps);
        } else {
            lab_profile_tables t;
            pz_err te = {0};
            /* the default profile measured but not cached: no tables, no fusion */
            if (lab_profile_tables_load(target, &t, target ? err : &te) && target) goto done;
            nb = opt_dlfusion(f, n, &mc, &t, sizes, mps);
            lab_profile_tables_free(&t);
        }
    } else if (args) {
        pz_fail(err, PZ_ERR_INPUT, "--strategy %s takes no options (known: " KNOWN ")", spec);
        goto done;
    } else if (!strcmp(name, "dynamic-mp")) {
        nb = opt_dynamic_mp(f, n, &mc, sizes, mps);
    } else if (!strcmp(name, "fuse-all")) {
        sizes[0] = n, mps[0] = cores, nb = 1;
    } else if (!strcmp(name, "fusion-fixed-mp")) {
        nb = opt_alg1(f, n, &mc, cores, sizes, mps);
    } else {
        pz_fail(err, PZ_ERR_INPUT, "--strategy %s: unknown strategy (known: " KNOWN ")", spec);
    }
done:
    if (nb >= 0 && !err->code) {
        pz_err e2 = {0};
        if (ir_model_partition(m, sizes, mps, nb, cores, &e2))
            pz_fail(err, e2.code, "--strategy %s gave an illegal schedule: %s", spec, e2.msg);
    }
    free(sizes);
    free(mps);
    free(f);
    return err->code;
}
