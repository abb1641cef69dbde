/* opt.c - strategy dispatch (see opt.h). */
#include "opt.h"

#include <string.h>

/* Every layer its own block, all with the same MP. */
static pz_status each_layer(ir_model *m, int mp, int cores, pz_err *err)
{
    int n = m->n_layers ? m->n_layers : 1;
    int *sizes = pz_xmalloc((size_t)n * sizeof(int)), *mps = pz_xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < m->n_layers; i++) sizes[i] = 1, mps[i] = mp;
    pz_status st = ir_model_partition(m, sizes, mps, m->n_layers, cores, err);
    free(sizes);
    free(mps);
    return st;
}

pz_status opt_apply_strategy(ir_model *m, const char *name, const char *target, int cores,
                             pz_err *err)
{
    (void)target;
    if (cores < 1) cores = 1;
    if (!strcmp(name, "none")) return each_layer(m, 1, cores, err);
    if (!strcmp(name, "fixed-mp")) return each_layer(m, cores, cores, err);
    return pz_fail(err, PZ_ERR_INPUT, "--strategy %s: unknown strategy (known: none, fixed-mp)",
                   name);
}
