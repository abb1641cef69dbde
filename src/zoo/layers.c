/* layers.c - the builder's layers (builder.h), and the weights they pick.
 *
 * Signal statistics. For every value the builder keeps, per channel (or per
 * feature after Flatten), the mean over positions and the variance around
 * it: the distribution the value has when the graph input is white noise of
 * mean 0 and variance 1. They are carried layer by layer (signal.c): exactly
 * through the linear layers, borders included (where padding drops taps the
 * mean differs; its variance over positions is kept as the `spread`), by
 * the Gaussian closed forms through ReLU, by Gaussian order statistics
 * through MaxPool, by integrating over the shortcut for ResNet's
 * relu(branch + shortcut), and with the full channel covariance through
 * narrow 1x1 convs (MobileNetV2's linear bottlenecks). They are used to pick
 * weights the way a trained network has them:
 *   - Conv and Gemm weights are U(-a, a) with a = sqrt(3 / (fan_in * v)), v
 *     the input's mean variance, so the output's variance is about 1 (for the
 *     output of a ReLU of unit variance this is close to Kaiming's
 *     sqrt(6 / fan_in));
 *   - Conv biases (VGG, AlexNet) and Gemm biases cancel the output's mean up
 *     to a small U(-0.1, 0.1), as training leaves them;
 *   - BatchNormalization's running_mean / running_var are the tracked mean
 *     and variance of its input, off by sqrt(var) * U(-0.1, 0.1) and by a
 *     factor U(0.5, 1.5); gamma is U(0.5, 1.5), beta U(-0.1, 0.1).
 * Without this, the mean that every ReLU adds piles up through the layers,
 * and the output becomes a constant that hardly depends on the input.
 * Checked against torchvision with tools/zoo_torch_check.py: outputs have an
 * RMS of 1 to 3.5, and two inputs give outputs that differ by 70-120% of
 * their norm (a model with independent outputs: 141%). */
#include <math.h>
#include <string.h>

#include "builder_internal.h"
#include "signal.h"

/* ---- signal statistics ---------------------------------------------------- */

static double mean_of(const double *x, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += x[i];
    return s / (double)n;
}

/* The input variance a layer's weights are scaled for: the tracked variance
 * and spread plus (10% of the mean)^2, for the means the model gets wrong. It matters
 * after a global average pool, where little variance is left next to the
 * means and a tiny tracked variance would ask for huge weights. */
static double scale_var(const zoo_value *v)
{
    double s = 0;
    for (int64_t i = 0; i < v->dims[0]; i++)
        s += v->var[i] + v->spread[i] + 0.01 * v->mean[i] * v->mean[i];
    return s / (double)v->dims[0];
}
/* ---- layers --------------------------------------------------------------- */

/* Covariance of a 1x1 conv's output, W C W^T with C the input's covariance
 * (or its variances) plus its spread; sets y's variances to the diagonal. */
static void conv1x1_cov(const zoo_value *x, const float *w, int64_t c_out, zoo_value *y)
{
    int64_t c_in = x->dims[0];
    double *wc = pz_xmalloc((size_t)(c_out * c_in) * sizeof *wc); /* W C */
    for (int64_t o = 0; o < c_out; o++)
        for (int64_t j = 0; j < c_in; j++) {
            double t = 0;
            if (x->cov)
                for (int64_t i = 0; i < c_in; i++) t += w[o * c_in + i] * x->cov[i * c_in + j];
            else
                t = w[o * c_in + j] * x->var[j];
            wc[o * c_in + j] = t + w[o * c_in + j] * x->spread[j];
        }
    y->cov = pz_xmalloc((size_t)(c_out * c_out) * sizeof *y->cov);
    for (int64_t o = 0; o < c_out; o++)
        for (int64_t q = 0; q <= o; q++) {
            double t = 0;
            for (int64_t j = 0; j < c_in; j++) t += wc[o * c_in + j] * w[q * c_in + j];
            y->cov[o * c_out + q] = y->cov[q * c_out + o] = t;
        }
    for (int64_t o = 0; o < c_out; o++) y->var[o] = y->cov[o * c_out + o];
    free(wc);
}

