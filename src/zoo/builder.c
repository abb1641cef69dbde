/* builder.c - builds an Onnx__ModelProto layer by layer (see builder.h).
 *
 * Every string, array and message hanging off the model is allocated with
 * malloc and owned by exactly one message, so the finished model is freed by
 * protobuf-c's own onnx__model_proto__free_unpacked(). Weight buffers are
 * the TensorProtos' raw_data: the one copy of the weights there is.
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
#include <stdarg.h>
#include <string.h>

#include "builder.h"
#include "signal.h"

#define ZOO_MAX_SCOPE 512
/* Channel covariances are tracked through a 1x1 conv when this costs at most
 * this many multiply-adds (c_out^2 * c_in): it covers MobileNetV2's linear
 * bottlenecks, whose few channels are strongly correlated. */
#define ZOO_COV_MAX_WORK (1LL << 27)

typedef struct {
    char *name;          /* value name = name of the node that makes it */
    int rank;            /* 3: [C,H,W], 1: [F]; batch 1 is implied */
    int64_t dims[3];
    double *mean;        /* [dims[0]]: mean over space, per channel */
    double *var;         /* [dims[0]]: variance of the input-driven part */
    double *spread;      /* [dims[0]]: variance over positions of the mean (it differs
                            near the borders, where padding drops kernel taps) */
    double *cov;         /* [dims[0]^2] or NULL: covariance between channels of the
                            input-driven part (var is its diagonal) */
    int pre;             /* for a ReLU / ReLU6 output: its input; else -1 */
    int sum[2];          /* for an Add output: its operands; else -1 */
    int rectified;       /* 1: a ReLU output, or a max pool of one (>= 0) */
    int producer;        /* node index, -1 for the graph input */
} zoo_value;

struct zoo_builder {
    uint64_t seed;
    char *graph_name;
    char scope[ZOO_MAX_SCOPE];
    size_t scope_len[32];
    int depth;
    zoo_value *values;
    int n_values, cap_values;
    Onnx__NodeProto **nodes;
    size_t n_nodes, cap_nodes;
    Onnx__TensorProto **inits;
    size_t n_inits, cap_inits;
    int input, output;
    int64_t params, macs;
    int have_clip_bounds;
    char full[ZOO_MAX_SCOPE + 64];   /* the current node's full name */
};

/* ---- deterministic weights ------------------------------------------------ */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001B3ULL;
    return h;
}

typedef struct {
    uint64_t s;
} zoo_rng;

static zoo_rng rng_for(const zoo_builder *b, const char *tensor_name)
{
    zoo_rng r = {b->seed ^ fnv1a(tensor_name)};
    splitmix64(&r.s); /* mix once so that nearby seeds give unrelated streams */
    return r;
}

/* U[lo, hi) from the top 24 bits. */
static double rng_uniform(zoo_rng *r, double lo, double hi)
{
    double u = (double)(splitmix64(&r->s) >> 40) * 0x1p-24;
    return lo + (hi - lo) * u;
}

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

/* ---- names, values, nodes ------------------------------------------------- */

void zoo_scope_push(zoo_builder *b, const char *fmt, ...)
{
    PZ_ASSERT(b->depth < (int)PZ_ARRAY_LEN(b->scope_len));
    size_t len = strlen(b->scope);
    b->scope_len[b->depth++] = len;
    if (len) {
        PZ_ASSERT(len + 1 < sizeof b->scope);
        b->scope[len++] = '.';
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->scope + len, sizeof b->scope - len, fmt, ap);
    va_end(ap);
    PZ_ASSERT(n >= 0 && (size_t)n < sizeof b->scope - len);
}

void zoo_scope_pop(zoo_builder *b)
{
    PZ_ASSERT(b->depth > 0);
    b->scope[b->scope_len[--b->depth]] = 0;
}

static int name_taken(const zoo_builder *b, const char *name)
{
    for (size_t i = 0; i < b->n_nodes; i++)
        if (!strcmp(b->nodes[i]->name, name)) return 1;
    return 0;
}

