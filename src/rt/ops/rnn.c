/* rnn.c - the RNN layer: ONNX RNN, GRU and LSTM (the cell in the params),
 * every direction, sequence_lens, initial states, peepholes, layouts 0 and
 * 1; Y, Y_h, Y_c each optional.
 *
 * With W, R (and B, P when given) constant and an ISA above the reference,
 * the fast path, planned here: W of every direction packed for the GEMM
 * kernel (the input projection X W^T + biases of all steps and directions
 * is one GEMM at the start of run, into scratch), R packed per direction
 * for the step kernel (rt/kernels/fast.h, pz_rnn_step_desc). At run the
 * workers split each step by 16-unit blocks of the hidden state (batch 1:
 * by pairs of blocks, as R is packed), both directions in the same step, a
 * barrier after each step (GRU with linear_before_reset 0: one more,
 * between its two phases). Otherwise the reference kernel, split by
 * (direction, batch row). */
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/fast.h"
#include "rt/kernels/rnn/rnn.h"
#include "rt/ops/ops.h"

static const int GATES[PZ_RNN_CELL_COUNT_] = {1, 3, 4};

typedef struct {
    pz_barrier bar;          /* first: aligned as the state is */
    pz_rnn_shape s;
    int fast;
    pz_rnn_step_fn step;
    pz_gemm_fn gemm;
    pz_gemm_desc g;          /* the input projection; g.c is the packed bias */
    float *wp, *bias;        /* W packed for the GEMM, Wb (+ Rb) of every gate */
    float *rp[2], *rbh[2], *pp[2];
    pz_rnn_step_desc sd[2];
    int64_t hpad, nblk;
    /* scratch offsets in floats: xw [S*B][nd*G*H], h and c [2][nd][B][hpad],
     * zt and rh [nd][B][hpad]; then the row pointers [nth][nd][B] */
    int64_t o_xw, o_h, o_c, o_zt, o_rh, o_ptr;
} rnn_state;

static int rnn_check(pz_layer *l, char *err, size_t n, const pz_rnn_params *p, pz_rnn_shape *s)
{
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *r = pz_in(l, 2), *b = pz_in(l, 3);
    const pz_tensor *sl = pz_in(l, 4), *h0 = pz_in(l, 5), *c0 = pz_in(l, 6), *pp = pz_in(l, 7);
    char bx[96], bw[96];
    if (!x || !w || !r) return pz_layer_fail(l, err, n, "needs X, W and R");
    if ((unsigned)p->cell >= PZ_RNN_CELL_COUNT_ || (unsigned)p->direction >= PZ_RNN_DIR_COUNT_ ||
        (p->layout != 0 && p->layout != 1))
        return pz_layer_fail(l, err, n, "cell %d, direction %d, layout %d: out of range",
                             (int)p->cell, (int)p->direction, p->layout);
    for (int i = 0; i < 6; i++)
        if ((unsigned)p->act[i] >= PZ_RNN_ACT_COUNT_)
            return pz_layer_fail(l, err, n, "activation %d is not a pz_rnn_act_func", p->act[i]);
    if (p->cell != PZ_RNN_CELL_LSTM && (c0 || pp || pz_out(l, 2)))
        return pz_layer_fail(l, err, n, "initial_c, P and Y_c are LSTM's only");
    for (int i = 0; i < 8; i++) {
        const pz_tensor *t = pz_in(l, i);
        if (t && i != 4 && pz_layer_want_dtype(l, err, n, "an input", t, PZ_F32)) return 1;
    }
    for (int i = 0; i < l->n_out; i++)
        if (pz_out(l, i) && pz_layer_want_dtype(l, err, n, "an output", pz_out(l, i), PZ_F32))
            return 1;
    if (sl && pz_layer_want_dtype(l, err, n, "sequence_lens", sl, PZ_I32)) return 1;
    s->gates = GATES[p->cell];
    s->ndir = p->direction == PZ_RNN_BIDIRECTIONAL ? 2 : 1;
    s->hidden = p->hidden;
    if (x->rank != 3 || w->rank != 3 || r->rank != 3)
        return pz_layer_fail(l, err, n, "X, W and R must have rank 3");
    s->seq = x->dims[p->layout ? 1 : 0];
    s->batch = x->dims[p->layout ? 0 : 1];
    s->input = x->dims[2];
    const int64_t G = s->gates, H = s->hidden, nd = s->ndir, S = s->seq, B = s->batch;
    if (H <= 0 || w->dims[0] != nd || w->dims[1] != G * H || w->dims[2] != s->input ||
        r->dims[0] != nd || r->dims[1] != G * H || r->dims[2] != H)
        return pz_layer_fail(l, err, n, "X %s, W %s: do not fit hidden %lld, %lld directions",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(w, bw, sizeof bw),
                             (long long)H, (long long)nd);
    if ((b && pz_numel(b) != nd * 2 * G * H) || (sl && pz_numel(sl) != B) ||
        (h0 && pz_numel(h0) != nd * B * H) || (c0 && pz_numel(c0) != nd * B * H) ||
        (pp && pz_numel(pp) != nd * 3 * H))
        return pz_layer_fail(l, err, n, "B, sequence_lens, initial_h, initial_c or P has the "
                             "wrong size");
    const pz_tensor *y = pz_out(l, 0), *yh = pz_out(l, 1), *yc = pz_out(l, 2);
    if ((y && pz_numel(y) != S * nd * B * H) || (yh && pz_numel(yh) != nd * B * H) ||
        (yc && pz_numel(yc) != nd * B * H))
        return pz_layer_fail(l, err, n, "Y, Y_h or Y_c has the wrong size");
    return 0;
}

