/* chgather.c - what Concat, Slice and Gather share when they gather
 * channels of NCHW16c tensors (the channel gather of rt/kernels/fast.h):
 * the plan from a channel map, the run with the layer's input pointers. */
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

#define CHG_MAX_IN 64   /* inputs of one gather (a Concat of more stays plain) */

pz_chg_state *pz_chg_plan_layer(pz_layer *l, int nin, const int *src_in, const int64_t *src_ch)
{
    const pz_tensor *y = pz_out(l, 0);
    int64_t c_in[CHG_MAX_IN];
    if (nin < 1 || nin > CHG_MAX_IN || !y || y->rank != 4) return NULL;
    for (int i = 0; i < nin; i++) c_in[i] = l->in[i]->dims[1];
    pz_chg_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    if (pz_chgather_plan(&st->d, y->dims[0], y->dims[2] * y->dims[3], y->dims[1], nin, c_in,
                         src_in, src_ch)) {
        free(st);
        return NULL;
    }
    st->fn = pz_fast_kernels_for(l->isa)->chgather16c;
    for (int i = 0; i < nin; i++) l->in_cblk[i] = 16;
    l->out_cblk[0] = 16;
    l->kernel = "chgather16c";
    return st;
}

void pz_chg_run(const pz_chg_state *st, const pz_layer *l, int ith, int nth)
{
    const float *x[CHG_MAX_IN];
    for (int i = 0; i < st->d.nin; i++) x[i] = l->in[i]->data;
    st->fn(&st->d, x, l->out[0]->data, ith, nth);
}

void pz_chg_release(pz_chg_state *st)
{
    if (st) pz_chgather_free(&st->d);
}