int zoo_conv(zoo_builder *b, const char *name, int x, int64_t c_out, int k, int s, int p,
             int groups, int bias)
{
    const zoo_value *v = zoo_val(b, x);
    PZ_ASSERT(v->rank == 3 && v->dims[0] % groups == 0 && c_out % groups == 0);
    int64_t c_in = v->dims[0], h = (v->dims[1] + 2 * p - k) / s + 1,
            w = (v->dims[2] + 2 * p - k) / s + 1;
    int64_t cg = c_in / groups, fan_in = cg * k * k, og = c_out / groups;
    unsigned char *vy = zoo_tap_mask(v->dims[1], h, k, s, p), *vx = zoo_tap_mask(v->dims[2], w, k, s, p);
    double v_in = scale_var(v);
    const char *in_name = v->name;
    zoo_full_name(b, name);

    char wname[ZOO_MAX_SCOPE + 80], bname[ZOO_MAX_SCOPE + 80];
    double a = sqrt(3.0 / ((double)fan_in * v_in)); /* Var(w) = a^2/3 -> output variance 1 */
    float *wt = zoo_param_uniform(b, "weight", 4, (const int64_t[]){c_out, cg, k, k}, -a, a, wname,
                                  sizeof wname);
    zoo_rng br;
    float *bs = bias ? zoo_param_add(b, "bias", 1, &c_out, &br, bname, sizeof bname) : NULL;
    b->macs += c_out * h * w * fan_in;
    int y;
    Onnx__NodeProto *n = zoo_node_add(b, "Conv", (const char *const[]){in_name, wname, bname},
                                      bias ? 3 : 2, 3, (const int64_t[]){c_out, h, w}, &y);
    zoo_attr_ints(n, "dilations", 1, 2);
    zoo_attr_int(n, "group", groups);
    zoo_attr_window(n, k, s, p);

    /* Each tap t sees the input's variance at the share of positions where it
     * is inside; the input's spread is taken as variance too. */
    double *frac = pz_xmalloc((size_t)(k * k) * sizeof *frac);
    for (int ty = 0; ty < k; ty++)
        for (int tx = 0; tx < k; tx++) {
            int64_t in = 0;
            for (int64_t yy = 0; yy < h; yy++)
                for (int64_t xx = 0; xx < w; xx++) in += vy[yy * k + ty] && vx[xx * k + tx];
            frac[ty * k + tx] = (double)in / (double)(h * w);
        }
    double *taps = pz_xmalloc((size_t)(k * k) * sizeof *taps);
    double *row = pz_xmalloc((size_t)(k * w) * sizeof *row);
    const zoo_value *xi = zoo_val(b, x);
    zoo_value *yo = zoo_val(b, y);
    for (int64_t o = 0; o < c_out; o++) {
        const float *wo = wt + o * fan_in;
        double var = 0, spread = 0;
        memset(taps, 0, (size_t)(k * k) * sizeof *taps);
        for (int64_t c = 0; c < cg; c++) {
            int64_t ci = o / og * cg + c; /* input channel of group o / og */
            for (int t = 0; t < k * k; t++) {
                double wv = wo[c * k * k + t];
                taps[t] += wv * xi->mean[ci];
                var += wv * wv * (xi->var[ci] + xi->spread[ci]) * frac[t];
            }
        }
        zoo_conv_mean_map(taps, k, vy, h, vx, w, row, &yo->mean[o], &spread);
        if (bs) { /* cancel the mean, as training would */
            bs[o] = (float)(-yo->mean[o] + zoo_rng_uniform(&br, -0.1, 0.1));
            yo->mean[o] += bs[o];
        }
        yo->var[o] = var;
        yo->spread[o] = spread;
    }
    if (k == 1 && groups == 1 && c_out * c_out * c_in <= ZOO_COV_MAX_WORK)
        conv1x1_cov(xi, wt, c_out, yo);
    free(row);
    free(taps);
    free(frac);
    free(vy);
    free(vx);
    return y;
}

