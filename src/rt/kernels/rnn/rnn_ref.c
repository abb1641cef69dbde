/* rnn_ref.c - the reference RNN, GRU and LSTM (ONNX's equations, plain
 * loops): each (direction, batch row) pair is one sequence, stepped alone.
 *   RNN   h' = f(x Wi + h Ri + Wbi + Rbi)
 *   GRU   z = f(x Wz + h Rz + Wbz + Rbz), r = f(x Wr + h Rr + Wbr + Rbr)
 *         n = g(x Wh + (r * h) Rh + Rbh + Wbh)        linear_before_reset 0
 *         n = g(x Wh + r * (h Rh + Rbh) + Wbh)        linear_before_reset 1
 *         h' = (1 - z) * n + z * h
 *   LSTM  i = f(x Wi + h Ri + Pi * c + Wbi + Rbi), f likewise with Pf (or
 *         1 - i with input_forget), g = g(x Wc + h Rc + Wbc + Rbc),
 *         c' = f * c + i * g, o = f(x Wo + h Ro + Po * c' + Wbo + Rbo),
 *         h' = o * h(c')
 * clip holds each activation's input in [-clip, clip]. A row with
 * sequence_lens L < seq steps over times [0, L) (reverse: L-1 down to 0),
 * its Y rows at t >= L are zero and Y_h/Y_c are its state after step L. */
#include <math.h>
#include <string.h>

#include "rt/kernels/rnn/rnn.h"

float pz_rnn_act(int func, float alpha, float beta, float x)
{
    switch ((pz_rnn_act_func)func) {
    case PZ_RNN_ACT_RELU: return x > 0.0f ? x : 0.0f;
    case PZ_RNN_ACT_TANH: return tanhf(x);
    case PZ_RNN_ACT_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case PZ_RNN_ACT_AFFINE: return alpha * x + beta;
    case PZ_RNN_ACT_LEAKY_RELU: return x < 0.0f ? alpha * x : x;
    case PZ_RNN_ACT_THRESHOLDED_RELU: return x > alpha ? x : 0.0f;
    case PZ_RNN_ACT_SCALED_TANH: return alpha * tanhf(beta * x);
    case PZ_RNN_ACT_HARD_SIGMOID: return fmaxf(0.0f, fminf(1.0f, alpha * x + beta));
    case PZ_RNN_ACT_ELU: return x < 0.0f ? alpha * (expf(x) - 1.0f) : x;
    case PZ_RNN_ACT_SOFTSIGN: return x / (1.0f + fabsf(x));
    case PZ_RNN_ACT_SOFTPLUS: return log1pf(expf(x));
    case PZ_RNN_ACT_COUNT_: break;
    }
    return x;
}

int64_t pz_rnn_ref_scratch_floats(const pz_rnn_shape *s, int nth)
{
    /* per worker: h, c, r*h and the gates */
    return (int64_t)nth * (s->gates + 3) * s->hidden;
}

/* act k of direction d at x, after the clip */
static float act_of(const pz_rnn_params *p, int d, int k, float x)
{
    if (p->clip >= 0.0f) x = fminf(p->clip, fmaxf(-p->clip, x));
    return pz_rnn_act(p->act[d * 3 + k], p->alpha[d * 3 + k], p->beta[d * 3 + k], x);
}

static double dot(const float *a, const float *b, int64_t n)
{
    double acc = 0.0;
    for (int64_t k = 0; k < n; k++) acc += (double)a[k] * b[k];
    return acc;
}

