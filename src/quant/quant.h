/* quant.h - post-training quantization: a float ONNX model in, a QDQ model
 * out (int8 per-channel weights, uint8 per-tensor activations), the format
 * ONNX Runtime's static quantizer writes.
 *
 *   Onnx__ModelProto *m = ...;                  // unpacked with the default allocator
 *   quant_fold_bn(m, dir, &err);                // Conv + BatchNormalization -> Conv
 *   quant_plan p;
 *   quant_plan_make(m, g, NULL, &p);            // g: m loaded (dtypes, constants)
 *   // run the model with p.names[0..n) as extra outputs; per tensor:
 *   quant_range *r = quant_range_new(QUANT_MINMAX);
 *   quant_range_add(r, x, n);  ...  quant_range_get(r, &lo, &hi);
 *   p.lo[i] = lo; p.hi[i] = hi;
 *   quant_write_qdq(m, dir, &p, &err);          // rewrites m in place
 *   quant_plan_free(&p);
 *
 * Every Onnx__* message added here is malloc'd, so free_unpacked(m, NULL)
 * frees the rewritten model. Only src/quant and src/cli/cmd_quantize.c see
 * these protobuf types. */
#ifndef PZ_QUANT_QUANT_H
#define PZ_QUANT_QUANT_H

#include "../front/onnx_internal.h"
#include "../ir/graph.h"

/* ---- calibration (calibrate.c) ------------------------------------------ */
typedef enum { QUANT_MINMAX, QUANT_PERCENTILE, QUANT_ENTROPY } quant_method;

/* "minmax", "percentile", "entropy" -> 0 with *m set; -1 if unknown. */
int quant_method_parse(const char *s, quant_method *m);

/* One tensor's range over the calibration samples. minmax: the running min
 * and max. percentile and entropy take two passes over the same samples:
 * the first (pass 0) finds max|x|, the second (pass 1) fills a 2048-bin
 * histogram of |x| over [0, max|x|]; the threshold t is then
 *   percentile: the bin edge below which 99.999% of the |x| lie;
 *   entropy:    TensorRT's: the edge (of 128..2048 bins) whose clipped
 *               distribution, requantized to 128 levels, has the least
 *               KL divergence from the reference, among the edges
 *               that clip at most 1% of the values (exact zeros are left
 *               out of the histogram: they quantize exactly);
 * and the range is [max(min, -t), min(max, t)]. */
typedef struct quant_range quant_range;
quant_range *quant_range_new(quant_method m);
int quant_range_passes(const quant_range *r);      /* 1 or 2 */
void quant_range_add(quant_range *r, int pass, const float *x, size_t n);
void quant_range_get(const quant_range *r, float *lo, float *hi);
void quant_range_free(quant_range *r);

/* uint8 asymmetric parameters of [lo, hi] (widened to hold 0). */
void quant_u8_params(float lo, float hi, float *scale, uint8_t *zp);

/* ---- the model rewrite (qdq.c) ------------------------------------------ */
/* Turns Constant nodes holding a tensor into initializers, then folds each
 * BatchNormalization into the Conv before it when the Conv's
 * output feeds only it and both have constant parameters. Returns how many
 * were folded, or -1 (err set). */
int quant_fold_bn(Onnx__ModelProto *m, const char *dir, pz_err *err);

/* 1: n is an op whose float inputs and output are quantized (Conv, Gemm,
 * MatMul, Add, Concat, MaxPool, AveragePool, GlobalAveragePool). */
int quant_node_quantizes(const Onnx__NodeProto *n);

/* The activation tensors that get a QuantizeLinear/DequantizeLinear pair. */
typedef struct {
    int n;
    char **names;
    int *same_as;        /* >= 0: reuses that entry's parameters (MaxPool's output) */
    float *lo, *hi;      /* calibrated ranges, filled by the caller */
    unsigned char *keep_float;   /* NULL, or per node of m's graph: 1 stays float */
} quant_plan;

/* g is m loaded by the front end (for the tensors' types and constants).
 * keep_float (NULL: none) marks nodes left in fp32 (mixed precision, see
 * cmd_quantize.c's --accuracy-budget): their weights stay float and they
 * put no pair on their tensors; a pair a quantized neighbour puts there
 * stays (the float node then reads its DequantizeLinear, as in ONNX
 * Runtime's QDQ models with nodes excluded). */
pz_status quant_plan_make(const Onnx__ModelProto *m, const ir_graph *g,
                          const unsigned char *keep_float, quant_plan *p, pz_err *err);
void quant_plan_free(quant_plan *p);

/* Adds the plan's tensors as float outputs of m's graph (to calibrate);
 * quant_outputs_drop removes them again. */
void quant_outputs_add(Onnx__ModelProto *m, const quant_plan *p);
void quant_outputs_drop(Onnx__ModelProto *m, const quant_plan *p);

/* Rewrites m into the QDQ model (see README "int8"): weights of Conv, Gemm
 * and MatMul int8 per channel, biases int32, a pair on each planned tensor,
 * opset raised to 13. Counts of what it did go to the stats when not NULL. */
typedef struct {
    int weights, biases, pairs;
} quant_stats;
pz_status quant_write_qdq(Onnx__ModelProto *m, const char *dir, const quant_plan *p,
                          quant_stats *st, pz_err *err);

/* ---- mixed precision (weights.c) ----------------------------------------- */
/* What int8 costs a node, the accuracy budget's order (cmd_quantize.c):
 * quant_weight_noise: for a Conv/Gemm/MatMul whose weight quantizes
 * (qdq.c's rule), *noise = |w - dq(q(w))|^2 / |w|^2 and 1; 0 for any other
 * node; -1 with err set on a bad initializer. quant_act_noise: the squared
 * error |x - dq(q(x))|^2 of n activations under [lo, hi]'s uint8 params,
 * and their |x|^2 in *sum_x2. */
int quant_weight_noise(Onnx__ModelProto *m, const char *dir, int node, double *noise,
                       pz_err *err);
double quant_act_noise(const float *x, size_t n, float lo, float hi, double *sum_x2);

#endif
