/* chgather.c - what Concat, Slice and Gather share when they gather
 * channels of NCHW16c tensors (the channel gather of rt/kernels/fast.h):
 * the plan from a channel map, the run with the layer's input pointers. */
#include <string.h>

#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

#define CHG_MAX_IN 64   /* inputs of one gather (a Concat of more stays plain) */

/* Keeps a copy of the channel map (c channels) in st; 0, or -1 when out
 * of memory. */
static int keep_map(pz_chg_state *st, int64_t c, const int *src_in, const int64_t *src_ch)
{
    int *mi = malloc((size_t)c * sizeof *mi);
    int64_t *mc = malloc((size_t)c * sizeof *mc);
    if (!mi || !mc) {
        free(mi);
        free(mc);
        return -1;
    }
    memcpy(mi, src_in, (size_t)c * sizeof *mi);
    memcpy(mc, src_ch, (size_t)c * sizeof *mc);
    free(st->map_in);
    free(st->map_ch);
    st->map_in = mi;
    st->map_ch = mc;
    return 0;
}

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
    if (keep_map(st, y->dims[1], src_in, src_ch)) {
        pz_chgather_free(&st->d);
        free(st);
        return NULL;
    }
    st->fn = pz_fast_kernels_for(l->isa)->chgather16c;
    for (int i = 0; i < nin; i++) l->in_cblk[i] = 16;
    l->out_cblk[0] = 16;
    l->kernel = "chgather16c";
    return st;
}

/* Worker ith of nth gathers layer l's channels (state st) into y. */
static void chg_gather(const pz_chg_state *st, const pz_layer *l, float *y, int ith, int nth)
{
    const float *x[CHG_MAX_IN];
    for (int i = 0; i < st->d.nin; i++) x[i] = (st->src ? st->src[i] : l->in[i])->data;
    st->fn(&st->d, x, y, ith, nth);
}

void pz_chg_run(const pz_chg_state *st, const pz_layer *l, int ith, int nth)
{
    chg_gather(st, l, l->out[0]->data, ith, nth);
}

void pz_chg_run_into(const pz_layer *g, float *y)
{
    chg_gather(g->state, g, y, 0, 1);
}

void pz_chg_release(pz_chg_state *st)
{
    if (!st) return;
    pz_chgather_free(&st->d);
    free(st->src);
    free(st->map_in);
    free(st->map_ch);
    st->src = NULL;
    st->map_in = NULL;
    st->map_ch = NULL;
}

/* The channel-gather state of GATHER layer g, or NULL. */
static pz_chg_state *gather_state(const pz_layer *g)
{
    pz_chg_state *st = g->kind == PZ_OP_GATHER ? g->state : NULL;
    return st && st->map_in ? st : NULL;
}

int pz_chg_sources(const pz_layer *g, pz_tensor *const **src)
{
    const pz_chg_state *st = gather_state(g);
    if (!st) return 0;
    *src = st->src ? st->src : g->in;
    return st->d.nin;
}

/* Tensor t's index in ns[*nn], appended when new; -1 when ns is full. */
static int slot_of(pz_tensor **ns, int *nn, pz_tensor *t)
{
    for (int k = 0; k < *nn; k++)
        if (ns[k] == t) return k;
    if (*nn == CHG_MAX_IN) return -1;
    ns[*nn] = t;
    return (*nn)++;
}

/* Gather layer r re-planned to read, instead of its source t, the n tensors
 * srcs of which t's channel j is channel m_ch[j] of srcs[m_in[j]]. 0: done;
 * -1: unchanged (more than CHG_MAX_IN sources, out of memory). */
static int reroute(pz_layer *r, const pz_tensor *t, int n, pz_tensor *const *srcs,
                   const int *m_in, const int64_t *m_ch)
{
    pz_chg_state *st = gather_state(r);
    const pz_tensor *y = pz_out(r, 0);
    if (!st || !y) return -1;
    pz_tensor *const *cur = st->src ? st->src : r->in;
    pz_tensor *ns[CHG_MAX_IN];
    int nn = 0, old_to[CHG_MAX_IN], new_at[CHG_MAX_IN];
    for (int i = 0; i < st->d.nin; i++) {   /* r's sources but t, then srcs, each once */
        old_to[i] = -1;
        if (cur[i] != t && (old_to[i] = slot_of(ns, &nn, cur[i])) < 0) return -1;
    }
    for (int i = 0; i < n; i++)
        if ((new_at[i] = slot_of(ns, &nn, srcs[i])) < 0) return -1;
    int64_t c = y->dims[1], c_in[CHG_MAX_IN];
    for (int k = 0; k < nn; k++) c_in[k] = ns[k]->dims[1];
    int *src_in = malloc((size_t)c * sizeof *src_in);
    int64_t *src_ch = malloc((size_t)c * sizeof *src_ch);
    pz_tensor **src = malloc((size_t)nn * sizeof *src);
    pz_chgather_desc d;
    bool ok = src_in && src_ch && src;
    for (int64_t k = 0; ok && k < c; k++) {
        int i = st->map_in[k];
        int64_t j = st->map_ch[k];
        if (cur[i] == t) {
            src_in[k] = new_at[m_in[j]];
            src_ch[k] = m_ch[j];
        } else {
            src_in[k] = old_to[i];
            src_ch[k] = j;
        }
    }
    ok = ok && !pz_chgather_plan(&d, y->dims[0], y->dims[2] * y->dims[3], c, nn, c_in, src_in,
                                 src_ch);
    if (ok && keep_map(st, c, src_in, src_ch)) {
        pz_chgather_free(&d);
        ok = false;
    }
    free(src_in);
    free(src_ch);
    if (!ok) {
        free(src);
        return -1;
    }
    memcpy(src, ns, (size_t)nn * sizeof *src);
    pz_chgather_free(&st->d);
    free(st->src);
    st->d = d;
    st->src = src;
    return 0;
}

int pz_chg_through(pz_layer *g, const pz_layer *c)
{
    const pz_tensor *y = pz_out(c, 0);
    if (!gather_state(g) || !y || c->n_in < 1 || c->n_in > CHG_MAX_IN) return -1;
    int64_t n = y->dims[1];
    int *m_in = malloc((size_t)n * sizeof *m_in);
    int64_t *m_ch = malloc((size_t)n * sizeof *m_ch), k = 0;
    int rc = -1;
    if (m_in && m_ch) {   /* the concat's map: its parts one after the other */
        for (int i = 0; i < c->n_in; i++)
            for (int64_t j = 0; j < c->in[i]->dims[1] && k < n; j++, k++) {
                m_in[k] = i;
                m_ch[k] = j;
            }
        if (k == n) rc = reroute(g, y, c->n_in, c->in, m_in, m_ch);
    }
    free(m_in);
    free(m_ch);
    return rc;
}

int pz_chg_compose(pz_layer *r, const pz_layer *g)
{
    const pz_chg_state *sg = gather_state(g);
    pz_tensor *const *src;
    int n = pz_chg_sources(g, &src);
    if (!sg || !n || sg->src == NULL) return -1;
    return reroute(r, pz_out(g, 0), n, src, sg->map_in, sg->map_ch);
}