int zoo_batchnorm(zoo_builder *b, const char *name, int x)
{
    const zoo_value *v = zoo_val(b, x);
    int64_t c = v->dims[0];
    const char *in_name = v->name;
    double v_floor = 1e-3 * (mean_of(v->var, c) + mean_of(v->spread, c));
    zoo_full_name(b, name);

    char names[4][ZOO_MAX_SCOPE + 80];
    zoo_rng rm, rv;
    float *gamma = zoo_param_uniform(b, "weight", 1, &c, 0.5, 1.5, names[0], sizeof names[0]);
    float *beta = zoo_param_uniform(b, "bias", 1, &c, -0.1, 0.1, names[1], sizeof names[1]);
    float *mean = zoo_param_add(b, "running_mean", 1, &c, &rm, names[2], sizeof names[2]);
    float *var = zoo_param_add(b, "running_var", 1, &c, &rv, names[3], sizeof names[3]);
    int y;
    Onnx__NodeProto *n = zoo_node_add(b, "BatchNormalization",
                                      (const char *const[]){in_name, names[0], names[1], names[2], names[3]},
                                      5, v->rank, v->dims, &y);
    zoo_attr_float(n, "epsilon", 1e-5f);
    zoo_attr_float(n, "momentum", 0.9f);

    const zoo_value *xi = zoo_val(b, x);
    zoo_value *yo = zoo_val(b, y);
    double *scale = pz_xmalloc((size_t)c * sizeof *scale);
    for (int64_t i = 0; i < c; i++) {
        double vi = xi->var[i] + xi->spread[i]; /* what training would measure */
        vi = vi > v_floor ? vi : v_floor;
        mean[i] = (float)(xi->mean[i] + sqrt(vi) * zoo_rng_uniform(&rm, -0.1, 0.1));
        var[i] = (float)(vi * zoo_rng_uniform(&rv, 0.5, 1.5));
        double sc = gamma[i] / sqrt((double)var[i] + 1e-5);
        yo->mean[i] = sc * (xi->mean[i] - mean[i]) + beta[i];
        yo->var[i] = sc * sc * xi->var[i];
        yo->spread[i] = sc * sc * xi->spread[i];
        scale[i] = sc;
    }
    if (xi->cov) { /* D C D */
        yo->cov = pz_xmalloc((size_t)(c * c) * sizeof *yo->cov);
        for (int64_t i = 0; i < c; i++)
            for (int64_t j = 0; j < c; j++)
                yo->cov[i * c + j] = scale[i] * xi->cov[i * c + j] * scale[j];
    }
    free(scale);
    return y;
}

/* A node with one input and an output of the input's shape and statistics. */
static int unary(zoo_builder *b, const char *op_type, const char *const *in, size_t n_in, int x)
{
    int y;
    const zoo_value *v = zoo_val(b, x);
    zoo_node_add(b, op_type, in, n_in, v->rank, v->dims, &y);
    const zoo_value *xi = zoo_val(b, x);
    zoo_value *yo = zoo_val(b, y);
    memcpy(yo->mean, xi->mean, (size_t)xi->dims[0] * sizeof *yo->mean);
    memcpy(yo->var, xi->var, (size_t)xi->dims[0] * sizeof *yo->var);
    memcpy(yo->spread, xi->spread, (size_t)xi->dims[0] * sizeof *yo->spread);
    return y;
}

/* ReLU of channel statistics (m, v) for an input that is N(mean, var +
 * spread) over all positions, or the sum of a rectified value r and a
 * Gaussian one g; the output's variance is split between var and spread in
 * the input's proportion. */
static void relu_channel(const zoo_value *r, const zoo_value *g, int64_t i, double *mean,
                         double *var, double *spread)
{
    double tot = *var + *spread, m, v;
    if (r) zoo_relu_of_sum(r->mean[i], r->var[i] + r->spread[i], g->mean[i], g->var[i] + g->spread[i],
                       &m, &v);
    else zoo_relu_moments(*mean, tot, &m, &v);
    *mean = m;
    if (tot > 0) {
        *spread = v * *spread / tot;
        *var = v - *spread;
    }
}

/* ReLU's statistics; ReLU6 is taken as ReLU (its inputs are rarely above 6). */
static int rectify(zoo_builder *b, int x, int y)
{
    const zoo_value *xi = zoo_val(b, x), *r = NULL, *g = NULL;
    if (xi->sum[0] >= 0) {
        const zoo_value *s0 = zoo_val(b, xi->sum[0]), *s1 = zoo_val(b, xi->sum[1]);
        if (s0->rectified != s1->rectified) {
            r = s0->rectified ? s0 : s1;
            g = s0->rectified ? s1 : s0;
        }
    }
    zoo_value *yo = zoo_val(b, y);
    yo->pre = x;
    yo->rectified = 1;
    for (int64_t i = 0; i < yo->dims[0]; i++)
        relu_channel(r, g, i, &yo->mean[i], &yo->var[i], &yo->spread[i]);
    return y;
}