/* The scoped, unique name of the next node, in b->full. */
static const char *full_name(zoo_builder *b, const char *name)
{
    int n = snprintf(b->full, sizeof b->full, "%s%s%s", b->scope, b->scope[0] ? "." : "", name);
    PZ_ASSERT(n > 0 && (size_t)n < sizeof b->full - 16);
    for (int k = 1; name_taken(b, b->full); k++) snprintf(b->full + n, 16, "_%d", k);
    return b->full;
}

/* A new value of the given shape with zeroed statistics. Invalidates
 * pointers into b->values (not their name, mean and var arrays). */
static int value_new(zoo_builder *b, const char *name, int rank, const int64_t *dims)
{
    if (b->n_values == b->cap_values) {
        b->cap_values = b->cap_values ? 2 * b->cap_values : 64;
        b->values = pz_xrealloc(b->values, (size_t)b->cap_values * sizeof *b->values);
    }
    zoo_value *v = &b->values[b->n_values];
    memset(v, 0, sizeof *v);
    v->name = pz_xstrdup(name);
    v->rank = rank;
    memcpy(v->dims, dims, (size_t)rank * sizeof *dims);
    v->mean = pz_xcalloc((size_t)dims[0], sizeof *v->mean);
    v->var = pz_xcalloc((size_t)dims[0], sizeof *v->var);
    v->spread = pz_xcalloc((size_t)dims[0], sizeof *v->spread);
    v->pre = v->sum[0] = v->sum[1] = -1;
    v->producer = -1;
    return b->n_values++;
}

static zoo_value *val(const zoo_builder *b, int x)
{
    PZ_ASSERT(x >= 0 && x < b->n_values);
    return &b->values[x];
}

int64_t zoo_channels(const zoo_builder *b, int x)
{
    return val(b, x)->dims[0];
}

static char **strs_dup(const char *const *s, size_t n)
{
    char **d = pz_xmalloc(n * sizeof *d);
    for (size_t i = 0; i < n; i++) d[i] = pz_xstrdup(s[i]);
    return d;
}

/* Appends node `op_type` named b->full reading `in`, writing a new value of
 * the given shape (statistics zero, for the caller to fill); returns the
 * node (for attributes) and the value in *y. */
static Onnx__NodeProto *node_add(zoo_builder *b, const char *op_type, const char *const *in,
                                 size_t n_in, int rank, const int64_t *dims, int *y)
{
    int64_t d[3];
    memcpy(d, dims, (size_t)rank * sizeof *d); /* dims may point into b->values */
    Onnx__NodeProto *n = pz_xmalloc(sizeof *n);
    onnx__node_proto__init(n);
    n->name = pz_xstrdup(b->full);
    n->op_type = pz_xstrdup(op_type);
    n->n_input = n_in;
    n->input = strs_dup(in, n_in);
    n->n_output = 1;
    n->output = strs_dup((const char *const[]){b->full}, 1);
    if (b->n_nodes == b->cap_nodes) {
        b->cap_nodes = b->cap_nodes ? 2 * b->cap_nodes : 64;
        b->nodes = pz_xrealloc(b->nodes, b->cap_nodes * sizeof *b->nodes);
    }
    *y = value_new(b, b->full, rank, d);
    b->values[*y].producer = (int)b->n_nodes;
    b->nodes[b->n_nodes++] = n;
    return n;
}