void pz_f32_rnn__ref(const pz_rnn_params *p, const pz_rnn_shape *s, const float *x,
                     const float *w, const float *r, const float *b, const int32_t *lens,
                     const float *h0, const float *c0, const float *pp, float *y, float *yh,
                     float *yc, float *scratch, int ith, int nth)
{
    const int64_t S = s->seq, B = s->batch, I = s->input, H = s->hidden;
    const int G = s->gates, nd = s->ndir;
    float *h = scratch + (int64_t)ith * (G + 3) * H, *c = h + H, *rh = c + H, *gt = rh + H;
    int64_t lo, hi;
    pz_split(nd * B, ith, nth, &lo, &hi);
    for (int64_t pr = lo; pr < hi; pr++) {
        const int d = (int)(pr / B);
        const int64_t bi = pr % B;
        const int rev = p->direction == PZ_RNN_REVERSE || d == 1;
        const float *wd = w + (int64_t)d * G * H * I, *rd = r + (int64_t)d * G * H * H;
        const float *wb = b ? b + (int64_t)d * 2 * G * H : NULL, *rb = wb ? wb + G * H : NULL;
        const float *pd = pp ? pp + (int64_t)d * 3 * H : NULL;
        /* state rows: [nd][B][H] (layout 0) or [B][nd][H] (layout 1) */
        const int64_t srow = p->layout ? (bi * nd + d) * H : ((int64_t)d * B + bi) * H;
        for (int64_t j = 0; j < H; j++) {
            h[j] = h0 ? h0[srow + j] : 0.0f;
            c[j] = c0 ? c0[srow + j] : 0.0f;
        }
        int64_t L = lens ? lens[bi] : S;
        if (L < 0) L = 0;
        if (L > S) L = S;
        for (int64_t st = 0; st < L; st++) {
            const int64_t t = rev ? L - 1 - st : st;
            const float *xt = x + (p->layout ? bi * S + t : t * B + bi) * I;
            /* gt[g*H + j] = x W^T + Wb (+ h R^T + Rb, but GRU's h gate) */
            for (int64_t gj = 0; gj < G * H; gj++) {
                double v = dot(xt, wd + gj * I, I) + (wb ? wb[gj] : 0.0f);
                if (!(p->cell == PZ_RNN_CELL_GRU && gj >= 2 * H))
                    v += dot(h, rd + gj * H, H) + (rb ? rb[gj] : 0.0f);
                gt[gj] = (float)v;
            }
            if (p->cell == PZ_RNN_CELL_RNN) {
                for (int64_t j = 0; j < H; j++) h[j] = act_of(p, d, 0, gt[j]);
            } else if (p->cell == PZ_RNN_CELL_GRU) {
                float *z = gt, *rr = gt + H, *nn = gt + 2 * H;
                for (int64_t j = 0; j < H; j++) {
                    z[j] = act_of(p, d, 0, z[j]);
                    rr[j] = act_of(p, d, 0, rr[j]);
                    rh[j] = rr[j] * h[j];
                }
                for (int64_t j = 0; j < H; j++) {
                    const float *rj = rd + (2 * H + j) * H;
                    const float rbj = rb ? rb[2 * H + j] : 0.0f;
                    double v = p->linear_before_reset ? rr[j] * (float)(dot(h, rj, H) + rbj)
                                                      : dot(rh, rj, H) + rbj;
                    nn[j] = act_of(p, d, 1, (float)(nn[j] + v));
                }
                for (int64_t j = 0; j < H; j++) h[j] = (1.0f - z[j]) * nn[j] + z[j] * h[j];
            } else {
                float *gi = gt, *go = gt + H, *gf = gt + 2 * H, *gc = gt + 3 * H;
                for (int64_t j = 0; j < H; j++) {
                    float i = act_of(p, d, 0, gi[j] + (pd ? pd[j] * c[j] : 0.0f));
                    float f = p->input_forget
                                  ? 1.0f - i
                                  : act_of(p, d, 0, gf[j] + (pd ? pd[2 * H + j] * c[j] : 0.0f));
                    float g = act_of(p, d, 1, gc[j]);
                    c[j] = f * c[j] + i * g;
                    float o = act_of(p, d, 0, go[j] + (pd ? pd[H + j] * c[j] : 0.0f));
                    h[j] = o * pz_rnn_act(p->act[d * 3 + 2], p->alpha[d * 3 + 2],
                                          p->beta[d * 3 + 2], c[j]);
                }
            }
            if (y) {
                /* Y [S][nd][B][H] (layout 0) or [B][S][nd][H] (layout 1) */
                int64_t yo = p->layout ? ((bi * S + t) * nd + d) * H : ((t * nd + d) * B + bi) * H;
                memcpy(y + yo, h, (size_t)H * sizeof *h);
            }
        }
        if (y)
            for (int64_t t = L; t < S; t++) {
                int64_t yo = p->layout ? ((bi * S + t) * nd + d) * H : ((t * nd + d) * B + bi) * H;
                memset(y + yo, 0, (size_t)H * sizeof *y);
            }
        if (yh) memcpy(yh + srow, h, (size_t)H * sizeof *h);
        if (yc) memcpy(yc + srow, c, (size_t)H * sizeof *c);
    }
}
