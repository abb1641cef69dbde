/* alg1.c - DLFusion Algorithm 1, "Finding fusion scheme and hyper-parameter
 * setting" (JointOptFusionAndMP), as published:
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
