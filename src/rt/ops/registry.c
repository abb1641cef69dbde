/* registry.c - the table of layer kinds, indexed by pz_op_kind, from the
 * list PZ_OP_KINDS (pz_op_kinds.h). */
#include "rt/ops/ops.h"

const pz_rt_op *const pz_rt_ops[] = {
#define PZ_OPK_ENTRY(KIND, sym) [PZ_OP_##KIND] = &pz_rt_op_##sym,
    PZ_OP_KINDS(PZ_OPK_ENTRY)
#undef PZ_OPK_ENTRY
};

/* The table and the enum come from one list: this catches an edit that
 * writes a slot by hand. */
_Static_assert(PZ_RT_LEN(pz_rt_ops) == PZ_OP_COUNT_, "pz_rt_ops must cover every pz_op_kind");

void pz_run_shape_same(const pz_layer *l)
{
    l->out[0]->rank = l->in[0]->rank;
    for (int d = 0; d < l->in[0]->rank; d++) l->out[0]->dims[d] = l->in[0]->dims[d];
}

void pz_run_shape_bcast(const pz_layer *l)
{
    pz_tensor *y = l->out[0];
    y->rank = 0;
    for (int i = 0; i < l->n_in; i++)
        if (l->in[i]->rank > y->rank) y->rank = l->in[i]->rank;
    for (int d = 0; d < y->rank; d++) {
        y->dims[d] = 1;
        for (int i = 0; i < l->n_in; i++) {
            const pz_tensor *t = l->in[i];
            const int it = d - (y->rank - t->rank);
            if (it >= 0 && t->dims[it] != 1) y->dims[d] = t->dims[it];
        }
    }
    /* each input's dim 1 or Y's: else they do not broadcast, Y is empty */
    for (int d = 0; d < y->rank; d++)
        for (int i = 0; i < l->n_in; i++) {
            const pz_tensor *t = l->in[i];
            const int it = d - (y->rank - t->rank);
            if (it >= 0 && t->dims[it] != 1 && t->dims[it] != y->dims[d]) {
                pz_layer_run_fail(l, "input %d's dim %d is %lld, another's %lld: they do not "
                                  "broadcast", i, it, (long long)t->dims[it], (long long)y->dims[d]);
                y->dims[0] = 0;
                return;
            }
        }
}

int pz_row_rule_elementwise(const pz_row_layer *l, pz_row_map *m)
{
    return 1;
}

int pz_run_ints(const pz_tensor *t, int64_t *out, int max)
{
    if (!t || t->rank > 1 || (t->dtype != PZ_I64 && t->dtype != PZ_I32)) return -1;
    int64_t n = pz_numel(t);
    if (n > max) return -1;
    for (int64_t i = 0; i < n; i++)
        out[i] = t->dtype == PZ_I64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
    return (int)n;
}
