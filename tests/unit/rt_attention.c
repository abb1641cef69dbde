/* rt_attention.c - the fast float32 attention kernel and the softmax rows
 * kernel of every ISA here (fast.h: the scalar twin, AVX-512) against the
 * references (attention_ref.c in double, softmax_ref.c): shapes with tails
 * of keys, query blocks and head sizes, grouped kv heads, masks broadcast
 * over heads and rows, 3-D strides, a row masked everywhere (NaN as the
 * reference), keys in several passes of P V with a short last one, 1 and 3
 * workers; no denormal softmax output. Within 2e-5 of the largest output. */
#include "rt/kernels/attention/attention_f32.h"
#include "rt_test.h"

typedef struct {
    int64_t B, Hq, Hkv, S, L, Dk, Dv;
    int mask;          /* 0 none, 1 [B, 1, 1, T] (padding), 2 [1, Hq, S, T] */
    int three_d;       /* Q, K, V, Y as [B, rows, heads * D] */
    int dead_row;      /* mask row 0 all -inf (mask 2 only) */
} attn_case;

/* Strides of (b, h, row) of a [B, H, rows, D] or [B, rows, H * D] tensor. */
static void strides(int three_d, int64_t H, int64_t rows, int64_t D, int64_t *s)
{
    if (three_d) s[0] = rows * H * D, s[1] = D, s[2] = H * D;
    else s[0] = H * rows * D, s[1] = rows * D, s[2] = D;
}

static void run_case(const attn_case *c, const pz_fast_kernels *const *ks, int nk)
{
    pz_attention_desc d = {.dtype = PZ_F32, .mask_dtype = PZ_F32, .B = c->B, .Hq = c->Hq,
                           .Hkv = c->Hkv, .S = c->S, .L = c->L, .T = c->L, .Dk = c->Dk,
                           .Dv = c->Dv, .scale = 1.0 / sqrt((double)c->Dk)};
    strides(c->three_d, c->Hq, c->S, c->Dk, d.qs);
    strides(c->three_d, c->Hkv, c->L, c->Dk, d.ks);
    strides(c->three_d, c->Hkv, c->L, c->Dv, d.vs);
    strides(c->three_d, c->Hq, c->S, c->Dv, d.ys);
    const int64_t ny = c->B * c->Hq * c->S * c->Dv;
    float *q = new_rand(c->B * c->Hq * c->S * c->Dk), *k = new_rand(c->B * c->Hkv * c->L * c->Dk);
    float *v = new_rand(c->B * c->Hkv * c->L * c->Dv), *m = NULL;
    for (int64_t i = 0; i < c->B * c->Hq * c->S * c->Dk; i++) q[i] *= 3;   /* peaked rows */
    if (c->mask == 1) {
        m = new_rand(c->B * c->L);
        for (int64_t i = 0; i < c->B * c->L; i++) m[i] = i % 5 == 4 ? -INFINITY : 0;
        d.ms[0] = c->L, d.ms[3] = 1;
    } else if (c->mask == 2) {
        m = new_rand(c->Hq * c->S * c->L);
        if (c->dead_row)   /* row 0 of every head */
            for (int64_t h = 0; h < c->Hq; h++)
                for (int64_t t = 0; t < c->L; t++) m[h * c->S * c->L + t] = -INFINITY;
        d.ms[1] = c->S * c->L, d.ms[2] = c->L, d.ms[3] = 1;
    }
    d.has_mask = m != NULL;
    d.mask_t = c->L;
    double *dscr = malloc((size_t)(3 * d.T) * sizeof *dscr);
    float *ref = new_nan(ny), *got = new_nan(ny), *want = new_nan(ny);
    for (int w = 0; w < 3; w++)
        pz_any_attention__ref(&d, q, k, v, m, NULL, NULL, NULL, ref, NULL, NULL, NULL, dscr, w, 3);
    float *scr = malloc((size_t)(3 * pz_attn_scratch_floats(&d)) * sizeof *scr);
    for (int i = 0; i < nk; i++) {
        for (int nth = 1; nth <= 3; nth += 2) {
            fill_nan(got, ny);
            for (int w = 0; w < nth; w++) ks[i]->attention(&d, q, k, v, m, got, scr, w, nth);
            /* the dead row: NaN in both, the rest within tolerance */
            int ok_nan = 1;
            memcpy(want, ref, (size_t)ny * sizeof *want);
            for (int b = 0; b < c->B && c->dead_row; b++)
                for (int h = 0; h < c->Hq; h++)
                    for (int64_t j = 0; j < c->Dv; j++) {
                        int64_t o = b * d.ys[0] + h * d.ys[1] + j;
                        ok_nan &= isnan(got[o]) && isnan(want[o]);
                        got[o] = want[o] = 0;
                    }
            double e = nerr(got, want, want, ny);
            checkf(e <= 2e-5 && ok_nan, "attention %s B%lld Hq%lld Hkv%lld S%lld L%lld Dk%lld "
                   "Dv%lld mask%d 3d%d dead%d nth %d: err %.3g, NaN rows %s", ks[i]->name,
                   (long long)c->B, (long long)c->Hq, (long long)c->Hkv, (long long)c->S,
                   (long long)c->L, (long long)c->Dk, (long long)c->Dv, c->mask, c->three_d,
                   c->dead_row, nth, e, ok_nan ? "ok" : "WRONG");
        }
    }
    free(q), free(k), free(v), free(m), free(dscr), free(ref), free(got), free(want), free(scr);
}

