/* alg1.c - DLFusion Algorithm 1, "Finding fusion scheme and hyper-parameter
 * setting" (JointOptFusionAndMP): as published (strategy dlfusion:paper,
 * fusion-fixed-mp), and below, adapted to what the profile measured
 * (dlfusion). The published rules:
 *
 *   for i = 0 .. num_of_layer-1:
 *     if layer i is Convolution/Fully-Connected:              (line 6)
 *       current_mp <- MP model (channel major, op count minor) (line 7, Eq. 5)
 *       sum_Op     <- sum_Op + operation count of layer i     (line 8)
 *       avg_mp     <- avg_mp + current_mp; block_size += 1    (line 9)
 *     avg_mp <- avg_mp / block_size                           (line 11)
 *     if sum_Op / avg_mp >= OpCount_critical:                 (line 12)
 *       fusion_partition_index.push(i)                        (line 13)
 *       mp_of_fusionblock.push(2^floor(log2(avg_mp)))         (line 14)
 *       sum_Op, avg_mp, block_size <- 0                       (line 15)
 *
 * Two points the pseudo-code leaves open, and how they are read here:
 *  - Lines 9 and 11 reuse avg_mp for the running sum and the mean; read
 *    literally, line 11 would divide an already-divided value again at every
 *    layer. The text says "the average MP for all the current fused layers"
 *    (IV.C), so the sum is kept apart and line 11 computes sum / block_size;
 *    before the block has a conv/FC layer (block_size = 0) there is no mean
 *    and lines 11-16 are skipped.
 *  - The layers after the last cut (their op count stayed under the
 *    threshold) form a last block, with the MP rule of line 14 (MP 1 if it
 *    holds no conv/FC layer).
 * Block i is layers (previous cut, cut i]: a cut ends a block at layer i. */
#include <string.h>

#include "opt_internal.h"

static int pow2_floor(double avg)
{
    int mp = 1;
    while (mp * 2 <= avg + 1e-9) mp *= 2;   /* 2^floor(log2 avg) */
    return mp;
}

int opt_alg1(const pz_layer_features *f, int n, const pz_machine *mc, int fixed_mp, int *sizes,
             int *mps)
{
    double sum_op = 0, mp_sum = 0;
    int block_size = 0, n_blocks = 0, first = 0;
    for (int i = 0; i < n; i++) {
        if (f[i].is_conv_fc) {
            int current_mp = opt_mp_model(mc, &f[i]);
            sum_op += f[i].ops;
            mp_sum += current_mp;
            block_size++;
        }
        if (block_size == 0) continue;
        double avg_mp = mp_sum / block_size;
        if (sum_op / avg_mp >= mc->opcount_critical) {
            sizes[n_blocks] = i + 1 - first;
            mps[n_blocks] = fixed_mp > 0 ? fixed_mp : pow2_floor(avg_mp);
            n_blocks++;
            first = i + 1;
            sum_op = mp_sum = 0;
            block_size = 0;
        }
    }
    if (first < n) {
        sizes[n_blocks] = n - first;
        mps[n_blocks] = fixed_mp > 0 ? fixed_mp : block_size ? pow2_floor(mp_sum / block_size) : 1;
        n_blocks++;
    }
    return n_blocks;
}

/* ---- Algorithm 1 that follows the profile (strategy dlfusion) -------------
 *
 * The published rules assume what the MLU-100 showed: that a fused block
 * pays whenever its op count per core stays under OpCount_critical, and
 * that the MP model of Eq. 5 picks each layer's best MP. The profile of this
 * machine says where that holds, and the rules yield to it:
 *  - a conv/FC layer of a chain kind whose fused chains the profile timed
 *    slower than (or not clearly faster than) unfused, gain under
 *    LAB_FUSE_GAIN_MIN, or of a kind it never fused (FC layers), is a block
 *    of its own: a fused block is built only where fusing was measured to
 *    pay;
 *  - a conv/FC layer's MP is the model's unless the profile's nearest
 *    measured layers of the same kind (depthwise, dense conv, FC) ran that
 *    MP slower than their fastest MP, by more than OPT_PREDICT_NOISE on average
 *    (weighted by nearness); then the MP they ran fastest on average (the
 *    model is one least-squares plane for every kind; a kind it fits badly,
 *    such as small depthwise convs, would otherwise get an MP measured
 *    slower);
 *  - a fused block's MP is the power of two (or all the cores) closest to
 *    the mean of its layers' MPs, as IV.C's text says ("the closed to
 *    average MP"), not line 14's floor, which put blocks of MP-2 and MP-1
 *    layers on one core;
 *  - the layers without an op count (pooling, ...) join the block they fall
 *    in, as in the paper; one between two unfused layers is a block of its
 *    own on the MP of the conv/FC layer before it (the next one's at the
 *    start). */


