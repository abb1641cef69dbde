/* rnn.c - RNN (the simple recurrence h' = f(x Wi + h Ri + Wbi + Rbi)), and
 * what RNN, GRU and LSTM share (rnn.h).
 *   X [seq, batch, input] (layout 1: [batch, seq, input]), W [dirs, G*H,
 *   input], R [dirs, G*H, H], B? [dirs, 2*G*H], sequence_lens? int32
 *   [batch], initial_h? [dirs, batch, H] (layout 1: [batch, dirs, H]),
 *   initial_c? (LSTM), P? [dirs, 3*H] (LSTM)
 *   -> Y? [seq, dirs, batch, H] (layout 1: [batch, seq, dirs, H]),
 *      Y_h? and Y_c? (LSTM) shaped like initial_h.
 * G: 1 (RNN), 3 (GRU: z, r, h), 4 (LSTM: i, o, f, c). MACs: seq * batch *
 * dirs * G * H * (input + H). Runs as the runtime's RNN layer. */
#include <string.h>
#include <strings.h>

#include "rnn.h"

static const int CELL_GATES[PZ_RNN_CELL_COUNT_] = {1, 3, 4};
static const int CELL_FUNCS[PZ_RNN_CELL_COUNT_] = {1, 2, 3};

/* The activations ONNX names, how many of alpha and beta each takes and
 * their defaults (those of the ONNX ops of the same name). */
static const struct {
    const char *name;
    int n_alpha, n_beta;
    float alpha, beta;
} ACTS[PZ_RNN_ACT_COUNT_] = {
    [PZ_RNN_ACT_RELU] = {"Relu", 0, 0, 0, 0},
    [PZ_RNN_ACT_TANH] = {"Tanh", 0, 0, 0, 0},
    [PZ_RNN_ACT_SIGMOID] = {"Sigmoid", 0, 0, 0, 0},
    [PZ_RNN_ACT_AFFINE] = {"Affine", 1, 1, 1.0f, 0.0f},
    [PZ_RNN_ACT_LEAKY_RELU] = {"LeakyRelu", 1, 0, 0.01f, 0},
    [PZ_RNN_ACT_THRESHOLDED_RELU] = {"ThresholdedRelu", 1, 0, 1.0f, 0},
    [PZ_RNN_ACT_SCALED_TANH] = {"ScaledTanh", 1, 1, 1.0f, 1.0f},
    [PZ_RNN_ACT_HARD_SIGMOID] = {"HardSigmoid", 1, 1, 0.2f, 0.5f},
    [PZ_RNN_ACT_ELU] = {"Elu", 1, 0, 1.0f, 0},
    [PZ_RNN_ACT_SOFTSIGN] = {"Softsign", 0, 0, 0, 0},
    [PZ_RNN_ACT_SOFTPLUS] = {"Softplus", 0, 0, 0, 0},
};