static void softmax_cases(const pz_fast_kernels *const *ks, int nk)
{
    const int64_t shapes[][2] = {{1, 1}, {3, 7}, {5, 16}, {4, 33}, {2, 128}, {7, 1000}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const int64_t rows = shapes[s][0], n = shapes[s][1];
        float *x = new_rand(rows * n), *ref = new_nan(rows * n), *got = new_nan(rows * n);
        for (int64_t i = 0; i < rows * n; i++) x[i] *= 20;
        if (n > 1) x[n] = -INFINITY;   /* row 1 has a -inf: weight 0 */
        for (int is_log = 0; is_log < 2; is_log++) {
            pz_f32_softmax__ref(is_log, rows, n, 1, x, ref, 0, 1);
            for (int i = 0; i < nk; i++) {
                fill_nan(got, rows * n);
                for (int w = 0; w < 2; w++) ks[i]->softmax_rows(is_log, rows, n, x, got, w, 2);
                /* log-softmax's -inf element: equal, not a difference */
                if (is_log && n > 1) got[n] = ref[n] = 0;
                double e = nerr(got, ref, ref, rows * n);
                checkf(e <= 2e-6, "softmax %s log %d rows %lld n %lld: err %.3g", ks[i]->name,
                       is_log, (long long)rows, (long long)n, e);
            }
        }
        free(x), free(ref), free(got);
    }
    /* e^x under float's normal range is 0, never a denormal (exp_neg_ps: each
     * denormal result costs a microcode assist) */
    float xs[16] = {0, -1, -86, -88, -90, -95, -100, -103, -110, -200, -INFINITY}, ys[16];
    for (int i = 0; i < nk; i++) {
        ks[i]->softmax_rows(0, 1, 11, xs, ys, 0, 1);
        int sub = 0;
        for (int j = 0; j < 11; j++) sub += fpclassify(ys[j]) == FP_SUBNORMAL;
        checkf(!sub && ys[3] == 0 && ys[2] > 0 && fabsf(ys[0] + ys[1] + ys[2] - 1) < 1e-6f,
               "softmax %s: %d denormal outputs, e^-88 %g, e^-86 %g", ks[i]->name, sub,
               (double)ys[3], (double)ys[2]);
    }
    /* a row of all -inf, and a row with NaN: NaN, as the reference */
    float x[8] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, 1, NAN, 2, 3}, y[8];
    for (int i = 0; i < nk; i++) {
        ks[i]->softmax_rows(0, 2, 4, x, y, 0, 1);
        int all = 1;
        for (int j = 0; j < 8; j++) all &= isnan(y[j]) != 0;
        checkf(all, "softmax %s: -inf and NaN rows give NaN", ks[i]->name);
    }
}

int main(void)
{
    const pz_fast_kernels *ks[3];
    int nk = fast_kernels_here(ks);
    const attn_case cases[] = {
        {1, 12, 12, 128, 128, 64, 64, 1, 0, 0},   /* BERT-base's shape */
        {1, 2, 2, 197, 197, 64, 64, 0, 0, 0},     /* ViT's 197 tokens */
        {2, 4, 2, 5, 9, 8, 12, 2, 0, 0},          /* GQA, tails everywhere */
        {2, 3, 3, 33, 17, 20, 70, 2, 1, 1},       /* 3-D, Dv over 64, a dead row */
        {1, 1, 1, 1, 1, 1, 1, 0, 0, 0},
        {3, 2, 1, 40, 100, 16, 16, 1, 1, 0},
        {1, 2, 2, 384, 384, 64, 64, 1, 1, 0},     /* BERT-384: P V in passes of keys */
        {1, 2, 1, 70, 150, 24, 40, 2, 1, 0},      /* a last pass of 22 keys, Dv tails */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i], ks, nk);
    softmax_cases(ks, nk);
    return test_summary("rt_attention");
}
