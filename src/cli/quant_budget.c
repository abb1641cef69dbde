/* quant_budget.c - `quantize --accuracy-budget` (and `--precision int8
 * --accuracy-budget`): mixed precision. Every node the quantizer pairs
 * (Conv, Gemm, MatMul, Add, Concat, pooling) is a candidate, ordered by
 * what int8 costs it (its weights' and its inputs' relative quantization
 * noise, measured on the calibration samples: no extra compiles); the
 * search keeps the k most costly in fp32, k the least that meets the
 * budget, each try a QDQ model written, compiled and run on the
 * calibration samples against the float model's outputs. k grows 0, 1, 2,
 * 4, ... then bisects: a try costs a compile and n runs, and keeping more
 * layers float does not lower the accuracy in practice (not guaranteed:
 * the result is checked, the least k is not promised). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../gen/net_build.h"
#include "../util/progress.h"
#include "quantize.h"

int cli_quant_budget_parse(const char *s, quant_budget *b)
{
    char *end;
    b->cos = strtod(s, &end);
    b->top1 = 0;
    if (end != s && *end == ',') {
        const char *t = end + 1;
        b->top1 = strtod(t, &end);
        if (end == t || b->top1 <= 0 || b->top1 > 1) end = (char *)"x";
    }
    if (end == s || *end || !(b->cos > 0 && b->cos <= 1))
        return cli_usage("--accuracy-budget wants COS or COS,TOP1: a cosine in (0, 1] and a "
                         "top-1 agreement share in (0, 1] (got \"%s\")", s);
    return 0;
}

pz_status cli_quant_plan_keep(const Onnx__ModelProto *m, const ir_graph *g0,
                              const unsigned char *keep, const quant_plan *full, quant_plan *p,
                              pz_err *err)
{
    if (quant_plan_make(m, g0, keep, p, err)) return err->code;
    for (int i = 0; i < p->n; i++) {   /* the full plan's calibrated ranges, by name */
        int j = 0;
        while (j < full->n && strcmp(full->names[j], p->names[i])) j++;
        if (j == full->n)
            return pz_fail(err, PZ_ERR_INTERNAL, "accuracy budget: tensor \"%s\" has no range",
                           p->names[i]);
        p->lo[i] = full->lo[j], p->hi[i] = full->hi[j];
    }
    return PZ_OK;
}

/* The QDQ model with keep[] left float, run on every sample: the least
 * cosine and the top-1 agreement against the float outputs. */
static pz_status try_keep(const quant_budget_ctx *c, const unsigned char *keep, double *cos_min,
                          double *top1, pz_err *err)
{
    size_t len = onnx__model_proto__get_packed_size(c->m);
    uint8_t *buf = pz_xmalloc(len ? len : 1);
    onnx__model_proto__pack(c->m, buf);
    Onnx__ModelProto *q = onnx__model_proto__unpack(NULL, len, buf);
    free(buf);
    if (!q) return pz_fail(err, PZ_ERR_INTERNAL, "accuracy budget: the model does not unpack");
    quant_plan p = {0};
    ir_graph *g = NULL;
    ir_model *im = NULL;
    gen_net gn = {0};
    float **out = NULL;
    if (cli_quant_plan_keep(q, c->g0, keep, c->full, &p, err) ||
        quant_write_qdq(q, c->dir, &p, NULL, err))
        goto done;
    if (cli_quant_load(q, c->dir, c->k, c->in_t, c->n_mi, &g, err)) goto done;
    if (g->n_outputs != c->n_out) {
        pz_fail(err, PZ_ERR_INTERNAL, "accuracy budget: %d outputs, the float model %d",
                g->n_outputs, c->n_out);
        goto done;
    }
    if (cli_lower(g, c->k, &im, err) || gen_net_build(im, cli_threads(c->k), &gn, err)) goto done;
    out = pz_xcalloc((size_t)c->n_out, sizeof *out);
    for (int o = 0; o < c->n_out; o++)
        out[o] = pz_xmalloc((size_t)(c->ref_n[o] ? c->ref_n[o] : 1) * sizeof **out);
    const void *ins[64];
    int agree = 0;
    *cos_min = 1;
    for (int s = 0; s < c->n_samples; s++) {
        for (int i = 0; i < g->n_inputs && i < 64; i++)
            ins[i] = c->in_t[s * c->n_mi + g->input_pos[i]].data;
        pz_net_run(gn.net, ins, (void **)out);
        double dot = 0, na = 0, nb = 0;
        for (int o = 0; o < c->n_out; o++) {
            const float *r = c->ref[s * c->n_out + o];
            for (int64_t e = 0; e < c->ref_n[o]; e++)
                dot += (double)r[e] * out[o][e], na += (double)r[e] * r[e],
                    nb += (double)out[o][e] * out[o][e];
        }
        double cs = na > 0 && nb > 0 ? dot / sqrt(na * nb) : (na == nb ? 1 : 0);
        if (cs < *cos_min) *cos_min = cs;
        int64_t ar = 0, ao = 0;
        const float *r0 = c->ref[s * c->n_out];
        for (int64_t e = 1; e < c->ref_n[0]; e++) {
            if (r0[e] > r0[ar]) ar = e;
            if (out[0][e] > out[0][ao]) ao = e;
        }
        agree += ar == ao;
    }
    *top1 = c->n_samples ? (double)agree / c->n_samples : 1;
done:
    if (out)
        for (int o = 0; o < c->n_out; o++) free(out[o]);
    free(out);
    if (gn.net) gen_net_free(&gn);
    ir_model_free(im);
    ir_graph_free(g);
    quant_plan_free(&p);
    onnx__model_proto__free_unpacked(q, NULL);
    return err->code;
}