pz_status op_rnn_parse(const ir_node *n, pz_rnn_cell cell, pz_rnn_params *p, pz_err *err)
{
    memset(p, 0, sizeof *p);
    p->cell = cell;
    const char *dir;
    int64_t hs, layout, inf = 0, lbr = 0;
    float clip;
    if (op_attr_string(n, "direction", "forward", &dir, err) ||
        op_attr_int(n, "hidden_size", 0, &hs, err) || op_attr_int(n, "layout", 0, &layout, err) ||
        op_attr_float(n, "clip", -1.0f, &clip, err))
        return err->code;
    if (cell == PZ_RNN_CELL_LSTM && op_attr_int(n, "input_forget", 0, &inf, err)) return err->code;
    if (cell == PZ_RNN_CELL_GRU && op_attr_int(n, "linear_before_reset", 0, &lbr, err))
        return err->code;
    if (!strcmp(dir, "forward")) p->direction = PZ_RNN_FORWARD;
    else if (!strcmp(dir, "reverse")) p->direction = PZ_RNN_REVERSE;
    else if (!strcmp(dir, "bidirectional")) p->direction = PZ_RNN_BIDIRECTIONAL;
    else
        return op_err_attr(err, n, "direction", "\"%s\" is not forward, reverse or "
                           "bidirectional", dir);
    if (hs < 0 || hs > INT32_MAX) return op_err_attr(err, n, "hidden_size", "%lld", (long long)hs);
    if (layout != 0 && layout != 1)
        return op_err_attr(err, n, "layout", "%lld is not 0 or 1", (long long)layout);
    if (op_attr(n, "clip") && !(clip > 0.0f))
        return op_err_attr(err, n, "clip", "%g must be positive", clip);
    if (inf != 0 && inf != 1) return op_err_attr(err, n, "input_forget", "must be 0 or 1");
    if (lbr != 0 && lbr != 1) return op_err_attr(err, n, "linear_before_reset", "must be 0 or 1");
    p->hidden = hs;
    p->layout = (int)layout;
    p->clip = clip;
    p->input_forget = (int)inf;
    p->linear_before_reset = (int)lbr;

    /* activations: defaults, or one per function and direction */
    const int nd = p->direction == PZ_RNN_BIDIRECTIONAL ? 2 : 1, nf = CELL_FUNCS[cell];
    static const int DEF[PZ_RNN_CELL_COUNT_][3] = {
        {PZ_RNN_ACT_TANH}, {PZ_RNN_ACT_SIGMOID, PZ_RNN_ACT_TANH},
        {PZ_RNN_ACT_SIGMOID, PZ_RNN_ACT_TANH, PZ_RNN_ACT_TANH}};
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 3; k++) p->act[d * 3 + k] = k < nf ? DEF[cell][k] : PZ_RNN_ACT_TANH;
    const ir_attr *acts = op_attr(n, "activations");
    if (acts) {
        if (op_attr_expect(n, acts, IR_ATTR_STRINGS, err)) return err->code;
        if (acts->n != nf * nd)
            return op_err_attr(err, n, "activations", "has %d names, expected %d (%d per "
                               "direction)", acts->n, nf * nd, nf);
        for (int i = 0; i < acts->n; i++) {
            int f = 0;
            while (f < PZ_RNN_ACT_COUNT_ && strcasecmp(acts->strings[i], ACTS[f].name)) f++;
            if (f == PZ_RNN_ACT_COUNT_)
                return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): attribute "
                               "'activations': \"%s\" is not supported", n->name, n->op_type,
                               acts->strings[i]);
            p->act[(i / nf) * 3 + i % nf] = f;
        }
    }
    /* alpha and beta: GRU and LSTM's are taken in order by the functions
     * that have them, RNN's one per function in the list (as ONNX Runtime
     * reads each); the ops' defaults past the end */
    float al[12], be[12];
    int na, nb;
    if (op_attr_floats(n, "activation_alpha", al, 12, &na, err) ||
        op_attr_floats(n, "activation_beta", be, 12, &nb, err))
        return err->code;
    int ia = 0, ib = 0;
    for (int i = 0; i < nf * nd; i++) {
        const int slot = (i / nf) * 3 + i % nf, f = p->act[slot];
        p->alpha[slot] = ACTS[f].alpha;
        p->beta[slot] = ACTS[f].beta;
        if (cell == PZ_RNN_CELL_RNN) {
            if (ACTS[f].n_alpha && i < na) p->alpha[slot] = al[i];
            if (ACTS[f].n_beta && i < nb) p->beta[slot] = be[i];
            ia = na < nf * nd ? na : nf * nd, ib = nb < nf * nd ? nb : nf * nd;
            continue;
        }
        if (ACTS[f].n_alpha && ia < na) p->alpha[slot] = al[ia++];
        if (ACTS[f].n_beta && ib < nb) p->beta[slot] = be[ib++];
    }
    if (ia < na || ib < nb)
        return op_err_attr(err, n, ia < na ? "activation_alpha" : "activation_beta",
                           "has %d values, the activations take %d", ia < na ? na : nb,
                           ia < na ? ia : ib);
    return PZ_OK;
}