static Onnx__AttributeProto *attr_add(Onnx__NodeProto *n, const char *name,
                                      Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = pz_xmalloc(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = pz_xstrdup(name);
    a->has_type = 1;
    a->type = type;
    n->attribute = pz_xrealloc(n->attribute, (n->n_attribute + 1) * sizeof *n->attribute);
    n->attribute[n->n_attribute++] = a;
    return a;
}

static void attr_int(Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = attr_add(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

static void attr_float(Onnx__NodeProto *n, const char *name, float v)
{
    Onnx__AttributeProto *a = attr_add(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
}

/* An INTS attribute of `count` copies of v. */
static void attr_ints(Onnx__NodeProto *n, const char *name, int64_t v, size_t count)
{
    Onnx__AttributeProto *a = attr_add(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->n_ints = count;
    a->ints = pz_xmalloc(count * sizeof *a->ints);
    for (size_t i = 0; i < count; i++) a->ints[i] = v;
}

/* kernel_shape, strides, pads of a square 2-D window. */
static void attr_window(Onnx__NodeProto *n, int k, int s, int p)
{
    attr_ints(n, "kernel_shape", k, 2);
    attr_ints(n, "strides", s, 2);
    attr_ints(n, "pads", p, 4);
}

/* A float32 initializer `name` of the given shape; returns its (zeroed) data. */
static float *init_add(zoo_builder *b, const char *name, int rank, const int64_t *dims)
{
    Onnx__TensorProto *t = pz_xmalloc(sizeof *t);
    onnx__tensor_proto__init(t);
    int64_t numel = 1;
    t->n_dims = (size_t)rank;
    t->dims = rank ? pz_xmalloc((size_t)rank * sizeof *t->dims) : NULL;
    for (int i = 0; i < rank; i++) numel *= (t->dims[i] = dims[i]);
    t->has_data_type = 1;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    t->name = pz_xstrdup(name);
    t->has_raw_data = 1;
    t->raw_data.len = (size_t)numel * sizeof(float);
    t->raw_data.data = pz_xcalloc((size_t)numel, sizeof(float));
    if (b->n_inits == b->cap_inits) {
        b->cap_inits = b->cap_inits ? 2 * b->cap_inits : 64;
        b->inits = pz_xrealloc(b->inits, b->cap_inits * sizeof *b->inits);
    }
    b->inits[b->n_inits++] = t;
    b->params += numel;
    return (float *)t->raw_data.data;
}

/* Initializer "<node>.<param>" (its name into out) of the given shape; if
 * rng is not NULL it is set to the tensor's random stream. */
static float *param_add(zoo_builder *b, const char *param, int rank, const int64_t *dims,
                        zoo_rng *rng, char *out, size_t size)
{
    int len = snprintf(out, size, "%s.%s", b->full, param);
    PZ_ASSERT(len > 0 && (size_t)len < size);
    if (rng) *rng = rng_for(b, out);
    return init_add(b, out, rank, dims);
}

/* Initializer "<node>.<param>" filled with U[lo, hi). */
static float *param_uniform(zoo_builder *b, const char *param, int rank, const int64_t *dims,
                            double lo, double hi, char *out, size_t size)
{
    zoo_rng r;
    float *d = param_add(b, param, rank, dims, &r, out, size);
    int64_t numel = 1;
    for (int i = 0; i < rank; i++) numel *= dims[i];
    for (int64_t i = 0; i < numel; i++) d[i] = (float)rng_uniform(&r, lo, hi);
    return d;
}

/* ---- public API ----------------------------------------------------------- */

zoo_builder *zoo_builder_new(const char *graph_name, uint64_t seed)
{
    zoo_builder *b = pz_xcalloc(1, sizeof *b);
    b->seed = seed;
    b->graph_name = pz_xstrdup(graph_name);
    b->input = b->output = -1;
    return b;
}

void zoo_builder_free(zoo_builder *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->n_nodes; i++) onnx__node_proto__free_unpacked(b->nodes[i], NULL);
    for (size_t i = 0; i < b->n_inits; i++) onnx__tensor_proto__free_unpacked(b->inits[i], NULL);
    for (int i = 0; i < b->n_values; i++) {
        free(b->values[i].name);
        free(b->values[i].mean);
        free(b->values[i].var);
        free(b->values[i].spread);
        free(b->values[i].cov);
    }
    free(b->nodes);
    free(b->inits);
    free(b->values);
    free(b->graph_name);
    free(b);
}

int zoo_input(zoo_builder *b, const char *name, int64_t c, int64_t h, int64_t w)
{
    PZ_ASSERT(b->input < 0);
    b->input = value_new(b, name, 3, (const int64_t[]){c, h, w});
    zoo_value *v = val(b, b->input);
    for (int64_t i = 0; i < c; i++) v->var[i] = 1.0;
    return b->input;
}

void zoo_output(zoo_builder *b, int x, const char *name)
{
    zoo_value *v = val(b, x);
    PZ_ASSERT(b->output < 0 && v->producer >= 0);
    free(v->name);
    v->name = pz_xstrdup(name);
    Onnx__NodeProto *n = b->nodes[v->producer];
    free(n->output[0]);
    n->output[0] = pz_xstrdup(name);
    b->output = x;
}

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
    const zoo_value *v = val(b, x);
    PZ_ASSERT(v->rank == 3 && v->dims[0] % groups == 0 && c_out % groups == 0);
    int64_t c_in = v->dims[0], h = (v->dims[1] + 2 * p - k) / s + 1,
            w = (v->dims[2] + 2 * p - k) / s + 1;
    int64_t cg = c_in / groups, fan_in = cg * k * k, og = c_out / groups;
    unsigned char *vy = zoo_tap_mask(v->dims[1], h, k, s, p), *vx = zoo_tap_mask(v->dims[2], w, k, s, p);
    double v_in = scale_var(v);
    const char *in_name = v->name;
    full_name(b, name);

    char wname[ZOO_MAX_SCOPE + 80], bname[ZOO_MAX_SCOPE + 80];
    double a = sqrt(3.0 / ((double)fan_in * v_in)); /* Var(w) = a^2/3 -> output variance 1 */
    float *wt = param_uniform(b, "weight", 4, (const int64_t[]){c_out, cg, k, k}, -a, a, wname,
                              sizeof wname);
    zoo_rng br;
    float *bs = bias ? param_add(b, "bias", 1, &c_out, &br, bname, sizeof bname) : NULL;
    b->macs += c_out * h * w * fan_in;
    int y;
    Onnx__NodeProto *n = node_add(b, "Conv", (const char *const[]){in_name, wname, bname},
                                  bias ? 3 : 2, 3, (const int64_t[]){c_out, h, w}, &y);
    attr_ints(n, "dilations", 1, 2);
    attr_int(n, "group", groups);
    attr_window(n, k, s, p);

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
    const zoo_value *xi = val(b, x);
    zoo_value *yo = val(b, y);
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
            bs[o] = (float)(-yo->mean[o] + rng_uniform(&br, -0.1, 0.1));
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
    const zoo_value *v = val(b, x);
    int64_t c = v->dims[0];
    const char *in_name = v->name;
    double v_floor = 1e-3 * (mean_of(v->var, c) + mean_of(v->spread, c));
    full_name(b, name);

    char names[4][ZOO_MAX_SCOPE + 80];
    zoo_rng rm, rv;
    float *gamma = param_uniform(b, "weight", 1, &c, 0.5, 1.5, names[0], sizeof names[0]);
    float *beta = param_uniform(b, "bias", 1, &c, -0.1, 0.1, names[1], sizeof names[1]);
    float *mean = param_add(b, "running_mean", 1, &c, &rm, names[2], sizeof names[2]);
    float *var = param_add(b, "running_var", 1, &c, &rv, names[3], sizeof names[3]);
    int y;
    Onnx__NodeProto *n = node_add(b, "BatchNormalization",
                                  (const char *const[]){in_name, names[0], names[1], names[2], names[3]},
                                  5, v->rank, v->dims, &y);
    attr_float(n, "epsilon", 1e-5f);
    attr_float(n, "momentum", 0.9f);

    const zoo_value *xi = val(b, x);
    zoo_value *yo = val(b, y);
    double *scale = pz_xmalloc((size_t)c * sizeof *scale);
    for (int64_t i = 0; i < c; i++) {
        double vi = xi->var[i] + xi->spread[i]; /* what training would measure */
        vi = vi > v_floor ? vi : v_floor;
        mean[i] = (float)(xi->mean[i] + sqrt(vi) * rng_uniform(&rm, -0.1, 0.1));
        var[i] = (float)(vi * rng_uniform(&rv, 0.5, 1.5));
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
    const zoo_value *v = val(b, x);
    node_add(b, op_type, in, n_in, v->rank, v->dims, &y);
    const zoo_value *xi = val(b, x);
    zoo_value *yo = val(b, y);
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
    const zoo_value *xi = val(b, x), *r = NULL, *g = NULL;
    if (xi->sum[0] >= 0) {
        const zoo_value *s0 = val(b, xi->sum[0]), *s1 = val(b, xi->sum[1]);
        if (s0->rectified != s1->rectified) {
            r = s0->rectified ? s0 : s1;
            g = s0->rectified ? s1 : s0;
        }
    }
    zoo_value *yo = val(b, y);
    yo->pre = x;
    yo->rectified = 1;
    for (int64_t i = 0; i < yo->dims[0]; i++)
        relu_channel(r, g, i, &yo->mean[i], &yo->var[i], &yo->spread[i]);
    return y;
}

int zoo_relu(zoo_builder *b, const char *name, int x)
{
    const char *in_name = val(b, x)->name;
    full_name(b, name);
    return rectify(b, x, unary(b, "Relu", &in_name, 1, x));
}

int zoo_relu6(zoo_builder *b, const char *name, int x)
{
    if (!b->have_clip_bounds) { /* scalars shared by every Clip */
        init_add(b, "relu6.min", 0, NULL)[0] = 0.0f;
        init_add(b, "relu6.max", 0, NULL)[0] = 6.0f;
        b->have_clip_bounds = 1;
    }
    const char *in[3] = {val(b, x)->name, "relu6.min", "relu6.max"};
    full_name(b, name);
    return rectify(b, x, unary(b, "Clip", in, 3, x));
}

int zoo_maxpool(zoo_builder *b, const char *name, int x, int k, int s, int p)
{
    const zoo_value *v = val(b, x);
    PZ_ASSERT(v->rank == 3);
    int64_t dims[3] = {v->dims[0], (v->dims[1] + 2 * p - k) / s + 1, (v->dims[2] + 2 * p - k) / s + 1};
    const char *in_name = v->name;
    full_name(b, name);
    int y;
    Onnx__NodeProto *n = node_add(b, "MaxPool", &in_name, 1, 3, dims, &y);
    attr_window(n, k, s, p);

    /* max of k*k independent values; after a ReLU, relu(max(z)) of its input z */
    double e1, ev;
    zoo_max_moments(k * k, &e1, &ev);
    const zoo_value *xi = val(b, x), *z = xi->pre >= 0 ? val(b, xi->pre) : xi;
    zoo_value *yo = val(b, y);
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
    const zoo_value *u = val(b, x), *v = val(b, y);
    PZ_ASSERT(u->rank == v->rank && !memcmp(u->dims, v->dims, (size_t)u->rank * sizeof u->dims[0]));
    const char *in[2] = {u->name, v->name};
    full_name(b, name);
    int z;
    node_add(b, "Add", in, 2, u->rank, u->dims, &z);
    u = val(b, x);
    v = val(b, y);
    zoo_value *zo = val(b, z);
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
    const zoo_value *v = val(b, x);
    PZ_ASSERT(v->rank == 3);
    const char *in_name = v->name;
    full_name(b, name);
    int y;
    node_add(b, "GlobalAveragePool", &in_name, 1, 3, (const int64_t[]){v->dims[0], 1, 1}, &y);
    const zoo_value *xi = val(b, x);
    zoo_value *yo = val(b, y);
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
    const zoo_value *v = val(b, x);
    int64_t f = 1, hw = v->rank == 3 ? v->dims[1] * v->dims[2] : 1;
    for (int i = 0; i < v->rank; i++) f *= v->dims[i];
    const char *in_name = v->name;
    full_name(b, name);
    int y;
    Onnx__NodeProto *n = node_add(b, "Flatten", &in_name, 1, 1, &f, &y);
    attr_int(n, "axis", 1);
    const zoo_value *xi = val(b, x);
    zoo_value *yo = val(b, y);
    for (int64_t i = 0; i < f; i++) { /* feature i is channel i / hw; its own mean */
        yo->mean[i] = xi->mean[i / hw];  /* is off by the spread, counted as variance */
        yo->var[i] = xi->var[i / hw] + xi->spread[i / hw];
    }
    return y;
}

int zoo_linear(zoo_builder *b, const char *name, int x, int64_t n_out)
{
    const zoo_value *v = val(b, x);
    PZ_ASSERT(v->rank == 1);
    int64_t k = v->dims[0];
    double v_in = scale_var(v);
    const char *in_name = v->name;
    full_name(b, name);
    char wname[ZOO_MAX_SCOPE + 80], bname[ZOO_MAX_SCOPE + 80];
    double a = sqrt(3.0 / ((double)k * v_in));
    float *wt = param_uniform(b, "weight", 2, (const int64_t[]){n_out, k}, -a, a, wname,
                              sizeof wname);
    zoo_rng br;
    float *bs = param_add(b, "bias", 1, &n_out, &br, bname, sizeof bname);
    b->macs += k * n_out;
    int y;
    Onnx__NodeProto *n = node_add(b, "Gemm", (const char *const[]){in_name, wname, bname}, 3, 1,
                                  &n_out, &y);
    attr_float(n, "alpha", 1.0f);
    attr_float(n, "beta", 1.0f);
    attr_int(n, "transB", 1);

    const zoo_value *xi = val(b, x);
    zoo_value *yo = val(b, y);
    for (int64_t o = 0; o < n_out; o++) {
        const float *wo = wt + o * k;
        double m = 0, var = 0;
        for (int64_t i = 0; i < k; i++) {
            m += wo[i] * xi->mean[i];
            var += (double)wo[i] * wo[i] * xi->var[i];
        }
        bs[o] = (float)(-m + rng_uniform(&br, -0.1, 0.1)); /* cancel the mean */
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

int64_t zoo_builder_params(const zoo_builder *b) { return b->params; }
int64_t zoo_builder_macs(const zoo_builder *b) { return b->macs; }
int64_t zoo_builder_nodes(const zoo_builder *b) { return (int64_t)b->n_nodes; }

/* float32 tensor value info of shape [1, dims...]. */
static Onnx__ValueInfoProto *value_info(const zoo_value *v)
{
    Onnx__TensorShapeProto *shape = pz_xmalloc(sizeof *shape);
    onnx__tensor_shape_proto__init(shape);
    shape->n_dim = (size_t)v->rank + 1;
    shape->dim = pz_xmalloc(shape->n_dim * sizeof *shape->dim);
    for (size_t i = 0; i < shape->n_dim; i++) {
        Onnx__TensorShapeProto__Dimension *d = pz_xmalloc(sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d->dim_value = i ? v->dims[i - 1] : 1;
        shape->dim[i] = d;
    }
    Onnx__TypeProto__Tensor *tt = pz_xmalloc(sizeof *tt);
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1;
    tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    tt->shape = shape;
    Onnx__TypeProto *type = pz_xmalloc(sizeof *type);
    onnx__type_proto__init(type);
    type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    type->tensor_type = tt;
    Onnx__ValueInfoProto *vi = pz_xmalloc(sizeof *vi);
    onnx__value_info_proto__init(vi);
    vi->name = pz_xstrdup(v->name);
    vi->type = type;
    return vi;
}

Onnx__ModelProto *zoo_builder_finish(zoo_builder *b)
{
    PZ_ASSERT(b->input >= 0 && b->output >= 0 && b->depth == 0);
    Onnx__GraphProto *g = pz_xmalloc(sizeof *g);
    onnx__graph_proto__init(g);
    g->name = pz_xstrdup(b->graph_name);
    g->n_node = b->n_nodes;
    g->node = b->nodes;
    g->n_initializer = b->n_inits;
    g->initializer = b->inits;
    g->n_input = 1;
    g->input = pz_xmalloc(sizeof *g->input);
    g->input[0] = value_info(val(b, b->input));
    g->n_output = 1;
    g->output = pz_xmalloc(sizeof *g->output);
    g->output[0] = value_info(val(b, b->output));
    b->nodes = NULL;
    b->inits = NULL;
    b->n_nodes = b->n_inits = b->cap_nodes = b->cap_inits = 0;

    Onnx__OperatorSetIdProto *opset = pz_xmalloc(sizeof *opset);
    onnx__operator_set_id_proto__init(opset);
    opset->domain = pz_xstrdup("");
    opset->has_version = 1;
    opset->version = 13;

    Onnx__ModelProto *m = pz_xmalloc(sizeof *m);
    onnx__model_proto__init(m);
    m->has_ir_version = 1;
    m->ir_version = 7;
    m->n_opset_import = 1;
    m->opset_import = pz_xmalloc(sizeof *m->opset_import);
    m->opset_import[0] = opset;
    m->producer_name = pz_xstrdup("paleozoic-zoo");
    m->producer_version = pz_xstrdup("0.1");
    m->graph = g;
    return m;
}