int zoo_relu(zoo_builder *b, const char *name, int x)
{
    const char *in_name = zoo_val(b, x)->name;
    zoo_full_name(b, name);
    return rectify(b, x, unary(b, "Relu", &in_name, 1, x));
}

int zoo_relu6(zoo_builder *b, const char *name, int x)
{
    if (!b->have_clip_bounds) { /* scalars shared by every Clip */
        zoo_init_add(b, "relu6.min", 0, NULL)[0] = 0.0f;
        zoo_init_add(b, "relu6.max", 0, NULL)[0] = 6.0f;
        b->have_clip_bounds = 1;
    }
    const char *in[3] = {zoo_val(b, x)->name, "relu6.min", "relu6.max"};
    zoo_full_name(b, name);
    return rectify(b, x, unary(b, "Clip", in, 3, x));
}

int zoo_maxpool(zoo_builder *b, const char *name, int x, int k, int s, int p)
{
    const zoo_value *v = zoo_val(b, x);
    PZ_ASSERT(v->rank == 3);
    int64_t dims[3] = {v->dims[0], (v->dims[1] + 2 * p - k) / s + 1, (v->dims[2] + 2 * p - k) / s + 1};
    const char *in_name = v->name;
    zoo_full_name(b, name);
    int y;
    Onnx__NodeProto *n = zoo_node_add(b, "MaxPool", &in_name, 1, 3, dims, &y);
    zoo_attr_window(n, k, s, p);

    /* max of k*k independent values; after a ReLU, relu(max(z)) of its input z */
    double e1, ev;
    zoo_max_moments(k * k, &e1, &ev);
    const zoo_value *xi = zoo_val(b, x), *z = xi->pre >= 0 ? zoo_val(b, xi->pre) : xi;
    zoo_value *yo = zoo_val(b, y);
    yo->rectified = xi->rectified;
    for (int64_t i = 0; i < dims[0]; i++) {
        double sd = sqrt(z->var[i]);
        yo->mean[i] = z->mean[i] + sd * e1;
        yo->var[i] = z->var[i] * ev;
        yo->spread[i] = z->spread[i]; /* the max is over the noise: the mean varies slowly */
        if (xi->pre >= 0) relu_channel(NULL, NULL, i, &yo->mean[i], &yo->var[i], &yo->spread[i]);
    }
    return y;
}

int zoo_add(zoo_builder *b, const char *name, int x, int y)
{
    const zoo_value *u = zoo_val(b, x), *v = zoo_val(b, y);
    PZ_ASSERT(u->rank == v->rank && !memcmp(u->dims, v->dims, (size_t)u->rank * sizeof u->dims[0]));
    const char *in[2] = {u->name, v->name};
    zoo_full_name(b, name);
    int z;
    zoo_node_add(b, "Add", in, 2, u->rank, u->dims, &z);
    u = zoo_val(b, x);
    v = zoo_val(b, y);
    zoo_value *zo = zoo_val(b, z);
    zo->sum[0] = x;
    zo->sum[1] = y;
    for (int64_t i = 0; i < u->dims[0]; i++) { /* the branch is nearly independent of x */
        zo->mean[i] = u->mean[i] + v->mean[i];
        zo->var[i] = u->var[i] + v->var[i];
        zo->spread[i] = u->spread[i] + v->spread[i];
    }
    if (u->cov || v->cov) { /* a missing covariance is diagonal */
        int64_t c = u->dims[0];
        zo->cov = pz_xcalloc((size_t)(c * c), sizeof *zo->cov);
        for (int64_t i = 0; i < c; i++)
            for (int64_t j = 0; j < c; j++)
                zo->cov[i * c + j] = (u->cov ? u->cov[i * c + j] : i == j ? u->var[i] : 0) +
                                     (v->cov ? v->cov[i * c + j] : i == j ? v->var[i] : 0);
    }
    return z;
}

