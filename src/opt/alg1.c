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
 *    MP slower than their fastest MP, by more than MP_NOISE on average
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

/* Differences between MPs within this fraction are the profile's timing
 * noise, not a preference. */
#define MP_NOISE 0.05

static lab_layer_kind layer_kind(const pz_layer_features *f)
{
    if (!strcmp(f->op_type, "Gemm") || !strcmp(f->op_type, "MatMul")) return LAB_LAYER_FC;
    if (f->group > 1 && f->group == f->c_in) return LAB_LAYER_DEPTHWISE;
    return LAB_LAYER_CONV;
}

int opt_chain_kind(const pz_layer_features *f, int n, int i)
{
    if (!f[i].is_conv_fc) return -1;
    lab_layer_kind k = layer_kind(&f[i]);
    if (k == LAB_LAYER_FC) return LAB_N_CHAIN_KINDS;   /* never fused in a profile */
    if (k == LAB_LAYER_DEPTHWISE) return LAB_CHAIN_IR;
    /* a 1x1 conv next to a depthwise one expands or projects an inverted
     * residual (or a depthwise-separable pair) */
    if (f[i].kernel_h == 1 && f[i].kernel_w == 1) {
        int p = i - 1, q = i + 1;
        while (p >= 0 && !f[p].is_conv_fc) p--;
        while (q < n && !f[q].is_conv_fc) q++;
        if ((p >= 0 && layer_kind(&f[p]) == LAB_LAYER_DEPTHWISE) ||
            (q < n && layer_kind(&f[q]) == LAB_LAYER_DEPTHWISE))
            return LAB_CHAIN_IR;
    }
    return LAB_CHAIN_CONV;
}

/* The profile's points nearest a layer that the MP check weighs. */
#define MP_NEAREST 3

int opt_mp_checked(const pz_machine *mc, const lab_profile_tables *t, const pz_layer_features *f)
{
    int mp = opt_mp_model(mc, f);
    if (!t || !t->n_pts) return mp;
    lab_layer_kind k = layer_kind(f);
    double c = f->c_in > 0 && f->c_out > 0 ? sqrt((double)f->c_in * (double)f->c_out)
                                           : (double)(f->c_out > 0 ? f->c_out : 1);
    double lc = log2(c), lo = log2(f->ops > 1 ? f->ops : 1);
    /* the MP_NEAREST measured layers of the same kind nearest in log2
     * channels, log2 ops and kernel */
    const lab_layer_point *near[MP_NEAREST];
    double dist[MP_NEAREST];
    int nn = 0;
    for (int i = 0; i < t->n_pts; i++) {
        const lab_layer_point *p = &t->pts[i];
        if (p->kind != k) continue;
        double d = fabs(p->log2_c - lc) + fabs(p->log2_ops - lo) + (k == LAB_LAYER_CONV && p->kernel != f->kernel_h);
        int at = nn < MP_NEAREST ? nn++ : MP_NEAREST;
        while (at > 0 && dist[at - 1] > d) {
            if (at < MP_NEAREST) near[at] = near[at - 1], dist[at] = dist[at - 1];
            at--;
        }
        if (at < MP_NEAREST) near[at] = p, dist[at] = d;
    }
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
    if (best >= 0 && at >= 0 && slow[at] > slow[best] + MP_NOISE) return t->mp[best];
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

int opt_alg1_profile(const pz_layer_features *f, int n, const pz_machine *mc,
                     const lab_profile_tables *t, int *sizes, int *mps)
{
    if (n <= 0) return 0;
    int *lmp = pz_xmalloc((size_t)n * sizeof *lmp), last = -1;
    for (int i = 0; i < n; i++) {
        if (f[i].is_conv_fc) last = lmp[i] = opt_mp_checked(mc, t, &f[i]);
        else lmp[i] = last;   /* -1 before the first conv/FC layer: filled below */
    }
    for (int i = n - 1, next = mc->cores; i >= 0; i--)
        if (lmp[i] < 0) lmp[i] = next;
        else if (f[i].is_conv_fc) next = lmp[i];
    double sum_op = 0, mp_sum = 0;
    int n_conv = 0, nb = 0, first = 0;
    for (int i = 0; i < n; i++) {
        int k = opt_chain_kind(f, n, i);
        if (k >= 0 && (k >= LAB_N_CHAIN_KINDS || !lab_fusion_pays(t, (lab_chain_kind)k))) {
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
