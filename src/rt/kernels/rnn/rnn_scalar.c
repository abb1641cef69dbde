/* rnn_scalar.c - the recurrent step's scalar twin (plain loops over the
 * packed R, the gates in pz_rnn_gates16), R's packing, and the gates that
 * every ISA shares. */
#include <math.h>

#include "rt/kernels/rnn/rnn.h"

int64_t pz_rnn_packed_r_size(int64_t hidden, int gates)
{
    return (hidden + 15) / 16 * gates * hidden * 16;
}

void pz_rnn_pack_r(int64_t hidden, int gates, const float *restrict r, float *restrict rp)
{
    const int64_t H = hidden, nblk = (H + 15) / 16;
    for (int64_t blk = 0; blk < nblk; blk++)
        for (int g = 0; g < gates; g++) {
            int64_t ks;
            float *q = rp + (pz_rnn_panel(rp, H, gates, blk, g, &ks) - rp);
            for (int64_t k = 0; k < H; k++)
                for (int l = 0; l < 16; l++) {
                    const int64_t j = blk * 16 + l;
                    q[k * ks + l] = j < H ? r[(g * H + j) * H + k] : 0.0f;
                }
        }
}

static float act(const pz_rnn_step_desc *d, int k, float x)
{
    if (d->clip >= 0.0f && k < 2) x = fminf(d->clip, fmaxf(-d->clip, x));
    return pz_rnn_act(d->fn[k], d->alpha[k], d->beta[k], x);
}

void pz_rnn_gates16(const pz_rnn_step_desc *d, int64_t blk, int64_t b, float acc[4][16],
                    const float *x, const float *h, const float *c, float *hn, float *cn,
                    float *zt, float *rh)
{
    const int64_t H = d->hidden, o = b * d->hpad + blk * 16;
    for (int l = 0; l < 16; l++) {
        const int64_t j = blk * 16 + l;
        if (j >= H) break;
        if (d->cell == PZ_RNN_CELL_RNN) {
            hn[o + l] = act(d, 0, x[j] + acc[0][l]);
        } else if (d->cell == PZ_RNN_CELL_LSTM) {
            const float *p = d->pp;
            const float cp = c[o + l];
            float i = act(d, 0, x[j] + acc[0][l] + (p ? p[j] * cp : 0.0f));
            float f = d->input_forget
                          ? 1.0f - i
                          : act(d, 0, x[2 * H + j] + acc[2][l] + (p ? p[2 * d->hpad + j] * cp : 0.0f));
            float g = act(d, 1, x[3 * H + j] + acc[3][l]);
            float cc = f * cp + i * g;
            float og = act(d, 0, x[H + j] + acc[1][l] + (p ? p[d->hpad + j] * cc : 0.0f));
            cn[o + l] = cc;
            hn[o + l] = og * act(d, 2, cc);
        } else if (d->lbr) {
            float z = act(d, 0, x[j] + acc[0][l]);
            float r = act(d, 0, x[H + j] + acc[1][l]);
            float nn = act(d, 1, x[2 * H + j] + r * (acc[2][l] + d->rbh[j]));
            hn[o + l] = (1.0f - z) * nn + z * h[o + l];
        } else if (d->phase == 0) {
            zt[o + l] = act(d, 0, x[j] + acc[0][l]);
            rh[o + l] = act(d, 0, x[H + j] + acc[1][l]) * h[o + l];
        } else {
            float z = zt[o + l];
            float nn = act(d, 1, x[2 * H + j] + acc[2][l]);
            hn[o + l] = (1.0f - z) * nn + z * h[o + l];
        }
    }
}

void pz_f32_rnn_step__scalar(const pz_rnn_step_desc *d, const float *const *xw, const float *h,
                             const float *c, float *hn, float *cn, float *zt, float *rh,
                             int64_t blk0, int64_t blk1)
{
    const int64_t H = d->hidden;
    int g0, g1, use_rh;
    pz_rnn_step_gates(d, &g0, &g1, &use_rh);
    const int G = d->cell == PZ_RNN_CELL_RNN ? 1 : d->cell == PZ_RNN_CELL_GRU ? 3 : 4;
    for (int64_t blk = blk0; blk < blk1; blk++)
        for (int64_t b = 0; b < d->batch; b++) {
            float acc[4][16] = {{0}};
            const float *hv = (use_rh ? rh : h) + b * d->hpad;
            for (int g = g0; g < g1; g++) {
                int64_t ks;
                const float *rq = pz_rnn_panel(d->rp, H, G, blk, g, &ks);
                for (int64_t k = 0; k < H; k++)
                    for (int l = 0; l < 16; l++) acc[g][l] += hv[k] * rq[k * ks + l];
            }
            pz_rnn_gates16(d, blk, b, acc, xw[b], h, c, hn, cn, zt, rh);
        }
}