int zoo_global_avgpool(zoo_builder *b, const char *name, int x)
{
    const zoo_value *v = zoo_val(b, x);
    PZ_ASSERT(v->rank == 3);
    const char *in_name = v->name;
    zoo_full_name(b, name);
    int y;
    zoo_node_add(b, "GlobalAveragePool", &in_name, 1, 3, (const int64_t[]){v->dims[0], 1, 1}, &y);
    const zoo_value *xi = zoo_val(b, x);
    zoo_value *yo = zoo_val(b, y);
    double hw = (double)(xi->dims[1] * xi->dims[2]);
    for (int64_t i = 0; i < xi->dims[0]; i++) {
        yo->mean[i] = xi->mean[i];
        yo->var[i] = xi->var[i] / hw; /* an average of hw independent deviations; the */
                                      /* spread of the mean averages out to the mean */
    }
    return y;
}

int zoo_flatten(zoo_builder *b, const char *name, int x)
{
    const zoo_value *v = zoo_val(b, x);
    int64_t f = 1, hw = v->rank == 3 ? v->dims[1] * v->dims[2] : 1;
    for (int i = 0; i < v->rank; i++) f *= v->dims[i];
    const char *in_name = v->name;
    zoo_full_name(b, name);
    int y;
    Onnx__NodeProto *n = zoo_node_add(b, "Flatten", &in_name, 1, 1, &f, &y);
    zoo_attr_int(n, "axis", 1);
    const zoo_value *xi = zoo_val(b, x);
    zoo_value *yo = zoo_val(b, y);
    for (int64_t i = 0; i < f; i++) { /* feature i is channel i / hw; its own mean */
        yo->mean[i] = xi->mean[i / hw];  /* is off by the spread, counted as variance */
        yo->var[i] = xi->var[i / hw] + xi->spread[i / hw];
    }
    return y;
}

int zoo_linear(zoo_builder *b, const char *name, int x, int64_t n_out)
{
    const zoo_value *v = zoo_val(b, x);
    PZ_ASSERT(v->rank == 1);
    int64_t k = v->dims[0];
    double v_in = scale_var(v);
    const char *in_name = v->name;
    zoo_full_name(b, name);
    char wname[ZOO_MAX_SCOPE + 80], bname[ZOO_MAX_SCOPE + 80];
    double a = sqrt(3.0 / ((double)k * v_in));
    float *wt = zoo_param_uniform(b, "weight", 2, (const int64_t[]){n_out, k}, -a, a, wname,
                                  sizeof wname);
    zoo_rng br;
    float *bs = zoo_param_add(b, "bias", 1, &n_out, &br, bname, sizeof bname);
    b->macs += k * n_out;
    int y;
    Onnx__NodeProto *n = zoo_node_add(b, "Gemm", (const char *const[]){in_name, wname, bname}, 3, 1,
                                      &n_out, &y);
    zoo_attr_float(n, "alpha", 1.0f);
    zoo_attr_float(n, "beta", 1.0f);
    zoo_attr_int(n, "transB", 1);

    const zoo_value *xi = zoo_val(b, x);
    zoo_value *yo = zoo_val(b, y);
    for (int64_t o = 0; o < n_out; o++) {
        const float *wo = wt + o * k;
        double m = 0, var = 0;
        for (int64_t i = 0; i < k; i++) {
            m += wo[i] * xi->mean[i];
            var += (double)wo[i] * wo[i] * xi->var[i];
        }
        bs[o] = (float)(-m + zoo_rng_uniform(&br, -0.1, 0.1)); /* cancel the mean */
        yo->mean[o] = m + bs[o];
        yo->var[o] = var;
    }
    return y;
}

int zoo_conv_bn_act(zoo_builder *b, int x, const char *conv_name, const char *bn_name,
                    const char *act_name, int64_t c_out, int k, int s, int p, int groups,
                    zoo_act act)
{
    x = zoo_conv(b, conv_name, x, c_out, k, s, p, groups, 0);
    x = zoo_batchnorm(b, bn_name, x);
    if (act == ZOO_ACT_RELU) x = zoo_relu(b, act_name, x);
    else if (act == ZOO_ACT_RELU6) x = zoo_relu6(b, act_name, x);
    return x;
}