/* The fast path's plan: packed weights and the scratch's layout. */
static int rnn_plan_fast(pz_layer *l, char *err, size_t n, rnn_state *st)
{
    const pz_rnn_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *r = pz_in(l, 2), *b = pz_in(l, 3);
    const pz_tensor *pp = pz_in(l, 7);
    const pz_rnn_shape *s = &st->s;
    const int64_t G = s->gates, H = s->hidden, nd = s->ndir, B = s->batch, S = s->seq;
    const int64_t N = nd * G * H;
    const pz_fast_kernels *k = pz_fast_kernels_for(l->isa);
    int plain_acts = p->clip < 0.0f;
    for (int d = 0; d < nd; d++)
        for (int f = 0; f < 3; f++) {
            static const int DEF[PZ_RNN_CELL_COUNT_][3] = {
                {PZ_RNN_ACT_TANH, -1, -1}, {PZ_RNN_ACT_SIGMOID, PZ_RNN_ACT_TANH, -1},
                {PZ_RNN_ACT_SIGMOID, PZ_RNN_ACT_TANH, PZ_RNN_ACT_TANH}};
            if (DEF[p->cell][f] >= 0 && p->act[d * 3 + f] != DEF[p->cell][f]) plain_acts = 0;
        }
    st->hpad = (H + 15) / 16 * 16;
    st->nblk = st->hpad / 16;
    st->step = k->rnn_step;
    st->gemm = k->gemm;
    size_t wbytes = (size_t)pz_gemm_packed_b_size(s->input, N) * sizeof(float);
    st->wp = pz_alloc_big((wbytes + 63) / 64 * 64, l->opts->hugepages);
    st->bias = calloc((size_t)N, sizeof(float));
    if (!st->wp || !st->bias) return pz_layer_fail(l, err, n, "out of memory (packed W)");
    /* W is [nd*G*H][I]: the GEMM's B transposed */
    pz_gemm_pack_b(s->input, N, w->data, 1, 1.0f, st->wp);
    const float *bd = b ? b->data : NULL;
    for (int64_t d = 0; d < nd; d++)
        for (int64_t gj = 0; gj < G * H; gj++) {
            float v = bd ? bd[d * 2 * G * H + gj] : 0.0f;
            /* Rb joins Wb but GRU's Rbh with linear_before_reset (it is
             * multiplied by r) */
            int keep_rb = !(p->cell == PZ_RNN_CELL_GRU && p->linear_before_reset && gj >= 2 * H);
            if (bd && keep_rb) v += bd[d * 2 * G * H + G * H + gj];
            st->bias[d * G * H + gj] = v;
        }
    st->g = (pz_gemm_desc){.m = S * B, .n = N, .k = s->input, .lda = s->input, .ldy = N,
                           .c = st->bias, .csm = 0, .csn = 1, .beta = 1.0f,
                           .act = {.kind = PZ_ACT_NONE}};
    const int64_t rsz = pz_rnn_packed_r_size(H, (int)G);
    for (int d = 0; d < nd; d++) {
        st->rp[d] = pz_alloc_big((size_t)rsz * sizeof(float), l->opts->hugepages);
        st->rbh[d] = calloc((size_t)st->hpad, sizeof(float));
        st->pp[d] = calloc((size_t)(3 * st->hpad), sizeof(float));
        if (!st->rp[d] || !st->rbh[d] || !st->pp[d])
            return pz_layer_fail(l, err, n, "out of memory (packed R)");
        pz_rnn_pack_r(H, (int)G, (const float *)r->data + d * G * H * H, st->rp[d]);
        if (bd && p->cell == PZ_RNN_CELL_GRU)
            for (int64_t j = 0; j < H; j++) st->rbh[d][j] = bd[d * 2 * G * H + G * H + 2 * H + j];
        if (pp)
            for (int q = 0; q < 3; q++)
                for (int64_t j = 0; j < H; j++)
                    st->pp[d][q * st->hpad + j] = ((const float *)pp->data)[(d * 3 + q) * H + j];
        pz_rnn_step_desc *sd = &st->sd[d];
        *sd = (pz_rnn_step_desc){
            .cell = p->cell, .lbr = p->linear_before_reset, .hidden = H, .batch = B,
            .hpad = st->hpad, .rp = st->rp[d],
            .rbh = p->cell == PZ_RNN_CELL_GRU && p->linear_before_reset ? st->rbh[d] : NULL,
            .pp = pp ? st->pp[d] : NULL, .clip = p->clip, .input_forget = p->input_forget,
            .plain = plain_acts};
        for (int f = 0; f < 3; f++) {
            sd->fn[f] = p->act[d * 3 + f];
            sd->alpha[f] = p->alpha[d * 3 + f];
            sd->beta[f] = p->beta[d * 3 + f];
        }
    }
    l->packed_in |= 1u << 1 | 1u << 2 | (b ? 1u << 3 : 0) | (pp ? 1u << 7 : 0);
    /* scratch, each part a whole number of cache lines */
    const int64_t sb = nd * B * st->hpad;
    int64_t o = 0;
    st->o_xw = o, o += (S * B * N + 16 + 15) / 16 * 16;
    st->o_h = o, o += 2 * sb;
    st->o_c = o, o += 2 * sb;
    st->o_zt = o, o += sb;
    st->o_rh = o, o += sb;
    st->o_ptr = o;
    const int nth = l->nth > 0 ? l->nth : 1;
    l->scratch_bytes = (size_t)o * sizeof(float) + (size_t)nth * nd * B * sizeof(float *);
    l->scratch_run_only = 1;
    st->fast = 1;
    (void)x;
    return 0;
}

