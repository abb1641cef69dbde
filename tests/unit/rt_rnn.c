/* rt_rnn.c - the RNN layer's planned path (the input projection GEMM, the
 * step kernel of each ISA: scalar, AVX2, AVX-512) against its reference
 * (PZ_ISA=ref), through whole nets: RNN, GRU (linear_before_reset 0 and 1)
 * and LSTM (peepholes, input_forget); forward, reverse, bidirectional;
 * hidden sizes below, at and above a 16-unit block; batch 1 to 3 with
 * sequence_lens shorter than the sequence; initial states; layouts 0 and
 * 1; the default activations (the vector gates) and others with a clip
 * (the shared scalar gates); 1, 2 and 3 workers. */
#include "rt_test.h"

typedef struct {
    pz_rnn_params p;
    int64_t S, B, I;
    int lens, h0, bias, peep;
} rnn_case;

/* Runs the case's net at isa with nth workers: outputs Y, Y_h, Y_c into
 * out[0..3) (Y_c only for LSTM). 0, or -1 when compile refuses. */
static int run_case(const rnn_case *c, const float *const *data, const char *isa, int nth,
                    float **out)
{
    const pz_rnn_params *p = &c->p;
    const int64_t H = p->hidden, nd = p->direction == PZ_RNN_BIDIRECTIONAL ? 2 : 1;
    const int64_t G = p->cell == PZ_RNN_CELL_RNN ? 1 : p->cell == PZ_RNN_CELL_GRU ? 3 : 4;
    const int64_t S = c->S, B = c->B, I = c->I;
    pz_net *net = pz_net_new("rnn");
    int in[8] = {-1, -1, -1, -1, -1, -1, -1, -1}, o[3] = {-1, -1, -1};
    const int64_t xd[3] = {p->layout ? B : S, p->layout ? S : B, I};
    const int64_t sd[3] = {p->layout ? B : nd, p->layout ? nd : B, H};
    in[0] = pz_net_input(net, "X", PZ_F32, 3, xd);
    in[1] = pz_net_const(net, "W", PZ_F32, 3, (int64_t[]){nd, G * H, I}, data[1]);
    in[2] = pz_net_const(net, "R", PZ_F32, 3, (int64_t[]){nd, G * H, H}, data[2]);
    if (c->bias) in[3] = pz_net_const(net, "B", PZ_F32, 2, (int64_t[]){nd, 2 * G * H}, data[3]);
    if (c->lens) in[4] = pz_net_input(net, "lens", PZ_I32, 1, (int64_t[]){B});
    if (c->h0) in[5] = pz_net_input(net, "h0", PZ_F32, 3, sd);
    if (c->h0 && p->cell == PZ_RNN_CELL_LSTM) in[6] = pz_net_input(net, "c0", PZ_F32, 3, sd);
    if (c->peep) in[7] = pz_net_const(net, "P", PZ_F32, 2, (int64_t[]){nd, 3 * H}, data[7]);
    const int64_t yd[4] = {p->layout ? B : S, p->layout ? S : nd, p->layout ? nd : B, H};
    o[0] = pz_net_tensor(net, "Y", PZ_F32, 4, yd);
    o[1] = pz_net_tensor(net, "Y_h", PZ_F32, 3, sd);
    const int no = p->cell == PZ_RNN_CELL_LSTM ? 3 : 2;
    if (no == 3) o[2] = pz_net_tensor(net, "Y_c", PZ_F32, 3, sd);
    pz_net_layer(net, "rnn", PZ_OP_RNN, p, sizeof *p, in, 8, o, no);
    for (int i = 0; i < no; i++) pz_net_output(net, o[i]);
    pz_net_block(net, 0, 1, nth);
    pz_run_options opts = rt_options_isa(isa);
    char err[256];
    if (pz_net_compile(net, nth, &opts, err, sizeof err)) {
        checkf(0, "compile: %s", err);
        pz_net_free(net);
        return -1;
    }
    const void *ins[4];
    int ni = 0;
    ins[ni++] = data[0];
    if (c->lens) ins[ni++] = data[4];
    if (c->h0) ins[ni++] = data[5];
    if (c->h0 && p->cell == PZ_RNN_CELL_LSTM) ins[ni++] = data[6];
    pz_net_run(net, ins, (void *const *)out);
    pz_net_free(net);
    return 0;
}