int opt_chain_kind(const pz_layer_features *f, int n, int i)
{
    if (!f[i].is_conv_fc) return -1;
    lab_layer_kind k = opt_layer_kind(&f[i]);
    if (k == LAB_LAYER_FC) return LAB_N_CHAIN_KINDS;   /* never fused in a profile */
    if (k == LAB_LAYER_DEPTHWISE) return LAB_CHAIN_IR;
    /* a 1x1 conv next to a depthwise one expands or projects an inverted
     * residual (or a depthwise-separable pair) */
    if (f[i].kernel_h == 1 && f[i].kernel_w == 1) {
        int p = i - 1, q = i + 1;
        while (p >= 0 && !f[p].is_conv_fc) p--;
        while (q < n && !f[q].is_conv_fc) q++;
        if ((p >= 0 && opt_layer_kind(&f[p]) == LAB_LAYER_DEPTHWISE) ||
            (q < n && opt_layer_kind(&f[q]) == LAB_LAYER_DEPTHWISE))
            return LAB_CHAIN_IR;
    }
    return LAB_CHAIN_CONV;
}

int opt_mp_checked(const pz_machine *mc, const lab_profile_tables *t, const pz_layer_features *f)
{
    int mp = opt_mp_model(mc, f);
    if (!t || !t->n_pts) return mp;
    const lab_layer_point *near[OPT_NEAREST];
    double dist[OPT_NEAREST];
    int nn = opt_profile_nearest(t, f, near, dist);
    /* each MP's slowdown against each point's fastest MP, weighted by
     * nearness: one point alone (a 7x7 map that no MP speeds up) does not
     * decide for a layer four times its size */
    double slow[LAB_TABLE_MAX_MP];
    int best = -1, at = -1;
    for (int j = 0; j < t->n_mp; j++) {
        slow[j] = NAN;
        if (t->mp[j] > mc->cores) continue;
        double s = 0, w = 0;
        for (int q = 0; q < nn; q++) {
            double fastest = INFINITY;
            for (int i = 0; i < t->n_mp; i++)
                if (t->mp[i] <= mc->cores && near[q]->ms[i] < fastest) fastest = near[q]->ms[i];
            if (isnan(near[q]->ms[j]) || !isfinite(fastest)) continue;
            s += (near[q]->ms[j] / fastest - 1) / (0.5 + dist[q]);
            w += 1 / (0.5 + dist[q]);
        }
        if (w == 0) continue;
        slow[j] = s / w;
        if (best < 0 || slow[j] < slow[best]) best = j;
        if (t->mp[j] == mp) at = j;
    }
    if (best >= 0 && at >= 0 && slow[at] > slow[best] + OPT_PREDICT_NOISE) return t->mp[best];
    return mp;
}

/* The power of two up to the cores, or the cores, closest to avg. */
static int nearest_mp(double avg, int cores)
{
    int best = cores;
    for (int mp = 1; mp <= cores; mp *= 2)
        if (fabs(mp - avg) < fabs(best - avg)) best = mp;
    return best;
}

/* Ends the open block [first, end): one block on the MP closest to the mean
 * of its conv/FC layers' (n_conv of them, MPs summing to mp_sum), or, with
 * none, each layer alone on its own MP. Returns the block count. */
static int close_block(int first, int end, int n_conv, double mp_sum, const int *lmp, int cores,
                       int *sizes, int *mps, int nb)
{
    if (first >= end) return nb;
    if (n_conv == 0) {
        for (int i = first; i < end; i++) sizes[nb] = 1, mps[nb++] = lmp[i];
        return nb;
    }
    sizes[nb] = end - first;
    mps[nb++] = nearest_mp(mp_sum / n_conv, cores);
    return nb;
}

/* The MP a predictor gives a layer alone: the least predicted time over
 * opt_alg1_mps, the cores unless another is faster by more than the
 * margin; 0 when it predicts nothing. */
static int predicted_mp(const opt_predictor *p, int i, int cores)
{
    int mpl[16], n_mp = opt_alg1_mps(cores, mpl), best = 0;
    double best_t = INFINITY;
    for (int j = n_mp - 1; j >= 0; j--) {   /* the cores first: ties keep them */
        double c = p->fn(p->ctx, i, 1, mpl[j]) * (mpl[j] == cores ? 1 : 1 + p->margin);
        if (c < best_t) best_t = c, best = mpl[j];
    }
    return best;
}