static int rnn_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_rnn_params *p = l->params;
    rnn_state *st = aligned_alloc(PZ_ALIGN, (sizeof *st + PZ_ALIGN - 1) / PZ_ALIGN * PZ_ALIGN);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    memset(st, 0, sizeof *st);
    l->state = st;
    if (rnn_check(l, err, n, p, &st->s)) return 1;
    const pz_tensor *w = pz_in(l, 1), *r = pz_in(l, 2), *b = pz_in(l, 3), *pp = pz_in(l, 7);
    const pz_fast_kernels *k = pz_fast_kernels_for(l->isa);
    if (l->isa != PZ_ISA_REF && k->rnn_step && w->data && r->data && (!b || b->data) &&
        (!pp || pp->data) && st->s.seq > 0 && st->s.batch > 0 && st->s.input > 0)
        return rnn_plan_fast(l, err, n, st);
    const int nth = l->nth > 0 ? l->nth : 1;
    l->scratch_bytes = (size_t)pz_rnn_ref_scratch_floats(&st->s, nth) * sizeof(float);
    l->scratch_run_only = 1;
    return 0;
}

static void rnn_release(pz_layer *l)
{
    rnn_state *st = l->state;
    if (!st) return;
    free(st->wp);
    free(st->bias);
    for (int d = 0; d < 2; d++) {
        free(st->rp[d]);
        free(st->rbh[d]);
        free(st->pp[d]);
    }
}

