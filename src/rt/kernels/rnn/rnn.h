/* rnn.h - the recurrent kernels' family (rnn_ref.c: the reference; the
 * step kernels rnn_scalar.c, rnn_avx2.c, rnn_avx512.c, declared in fast.h)
 * and what the step kernels share: the gates of one 16-unit block of one
 * batch row in plain C, after the recurrent product. Every ISA takes it for
 * activations other than the defaults, or a clip; the scalar twin always. */
#ifndef PZ_RNN_H
#define PZ_RNN_H

#include "rt/kernels/fast.h"


/* An RNN/GRU/LSTM layer's sizes; gates: 1, 3 or 4 (p->cell's). */
typedef struct {
    int64_t seq, batch, input, hidden;
    int ndir, gates;
} pz_rnn_shape;

/* One of the activations of pz_rnn_act_func at x. */
float pz_rnn_act(int func, float alpha, float beta, float x);

/* The reference: each (direction, batch row) is a sequence of its own,
 * stepped in plain loops (dot products in double); the pairs are split over
 * the workers. Inputs and outputs as ONNX lays them out (p->layout); any of
 * b, lens, h0, c0, pp, y, yh, yc may be NULL. scratch holds
 * pz_rnn_ref_scratch_floats(s) floats. */
int64_t pz_rnn_ref_scratch_floats(const pz_rnn_shape *s, int nth);
void pz_f32_rnn__ref(const pz_rnn_params *p, const pz_rnn_shape *s, const float *x,
                     const float *w, const float *r, const float *b, const int32_t *lens,
                     const float *h0, const float *c0, const float *pp, float *y, float *yh,
                     float *yc, float *scratch, int ith, int nth);


/* acc[g][16]: the recurrent product of gate g for units blk*16.. of row b
 * (GRU: gate 2 is h Rh^T, or (r*h) Rh^T in phase 1); x: that row's input
 * projection (d->pp, d->rbh and the states as pz_rnn_step_desc says). */
void pz_rnn_gates16(const pz_rnn_step_desc *d, int64_t blk, int64_t b, float acc[4][16],
                    const float *x, const float *h, const float *c, float *hn, float *cn,
                    float *zt, float *rh);

/* The gates the matvec computes: [*g0, *g1) of the packed R, and whether its
 * operand is r*h (GRU linear_before_reset 0, phase 1) rather than h. */
static inline void pz_rnn_step_gates(const pz_rnn_step_desc *d, int *g0, int *g1, int *use_rh)
{
    *use_rh = 0;
    if (d->cell == PZ_RNN_CELL_RNN) *g0 = 0, *g1 = 1;
    else if (d->cell == PZ_RNN_CELL_LSTM) *g0 = 0, *g1 = 4;
    else if (d->lbr) *g0 = 0, *g1 = 3;
    else if (d->phase == 0) *g0 = 0, *g1 = 2;
    else *g0 = 2, *g1 = 3, *use_rh = 1;
}

/* R packed (pz_rnn_pack_r): the 16-unit blocks in pairs, the last alone
 * when their count is odd; for each k a pair holds its blocks' 16-float
 * panels gate by gate, rp[pair][k][g][q][16] with q < nq, the blocks in the
 * pair, so that a step reads a pair's R in one stream. The panel of gate g
 * of block blk at k = 0; *ks: the floats from one k to the next (the gates
 * are ks / gates apart). */
static inline const float *pz_rnn_panel(const float *rp, int64_t H, int gates, int64_t blk,
                                        int g, int64_t *ks)
{
    const int64_t nblk = (H + 15) / 16, pair = blk / 2, nq = nblk - 2 * pair < 2 ? 1 : 2;
    *ks = gates * nq * 16;
    return rp + pair * 2 * gates * H * 16 + (g * nq + blk % 2) * 16;
}

#endif
