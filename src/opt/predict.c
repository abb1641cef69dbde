/* predict.c - what the target profile predicts of a block, for dlfusion's
 * check (alg1.c): the profile's layer timings read as a cost model.
 *
 * A conv/FC layer on MP cores: the weighted mean, over the profile's
 * OPT_NEAREST measured layers of its kind nearest to it (in log2 channels,
 * log2 ops and kernel), of their time at that MP scaled by the ratio of the
 * op counts (weights 1 / (0.5 + distance)). A layer without an op count
 * (pooling, an add) costs nothing: it moves with its block. A block of more
 * than one layer: the sum of its layers' times divided by the profile's
 * fused-chain gain of its convs' chain kind (the least where it mixes
 * kinds); a kind the profile never fused (FC layers, or no chains timed)
 * has no prediction (INFINITY): no fusion without a measurement. An MP the
 * profile did not time has none either. */
#include <string.h>

#include "opt_internal.h"

lab_layer_kind opt_layer_kind(const pz_layer_features *f)
{
    if (!strcmp(f->op_type, "Gemm") || !strcmp(f->op_type, "MatMul")) return LAB_LAYER_FC;
    if (f->group > 1 && f->group == f->c_in) return LAB_LAYER_DEPTHWISE;
    return LAB_LAYER_CONV;
}

int opt_profile_nearest(const lab_profile_tables *t, const pz_layer_features *f,
                        const lab_layer_point **near, double *dist)
{
    if (!t) return 0;
    lab_layer_kind k = opt_layer_kind(f);
    double c = f->c_in > 0 && f->c_out > 0 ? sqrt((double)f->c_in * (double)f->c_out)
                                           : (double)(f->c_out > 0 ? f->c_out : 1);
    double lc = log2(c), lo = log2(f->ops > 1 ? f->ops : 1);
    int nn = 0;
    for (int i = 0; i < t->n_pts; i++) {
        const lab_layer_point *p = &t->pts[i];
        if (p->kind != k) continue;
        double d = fabs(p->log2_c - lc) + fabs(p->log2_ops - lo) + (k == LAB_LAYER_CONV && p->kernel != f->kernel_h);
        /* insertion into the sorted first OPT_NEAREST */
        int at = nn < OPT_NEAREST ? nn++ : OPT_NEAREST;
        while (at > 0 && dist[at - 1] > d) {
            if (at < OPT_NEAREST) near[at] = near[at - 1], dist[at] = dist[at - 1];
            at--;
        }
        if (at < OPT_NEAREST) near[at] = p, dist[at] = d;
    }
    return nn;
}

/* Layer f's predicted ms at the profile's MP index j, INFINITY if none. */
static double layer_ms(const lab_profile_tables *t, const pz_layer_features *f, int j)
{
    if (!f->is_conv_fc) return 0;
    const lab_layer_point *near[OPT_NEAREST];
    double dist[OPT_NEAREST], s = 0, w = 0;
    int nn = opt_profile_nearest(t, f, near, dist);
    for (int q = 0; q < nn; q++) {
        if (isnan(near[q]->ms[j])) continue;
        double scale = exp2(log2(f->ops > 1 ? f->ops : 1) - near[q]->log2_ops);
        s += near[q]->ms[j] * scale / (0.5 + dist[q]);
        w += 1 / (0.5 + dist[q]);
    }
    return w > 0 ? s / w : INFINITY;
}

double opt_profile_predict(void *ctx, int start, int size, int mp)
{
    const opt_profile_ctx *c = ctx;
    const lab_profile_tables *t = c->t;
    int j = -1;
    for (int i = 0; t && i < t->n_mp; i++)
        if (t->mp[i] == mp) j = i;
    if (j < 0 || start < 0 || size < 1 || start + size > c->n) return INFINITY;
    double ms = 0, gain = INFINITY;
    for (int i = start; i < start + size; i++) {
        ms += layer_ms(t, &c->f[i], j);
        int k = opt_chain_kind(c->f, c->n, i);
        if (size == 1 || k < 0) continue;
        double g = k < LAB_N_CHAIN_KINDS && t->n_chains[k] > 0 && isfinite(t->gain[k]) ? t->gain[k] : NAN;
        if (!(g > 0)) return INFINITY;
        if (g < gain) gain = g;
    }
    return size > 1 && isfinite(gain) ? ms / gain : ms;
}