static void *data_of(const pz_tensor *t)
{
    return t ? t->data : NULL;
}

/* sequence_lens[b] held in [0, S] (a run-time value: no error path) */
static int64_t len_of(const int32_t *lens, int64_t b, int64_t S)
{
    if (!lens) return S;
    return lens[b] < 0 ? 0 : lens[b] > S ? S : lens[b];
}

static void rnn_run_fast(const pz_layer *l, rnn_state *st, int ith, int nth)
{
    const pz_rnn_params *p = l->params;
    const pz_rnn_shape *s = &st->s;
    const int64_t G = s->gates, H = s->hidden, nd = s->ndir, B = s->batch, S = s->seq;
    const int64_t hp = st->hpad, N = nd * G * H, sb = nd * B * hp;
    const int32_t *lens = data_of(pz_in(l, 4));
    const float *h0 = data_of(pz_in(l, 5)), *c0 = data_of(pz_in(l, 6));
    float *y = data_of(pz_out(l, 0)), *yh = data_of(pz_out(l, 1)), *yc = data_of(pz_out(l, 2));
    float *scr = l->scratch, *xw = scr + st->o_xw, *hb = scr + st->o_h, *cb = scr + st->o_c;
    float *zt = scr + st->o_zt, *rh = scr + st->o_rh;
    const float **ptr = (const float **)(scr + st->o_ptr) + (int64_t)ith * nd * B;

    st->gemm(&st->g, l->in[0]->data, st->wp, xw, ith, nth);
    int64_t blo, bhi;
    /* one row: whole pairs of blocks, as the step kernels read R (rnn.h) */
    const int64_t pair = B == 1 ? 2 : 1;
    pz_split((st->nblk + pair - 1) / pair, ith, nth, &blo, &bhi);
    blo *= pair, bhi = bhi * pair < st->nblk ? bhi * pair : st->nblk;
    const int64_t j0 = blo * 16 < H ? blo * 16 : H, j1 = bhi * 16 < H ? bhi * 16 : H;
    /* state rows: [nd][B][H] (layout 0) or [B][nd][H] (layout 1) */
#define SROW(d, b) (p->layout ? ((b) * nd + (d)) * H : ((d) * B + (b)) * H)
    for (int64_t d = 0; d < nd; d++)
        for (int64_t b = 0; b < B; b++)
            for (int64_t j = j0; j < j1; j++) {
                hb[(d * B + b) * hp + j] = h0 ? h0[SROW(d, b) + j] : 0.0f;
                cb[(d * B + b) * hp + j] = c0 ? c0[SROW(d, b) + j] : 0.0f;
            }
    if (nth > 1) pz_barrier_wait(&st->bar, nth);
    for (int64_t t0 = 0; t0 < S; t0++) {
        float *h = hb + (t0 & 1) * sb, *hn = hb + ((t0 & 1) ^ 1) * sb;
        float *c = cb + (t0 & 1) * sb, *cn = cb + ((t0 & 1) ^ 1) * sb;
        const int phases = p->cell == PZ_RNN_CELL_GRU && !p->linear_before_reset ? 2 : 1;
        for (int ph = 0; ph < phases; ph++) {
            if (ph && nth > 1) pz_barrier_wait(&st->bar, nth);
            for (int64_t d = 0; d < nd; d++) {
                const int rev = p->direction == PZ_RNN_REVERSE || d == 1;
                const float **pd = ptr + d * B;
                for (int64_t b = 0; b < B; b++) {
                    int64_t L = len_of(lens, b, S), t = t0 < L && rev ? L - 1 - t0 : t0;
                    pd[b] = xw + (p->layout ? b * S + t : t * B + b) * N + d * G * H;
                }
                pz_rnn_step_desc sd = st->sd[d];
                sd.phase = ph;
                const int64_t o = d * B * hp;
                st->step(&sd, pd, h + o, c + o, hn + o, cn + o, zt + o, rh + o, blo, bhi);
            }
        }
        /* rows past their length keep their state; Y rows: the new state,
         * zeros past the length */
        for (int64_t d = 0; d < nd; d++) {
            const int rev = p->direction == PZ_RNN_REVERSE || d == 1;
            for (int64_t b = 0; b < B; b++) {
                const int64_t L = len_of(lens, b, S), o = (d * B + b) * hp;
                const int64_t t = t0 < L && rev ? L - 1 - t0 : t0;
                float *yr = y ? y + (p->layout ? ((b * S + t) * nd + d) * H
                                               : ((t * nd + d) * B + b) * H)
                              : NULL;
                if (t0 >= L) {
                    for (int64_t j = j0; j < j1; j++) {
                        hn[o + j] = h[o + j];
                        cn[o + j] = c[o + j];
                    }
                    if (yr) memset(yr + j0, 0, (size_t)(j1 - j0) * sizeof(float));
                } else if (yr) {
                    memcpy(yr + j0, hn + o + j0, (size_t)(j1 - j0) * sizeof(float));
                }
            }
        }
        if (nth > 1) pz_barrier_wait(&st->bar, nth);
    }
    const float *hf = hb + (S & 1) * sb, *cf = cb + (S & 1) * sb;
    for (int64_t d = 0; d < nd; d++)
        for (int64_t b = 0; b < B; b++) {
            if (yh) memcpy(yh + SROW(d, b) + j0, hf + (d * B + b) * hp + j0,
                           (size_t)(j1 - j0) * sizeof(float));
            if (yc) memcpy(yc + SROW(d, b) + j0, cf + (d * B + b) * hp + j0,
                           (size_t)(j1 - j0) * sizeof(float));
        }
#undef SROW
}

