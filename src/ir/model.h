/* model.h - the low-level IR of Paleozoic (Table 3): Model -> F-Blocks ->
 * Layers -> Operators, each F-Block and Layer carrying its knobs.
 *
 *   Model     the execution flow: ir_version, opset, the ops used, f_blocks[]
 *   F-Block   consecutive layers fused into one unit: layers[], MP, in, out,
 *             and how its work is split over its MP cores (load balance)
 *   Layer     one layer of the graph: its operator, MP, precision, sparsity,
 *             in, out
 *   Operator  what is computed: op_type and parsed attributes
 *
 * Lowering (ir_model_lower, src/ops/op_lower.h: it walks the op table)
 * makes one Layer per graph node that does work at run time (but views:
 * Reshape, Flatten, ... of an intermediate, which are no layer) and one
 * F-Block per Layer with MP = 1: the "none" strategy of DLFusion. An optimizer
 * strategy or a schedule file then sets the knobs with ir_model_partition().
 */
#ifndef PZ_IR_MODEL_H
#define PZ_IR_MODEL_H

#include "graph.h"

typedef enum { IR_PREC_FP32, IR_PREC_BF16, IR_PREC_INT8 } ir_precision;
/* How an fp32 block stores the constant weights of its MatMul and Gemm
 * layers (--weights): FP16 rounds them to half precision once, the compute
 * stays fp32 (the runtime's PZ_PREC_F16W). A bf16 block stores bf16. */
typedef enum { IR_WEIGHTS_FP32, IR_WEIGHTS_FP16 } ir_weights;
typedef enum { IR_SPLIT_AUTO, IR_SPLIT_BANDS, IR_SPLIT_CHANNELS } ir_split;
/* A conv layer's algorithm (the runtime's pz_conv_algo, same values): AUTO
 * leaves it to the runtime's rule; the optimizer sets DIRECT or WINOGRAD. */
typedef enum { IR_ALGO_AUTO, IR_ALGO_DIRECT, IR_ALGO_WINOGRAD } ir_algo;

const char *ir_precision_name(ir_precision p);
const char *ir_weights_name(ir_weights w);   /* "fp32", "fp16" */
const char *ir_split_name(ir_split s);
const char *ir_algo_name(ir_algo a);   /* "auto", "direct", "winograd" */

/* ir_layer.sparsity: the sparse kernel on the model's own zero blocks, no pruning */
#define IR_SPARSITY_AUTO (-1.0f)

typedef struct {
    const struct op_def *op;   /* op_type, and how to parse/infer/cost it */
    const void *params;        /* parsed attributes (owned by the graph node) */
} ir_operator;

typedef struct {
    int node;                  /* index into the graph's nodes */
    ir_operator op;
    int mp;                    /* cores when run as its own block */
    ir_precision precision;
    float sparsity;            /* the sparsity knob (src/opt/sparsity.c): 0 dense, R in (0, 1)
                                * weight blocks pruned to R, IR_SPARSITY_AUTO the model's own */
    ir_algo algo;              /* Conv: direct or Winograd (AUTO: the runtime's rule) */
    const int *in, *out;       /* value ids (the node's) */
    int n_in, n_out;
} ir_layer;

typedef struct {
    int first, count;          /* layers [first, first + count) */
    int mp;                    /* cores (worker threads) running the block */
    ir_split split;            /* load balance: spatial bands or channel split */
    int strip;                 /* rows of the last layer per tile, 0 = auto */
    ir_precision precision;
    ir_weights weights;        /* storage of its MatMul/Gemm weights (fp32 blocks) */
    int *in, *out;             /* values crossing the block boundary */
    int n_in, n_out;
} ir_fblock;

typedef struct {
    ir_graph *g;               /* not owned */
    int64_t ir_version;
    int opset;
    unsigned char *ops_used;   /* [OP_COUNT]: the Op Set */
    ir_layer *layers;
    int n_layers;
    ir_fblock *blocks;
    int n_blocks;
    int batch;
    /* the concatenation knob the graph passes ran with (cli_lower): 1 on,
     * 0 off; the groups merged and the layers in them */
    int concat, concat_groups, concat_layers;
    /* 1 once a strategy measured the convs' algorithms (opt_measure_algos,
     * on the sparse kernels where a layer is sparse): pruning keeps them */
    int algos_measured;
    /* [g->n_values]: for the output of a view node (op_def.view) that
     * lowering made no layer, the value whose bytes it is; else -1. The
     * plan (src/gen/plan.c) declares it as a runtime view of that value. */
    int *view_src;
} ir_model;

void ir_model_free(ir_model *m);

/* Sets the fusion scheme: n blocks of sizes[i] consecutive layers with mps[i]
 * cores each (max_mp is the core count). Checks the partition covers every
 * layer exactly once and each MP is in [1, max_mp]; errors say which block. */
pz_status ir_model_partition(ir_model *m, const int *sizes, const int *mps, int n, int max_mp,
                             pz_err *err);

#endif
