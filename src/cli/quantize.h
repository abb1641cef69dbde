/* quantize.h - what cmd_quantize.c and quant_budget.c share: the float
 * model loaded from its unpacked proto, and the accuracy-budget search. */
#ifndef PZ_CLI_QUANTIZE_H
#define PZ_CLI_QUANTIZE_H

#include "../quant/quant.h"
#include "cli.h"

/* m packed and loaded as `run --input` would (given: the first sample's
 * n_given inputs, which bind the shapes). */
pz_status cli_quant_load(const Onnx__ModelProto *m, const char *dir, const cli_knobs *k,
                         const ir_tensor *given, int n_given, ir_graph **g, pz_err *err);

/* --accuracy-budget COS[,TOP1]: the int8 model's outputs against the float
 * model's on the calibration samples. Met when every sample's cosine (all
 * outputs as one vector) is >= cos and, when top1 > 0, the share of
 * samples whose first output has the float argmax is >= top1. */
typedef struct {
    double cos, top1;
} quant_budget;

/* "0.999" or "0.999,0.95" -> 0 with *b set; else 2 with the message said. */
int cli_quant_budget_parse(const char *s, quant_budget *b);

/* What the search reads: the float model (BatchNormalization folded, as
 * the plan saw it) and its load g0, the full plan with calibrated ranges,
 * the samples, the float outputs ref[s * n_out + o] of ref_n[o] floats,
 * and per node the estimated cost of int8 (sens[i] < 0: not a
 * candidate). */
typedef struct {
    Onnx__ModelProto *m;
    const char *dir;
    const cli_knobs *k;
    const ir_graph *g0;
    const quant_plan *full;
    const ir_tensor *in_t;   /* [n_samples][n_mi] */
    int n_mi, n_samples;
    float *const *ref;
    const int64_t *ref_n;
    int n_out;
    const double *sens;
} quant_budget_ctx;

/* The plan of m with keep[] float (quant_plan_make), the ranges taken by
 * name from full. */
pz_status cli_quant_plan_keep(const Onnx__ModelProto *m, const ir_graph *g0,
                              const unsigned char *keep, const quant_plan *full, quant_plan *p,
                              pz_err *err);

/* The fewest candidates kept in fp32, most sensitive first, that meet b:
 * *keep (per node, malloc'd) and the figures of that model; all int8 when
 * that meets b. The budget out of reach even with every candidate float:
 * PZ_ERR_INPUT, said. */
pz_status cli_quant_budget_search(const quant_budget_ctx *c, quant_budget b,
                                  unsigned char **keep, int *n_kept, double *cos_min,
                                  double *top1, pz_err *err);

#endif