static const double *sort_sens;
static int by_sens(const void *a, const void *b)
{
    double x = sort_sens[*(const int *)a], y = sort_sens[*(const int *)b];
    return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

pz_status cli_quant_budget_search(const quant_budget_ctx *c, quant_budget b,
                                  unsigned char **keep, int *n_kept, double *cos_min,
                                  double *top1, pz_err *err)
{
    size_t nn = c->m->graph->n_node;
    int *order = pz_xmalloc((nn ? nn : 1) * sizeof *order), n_c = 0;
    for (size_t i = 0; i < nn; i++)
        if (c->sens[i] >= 0) order[n_c++] = (int)i;
    sort_sens = c->sens;
    qsort(order, (size_t)n_c, sizeof *order, by_sens);
    unsigned char *kp = pz_xcalloc(nn ? nn : 1, 1);
    /* k -> the figures of the model with the first k of order float */
    int lo = -1, hi = -1;   /* lo: the largest k known to miss; hi: the least known to meet */
    double hc = 0, ht = 0;
    pz_progress_begin("quantize: accuracy budget", 0);
    for (int k = 0;; k = k ? 2 * k : 1) {
        if (k > n_c) k = n_c;
        memset(kp, 0, nn ? nn : 1);
        for (int i = 0; i < k; i++) kp[order[i]] = 1;
        double cs, t1;
        if (try_keep(c, kp, &cs, &t1, err)) goto fail;
        pz_progress_step(1);
        if (cs >= b.cos && t1 >= b.top1) {
            hi = k, hc = cs, ht = t1;
            break;
        }
        lo = k;
        if (k == n_c) {
            pz_progress_end();
            pz_fail(err, PZ_ERR_INPUT, "--accuracy-budget: cosine >= %g and top-1 agreement "
                    ">= %g not met even with all %d quantized layers in fp32 (least "
                    "cosine %.6f, top-1 agreement %.3f over %d samples): the int8 activations "
                    "(Q/DQ pairs of other ops) cost more", b.cos, b.top1, n_c, cs, t1, c->n_samples);
            goto fail;
        }
    }
    while (hi - lo > 1) {
        int k = lo + (hi - lo) / 2;
        memset(kp, 0, nn ? nn : 1);
        for (int i = 0; i < k; i++) kp[order[i]] = 1;
        double cs, t1;
        if (try_keep(c, kp, &cs, &t1, err)) goto fail;
        pz_progress_step(1);
        if (cs >= b.cos && t1 >= b.top1) hi = k, hc = cs, ht = t1;
        else lo = k;
    }
    pz_progress_end();
    memset(kp, 0, nn ? nn : 1);
    for (int i = 0; i < hi; i++) kp[order[i]] = 1;
    *keep = kp;
    *n_kept = hi;
    *cos_min = hc;
    *top1 = ht;
    free(order);
    return PZ_OK;
fail:
    free(order);
    free(kp);
    return err->code;
}
