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
    for (int i = 0; i < st->d.nin; i++) x[i] = (st->src ? st->src[i] : l->in[i])->data;
    st->fn(&st->d, x, l->out[0]->data, ith, nth);
}

void pz_chg_release(pz_chg_state *st)
{
    if (!st) return;
    pz_chgather_free(&st->d);
    free(st->src);
    st->src = NULL;
}

int pz_chg_through(pz_layer *g, const pz_layer *c)
{
    pz_chg_state *st = g->state;
    const pz_tensor *ix = g->n_in > 1 ? g->in[1] : NULL, *y = pz_out(g, 0);
    if (g->kind != PZ_OP_GATHER || !st || st->src || !ix || !ix->data || ix->rank != 1 ||
        ix->dtype != PZ_I64 || !y || c->n_in < 1 || c->n_in > CHG_MAX_IN)
        return -1;
    int64_t c_in[CHG_MAX_IN], at[CHG_MAX_IN + 1], n = y->dims[1];
    at[0] = 0;
    for (int i = 0; i < c->n_in; i++) {
        c_in[i] = c->in[i]->dims[1];
        at[i + 1] = at[i] + c_in[i];
    }
    int *src_in = malloc((size_t)n * sizeof *src_in);
    int64_t *src_ch = malloc((size_t)n * sizeof *src_ch);
    pz_tensor **src = malloc((size_t)c->n_in * sizeof *src);
    pz_chgather_desc d;
    bool ok = src_in && src_ch && src && ix->dims[0] == n;
    for (int64_t k = 0; ok && k < n; k++) {
        int64_t ch = ((const int64_t *)ix->data)[k];
        if (ch < 0) ch += at[c->n_in];
        ok = ch >= 0 && ch < at[c->n_in];
        int i = 0;
        while (ok && ch >= at[i + 1]) i++;
        src_in[k] = i;
        src_ch[k] = ch - at[i];
    }
    ok = ok && !pz_chgather_plan(&d, y->dims[0], y->dims[2] * y->dims[3], n, c->n_in, c_in,
                                 src_in, src_ch);
    free(src_in);
    free(src_ch);
    if (!ok) {
        free(src);
        return -1;
    }
    for (int i = 0; i < c->n_in; i++) src[i] = c->in[i];
    pz_chgather_free(&st->d);
    st->d = d;
    st->src = src;
    return 0;
}
