/* conv.c - the CONV layer: X, W, B?, Z? -> Y = act(conv(X, W) + B + Z). */
#include "rt/ops/ops.h"

/* The kernel chosen at compile time. Fast kernels (AVX-512, blocked
 * layouts, packed weights) plug in here: prepare tries them first and keeps
 * what they need (packed weights) in this state; the reference is the
 * fallback that fits every shape. */
typedef void (*conv_fn)(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                        const float *x, const float *w, const float *b, const float *z,
                        float *y, int ith, int nth);
typedef struct {
    conv_fn fn;
} conv_state;

int pz_conv_check_geometry(const pz_layer *l, char *err, size_t n, bool transpose)
{
    const pz_conv_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *y = pz_out(l, 0);
    char bx[96], bw[96], by[96];
    if (p->nsp < 1 || p->nsp > PZ_MAX_SPATIAL)
        return pz_layer_fail(l, err, n, "%d spatial dims, expected 1 to %d", p->nsp,
                             PZ_MAX_SPATIAL);
    if (x->rank != 2 + p->nsp || w->rank != 2 + p->nsp || y->rank != 2 + p->nsp)
        return pz_layer_fail(l, err, n, "X %s, W %s, Y %s: expected rank %d (N, C, %d spatial)",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(w, bw, sizeof bw),
                             pz_shape_str(y, by, sizeof by), 2 + p->nsp, p->nsp);
    int64_t G = p->group, C = x->dims[1], M = y->dims[1];
    /* conv: W is {M, C/G, k...}; transposed: W is {C, M/G, k...} */
    int64_t wc = transpose ? C : M, wg = transpose ? M / (G > 0 ? G : 1) : C / (G > 0 ? G : 1);
    if (G < 1 || C % G || M % G || w->dims[0] != wc || w->dims[1] != wg || y->dims[0] != x->dims[0])
        return pz_layer_fail(l, err, n, "X %s, W %s, Y %s, group %lld do not agree",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(w, bw, sizeof bw),
                             pz_shape_str(y, by, sizeof by), (long long)G);
    for (int j = 0; j < p->nsp; j++) {
        int64_t k = p->kernel[j], s = p->stride[j], d = p->dilation[j];
        int64_t pb = p->pad_begin[j], pe = p->pad_end[j], in = x->dims[2 + j];
        /* transposed: Y's size is given (output_padding, output_shape), so
         * only pad_begin matters and it may be anything */
        if (k != w->dims[2 + j] || s < 1 || d < 1 || (!transpose && (pb < 0 || pe < 0)))
            return pz_layer_fail(l, err, n,
                                 "spatial dim %d: kernel %lld (W has %lld), stride %lld, "
                                 "dilation %lld, pads %lld/%lld", j, (long long)k,
                                 (long long)w->dims[2 + j], (long long)s, (long long)d,
                                 (long long)pb, (long long)pe);
        if (!transpose) {
            int64_t want = (in + pb + pe - d * (k - 1) - 1) / s + 1;
            if (in + pb + pe - d * (k - 1) - 1 < 0) want = 0;
            if (y->dims[2 + j] != want)
                return pz_layer_fail(l, err, n, "spatial dim %d: Y has %lld, expected %lld",
                                     j, (long long)y->dims[2 + j], (long long)want);
        } else if (y->dims[2 + j] < 0) {
            return pz_layer_fail(l, err, n, "spatial dim %d: Y has %lld", j,
                                 (long long)y->dims[2 + j]);
        }
    }
    return 0;
}

static int conv_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *b = pz_in(l, 2), *z = pz_in(l, 3);
    const pz_tensor *y = pz_out(l, 0);
    if (!x || !w || !y) return pz_layer_fail(l, err, n, "needs X, W and Y");
    if (pz_layer_want_dtype(l, err, n, "X", x, PZ_F32) ||
        pz_layer_want_dtype(l, err, n, "W", w, PZ_F32) ||
        pz_layer_want_dtype(l, err, n, "Y", y, PZ_F32) ||
        (b && pz_layer_want_dtype(l, err, n, "B", b, PZ_F32)) ||
        (z && pz_layer_want_dtype(l, err, n, "Z", z, PZ_F32)))
        return 1;
    if (pz_conv_check_geometry(l, err, n, false)) return 1;
    if (b && pz_numel(b) != y->dims[1])
        return pz_layer_fail(l, err, n, "B has %lld elements, expected %lld",
                             (long long)pz_numel(b), (long long)y->dims[1]);
    if (z && pz_layer_want_same_shape(l, err, n, "Z", z, y)) return 1;

    conv_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    /* fast kernels go first, when pz_cpu_isa() allows them and the shape fits */
    st->fn = pz_f32_conv__ref;
    l->state = st;
    return 0;
}

static void conv_run(const pz_layer *l, int ith, int nth)
{
    const conv_state *st = l->state;
    const pz_tensor *b = pz_in(l, 2), *z = pz_in(l, 3);
    st->fn(l->params, l->in[0]->dims, l->out[0]->dims, l->in[0]->data, l->in[1]->data,
           b ? b->data : NULL, z ? z->data : NULL, l->out[0]->data, ith, nth);
}

const pz_rt_op pz_rt_op_conv = {
    .name = "CONV", .params_size = sizeof(pz_conv_params),
    .min_in = 2, .max_in = 4, .min_out = 1, .max_out = 1,
    .prepare = conv_prepare, .run = conv_run,
};