static pz_status want_shape(const ir_node *n, const ir_tensor *t, const char *what, int rank,
                            const int64_t *dims, pz_err *err)
{
    int ok = t->rank == rank;
    for (int i = 0; ok && i < rank; i++) ok = t->dims[i] == dims[i];
    if (ok) return PZ_OK;
    char want[128] = "[";
    for (int i = 0; i < rank; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%lld", i ? "," : "",
                 (long long)dims[i]);
    strcat(want, "]");
    char have[128];
    return op_err(err, n, "input %s has shape %s, expected %s", what,
                  ir_shape_str(t, have, sizeof have), want);
}

pz_status op_rnn_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    pz_rnn_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 1), *r = op_in(g, n, 2);
    const ir_tensor *b = op_in(g, n, 3), *sl = op_in(g, n, 4), *h0 = op_in(g, n, 5);
    const ir_tensor *c0 = op_in(g, n, 6), *pp = op_in(g, n, 7);
    const char *names[8] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
    for (int i = 0; i < 8; i++) {
        const ir_tensor *t = op_in(g, n, i);
        if (t && i != 4 && t->dtype != IR_F32)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input %s has type %s, "
                           "only float32 is supported", n->name, n->op_type, names[i],
                           ir_dtype_name(t->dtype));
    }
    if (!x || !w || !r) return op_err(err, n, "needs inputs X, W and R");
    if (x->rank != 3) return op_err(err, n, "input X has rank %d, expected 3", x->rank);
    if (w->rank != 3 || r->rank != 3)
        return op_err(err, n, "inputs W and R must have rank 3 (they have %d and %d)", w->rank,
                      r->rank);
    const int G = CELL_GATES[p->cell], nd = p->direction == PZ_RNN_BIDIRECTIONAL ? 2 : 1;
    if (!p->hidden) p->hidden = r->dims[2];
    const int64_t H = p->hidden, S = x->dims[p->layout ? 1 : 0], B = x->dims[p->layout ? 0 : 1];
    const int64_t I = x->dims[2];
    if (H <= 0) return op_err_attr(err, n, "hidden_size", "must be positive");
    if (want_shape(n, w, "W", 3, (int64_t[]){nd, G * H, I}, err) ||
        want_shape(n, r, "R", 3, (int64_t[]){nd, G * H, H}, err) ||
        (b && want_shape(n, b, "B", 2, (int64_t[]){nd, 2 * G * H}, err)) ||
        (sl && want_shape(n, sl, "sequence_lens", 1, (int64_t[]){B}, err)))
        return err->code;
    if (sl && sl->dtype != IR_I32)
        return op_err(err, n, "input sequence_lens has type %s, expected int32",
                      ir_dtype_name(sl->dtype));
    const int64_t st[3] = {p->layout ? B : nd, p->layout ? nd : B, H};
    if ((h0 && want_shape(n, h0, "initial_h", 3, st, err)) ||
        (c0 && want_shape(n, c0, "initial_c", 3, st, err)) ||
        (pp && want_shape(n, pp, "P", 2, (int64_t[]){nd, 3 * H}, err)))
        return err->code;
    if (p->layout) op_set_out(g, n, 0, IR_F32, 4, (int64_t[]){B, S, nd, H});
    else op_set_out(g, n, 0, IR_F32, 4, (int64_t[]){S, nd, B, H});
    op_set_out(g, n, 1, IR_F32, 3, st);
    op_set_out(g, n, 2, IR_F32, 3, st);
    return PZ_OK;
}

void op_rnn_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const pz_rnn_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!x || x->rank != 3) return;
    const int64_t nd = p->direction == PZ_RNN_BIDIRECTIONAL ? 2 : 1;
    c->macs = x->dims[0] * x->dims[1] * nd * CELL_GATES[p->cell] * p->hidden *
              (x->dims[2] + p->hidden);
}

pz_status op_rnn_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_RNN, n->params, sizeof(pz_rnn_params));
    return PZ_OK;
}

static pz_status rnn_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return op_rnn_parse(n, PZ_RNN_CELL_RNN, params, err);
}

const op_def op_rnn = {
    .name = "RNN",
    .min_in = 3, .max_in = 6, .min_out = 0, .max_out = 2,
    .params_size = sizeof(pz_rnn_params),
    .parse = rnn_parse,
    .infer = op_rnn_infer,
    .cost = op_rnn_cost,
    .lower = op_rnn_lower,
};