static void test_case(const rnn_case *c, const char *what)
{
    const pz_rnn_params *p = &c->p;
    const int64_t H = p->hidden, nd = p->direction == PZ_RNN_BIDIRECTIONAL ? 2 : 1;
    const int64_t G = p->cell == PZ_RNN_CELL_RNN ? 1 : p->cell == PZ_RNN_CELL_GRU ? 3 : 4;
    const int64_t S = c->S, B = c->B, I = c->I;
    const int64_t n[8] = {S * B * I, nd * G * H * I, nd * G * H * H, nd * 2 * G * H, B,
                          nd * B * H, nd * B * H, nd * 3 * H};
    float *data[8];
    for (int i = 0; i < 8; i++) data[i] = new_rand(n[i]);
    int32_t *lens = (int32_t *)data[4];
    for (int64_t b = 0; b < B; b++)   /* 1..S, the last row the full length */
        lens[b] = b == B - 1 ? (int32_t)S : 1 + (int32_t)((uint32_t)(frand() * 1e4f + 1e4f) % S);
    const int64_t no[3] = {S * nd * B * H, nd * B * H, nd * B * H};
    float *ref[3], *got[3];
    for (int i = 0; i < 3; i++) ref[i] = new_nan(no[i]), got[i] = new_nan(no[i]);
    if (run_case(c, (const float *const *)data, "ref", 1, ref) == 0) {
        static const char *const ISAS[3] = {"scalar", "avx2", "avx512"};
        const bool have[3] = {true, cpu_has_avx2(), cpu_has_avx512()};
        const int outs = p->cell == PZ_RNN_CELL_LSTM ? 3 : 2;
        for (int k = 0; k < 3; k++)
            for (int nth = 1; nth <= 3 && have[k]; nth++) {
                for (int i = 0; i < 3; i++) fill_nan(got[i], no[i]);
                if (run_case(c, (const float *const *)data, ISAS[k], nth, got)) continue;
                for (int i = 0; i < outs; i++)
                    checkf(nerr(got[i], ref[i], ref[i], no[i]) <= 2e-5,
                           "%s %s nth%d output %d: err %.3g", what, ISAS[k], nth, i,
                           nerr(got[i], ref[i], ref[i], no[i]));
            }
    }
    for (int i = 0; i < 8; i++) free(data[i]);
    for (int i = 0; i < 3; i++) free(ref[i]), free(got[i]);
}

static void test_rnn(void)
{
    static const int64_t HS[] = {1, 5, 16, 17, 33};
    int k = 0;
    for (int cell = 0; cell < PZ_RNN_CELL_COUNT_; cell++)
        for (int dir = 0; dir < PZ_RNN_DIR_COUNT_; dir++)
            for (size_t hi = 0; hi < sizeof HS / sizeof HS[0]; hi++, k++) {
                rnn_case c = {.S = 1 + k % 5, .B = 1 + k % 3, .I = 1 + (k * 7) % 11};
                pz_rnn_params *p = &c.p;
                p->cell = (pz_rnn_cell)cell;
                p->direction = (pz_rnn_dir)dir;
                p->hidden = HS[hi];
                p->layout = k % 2;
                p->clip = -1.0f;
                p->linear_before_reset = (k / 2) % 2;
                p->input_forget = cell == PZ_RNN_CELL_LSTM && k % 4 == 3;
                c.lens = k % 3 != 0;
                c.h0 = k % 4 != 1;
                c.bias = k % 5 != 2;
                c.peep = cell == PZ_RNN_CELL_LSTM && k % 2 == 0;
                static const int DEF[3][3] = {{PZ_RNN_ACT_TANH, PZ_RNN_ACT_TANH, PZ_RNN_ACT_TANH},
                                              {PZ_RNN_ACT_SIGMOID, PZ_RNN_ACT_TANH, PZ_RNN_ACT_TANH},
                                              {PZ_RNN_ACT_SIGMOID, PZ_RNN_ACT_TANH, PZ_RNN_ACT_TANH}};
                for (int i = 0; i < 6; i++) {
                    p->act[i] = DEF[cell][i % 3];
                    p->alpha[i] = 0.3f, p->beta[i] = 0.6f;
                }
                if (k % 3 == 2) {   /* other activations and a clip: the scalar gates */
                    p->clip = 0.8f;
                    p->act[0] = PZ_RNN_ACT_HARD_SIGMOID;
                    p->act[1] = PZ_RNN_ACT_SOFTSIGN;
                    p->act[3] = PZ_RNN_ACT_LEAKY_RELU;
                    p->act[4] = PZ_RNN_ACT_ELU;
                }
                char what[160];
                snprintf(what, sizeof what, "cell %d dir %d H %lld S %lld B %lld layout %d lens %d "
                         "h0 %d acts %s", cell, dir, (long long)p->hidden, (long long)c.S,
                         (long long)c.B, p->layout, c.lens, c.h0, k % 3 == 2 ? "other" : "default");
                test_case(&c, what);
            }
    /* batch 2 rows at a time (AVX-512) and more blocks than workers */
    rnn_case big = {.S = 7, .B = 5, .I = 19};
    big.p = (pz_rnn_params){.cell = PZ_RNN_CELL_LSTM, .direction = PZ_RNN_BIDIRECTIONAL,
                            .hidden = 70, .clip = -1.0f,
                            .act = {PZ_RNN_ACT_SIGMOID, PZ_RNN_ACT_TANH, PZ_RNN_ACT_TANH,
                                    PZ_RNN_ACT_SIGMOID, PZ_RNN_ACT_TANH, PZ_RNN_ACT_TANH}};
    big.lens = big.h0 = big.bias = big.peep = 1;
    test_case(&big, "LSTM bidirectional H 70 B 5");
    big.p.cell = PZ_RNN_CELL_GRU;
    big.peep = 0;
    test_case(&big, "GRU lbr 0 bidirectional H 70 B 5");
}

int main(void)
{
    test_rnn();
    return test_summary("rt_rnn");
}
