/* simple.c - the strategies of DLFusion Table III that need no search:
 * 1 none, 2 fixed-mp, 3 dynamic-mp, 4 fuse-all (5 and 6 are in alg1.c),
 * and the MP model of DLFusion Eq. 5 they share. */
#include "opt_internal.h"

/* Eq. 5: MP grows with log2 of the channels (major) and of the operation
 * count (minor). The profile fits log2 MP = alpha*log2 C + beta*log2 ops +
 * gamma on this machine's measured best MPs; C is the geometric mean of the
 * input and output channels. Rounded where it was fitted, in log2 (to the
 * nearest power of two: on 2 cores the fit's targets are 0 and 1, and a
 * layer is MP 2 from 0.5 up), then clamped to [1, cores]. */
int opt_mp_model(const pz_machine *mc, const pz_layer_features *f)
{
    double c = f->c_in > 0 && f->c_out > 0 ? sqrt((double)f->c_in * (double)f->c_out)
                                           : (double)(f->c_out > 0 ? f->c_out : 1);
    double ops = f->ops > 1 ? f->ops : 1;
    double l = mc->mp_alpha * log2(c) + mc->mp_beta * log2(ops) + mc->mp_gamma;
    if (l > 30) l = 30;
    double mp = pow(2.0, floor(l + 0.5));
    if (mp < 1) mp = 1;
    if (mp > mc->cores) mp = mc->cores;
    return (int)mp;
}

/* Strategies 1 and 2: every layer its own block, all with the same MP. */
int opt_each_layer(int n, int mp, int *sizes, int *mps)
{
    for (int i = 0; i < n; i++) sizes[i] = 1, mps[i] = mp;
    return n;
}

/* Strategy 3: no fusion, each conv/FC layer the MP of the model; the layers
 * between (activations, pooling, adds) have no operation count for Eq. 5 and
 * take the MP of the conv/FC layer before them (1 before the first). */
int opt_dynamic_mp(const pz_layer_features *f, int n, const pz_machine *mc, int *sizes, int *mps)
{
    int last = 1;
    for (int i = 0; i < n; i++) {
        if (f[i].is_conv_fc) last = opt_mp_model(mc, &f[i]);
        sizes[i] = 1;
        mps[i] = last;
    }
    return n;
}