static int alg1_follow(const pz_layer_features *f, int n, const pz_machine *mc,
                       const lab_profile_tables *t, const opt_predictor *p, int *sizes, int *mps)
{
    if (n <= 0) return 0;
    int *lmp = pz_xmalloc((size_t)n * sizeof *lmp), last = -1;
    for (int i = 0; i < n; i++) {
        int pm = p && f[i].is_conv_fc ? predicted_mp(p, i, mc->cores) : 0;
        if (f[i].is_conv_fc) last = lmp[i] = pm > 0 ? pm : opt_mp_checked(mc, t, &f[i]);
        else lmp[i] = last;   /* -1 before the first conv/FC layer: filled below */
    }
    for (int i = n - 1, next = mc->cores; i >= 0; i--)
        if (lmp[i] < 0) lmp[i] = next;
        else if (f[i].is_conv_fc) next = lmp[i];
    /* with a predictor and no tables (a simulated target) the predictor
     * alone judges fusion */
    const int gate = !p || t;
    double sum_op = 0, mp_sum = 0;
    int n_conv = 0, nb = 0, first = 0;
    for (int i = 0; i < n; i++) {
        int k = opt_chain_kind(f, n, i);
        if (k >= 0 && (k >= LAB_N_CHAIN_KINDS || (gate && !lab_fusion_pays(t, (lab_chain_kind)k)))) {
            nb = close_block(first, i, n_conv, mp_sum, lmp, mc->cores, sizes, mps, nb);
            sizes[nb] = 1, mps[nb++] = lmp[i];
            first = i + 1;
            sum_op = mp_sum = 0;
            n_conv = 0;
            continue;
        }
        if (k >= 0) sum_op += f[i].ops, mp_sum += lmp[i], n_conv++;
        if (n_conv == 0) continue;
        if (sum_op / (mp_sum / n_conv) >= mc->opcount_critical) {   /* lines 12-15 */
            nb = close_block(first, i + 1, n_conv, mp_sum, lmp, mc->cores, sizes, mps, nb);
            first = i + 1;
            sum_op = mp_sum = 0;
            n_conv = 0;
        }
    }
    nb = close_block(first, n, n_conv, mp_sum, lmp, mc->cores, sizes, mps, nb);
    free(lmp);
    return nb;
}

int opt_alg1_profile(const pz_layer_features *f, int n, const pz_machine *mc,
                     const lab_profile_tables *t, int *sizes, int *mps)
{
    return alg1_follow(f, n, mc, t, NULL, sizes, mps);
}

/* ---- the predicted check ----------------------------------------------------
 *
 * Algorithm 1's blocks are where fusion may happen; what the predictor says
 * decides what happens in each: the partition of the block into contiguous
 * parts, each fused on one MP of opt_alg1_mps or a layer alone, that it
 * predicts fastest (opt_dp, exact on additive predictions), every choice
 * but a layer alone on all the cores (fixed-mp's) counted `margin` slower.
 * Splitting every block into its layers on all the cores is one of the
 * partitions, so the schedule is never predicted slower than fixed-mp's:
 * sum over blocks of min <= sum of fixed-mp's layers. A block the
 * predictor cannot price stays as Algorithm 1 built it. */
typedef struct {
    const opt_predictor *p;
    int first, cores, n_mp;
    int mpl[16];
} within_block;

static double within_cost(void *ctx, int start, int size, int *mp)
{
    within_block *w = ctx;
    double best = INFINITY;
    for (int j = w->n_mp - 1; j >= 0; j--) {   /* the cores first: ties keep them */
        double c = w->p->fn(w->p->ctx, w->first + start, size, w->mpl[j]);
        if (size > 1 || w->mpl[j] != w->cores) c *= 1 + w->p->margin;
        if (c < best) best = c, *mp = w->mpl[j];
    }
    return best;
}

int opt_alg1_predicted(const pz_layer_features *f, int n, const pz_machine *mc,
                       const lab_profile_tables *t, const opt_predictor *p, int *sizes, int *mps)
{
    int nb = alg1_follow(f, n, mc, t, p, sizes, mps);
    if (nb <= 0 || !p) return nb;
    int *os = pz_xmalloc((size_t)n * sizeof(int)), *om = pz_xmalloc((size_t)n * sizeof(int));
    int *ps = pz_xmalloc((size_t)n * sizeof(int)), *pm = pz_xmalloc((size_t)n * sizeof(int)), out = 0;
    within_block w = {p, 0, mc->cores, 0, {0}};
    w.n_mp = opt_alg1_mps(mc->cores, w.mpl);
    for (int b = 0, first = 0; b < nb; first += sizes[b++]) {
        w.first = first;
        int k = opt_dp(sizes[b], sizes[b], within_cost, &w, ps, pm, NULL);
        if (k <= 0) {
            os[out] = sizes[b], om[out++] = mps[b];
            continue;
        }
        memcpy(os + out, ps, (size_t)k * sizeof(int));
        memcpy(om + out, pm, (size_t)k * sizeof(int));
        out += k;
    }
    memcpy(sizes, os, (size_t)out * sizeof(int));
    memcpy(mps, om, (size_t)out * sizeof(int));
    free(os), free(om), free(ps), free(pm);
    return out;
}

int opt_dlfusion(const pz_layer_features *f, int n, const pz_machine *mc,
                 const lab_profile_tables *t, int *sizes, int *mps)
{
    opt_profile_ctx c = {f, n, t};
    opt_predictor p = {opt_profile_predict, &c, OPT_PREDICT_NOISE};
    /* the check needs the fixed MP's timings: a profile that did not time
     * all the cores (another core count) predicts nothing against it */
    int timed = 0;
    for (int j = 0; t && j < t->n_mp; j++) timed |= t->n_pts > 0 && t->mp[j] == mc->cores;
    return opt_alg1_predicted(f, n, mc, t, timed ? &p : NULL, sizes, mps);
}