static void rnn_run(const pz_layer *l, int ith, int nth)
{
    rnn_state *st = l->state;
    if (st->fast) {
        rnn_run_fast(l, st, ith, nth);
        return;
    }
    pz_f32_rnn__ref(l->params, &st->s, l->in[0]->data, l->in[1]->data, l->in[2]->data,
                    data_of(pz_in(l, 3)), data_of(pz_in(l, 4)), data_of(pz_in(l, 5)),
                    data_of(pz_in(l, 6)), data_of(pz_in(l, 7)), data_of(pz_out(l, 0)),
                    data_of(pz_out(l, 1)), data_of(pz_out(l, 2)), l->scratch, ith, nth);
}

static const char *const RNN_CELL[] = {"PZ_RNN_CELL_RNN", "PZ_RNN_CELL_GRU", "PZ_RNN_CELL_LSTM"};
_Static_assert(PZ_RT_LEN(RNN_CELL) == PZ_RNN_CELL_COUNT_, "a name for each pz_rnn_cell");
static const char *const RNN_DIR[] = {"PZ_RNN_FORWARD", "PZ_RNN_REVERSE", "PZ_RNN_BIDIRECTIONAL"};
_Static_assert(PZ_RT_LEN(RNN_DIR) == PZ_RNN_DIR_COUNT_, "a name for each pz_rnn_dir");
static const pz_param_field rnn_fields[] = {
    PZ_FIELD_ENUM(pz_rnn_params, cell, RNN_CELL),
    PZ_FIELD_ENUM(pz_rnn_params, direction, RNN_DIR),
    PZ_FIELD(pz_rnn_params, layout, PZ_F_INT),
    PZ_FIELD(pz_rnn_params, hidden, PZ_F_I64),
    PZ_FIELD(pz_rnn_params, input_forget, PZ_F_INT),
    PZ_FIELD(pz_rnn_params, linear_before_reset, PZ_F_INT),
    PZ_FIELD(pz_rnn_params, clip, PZ_F_F32),
    PZ_FIELD_ARRAY(pz_rnn_params, act, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_rnn_params, alpha, PZ_F_F32),
    PZ_FIELD_ARRAY(pz_rnn_params, beta, PZ_F_F32),
};

const pz_rt_op pz_rt_op_rnn = {
    .name = "RNN", PZ_OP_PARAMS(pz_rnn_params, rnn_fields),
    .min_in = 3, .max_in = 8, .min_out = 0, .max_out = 3,
    .prepare = rnn_prepare, .run = rnn_run, .release = rnn_release,
};
