/* plugin.c - user strategies in shared objects (pz_strategy.h), loaded with
 * dlopen: `--strategy plugin:PATH.so[:ARGS]`. The answer is checked before
 * it is used; the object is closed again after the call. */
#include <dlfcn.h>
#include <string.h>

#include "opt_internal.h"

typedef struct {
    ir_model *m;
    int cores;
    lab_meter *mt;
} measure_ctx;

/* pz_strategy_input.measure: time a schedule the plug-in proposes. */
static double plugin_measure(void *ctx, const int *sizes, const int *mps, int n_blocks)
{
    measure_ctx *c = ctx;
    pz_err err = {0};
    if (!sizes || !mps || n_blocks < 1 || n_blocks > c->m->n_layers) return -1;
    if (!c->mt) c->mt = lab_meter_new(c->m, c->cores, 3);
    return lab_meter_schedule(c->mt, sizes, mps, n_blocks, NULL, &err);
}

int opt_plugin_run(const char *spec, const pz_layer_features *f, int n, const pz_machine *mc,
                   ir_model *m, int *sizes, int *mps, pz_err *err)
{
    char path[4096];
    const char *args = "";
    /* PATH.so[:ARGS]: the path ends at the first ':' after ".so" */
    const char *so = strstr(spec, ".so:");
    size_t plen = so ? (size_t)(so + 3 - spec) : strlen(spec);
    if (so) args = so + 4;
    if (plen == 0 || plen >= sizeof path) {
        pz_fail(err, PZ_ERR_INPUT, "--strategy plugin:PATH.so: no plug-in path given");
        return -1;
    }
    memcpy(path, spec, plen);
    path[plen] = 0;
    /* a bare name would be looked up in the library path: say ./name.so */
    char full[4200];
    snprintf(full, sizeof full, "%s%s", strchr(path, '/') ? "" : "./", path);
    void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        pz_fail(err, PZ_ERR_INPUT, "--strategy plugin:%s: cannot load: %s", path, e ? e : "?");
        return -1;
    }
    int rc = -1;
    const int *abi = dlsym(h, "pz_strategy_abi");
    pz_strategy_fn fn;
    *(void **)(&fn) = dlsym(h, "pz_strategy");   /* POSIX: object pointer to function pointer */
    if (!abi || !fn) {
        pz_fail(err, PZ_ERR_INPUT, "--strategy plugin:%s: the object must define pz_strategy_abi "
                "and pz_strategy (see src/opt/pz_strategy.h)", path);
        goto out;
    }
    if (*abi != PZ_STRATEGY_ABI) {
        pz_fail(err, PZ_ERR_INPUT, "--strategy plugin:%s: built for strategy ABI %d, this paleozoic "
                "has ABI %d: rebuild it against src/opt/pz_strategy.h", path, *abi, PZ_STRATEGY_ABI);
        goto out;
    }
    measure_ctx mctx = {m, mc->cores, NULL};
    pz_strategy_input in = {n, f, *mc, args, plugin_measure, &mctx};
    pz_strategy_output out;
    memset(&out, 0, sizeof out);
    out.sizes = sizes;
    out.mps = mps;
    int r = fn(&in, &out);
    lab_meter_free(mctx.mt);
    out.message[sizeof out.message - 1] = 0;
    if (r) {
        pz_fail(err, PZ_ERR_INPUT, "--strategy plugin:%s failed: %s", path,
                out.message[0] ? out.message : "(no message)");
        goto out;
    }
    if (out.n_blocks < 1 || out.n_blocks > (n > 0 ? n : 1)) {
        pz_fail(err, PZ_ERR_INPUT, "--strategy plugin:%s returned %d blocks; a partition of %d "
                "layers has 1 to %d", path, out.n_blocks, n, n);
        goto out;
    }
    rc = out.n_blocks;   /* sizes and MPs are checked by ir_model_partition */
out:
    dlclose(h);
    return rc;
}
